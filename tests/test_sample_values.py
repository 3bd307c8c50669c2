"""Absurd sample values (a float WAV with one sample of 1e30, NaN, inf, peaks of 4.0, DC offset, denormals) are
measured at import, named in the health report, kept out of export and the training cache, and fixable."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest
import soundfile
from conftest import shared_path


def _speech() -> tuple[np.ndarray, int, str]:
    corpus = shared_path("corpus", "target-voice")
    audio, rate = soundfile.read(str(corpus / "wavs" / "slt_0001.flac"), dtype="float32")
    text = (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()[0].split("|")[1]
    return audio, rate, text


def _variants(audio: np.ndarray) -> dict[str, np.ndarray]:
    """The reported clip (one sample of 1e30) and its siblings, each from the same real speech."""
    middle = len(audio) // 2
    big, nan, inf, tiny = audio.copy(), audio.copy(), audio.copy(), audio.copy()
    big[middle] = 1e30
    nan[middle : middle + 10] = np.nan
    inf[middle] = np.inf
    tiny[:50] = 1e-40  # float32 denormals in the leading silence
    return {
        "big": big,
        "nan": nan,
        "inf": inf,
        "four": audio / np.abs(audio).max() * 4.0,
        "dc": audio + np.float32(0.05),
        "tiny": tiny,
        "ok": audio,
    }


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    """The variants as float32 WAVs with .txt transcripts, imported with ``voice-studio dataset import``."""
    from trainer.dataset.project import DatasetProject

    audio, rate, text = _speech()
    src = tmp_path_factory.mktemp("src")
    for name, samples in _variants(audio).items():
        soundfile.write(str(src / f"{name}.wav"), samples, rate, subtype="FLOAT")
        (src / f"{name}.txt").write_text(text, encoding="utf-8")
    folder = tmp_path_factory.mktemp("project") / "p"
    command = [sys.executable, "-m", "studio", "dataset", "import", str(src), "--project", str(folder)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return DatasetProject(folder), result.stderr


def _findings(project) -> dict[str, dict[str, bool]]:
    from trainer.dataset.export import records
    from trainer.dataset.health import check

    kinds: dict[str, dict[str, bool]] = {}
    for finding in check(records(project)):
        kinds.setdefault(finding.clip_id, {})[finding.kind] = finding.blocking
    return kinds


def test_absurd_samples_are_found_at_import_and_kept_out(imported):
    """The reported case (1e30) and siblings each get their own finding; blocking ones stay out of export."""
    from trainer.dataset.export import selection
    from trainer.dataset.report import build_report, to_markdown

    project, stderr = imported
    assert all(clip.status == "ok" for clip in project.clips.values()) and len(project.clips) == 7
    assert "4 of the 7 clips added now have blocking findings (4 of the project's 7 clips" in stderr
    assert "dataset report" in stderr
    kinds = _findings(project)
    assert kinds["big"]["out_of_range"] and kinds["four"]["out_of_range"]
    assert "clipped" not in kinds["four"]  # samples over full scale are not cut off: out_of_range says it all
    assert kinds["nan"]["non_finite"] and kinds["inf"]["non_finite"]
    assert kinds["dc"]["dc_offset"] is False and kinds["tiny"]["denormals"] is False
    sample_kinds = {"out_of_range", "non_finite", "dc_offset", "denormals"}
    assert not sample_kinds & set(kinds.get("ok", {}))
    assert project.clips["nan"].analysis["nonfinite_samples"] == 10
    assert project.clips["big"].analysis["peak"] == pytest.approx(1e30, rel=1e-6)
    for clip in project.clips.values():  # no measure is NaN or inf, not even the loudness of a 1e30 clip
        values = [v for v in clip.analysis.values() if isinstance(v, float)]
        assert all(math.isfinite(v) for v in values), (clip.id, clip.analysis)
    report = to_markdown(build_report(project))
    assert "No problems found" not in report and "corrupt sample values" in report and "NaN or infinite" in report
    chosen, skipped = selection(project)
    assert sorted(c.id for c in chosen) == ["dc", "ok", "tiny"]
    assert {"big", "nan", "inf", "four"} <= set(skipped)


def test_the_cache_refuses_non_finite_features(imported, tmp_path):
    """The cache builder never writes inf: the 1e30 clip's spectrogram is refused with its name; a cache of the
    trainable clips holds only finite values."""
    pytest.importorskip("torch")
    from trainer.data.preprocess import CacheSettings, PreprocessedCache, build_cache, preprocess_clip

    project, _ = imported
    path = str(project.clip_path("big"))
    with pytest.raises(ValueError, match=r"big\.wav: .* NaN or infinite values in its spectrogram"):
        preprocess_clip((path, project.clips["big"].text, project.target_config, CacheSettings(), None))
    out = build_cache(project, tmp_path / "cache", workers=1)
    assert sorted(u.id for u in PreprocessedCache(out).utterances) == ["dc", "ok", "tiny"]
    document = json.loads((out / "cache.json").read_text())
    assert document["utterances"]
    for name in ("spec.f32", "audio.f32"):
        assert np.isfinite(np.fromfile(out / name, dtype=np.float32)).all()


def test_normalize_repairs_out_of_range_nan_and_dc(imported, tmp_path):
    """Normalize loudness: a 4.0 peak comes under -1 dBFS, NaN samples become 0, a DC offset is removed; each
    edit is recorded and the finding is gone."""
    import shutil

    from trainer.dataset.project import DatasetProject

    copy = tmp_path / "p"
    shutil.copytree(imported[0].folder, copy)
    project = DatasetProject(copy)
    assert project.apply_fixes(["four", "nan", "dc"], normalize=True, workers=1) == ["four", "nan", "dc"]
    project = DatasetProject(copy)
    kinds = _findings(project)
    for name in ("four", "nan", "dc"):
        assert not {"out_of_range", "non_finite", "dc_offset"} & set(kinds.get(name, {})), kinds.get(name)
    assert project.clips["four"].analysis["peak"] <= 10 ** (-1 / 20) + 1e-6
    assert project.clips["nan"].edits[0] == "set 10 NaN/infinite samples to 0"
    assert project.clips["dc"].edits[0].startswith("remove DC offset +0.05")  # +0.05 and the speech's own
    assert abs(project.clips["dc"].analysis["dc_offset"]) < 0.01


def test_a_clip_error_crosses_process_boundaries(tmp_path):
    """A NaN clip refused in a worker process (the cache builder's load) reaches the caller naming the file."""
    from trainer.dataset.probe import ClipError, load
    from trainer.dataset.workers import worker_pool

    audio, rate, _ = _speech()
    path = tmp_path / "nan.wav"
    soundfile.write(str(path), _variants(audio)["nan"], rate, subtype="FLOAT")
    with worker_pool(1, 1) as pool, pytest.raises(ClipError, match=r"nan\.wav: contains 10 NaN") as err:
        list(pool.map(load, [str(path)]))
    assert err.value.path == path


def test_export_of_only_absurd_clips_names_why(imported, tmp_path):
    """A project left with only clips of absurd samples exports nothing: an error that names those findings."""
    import shutil

    from trainer.dataset.curation import set_excluded
    from trainer.dataset.export import NothingToTrain, export_piper
    from trainer.dataset.project import DatasetProject

    folder = tmp_path / "copy"
    shutil.copytree(imported[0].folder, folder)
    project = DatasetProject(folder)
    set_excluded(project, ["ok", "dc", "tiny"], True)
    with pytest.raises(NothingToTrain, match="NaN or infinite samples.*beyond full scale|beyond full scale.*NaN"):
        export_piper(project, tmp_path / "out")


def _aligned_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of ``a`` and ``b`` at the lag that best aligns them (trims may start a window apart)."""
    n = len(a) + len(b)
    lag = int(np.argmax(np.fft.irfft(np.fft.rfft(a, n) * np.conj(np.fft.rfft(b, n)), n)))
    lag = lag - n if lag > len(a) else lag  # a[lag + i] ~ b[i]
    a, b = (a[lag:], b) if lag >= 0 else (a, b[-lag:])
    m = min(len(a), len(b))
    return float(np.corrcoef(a[:m], b[:m])[0, 1])


def test_import_measures_are_not_ruled_by_a_spike(imported):
    """A 1e30 sample counts as 0 in every measure but the peak: DC offset (float64), loudness and speech span
    are the clean speech's, so the report names only the corrupt values (not "DC offset 1.1e25")."""
    project, _ = imported
    big, ok = project.clips["big"].analysis, project.clips["ok"].analysis
    assert big["corrupt_samples"] == 1 and ok["corrupt_samples"] == 0 and big["over_full_scale"] == 1
    assert big["dc_offset"] == pytest.approx(ok["dc_offset"], abs=1e-6)
    assert big["loudness_lufs"] == pytest.approx(ok["loudness_lufs"], abs=0.01)
    assert (big["speech_start_s"], big["speech_end_s"]) == (ok["speech_start_s"], ok["speech_end_s"])
    assert set(_findings(project)["big"]) == {"out_of_range"}


def test_repair_zeroes_a_spike_before_the_dc_offset():
    """The DC offset is the float64 mean of the repaired samples: speech + 0.05 with one 1e30 sample comes back
    as the speech (the spike set to 0 like NaN, then the offset removed), the edits saying both."""
    from trainer.dataset.analysis import CORRUPT_PEAK
    from trainer.dataset.fixes import repair

    audio, rate, _ = _speech()
    spiked = audio + np.float32(0.05)
    spiked[len(audio) // 2] = 1e30
    spiked[10] = -CORRUPT_PEAK * 2  # a negative one too
    out, edits = repair(spiked, rate)
    expected = audio - np.float32(np.mean(audio, dtype=np.float64))
    expected[[10, len(audio) // 2]] = out[[10, len(audio) // 2]]
    assert edits[0] == "set 2 corrupt samples (beyond +-1000) to 0" and edits[1].startswith("remove DC offset +0.05")
    assert out.dtype == np.float32 and np.allclose(out, expected, atol=1e-5)
    assert abs(out[len(audio) // 2]) < 0.06 and abs(float(np.mean(out, dtype=np.float64))) < 1e-6
    loud = audio * np.float32(CORRUPT_PEAK / 2 / np.abs(audio).max())  # loud, not corrupt: left to the gain
    out, edits = repair(loud, rate)
    assert not any("corrupt" in e for e in edits) and np.abs(out).max() > CORRUPT_PEAK / 2 - 5


def test_fix_all_brings_back_the_speech(imported, tmp_path):
    """The reported case: ``dataset fix --all`` of the 1e30 clip gives the speech back (not a flat DC level) at
    -23 LUFS, as the clean clip's fix does; a legitimate 4.0 peak comes back as the speech scaled down."""
    import shutil

    from trainer.dataset.project import DatasetProject

    copy = tmp_path / "p"
    shutil.copytree(imported[0].folder, copy)
    command = [sys.executable, "-m", "studio", "dataset", "fix", str(copy), "--all"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    project = DatasetProject(copy)

    def audio(clip_id):
        return soundfile.read(str(project.clip_path(clip_id)), dtype="float32")[0]

    clean = audio("ok")
    assert _aligned_correlation(audio("big"), clean) > 0.99
    assert _aligned_correlation(audio("four"), clean) > 0.99
    assert project.clips["big"].edits[0] == "set 1 corrupt samples (beyond +-1000) to 0"
    assert not any(e.startswith("remove DC offset") for e in project.clips["big"].edits)
    for name in ("big", "four"):
        analysis = project.clips[name].analysis
        assert analysis["loudness_lufs"] == pytest.approx(-23, abs=0.5), (name, analysis)
        assert analysis["peak"] <= 10 ** (-1 / 20) + 1e-6 and abs(analysis["dc_offset"]) < 0.01
    kinds = _findings(project)
    for name in ("big", "four"):
        assert not {"out_of_range", "non_finite", "dc_offset", "silent"} & set(kinds.get(name, {})), kinds[name]


def test_statistics_leave_out_blocked_clips(imported):
    """The histograms leave out clips with broken sample values (the 1e30 clip no longer stretches the loudness
    axis) and say how many; the audio total and the phoneme coverage count the trainer's clips."""
    from trainer.dataset.report import build_report, to_html, to_markdown

    project, _ = imported
    report = build_report(project)
    counted = ["dc", "ok", "tiny"]
    assert report.skipped == 4 and report.not_counted == "4 clips with broken sample values not in the histograms"
    for hist in report.histograms.values():
        assert sum(hist.counts) == 3, hist
    loudness = [project.clips[i].analysis["loudness_lufs"] for i in counted]
    edges = report.histograms["loudness_lufs"].edges
    assert edges[0] == pytest.approx(min(loudness)) and edges[-1] == pytest.approx(max(loudness))
    assert report.seconds == pytest.approx(sum(project.clips[i].analysis["duration_s"] for i in counted))
    assert sum(report.coverage.values()) == 3 * sum(project.clips["ok"].analysis["phoneme_counts"].values())
    assert "4 clips with broken sample values not in the histograms" in to_markdown(report)
    assert "4 clips with broken sample values not in the histograms" in to_html(report)


def test_preflight_counts_left_out_clips_by_kind(imported, tmp_path):
    """The Train page's check groups the clips it leaves out by finding kind, every kind named, counts adding up
    to the total (a 1e30 peak and a 4.0 peak are one kind, not two reasons with their own numbers)."""
    from trainer.run.options import RunOptions
    from trainer.run.preflight import preflight

    findings = preflight(
        RunOptions(
            dataset=imported[0].folder, start="scratch", preset="test", epochs=1, device="cpu", out=tmp_path / "run"
        )
    )
    left = next(f.message for f in findings if "will be left out" in f.message)
    assert left.startswith("4 clips will be left out: "), left
    assert "2 × holding NaN or infinite samples" in left and "2 × holding sample values beyond full scale" in left


def test_a_run_names_the_clips_its_cache_leaves_out(imported):
    """`train --dataset PROJECT` says how many clips the cache leaves out and why, by kind, before it builds it."""
    import io

    from trainer.run.train import _echo_left_out

    echo = io.StringIO()
    _echo_left_out(imported[0], echo)
    said = echo.getvalue()
    assert said.startswith("4 of 7 clips left out: ") and "2 holding NaN or infinite samples" in said, said


def test_a_resumed_import_counts_the_blocking_clips_it_added_and_the_projects(tmp_path):
    """Import two blocked clips, then the folder with two more: the summary counts the 2 added now and the
    project's 4, not "2 clips have blocking findings" as if that were all of them."""
    audio, rate, text = _speech()
    variants = _variants(audio)
    src = tmp_path / "src"
    src.mkdir()
    folder = tmp_path / "p"
    command = [sys.executable, "-m", "studio", "dataset", "import", str(src), "--project", str(folder)]
    for names in (("big", "nan", "ok"), ("inf", "four")):
        for name in names:
            soundfile.write(str(src / f"{name}.wav"), variants[name], rate, subtype="FLOAT")
            (src / f"{name}.txt").write_text(text, encoding="utf-8")
        result = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
    assert "2 of the 2 clips added now have blocking findings (4 of the project's 5 clips in all;" in result.stderr


def test_a_clipped_clip_is_not_also_called_dc_offset():
    """Speech clipped at 3x gain (9% of its samples at full scale) moves its mean past the DC limit with no DC in
    the chain: the clipping finding alone is said; the same speech with a real 0.05 offset is still DC."""
    from trainer.dataset.analysis import DC_LIMIT, analyze
    from trainer.dataset.health import _sample_findings

    audio, rate, _ = _speech()
    clipped = np.clip(audio / np.abs(audio).max() * 3.0, -1.0, 1.0)
    a = analyze(clipped, rate)
    assert abs(a.dc_offset) > DC_LIMIT and a.clipped_fraction > 0.05  # the case: a mean moved by clipping
    assert "dc_offset" not in {f.kind for f in _sample_findings("c", a)}
    assert "dc_offset" in {f.kind for f in _sample_findings("d", analyze(audio + np.float32(0.05), rate))}
