"""Isolated spikes inside normal speech (a float WAV with one sample at 40.0) are repaired before loudness is
measured and the clip keeps the gain its speech needs; a clip loud throughout is scaled as a whole (issue 30,
kind 9)."""

from __future__ import annotations

import glob
import shutil

import numpy as np
import pytest
import soundfile
import soxr
from conftest import shared_path

RATE = 22050
SAMPLE_KINDS = {"out_of_range", "isolated_spikes", "clipped"}
"""Findings about sample values (the clips share one text: duplicate_text is expected)."""


def _speech() -> tuple[np.ndarray, str]:
    corpus = shared_path("corpus", "target-voice")
    audio, rate = soundfile.read(str(corpus / "wavs" / "slt_0001.flac"), dtype="float32")
    text = (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()[0].split("|")[1]
    return soxr.resample(audio, rate, RATE, quality="VHQ"), text


def _variants(audio: np.ndarray) -> dict[str, np.ndarray]:
    """The reported clip (one sample at 40.0 in the speech) and its siblings, from the same real speech."""
    middle = len(audio) // 2
    spike, few = audio.copy(), audio.copy()
    spike[middle] = 40.0
    for k, at in enumerate(np.linspace(0.2, 0.8, 5) * len(audio)):
        few[int(at)] = 3.0 if k % 2 else -3.0
    kept = spike * np.float32(0.89 / 40)  # what Normalize loudness used to leave: the click kept, all 31 dB down
    return {"spike": spike, "few": few, "loud": audio / np.abs(audio).max() * 4.0, "kept": kept, "ok": audio}


@pytest.fixture(scope="module")
def spiked(tmp_path_factory):
    """The variants as float32 WAVs with transcripts, imported into a project."""
    from trainer.dataset.project import DatasetProject

    audio, text = _speech()
    source = tmp_path_factory.mktemp("src")
    for name, samples in _variants(audio).items():
        soundfile.write(str(source / f"{name}.wav"), samples, RATE, subtype="FLOAT")
        (source / f"{name}.txt").write_text(text, encoding="utf-8")
    project = DatasetProject.create(tmp_path_factory.mktemp("project") / "p")
    assert len(project.import_sources([source], workers=1).added) == 5
    return project


@pytest.fixture(scope="module")
def normalized(spiked, tmp_path_factory):
    """A copy of the project with Normalize loudness applied to every clip."""
    from trainer.dataset.project import DatasetProject

    folder = tmp_path_factory.mktemp("fixed") / "p"
    shutil.copytree(spiked.folder, folder)
    project = DatasetProject(folder)
    project.apply_fixes(normalize=True, workers=1)
    return DatasetProject(folder)


def _findings(project) -> dict[str, dict[str, object]]:
    from trainer.dataset.export import records
    from trainer.dataset.health import check

    kinds: dict[str, dict[str, object]] = {}
    for finding in check(records(project)):
        kinds.setdefault(finding.clip_id, {})[finding.kind] = finding
    return kinds


def _gain(project, clip_id: str) -> float:
    edit = next(e for e in project.clips[clip_id].edits if e.startswith("normalize"))
    return float(edit.split()[1])


def _audio(project, clip_id: str) -> np.ndarray:
    return soundfile.read(str(project.clip_path(clip_id)), dtype="float32")[0]


def test_one_spike_is_repaired_before_loudness_is_measured(spiked, normalized):
    """The reported case: import blocks it as one sample over full scale, an isolated spike, and measures the
    speech as the clean clip's; Normalize loudness interpolates over the spike and gives the clip the clean clip's
    gain (not 22 dB down with the click kept); nothing is left to find."""
    said = _findings(spiked)["spike"]["out_of_range"].message
    assert "peak 40" in said and "1 sample over full scale" in said and "isolated spike" in said, said
    spike, ok = spiked.clips["spike"].analysis, spiked.clips["ok"].analysis
    assert spike["loudness_lufs"] == pytest.approx(ok["loudness_lufs"], abs=0.05)
    assert (spike["speech_start_s"], spike["speech_end_s"]) == (ok["speech_start_s"], ok["speech_end_s"])
    assert normalized.clips["spike"].edits[0].startswith("set 1 isolated spike sample over full scale (peak 40)")
    assert _gain(normalized, "spike") == pytest.approx(_gain(normalized, "ok"), abs=0.1)
    fixed, clean = _audio(normalized, "spike"), _audio(normalized, "ok")
    assert np.abs(fixed).max() <= np.abs(clean).max() + 1e-3
    assert np.abs(fixed - clean).max() < 0.05
    assert not SAMPLE_KINDS & set(_findings(normalized).get("spike", {}))


def test_a_handful_of_spikes_against_a_clip_loud_throughout(spiked, normalized):
    """Sibling: five isolated spikes of 3.0 are repaired the same way; speech loud throughout (peaks of 4.0) has no
    isolated spike and is scaled down as a whole, as before."""
    findings = _findings(spiked)
    assert "isolated spike" in findings["few"]["out_of_range"].message
    loud = findings["loud"]["out_of_range"].message
    assert "isolated" not in loud and "Normalize loudness scales it" in loud
    assert normalized.clips["few"].edits[0].startswith("set 5 isolated spike samples over full scale (peak 3)")
    assert _gain(normalized, "few") == pytest.approx(_gain(normalized, "ok"), abs=0.1)
    assert not any("spike" in e for e in normalized.clips["loud"].edits)
    scale = 20 * np.log10(4.0 / np.abs(_speech()[0]).max())
    assert _gain(normalized, "loud") == pytest.approx(_gain(normalized, "ok") - scale, abs=0.1)
    clean = _audio(normalized, "ok")
    for name in ("few", "loud"):
        assert np.corrcoef(_audio(normalized, name), clean)[0, 1] > 0.99
    assert not SAMPLE_KINDS & {kind for name in ("few", "loud") for kind in _findings(normalized).get(name, {})}


def test_a_click_an_earlier_normalize_kept_is_found_and_repaired(spiked, normalized):
    """Sibling: the clip as Normalize loudness used to leave it (the speech 33 dB down, the click at 0.89, within
    full scale) is a click warning, measured as its speech; Normalize loudness now repairs it and lifts the
    speech back up."""
    said = _findings(spiked)["kept"]["isolated_spikes"]
    assert not said.blocking and "1 isolated spike" in said.message and "Normalize loudness" in said.message
    assert normalized.clips["kept"].edits[0].startswith("set 1 isolated spike sample (peak 0.89)")
    assert _gain(normalized, "kept") > 25
    assert np.abs(_audio(normalized, "kept") - _audio(normalized, "ok")).max() < 0.05


def test_speech_alone_has_no_isolated_spikes():
    """The spike test's margin: no sample of the corpus's real and synthetic speech (the ten 16 kHz real clips, the
    44 s reading at 48 kHz, 40 clips of the target voice) stands out of its surroundings as a spike."""
    from trainer.dataset.spikes import spike_mask

    corpus = shared_path("corpus")
    files = sorted(glob.glob(str(corpus / "real-speech" / "*" / "*.wav")))
    files += sorted(glob.glob(str(corpus / "target-voice" / "wavs" / "*.flac")))[:40]
    for path in files:
        audio, rate = soundfile.read(path, dtype="float32")
        assert not spike_mask(audio, rate).any(), path
        spiked = audio.copy()
        spiked[len(audio) // 3] = 40.0
        assert np.flatnonzero(spike_mask(spiked, rate)).tolist() == [len(audio) // 3], path


def test_resample_repairs_the_spike_first_so_normalize_still_lifts_the_speech(spiked, tmp_path):
    """Sibling found by a fresh try: Resample (offered by Check for clips at another rate) before Normalize
    loudness spread the 40.0 spike into ringing no longer isolated, so Normalize kept the click and turned the
    speech 15 dB down. Resample now repairs first: the spike is gone and Normalize gives the clean clip's gain."""
    from trainer.dataset.project import DatasetProject

    shutil.copytree(spiked.folder, tmp_path / "p")
    project = DatasetProject(tmp_path / "p")
    project.apply_fixes(["spike", "ok"], resample_to=16000, workers=1)
    assert project.clips["spike"].edits[0].startswith("set 1 isolated spike sample over full scale (peak 40)")
    assert np.abs(_audio(project, "spike")).max() < 1.0
    project.apply_fixes(["spike", "ok"], normalize=True, workers=1)
    assert _gain(project, "spike") == pytest.approx(_gain(project, "ok"), abs=0.1)
    assert np.abs(_audio(project, "spike") - _audio(project, "ok")).max() < 0.05
