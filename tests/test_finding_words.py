"""Dataset findings read as sentences with their number and the fix, never as raw kind names (issue 17)."""

from __future__ import annotations

import re

import numpy as np
import soundfile
from conftest import shared_path

from trainer.dataset.finding_words import KINDS, LABELS, sentence

VALUES = {
    "unreadable": {"error": "truncated WAV (7 of 44 header bytes)"},
    "no_text": {},
    "unreviewed": {},
    "silent": {"duration_s": 2.25},
    "too_short": {"span_s": 0.2, "segment_s": 8192 / 22050},
    "too_long": {"phoneme_ids": 512, "limit": 400},
    "too_fast": {"phoneme_ids": 301, "frames": 258, "s": 3.0},
    "non_finite": {"samples": 1234},
    "out_of_range": {"peak": 4.0, "peak_dbfs": 12.04, "samples": 17},
    "dc_offset": {"offset": 0.052},
    "denormals": {"samples": 99},
    "isolated_spikes": {"samples": 3},
    "clipped": {"fraction": 0.0123},
    "missing_symbols": {"count": 2, "symbols": "'ʔ' ×3, 'ɬ' ×1"},
    "ambiguous_text": {"readings": '"1/2" reads "one half" (it could be "January second")', "count": 1},
    "no_speaker": {"speakers": 3, "names": "alice, bob, carol"},
    "narrow_band": {"width": 7843.0, "rate": 16000, "voice_rate": 22050},
    "rate_outlier": {"rate": 31.46, "low": 9.5, "high": 18.25},
    "duplicate_text": {"other": "b-007"},
    "duplicate_audio": {"other": "b-012"},
}
"""Values of a finding of every kind, and (below) the numbers its sentence must state."""
NUMBERS = {
    "unreadable": ["7 of 44"],
    "silent": ["2.25 s"],
    "too_short": ["0.20 s", "0.17 s", "0.37 s"],
    "too_long": ["512", "112", "400"],
    "too_fast": ["301", "258", "3.00 s"],
    "non_finite": ["1,234"],
    "out_of_range": ["4", "+12.0 dBFS", "17"],
    "dc_offset": ["+0.052"],
    "denormals": ["99"],
    "isolated_spikes": ["3 isolated spike samples"],
    "clipped": ["1.2%"],
    "missing_symbols": ["2 phonemes", "'ʔ' ×3"],
    "ambiguous_text": ['"1/2" reads "one half"', "January second"],
    "no_speaker": ["3 speakers", "alice, bob, carol"],
    "narrow_band": ["7.8 kHz wide", "16,000 Hz recording", "22,050 Hz", "11.0 kHz"],
    "rate_outlier": ["31.5 phonemes/s", "9.5–18.2"],
    "duplicate_text": ["b-007"],
    "duplicate_audio": ["b-012"],
}
FIXES = (
    "exclude",
    "Confirm",
    "Normalize loudness",
    "split",
    "Set speaker",
    "re-record",
    "trim",
    "correct",
    "16,000 Hz voice",
)


def test_every_finding_kind_has_a_sentence_with_its_number_and_fix():
    """Each kind (all of them, from the module's own list) words its numbers and a fix, without its raw name."""
    assert set(VALUES) == set(KINDS) == set(LABELS)
    for kind in KINDS:
        said = sentence(kind, VALUES[kind])
        assert kind not in said and "_" not in said.replace("phoneme_ids", ""), (kind, said)
        for number in NUMBERS.get(kind, []):
            assert number in said, (kind, number, said)
        assert any(fix in said for fix in FIXES), (kind, said)
    one = sentence("out_of_range", {**VALUES["out_of_range"], "samples": 1})
    assert "1 sample over full scale" in one and "1 samples" not in one


def test_checked_findings_carry_the_sentence(tmp_path):
    """Real findings from real clips: a silent clip and a clip too short to train on say how long and what to do."""
    from trainer.dataset.export import records
    from trainer.dataset.health import check
    from trainer.dataset.project import DatasetProject

    rate = 16000
    source = tmp_path / "in"
    source.mkdir()
    soundfile.write(str(source / "quiet.wav"), np.zeros(rate * 2, dtype=np.float32), rate)
    speech, speech_rate = soundfile.read(str(shared_path("corpus", "real-speech", "cards", "001.wav")), dtype="float32")
    soundfile.write(str(source / "clip.wav"), speech[: int(0.3 * speech_rate)], speech_rate)
    for name in ("quiet", "clip"):
        (source / f"{name}.txt").write_text("ten of clubs", encoding="utf-8")
    project = DatasetProject.create(tmp_path / "project")
    project.import_sources([source])
    said = {(f.clip_id, f.kind): f.message for f in check(records(project))}
    assert said[("quiet", "silent")] == "no speech found in its 2.00 s: exclude it, or check the recording"
    short = said[("clip", "too_short")]
    assert re.match(r"0\.\d\d s of speech, 0\.\d\d s short of one 0\.37 s training segment: merge", short), short


def test_fix_summary_counts_in_words():
    """What a run of fixes changed, with plural forms right for one and for several."""
    from trainer.dataset.fixes import summary

    one = summary({"a": ["trim", "normalize -3.2 dB"]})
    assert one == "Fixed 1 clip: 1 trimmed, 1 normalized (gain -3.2 dB)"
    many = summary({"a": ["normalize -3.2 dB"], "b": ["normalize +1.0 dB", "resample 16000 -> 22050 Hz"], "c": []})
    assert many == (
        "Fixed 2 clips: 2 normalized (gain -3.2 to +1.0 dB), 1 resampled (16,000 → 22,050 Hz); "
        "1 unchanged (nothing to do)"
    )
    assert summary({"a": [], "b": []}) == "Nothing to fix: 2 clips needed no change"  # was "Fixed 0 clips; 2 unchanged"


def test_too_many_phoneme_ids_is_labelled_as_such():
    """The short label of too many phoneme_ids (next to the duration column) says phonemes, not "too long"."""
    from trainer.dataset.finding_words import label, sentence

    assert label("too_long") == "too many phonemes"
    assert "phoneme_ids" in sentence("too_long", {"phoneme_ids": 512, "limit": 400})
