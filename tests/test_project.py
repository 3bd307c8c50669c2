"""Importing recordings into a dataset project: real corpus folders, broken files, resuming."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import soundfile
from conftest import shared_path

from trainer.dataset.project import DatasetProject


def _hashes(folder):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_import_real_corpus_folders_and_resume(tmp_path):
    """cards + librivox import with text, curated copies and measurements; originals untouched; re-import adds 0."""
    cards, librivox = shared_path("corpus", "real-speech", "cards"), shared_path("corpus", "real-speech", "librivox")
    before = {**_hashes(cards), **_hashes(librivox)}
    project = DatasetProject(tmp_path / "my project")
    seen = []
    result = project.import_sources([cards, librivox], workers=2, progress=lambda d, t: seen.append((d, t)))
    assert len(result.added) == 10 and not result.failed and not result.problems
    assert seen[-1] == (10, 10)
    clip = project.clips["001"]
    assert clip.text == "ten of clubs" and clip.text_origin == "metadata.csv:1"
    assert clip.analysis["sample_rate"] == 16000 and clip.analysis["speech_s"] > 0.3
    audio, rate = soundfile.read(str(project.clip_path("001")))
    assert rate == 16000 and audio.ndim == 1 and len(audio) > 8000
    assert {**_hashes(cards), **_hashes(librivox)} == before
    again = DatasetProject(tmp_path / "my project").import_sources([cards], workers=2)
    assert again.added == [] and again.unchanged == 5
    manifest = json.loads((tmp_path / "my project" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == 1 and len(manifest["clips"]) == 10


def test_broken_clips_are_recorded_and_the_rest_imported(tmp_path):
    """A truncated WAV and a text file named .wav fail with messages; the good clip is imported."""
    source = tmp_path / "src"
    source.mkdir()
    t = np.arange(32000) / 16000
    soundfile.write(str(source / "good.wav"), (0.3 * np.sin(2 * np.pi * 180 * t)).astype(np.float32), 16000)
    data = (source / "good.wav").read_bytes()
    (source / "cut.wav").write_bytes(data[: len(data) // 3])
    (source / "notes.wav").write_text("not audio")
    project = DatasetProject(tmp_path / "project")
    result = project.import_sources([source], workers=16)
    assert result.added == ["good"] and sorted(result.failed) == ["cut", "notes"]
    assert "truncated" in project.clips["cut"].error and "not a readable audio file" in project.clips["notes"].error
    assert not project.clip_path("cut").exists()


def test_same_names_from_two_sources_get_distinct_ids(tmp_path):
    """Two clips called take.wav in different folders both import, under different ids."""
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        soundfile.write(
            str(tmp_path / folder / "take.wav"), np.full(8000, 0.1 * (folder == "a") + 0.05, np.float32), 16000
        )
    project = DatasetProject(tmp_path / "p")
    result = project.import_sources([tmp_path / "a", tmp_path / "b"], workers=2)
    assert sorted(result.added) == ["take", "take_2"]


def test_import_the_target_voice_corpus(tmp_path):
    """All 240 target-voice clips (32 kHz FLAC) import with their text, and the health checks run on them."""
    from trainer.dataset.analysis import ClipAnalysis
    from trainer.dataset.health import ClipRecord, check

    project = DatasetProject(tmp_path / "target")
    result = project.import_sources([shared_path("corpus", "target-voice")], workers=2)
    assert len(result.added) == 240 and not result.failed
    records = [
        ClipRecord(c.id, c.text, ClipAnalysis(**c.analysis), c.error, c.audio_sha256) for c in project.clips.values()
    ]
    blocking = [f for f in check(records) if f.blocking]
    assert all(c.analysis["sample_rate"] == 32000 for c in project.clips.values())
    assert len(blocking) < 24  # a clean corpus: at most a few clips shorter than a segment
