"""Finding recordings and transcripts in dropped folders, files and zip archives."""

from __future__ import annotations

import zipfile

import numpy as np
import soundfile
from conftest import shared_path

from trainer.dataset.sources import scan


def _wav(path, seconds: float = 0.3, rate: int = 16000):
    path.parent.mkdir(parents=True, exist_ok=True)
    soundfile.write(str(path), np.zeros(int(seconds * rate), np.float32), rate)
    return path


def test_shared_target_voice_folder(tmp_path):
    """The LJSpeech-layout corpus gives 240 clips with text from metadata.csv and no problems."""
    result = scan([shared_path("corpus", "target-voice")])
    assert len(result.clips) == 240 and not result.problems
    first = result.clips[0]
    assert first.audio.name == "slt_0001.flac" and first.text.startswith("The kettle")
    assert first.origin == "metadata.csv:1"


def test_two_corpus_folders_at_once():
    """Dropping two folders finds both sets."""
    result = scan([shared_path("corpus", "real-speech", "cards"), shared_path("corpus", "real-speech", "librivox")])
    assert len(result.clips) == 10 and all(c.text for c in result.clips)


def test_sidecar_transcripts_and_audio_without_text(tmp_path):
    """clip.txt and clip.lab give the text; a lone recording comes without text."""
    _wav(tmp_path / "a.wav")
    (tmp_path / "a.txt").write_text("From a text file.\n", encoding="utf-8")
    _wav(tmp_path / "b.flac")
    (tmp_path / "b.lab").write_text("From a lab file.", encoding="utf-8")
    _wav(tmp_path / "c.wav")
    clips = {c.audio.name: c for c in scan([tmp_path]).clips}
    assert clips["a.wav"].text == "From a text file." and clips["a.wav"].origin == "a.txt"
    assert clips["b.flac"].text == "From a lab file."
    assert clips["c.wav"].text is None


def test_metadata_naming_a_missing_recording_is_reported(tmp_path):
    """An entry without its audio is a problem naming the line; the others are found."""
    _wav(tmp_path / "wavs" / "one.wav")
    (tmp_path / "metadata.csv").write_text("one|First.\ntwo|Second.\n", encoding="utf-8")
    result = scan([tmp_path])
    assert [c.text for c in result.clips] == ["First."]
    assert len(result.problems) == 1 and "line 2" in result.problems[0] and "'two'" in result.problems[0]


def test_zip_archives_are_unpacked_into_the_given_folder(tmp_path):
    """A zipped dataset is unpacked under unpack_dir (never beside the archive); unsafe members are skipped."""
    source = tmp_path / "src"
    _wav(source / "wavs" / "x.wav")
    (source / "metadata.csv").write_text("x|Zipped line.\n", encoding="utf-8")
    archive = tmp_path / "data set.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.write(source / "metadata.csv", "metadata.csv")
        zf.write(source / "wavs" / "x.wav", "wavs/x.wav")
        zf.writestr("../escape.txt", "outside")
    unpack = tmp_path / "unpacked"
    result = scan([archive], unpack_dir=unpack)
    assert [c.text for c in result.clips] == ["Zipped line."]
    assert result.clips[0].audio.is_relative_to(unpack)
    assert any("points outside" in p for p in result.problems)
    assert not (tmp_path / "escape.txt").exists()
    assert scan([archive]).problems == [f"{archive}: zip archives need a folder to unpack into"]


def test_unknown_files_are_reported(tmp_path):
    """A file that is neither audio, metadata nor archive is named in the problems."""
    notes = tmp_path / "notes.docx"
    notes.write_bytes(b"x")
    assert scan([notes]).problems == [f"{notes}: not a folder, zip archive, metadata.csv or recording"]
