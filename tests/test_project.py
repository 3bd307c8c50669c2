"""Importing recordings into a dataset project: real corpus folders, broken files, resuming."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
import soundfile
from conftest import shared_path

from trainer.dataset.manifest import MANIFEST_VERSION
from trainer.dataset.project import DatasetProject


def _hashes(folder):
    return {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_import_real_corpus_folders_and_resume(tmp_path):
    """cards + librivox import with text, curated copies and measurements; originals untouched; re-import adds 0."""
    cards, librivox = shared_path("corpus", "real-speech", "cards"), shared_path("corpus", "real-speech", "librivox")
    before = {**_hashes(cards), **_hashes(librivox)}
    project = DatasetProject.create(tmp_path / "my project")
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
    assert manifest["version"] == MANIFEST_VERSION and len(manifest["clips"]) == 10


def test_broken_clips_are_recorded_and_the_rest_imported(tmp_path):
    """A truncated WAV and a text file named .wav fail with messages; the good clip is imported."""
    source = tmp_path / "src"
    source.mkdir()
    t = np.arange(32000) / 16000
    soundfile.write(str(source / "good.wav"), (0.3 * np.sin(2 * np.pi * 180 * t)).astype(np.float32), 16000)
    data = (source / "good.wav").read_bytes()
    (source / "cut.wav").write_bytes(data[: len(data) // 3])
    (source / "notes.wav").write_text("not audio")
    project = DatasetProject.create(tmp_path / "project")
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
    project = DatasetProject.create(tmp_path / "p")
    result = project.import_sources([tmp_path / "a", tmp_path / "b"], workers=2)
    assert sorted(result.added) == ["take", "take_2"]


def test_import_the_target_voice_corpus(tmp_path):
    """All 240 target-voice clips (32 kHz FLAC) import with their text, and the health checks run on them."""
    from trainer.dataset.export import records as project_records
    from trainer.dataset.health import check

    project = DatasetProject.create(tmp_path / "target")
    result = project.import_sources([shared_path("corpus", "target-voice")], workers=2)
    assert len(result.added) == 240 and not result.failed
    records = project_records(project)
    blocking = [f for f in check(records) if f.blocking]
    assert all(c.analysis["sample_rate"] == 32000 for c in project.clips.values())
    assert len(blocking) < 24  # a clean corpus: at most a few clips shorter than a segment


def test_export_piper_layout_and_report(tmp_path):
    """Export writes Piper's layout (22,050 Hz, 16-bit); blocked clips are left out with the reason."""
    from trainer.dataset.export import export_piper
    from trainer.dataset.report import build_report, to_html, to_markdown

    source = tmp_path / "src"
    source.mkdir()
    soundfile.write(str(source / "silent.wav"), np.zeros(48000, np.float32), 48000)
    cards = shared_path("corpus", "real-speech", "cards")
    project = DatasetProject.create(tmp_path / "p")
    project.import_sources([cards, source / "silent.wav"], workers=2)
    result = export_piper(project, tmp_path / "out")
    assert sorted(result.written) == ["001", "002", "003", "004", "005"]
    assert "silent" in result.skipped
    lines = (tmp_path / "out" / "metadata.csv").read_text(encoding="utf-8").splitlines()
    assert lines[0] == "001|ten of clubs" and len(lines) == 5
    info = soundfile.info(str(tmp_path / "out" / "wavs" / "001.wav"))
    assert (info.samplerate, info.channels, info.subtype) == (22050, 1, "PCM_16")
    built = build_report(project)
    report = to_markdown(built)
    assert "- clips: 6" in report and "`silent`" in report and "skipped by the trainer" in report
    usable = sum(soundfile.info(str(cards / f"00{n}.wav")).duration for n in range(1, 6))
    assert f"- audio: {round(usable)} s the trainer can use" in report  # seconds, not "0.00 hours (0.1 minutes)"
    assert sum(built.histograms["duration_s"].counts) == 6  # the silent clip is blocked but its samples are sound
    assert sum(built.histograms["phonemes_per_second"].counts) == 5  # no speaking rate without speech
    assert "not in the histograms" not in report
    assert built.coverage and built.unused and not set(built.coverage) & set(built.unused)
    page = to_html(built)
    assert page.startswith("<!doctype html>") and "<code>silent</code>" in page and page.count("class='bar'") >= 24


def test_cli_dataset_commands(tmp_path):
    """voice-studio dataset import/report/text/export run headless; importing nothing usable exits non-zero."""
    import os
    import subprocess
    import sys

    def cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "studio", "dataset", *args],
            capture_output=True,
            text=True,
            timeout=300,
            env=os.environ.copy(),
        )

    cards = shared_path("corpus", "real-speech", "cards")
    result = cli("import", str(cards), "--project", str(tmp_path / "p"), "--workers", "2")
    assert result.returncode == 0, result.stderr
    assert "5 clips added" in result.stderr
    result = cli("report", str(tmp_path / "p"), "-o", str(tmp_path / "report.md"))
    assert result.returncode == 0 and "# Dataset report" in (tmp_path / "report.md").read_text(encoding="utf-8")
    result = cli("text", str(tmp_path / "p"), "002", "queen of hearts")
    assert result.returncode == 0 and "kwˈiːn" in result.stderr and "phoneme_ids" in result.stderr
    assert DatasetProject(tmp_path / "p").clips["002"].text == "queen of hearts"
    result = cli("text", str(tmp_path / "p"), "nope", "x")
    assert result.returncode == 2 and "no clip 'nope'" in result.stderr
    result = cli("export", str(tmp_path / "p"), "--out", str(tmp_path / "out"), "--rate", "16000")
    assert result.returncode == 0 and soundfile.info(str(tmp_path / "out" / "wavs" / "003.wav")).samplerate == 16000
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "bad.wav").write_text("not audio")
    result = cli("import", str(junk), "--project", str(tmp_path / "q"))
    assert result.returncode == 1 and "not a readable audio file" in result.stderr


def test_import_bad_and_odd_inputs(tmp_path):
    """Odd but usable files import; broken ones fail with a message; health flags the rest; originals unchanged."""
    from trainer.dataset.export import records
    from trainer.dataset.health import check

    src = tmp_path / "src"
    src.mkdir()
    t = np.arange(96000) / 96000
    tone = (0.2 * np.sin(2 * np.pi * 200 * t)).astype(np.float32)
    soundfile.write(str(src / "six.wav"), np.repeat(tone[:, None], 6, axis=1), 96000)
    nan = tone.copy()
    nan[10:20] = np.nan
    soundfile.write(str(src / "nan.wav"), nan, 96000, subtype="FLOAT")
    (src / "empty.wav").write_bytes(b"")
    soundfile.write(str(src / "silent.wav"), np.zeros(22050, np.float32), 22050)
    long_text = " ".join(["The quick brown fox jumps over the lazy dog."] * 16)[:700]
    soundfile.write(str(src / "long.wav"), np.zeros(22050 * 60, np.float32), 22050)
    (src / "long.txt").write_text(long_text, encoding="utf-8")
    before = _hashes(src)
    project = DatasetProject.create(tmp_path / "p")
    result = project.import_sources([src], workers=16)
    assert sorted(result.added) == ["long", "nan", "silent", "six"] and sorted(result.failed) == ["empty"]
    assert "empty file" in project.clips["empty"].error
    assert project.clips["nan"].analysis["nonfinite_samples"] == 10  # imported, measured, kept out (below)
    assert project.clips["six"].analysis["channels"] == 6
    assert soundfile.info(str(project.clip_path("six"))).channels == 1
    kinds = {(f.clip_id, f.kind) for f in check(records(project))}
    assert ("long", "too_long") in kinds and ("silent", "silent") in kinds and ("nan", "non_finite") in kinds
    assert project.clips["long"].analysis["num_phoneme_ids"] > 400
    assert _hashes(src) == before


def test_fixes_change_the_copies_not_the_sources(tmp_path):
    """Trim, normalize and resample rewrite the curated copies, record the edits, and leave sources alone."""
    cards = shared_path("corpus", "real-speech", "cards")
    before = _hashes(cards)
    project = DatasetProject.create(tmp_path / "p")
    project.import_sources([cards], workers=2)
    old = dict(project.clips["002"].analysis)  # 0.29 s before its speech: trimmed
    fixed = project.apply_fixes(["001", "002"], resample_to=22050, trim=True, normalize=True, workers=2)
    assert fixed == ["001", "002"]
    clip = DatasetProject(tmp_path / "p").clips["002"]  # saved in the manifest
    assert (
        clip.edits[0] == "trim"
        and clip.edits[1].startswith("normalize")
        and clip.edits[2] == "resample 16,000 → 22,050 Hz"
    )
    assert clip.analysis["sample_rate"] == 22050 and clip.analysis["duration_s"] < old["duration_s"]
    assert clip.analysis["loudness_lufs"] == pytest.approx(-23.0, abs=1.0) or clip.analysis["peak_dbfs"] > -1.1
    assert soundfile.info(str(project.clip_path("001"))).samplerate == 22050
    assert project.clips["003"].edits == []
    assert _hashes(cards) == before


def test_trimming_again_cuts_nothing(tmp_path):
    """A second trim of real recordings leaves each curated copy's samples and edits as the first left them (it cut a
    few ms more each time); a clip with less silence than the margin is not marked trimmed at all."""
    cards = shared_path("corpus", "real-speech", "cards")
    project = DatasetProject.create(tmp_path / "p")
    project.import_sources([cards], workers=2)
    ids = sorted(project.clips)
    project.apply_fixes(ids, trim=True, workers=2)
    first = {i: (soundfile.read(str(project.clip_path(i)))[0], list(project.clips[i].edits)) for i in ids}
    assert first["002"][1] == ["trim"] and first["001"][1] == []  # 001: 0.06 s before its speech, under the margin
    project.apply_fixes(ids, trim=True, workers=2)
    for i in ids:
        samples, edits = soundfile.read(str(project.clip_path(i)))[0], project.clips[i].edits
        assert np.array_equal(samples, first[i][0]) and edits == first[i][1], i


def test_a_group_measures_each_clip_as_alone(tmp_path, joe, monkeypatch):
    """Clips measured in one group (batched VAD), a broken one among them, equal each clip measured alone,
    also when the group's memory bound splits it."""
    from trainer.dataset import jobs

    (tmp_path / "broken.wav").write_bytes(b"not audio at all")
    sources = [shared_path("corpus", "target-voice", "wavs", f"slt_000{n}.flac") for n in (1, 2)]
    sources.insert(1, tmp_path / "broken.wav")
    sources.append(shared_path("corpus", "real-speech", "cards", "001.wav"))  # 16 kHz, another length
    config = str(joe.config.path)
    work = [(f"c{i}", str(s), str(tmp_path / f"c{i}.wav"), "Hello there.", config) for i, s in enumerate(sources)]
    grouped = jobs.process_group(work)
    alone = [jobs.process(job) for job in work]
    assert [o["status"] for o in grouped] == ["ok", "error", "ok", "ok"]
    assert grouped == alone
    assert "broken.wav" in grouped[1]["error"]
    monkeypatch.setattr(jobs, "GROUP_SAMPLES", 100_000)  # about 3 s of 32 kHz audio per batch
    assert jobs.process_group(work) == alone
    write = jobs.write_float_wav

    def disk_full_for_c2(path, audio, rate):
        if path.name == "c2.wav":
            raise OSError(28, "No space left on device")
        write(path, audio, rate)

    monkeypatch.setattr(jobs, "write_float_wav", disk_full_for_c2)
    failed = jobs.process_group(work)
    assert failed[2]["status"] == "error" and "slt_0002.flac" in failed[2]["error"]
    assert "No space left" in failed[2]["error"]
    assert [failed[i] for i in (0, 1, 3)] == [alone[i] for i in (0, 1, 3)]


def test_workers_forked_from_a_preloaded_server_or_spawned_on_request(monkeypatch):
    """On Linux, workers come from a fork server that has the heavy modules loaded, never PyTorch;
    VOICE_STUDIO_WORKERS=spawn gives fresh interpreters instead."""
    import sys

    from trainer.dataset.workers import worker_pool

    if not sys.platform.startswith("linux"):
        pytest.skip("fork servers are used on Linux only")
    with worker_pool(1, 1) as pool:
        assert pool.submit(_loaded, ["onnxruntime", "scipy.signal", "torch"]).result() == [True, True, False]
    monkeypatch.setenv("VOICE_STUDIO_WORKERS", "spawn")
    with worker_pool(1, 1) as pool:
        assert pool.submit(_loaded, ["onnxruntime", "scipy.signal", "torch"]).result() == [False, False, False]


def _loaded(names: list[str]) -> list[bool]:
    import sys

    return [name in sys.modules for name in names]
