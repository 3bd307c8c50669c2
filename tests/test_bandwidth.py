"""Recordings narrower than the voice's rate: ten real 16 kHz clips fine-tuned into joe (22,050 Hz) are named by
their rate and their measured bandwidth in the report and the pre-flight, with a 16 kHz voice offered (issue 30,
kind 8); an upsampled 16 kHz file is still 8 kHz wide, in the project, its fixes and the training cache."""

from __future__ import annotations

import contextlib
import io
import shutil

import numpy as np
import pytest
import soundfile
import soxr
from conftest import shared_path


def _real_16k() -> list[tuple[str, np.ndarray, str]]:
    """The ten real 16 kHz recordings of the corpus (cards and LibriVox): ``(id, samples, transcript)``."""
    clips = []
    for part in ("cards", "librivox"):
        folder = shared_path("corpus", "real-speech", part)
        for row in (folder / "metadata.csv").read_text(encoding="utf-8").splitlines():
            name, text = row.split("|", 1)
            audio, rate = soundfile.read(str(folder / f"{name}.wav"), dtype="float32")
            assert rate == 16000
            clips.append((name, audio, text))
    return clips


@pytest.fixture(scope="module")
def narrow(tmp_path_factory):
    """The ten clips imported with ``voice-studio dataset import`` into a project for joe, as the user had them
    (16,000 Hz WAVs); the project and what the import said on stderr."""
    from studio.cli import main
    from trainer.dataset.project import DatasetProject

    source = tmp_path_factory.mktemp("src")
    for name, audio, text in _real_16k():
        soundfile.write(str(source / f"{name}.wav"), audio, 16000)
        (source / f"{name}.txt").write_text(text, encoding="utf-8")
    folder = tmp_path_factory.mktemp("project") / "p"
    said = io.StringIO()
    with contextlib.redirect_stderr(said):
        assert main(["dataset", "import", str(source), "--project", str(folder), "--workers", "1"]) == 0
    return DatasetProject(folder), said.getvalue()


def _copy(project, tmp_path):
    from trainer.dataset.project import DatasetProject

    shutil.copytree(project.folder, tmp_path / "copy")
    return DatasetProject(tmp_path / "copy")


def _options(dataset, tmp_path, start="joe"):
    from trainer.run.options import RunOptions

    return RunOptions(dataset=dataset, out=tmp_path / "run", start=start, preset="test")


def _band_warning(findings) -> str:
    said = [f.message for f in findings if "wide" in f.message]
    assert len(said) == 1, [f.message for f in findings]
    return said[0]


def test_bandwidth_is_measured_not_read_from_the_header():
    """Real 16 kHz speech upsampled with soxr to 22,050 and 48,000 Hz is still under 8 kHz wide; the 32 kHz corpus
    resampled to 22,050 Hz reaches above 10 kHz; digital silence and a clip too short have none."""
    from trainer.dataset.bandwidth import bandwidth_hz

    for _, audio, _ in _real_16k()[::5]:  # a card and a LibriVox clip
        for rate in (22050, 48000):
            width = bandwidth_hz(soxr.resample(audio, 16000, rate, quality="VHQ"), rate)
            assert 6000 < width < 8100, (rate, width)
    wide, rate = soundfile.read(str(shared_path("corpus", "target-voice", "wavs", "slt_0002.flac")), dtype="float32")
    assert bandwidth_hz(soxr.resample(wide, rate, 22050, quality="VHQ"), 22050) > 10000
    assert bandwidth_hz(np.zeros(22050, np.float32), 22050) is None
    assert bandwidth_hz(wide[:100], rate) is None


def test_the_long_term_spectrum_is_scipys_welch():
    """The spectrum the bandwidth is read from is ``scipy.signal.welch`` (Hann, half overlap, density) to float64
    rounding (1e-12 of its peak), on real 16 kHz speech, a 32 kHz clip and its 48 kHz resampling (an odd number of
    segments)."""
    from scipy.signal import welch

    from trainer.dataset.bandwidth import _long_term_spectrum

    _, real, _ = _real_16k()[0]
    wide, rate = soundfile.read(str(shared_path("corpus", "target-voice", "wavs", "slt_0002.flac")), dtype="float32")
    for audio, at in ((real, 16000), (wide, rate), (soxr.resample(wide, rate, 48000)[:-77], 48000)):
        freqs, power = _long_term_spectrum(audio, at)
        theirs = welch(audio.astype(np.float64), at, window="hann", nperseg=len(freqs) * 2 - 2)
        assert np.array_equal(freqs, theirs[0]), at
        assert np.abs(power - theirs[1]).max() <= 1e-12 * theirs[1].max(), at


def test_sixteen_khz_clips_into_joe_are_named_in_the_report_and_the_preflight(narrow, tmp_path):
    """The reported case: the import notes it, each clip is a narrow-band warning (not skipped), the report says the
    rate, the measured width and what it means for joe's 22,050 Hz, and the pre-flight says the same with the 16 kHz
    voice offered."""
    from trainer.dataset.report import build_report, to_markdown
    from trainer.run.preflight import preflight

    project, said = narrow
    assert "note: 10 of the 10 clips added (10 at 16,000 Hz) are only 7.5–8.0 kHz wide, for a voice at 22,050" in said
    report = build_report(project)
    kinds = {f.clip_id: f for f in report.findings if f.kind == "narrow_band"}
    assert set(kinds) == set(project.clips) and not any(f.blocking for f in kinds.values())
    assert all(6000 < project.clips[i].analysis["bandwidth_hz"] < 8100 for i in kinds)
    text = to_markdown(report)
    assert "Narrow band: 10 clips, warnings" in text
    assert "10 at 16,000 Hz" in text and "22,050 Hz" in text and "11.0 kHz" in text
    said = _band_warning(preflight(_options(project.folder, tmp_path)))
    for words in ("10 clips", "10 at 16,000 Hz", "kHz wide", "22,050 Hz", "up to 11.0 kHz", "x-low", "--rate 16000"):
        assert words in said, (words, said)


def test_upsampled_clips_are_still_narrow_after_a_resample_fix(narrow, tmp_path):
    """Sibling: Resample to 22,050 Hz makes every header say 22,050 (the rate warning goes) but the clips are as
    narrow as before: the report and the pre-flight still say so, and the fix summary says no band was added. Clips
    that peaked at full scale are held under it (resampling rang over it and the trainer left them out)."""
    from trainer.dataset.fixes import apply_and_describe
    from trainer.dataset.report import build_report
    from trainer.run.preflight import preflight

    project = _copy(narrow[0], tmp_path)
    peaked = {i for i, c in project.clips.items() if c.analysis["peak"] >= 0.999}
    said = apply_and_describe(project, resample_to=22050, workers=1)
    assert "10 resampled (16,000 → 22,050 Hz)" in said and "no band" in said, said
    assert {c.analysis["sample_rate"] for c in project.clips.values()} == {22050}
    # clips that peaked at full scale rang over it once upsampled (1.04): held under it, none left out for it
    held = {i for i, c in project.clips.items() if any(e.startswith("hold peak") for e in c.edits)}
    assert peaked and peaked <= held and f"{len(held)} held under full scale after resampling" in said, said
    assert all(c.analysis["over_full_scale"] == 0 for c in project.clips.values())
    assert all(c.analysis["bandwidth_hz"] < 8100 for c in project.clips.values())
    assert sum(f.kind == "narrow_band" for f in build_report(project).findings) == 10
    findings = preflight(_options(project.folder, tmp_path))
    assert not any(f.fix == "resample" for f in findings)
    assert "22,050 Hz" in _band_warning(findings)


def test_a_piper_folder_and_a_training_cache_are_measured_too(narrow, tmp_path):
    """Siblings: a Piper folder of the clips upsampled to 22,050 Hz WAVs (headers say 22,050), and a training
    cache built from the project (the cache build upsamples): the pre-flight measures what they hold."""
    pytest.importorskip("torch")
    from trainer.data.preprocess import build_cache
    from trainer.run.preflight import preflight

    piper = tmp_path / "piper"
    (piper / "wavs").mkdir(parents=True)
    rows = []
    for name, audio, text in _real_16k():
        soundfile.write(str(piper / "wavs" / f"{name}.wav"), soxr.resample(audio, 16000, 22050, quality="VHQ"), 22050)
        rows.append(f"{name}|{text}")
    (piper / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    assert "10 at 22,050 Hz" in _band_warning(preflight(_options(piper, tmp_path)))  # as the headers say
    cache = build_cache(narrow[0], tmp_path / "cache", workers=1)
    said = _band_warning(preflight(_options(cache, tmp_path)))
    assert "22,050 Hz" in said and "kHz wide" in said


def test_the_sixteen_khz_way_on_is_taken_from_scratch_on_a_project_and_on_a_cache(narrow, tmp_path):
    """The way the warning offers: from scratch with the low preset, the project is a 16,000 Hz voice's data (no
    rate warning, no band warning); a cache built at 16,000 Hz trains from scratch at its own rate, as training
    does (Check refused it: "the training cache is at 16000 Hz but training is at 22050 Hz")."""
    pytest.importorskip("torch")
    from dataclasses import replace

    from trainer.data.preprocess import CacheSettings, build_cache
    from trainer.run.preflight import preflight
    from trainer.start.points import run_rate

    project = narrow[0]
    low = replace(_options(project.folder, tmp_path, start="scratch"), preset="low")
    assert run_rate(low.start, low.dataset, low.preset) == 16000
    assert [f.message for f in preflight(low) if f.level in ("error", "warning") and "Hz" in f.message] == []
    cache = build_cache(project, tmp_path / "cache", CacheSettings(sample_rate=16000), workers=1)
    scratch = _options(cache, tmp_path, start="scratch")
    assert run_rate(scratch.start, scratch.dataset, scratch.preset) == 16000
    assert [f.message for f in preflight(scratch) if f.blocking] == []
    medium = replace(_options(project.folder, tmp_path, start="scratch"), preset="medium")
    assert "22,050 Hz" in _band_warning(preflight(medium))


def test_train_says_the_band_before_it_trains(narrow, tmp_path):
    """voice-studio train (no --check) on the 16 kHz clips from joe says what Check says about their band before
    it trains (it said nothing: the issue's instance)."""
    from trainer.run.train import create_run

    said = io.StringIO()
    create_run(_options(narrow[0].folder, tmp_path), echo=said)
    warnings = [line for line in said.getvalue().splitlines() if line.startswith("warning:") and "kHz wide" in line]
    assert len(warnings) == 1 and "22,050 Hz" in warnings[0] and "x-low or low preset" in warnings[0], said.getvalue()


def test_train_check_gives_the_command_for_the_resample_it_offers(narrow, tmp_path):
    """train --check asks whether to resample the curated copies (the Train page has a button for it): the CLI
    prints the command that does it, and that command, pasted, resamples them."""
    from conftest import sh_words

    from studio.cli import main
    from studio.cli.train import _command_for
    from trainer.run.preflight import preflight

    project = _copy(narrow[0], tmp_path)
    offer = next(f for f in preflight(_options(project.folder, tmp_path)) if f.fix == "resample")
    said = _command_for(offer, project.folder)
    assert said.startswith(" With: voice-studio dataset fix ") and said.endswith("--resample --rate 22050"), said
    assert main(sh_words(said.removeprefix(" With: "))[1:]) == 0
    assert {c.analysis["sample_rate"] for c in type(project)(project.folder).clips.values()} == {22050}


def test_a_cache_that_cannot_be_read_is_the_datasets_fault_in_check(tmp_path):
    """Check on a training cache whose cache.json is cut short names the cache, not "the starting voice" (the rate of
    a run from scratch is read from the cache)."""
    from trainer.run.preflight import preflight

    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / "cache.json").write_text('{"version": 1, "sett', encoding="utf-8")
    said = [f.message for f in preflight(_options(cache, tmp_path, start="scratch")) if f.blocking]
    assert len(said) == 1 and "starting voice" not in said[0] and "cache.json" in said[0], said
