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


def test_a_sidecar_that_is_not_text_is_named_not_read_with_replacement_characters(tmp_path):
    """A Windows-1252 clip.txt ("Café") was read as "Caf\ufffd" without a word; now it is a problem naming the file,
    line and byte, and the clip comes without a transcript. A UTF-16 clip.lab with its byte-order mark is read."""
    _wav(tmp_path / "a.wav")
    (tmp_path / "a.txt").write_bytes("Café au lait.".encode("cp1252"))
    _wav(tmp_path / "b.wav")
    (tmp_path / "b.lab").write_text("Crème brûlée.", encoding="utf-16")
    found = scan([tmp_path])
    clips = {c.audio.name: c for c in found.clips}
    assert clips["a.wav"].text is None and clips["b.wav"].text == "Crème brûlée."
    assert found.problems == [f"{tmp_path / 'a.txt'}: line 1 is not UTF-8 text (byte 3); save the file as UTF-8"]


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
    assert scan([archive]).problems == [f"{archive}: archives need a folder to unpack into"]


def test_unknown_files_are_reported(tmp_path):
    """A file that is neither audio, metadata nor archive is named in the problems."""
    notes = tmp_path / "notes.docx"
    notes.write_bytes(b"x")
    assert scan([notes]).problems == [f"{notes}: not a folder, archive, metadata.csv or recording"]


def _ljspeech(folder, texts):
    """A tiny LJSpeech folder: metadata.csv and wavs/ID.wav for each ``{id: text}``."""
    for clip_id in texts:
        _wav(folder / "wavs" / f"{clip_id}.wav")
    (folder / "metadata.csv").write_text("".join(f"{i}|{t}\n" for i, t in texts.items()), encoding="utf-8")
    return folder


def _zip(archive, files):
    """``archive`` holding ``{name in archive: path}``."""
    with zipfile.ZipFile(archive, "w") as out:
        for name, path in files.items():
            out.write(path, name)
    return archive


def _tar(archive, folder, mode):
    """``archive`` (``w:gz``, ``w:xz``) holding ``folder``'s files under their relative names."""
    import tarfile

    with tarfile.open(archive, mode) as out:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                out.add(path, str(path.relative_to(folder)))
    return archive


def test_a_zip_inside_a_zip_is_unpacked(tmp_path):
    """outer.zip holding inner.zip holding metadata.csv + wavs/: both clips found with their texts."""
    source = _ljspeech(tmp_path / "src", {"c01": "First line.", "c02": "Second line."})
    inner = _zip(tmp_path / "inner.zip", {n: source / n for n in ("metadata.csv", "wavs/c01.wav", "wavs/c02.wav")})
    outer = _zip(tmp_path / "outer.zip", {"inner.zip": inner})
    result = scan([outer], unpack_dir=tmp_path / "unpacked")
    assert sorted(c.text for c in result.clips) == ["First line.", "Second line."], result.problems
    assert not result.problems and all(c.audio.is_relative_to(tmp_path / "unpacked") for c in result.clips)


def test_tar_archives_inside_a_zip_and_in_a_folder(tmp_path):
    """A .tar.xz inside a zip, and a .tar.gz lying in a dropped folder, are unpacked like zips."""
    first = _ljspeech(tmp_path / "one", {"a1": "From the xz."})
    second = _ljspeech(tmp_path / "two", {"b1": "From the gz."})
    xz = _tar(tmp_path / "one.tar.xz", first, "w:xz")
    outer = _zip(tmp_path / "outer.zip", {"data/one.tar.xz": xz})
    shared = tmp_path / "shared"
    shared.mkdir()
    _tar(shared / "two.tgz", second, "w:gz")
    result = scan([outer, shared], unpack_dir=tmp_path / "unpacked")
    assert sorted(c.text for c in result.clips) == ["From the gz.", "From the xz."], result.problems


def test_archives_are_unpacked_to_a_bounded_depth_and_size(tmp_path, monkeypatch):
    """Archives nested past MAX_DEPTH, and an archive whose contents would pass the size bound, are named and
    not unpacked; a tar member pointing outside is refused."""
    import tarfile

    from trainer.dataset import archives

    source = _ljspeech(tmp_path / "src", {"c01": "Deep."})
    nested = _zip(tmp_path / "level0.zip", {n: source / n for n in ("metadata.csv", "wavs/c01.wav")})
    for level in range(1, archives.MAX_DEPTH + 2):
        nested = _zip(tmp_path / f"level{level}.zip", {nested.name: nested})
    deep = scan([nested], unpack_dir=tmp_path / "deep")
    assert not deep.clips and any(f"nested more than {archives.MAX_DEPTH} deep" in p for p in deep.problems)

    evil = tmp_path / "evil.tar.gz"
    with tarfile.open(evil, "w:gz") as out:
        out.add(source / "wavs" / "c01.wav", "../../escape.wav")
        out.add(source / "wavs" / "c01.wav", "wavs/c01.wav")
    result = scan([evil], unpack_dir=tmp_path / "evil")
    assert not list(tmp_path.glob("escape.wav")) and not (tmp_path / "evil" / "escape.wav").exists()
    assert len(result.clips) == 1 and any("escape.wav" in p for p in result.problems), result.problems

    monkeypatch.setattr(archives, "MAX_UNPACKED_BYTES", 4000)
    big = _zip(tmp_path / "big.zip", {"metadata.csv": source / "metadata.csv", "wavs/c01.wav": source / "wavs/c01.wav"})
    result = scan([big], unpack_dir=tmp_path / "big")
    assert not result.clips and not (tmp_path / "big" / "big").exists()
    assert any("would unpack to" in p and "big.zip" in p for p in result.problems), result.problems


def test_an_import_keeps_only_what_it_unpacked_from_archives_with_recordings(tmp_path):
    """Into an existing project: outer.zip holding inner.zip holding only a README leaves nothing under unpacked/
    (it was left there for good); beside a zipped dataset in the same import, the dataset's unpacked folder stays
    (its clips' source) and the README archive's goes."""
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path / "project")
    (tmp_path / "readme.md").write_text("Recorded in March.", encoding="utf-8")
    junk = _zip(
        tmp_path / "outer.zip", {"inner.zip": _zip(tmp_path / "inner.zip", {"readme.md": tmp_path / "readme.md"})}
    )
    assert not project.import_sources([junk], workers=1).added
    assert not (project.folder / "unpacked").exists()
    source = _ljspeech(tmp_path / "src", {"c01": "First line."})
    data = _zip(tmp_path / "data.zip", {n: source / n for n in ("metadata.csv", "wavs/c01.wav")})
    assert len(project.import_sources([junk, data], workers=1).added) == 1
    assert sorted(p.name for p in (project.folder / "unpacked").iterdir()) == ["data"]
