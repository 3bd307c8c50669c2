"""The leaderboard in words and with its uncertainty (trainer.evaluate.summary, trainer.evaluate.board): the
recommended row and why, where the measures disagree, the noise bands; values ± their standard error and the
lines they rest on, in the table and the CSV (which older CSVs still read as)."""

from __future__ import annotations

import csv
import dataclasses
import io
import math
from pathlib import Path

import pytest

from trainer.evaluate.bands import DEFAULT_BANDS
from trainer.evaluate.board import COLUMNS, BoardError, Row, is_recordings, read_csv, table, to_csv
from trainer.evaluate.spread import jackknife_error, standard_error
from trainer.evaluate.summary import bands_line, evaluations_of, recordings_of, summarise

WER, OVRL = DEFAULT_BANDS.of("wer"), DEFAULT_BANDS.of("dnsmos_ovrl")
SPREAD = {"lines": {"wer": 5, "dnsmos_ovrl": 5, "mcd_db": 3, "similarity": 5}, "stderr": {"wer": 0.02}}

START = Row(label="start: joe", model_path=Path("/voices/joe.onnx"), wer=0.08, dnsmos_ovrl=3.3, similarity=0.50,
            mcd_db=8.0, **SPREAD)  # fmt: skip
FIVE = Row(label="epoch 5 · val_mel 0.6000", model_path=Path("/run/checkpoints/best-epoch=0004-val_mel=0.6000.ckpt"),
           val_mel=0.60, wer=0.08 + 2 * WER, dnsmos_ovrl=3.3 - 3 * OVRL, similarity=0.75, mcd_db=7.0,
           **SPREAD)  # fmt: skip
SIX = Row(label="epoch 6 · val_mel 0.6200", model_path=Path("/run/checkpoints/best-epoch=0005-val_mel=0.6200.ckpt"),
          val_mel=0.62, wer=0.08 + 2.5 * WER, dnsmos_ovrl=FIVE.dnsmos_ovrl, similarity=0.8, mcd_db=6.5,
          **SPREAD)  # fmt: skip
BROKEN = Row(label="other.onnx", model_path=Path("/x/other.onnx"), failed="/x/other.onnx: not a Piper voice")


def test_the_recommendation_disagreement_and_bands_over_a_runs_rows():
    """Epoch 6 (most similar, WER within noise of epoch 5's) is recommended and said to be worse than joe;
    val_mel favours epoch 5, MCD and similarity epoch 6, DNSMOS and WER the start voice; a failed row is left out."""
    summary = summarise([START, FIVE, SIX, BROKEN])
    assert summary.recommended == SIX.label and summary.ties == []
    assert summary.reason.startswith(
        "Recommended: epoch 6, the highest similarity (0.800) among the candidates whose WER and DNSMOS are within "
        "their noise bands of the best."
    )
    worse = f"It is still worse than the start voice joe beyond the noise bands (WER {SIX.wer:.2f} against 0.08 and "
    assert worse in summary.reason
    assert summary.disagreement == (
        "The measures disagree: val_mel favours epoch 5; MCD and similarity epoch 6; "
        "DNSMOS and WER the start voice joe."
    )
    assert summary.lines() == [summary.reason, summary.disagreement, bands_line(DEFAULT_BANDS)]
    candidates, start = evaluations_of([START, FIVE, SIX, BROKEN])
    assert [c.epoch for c in candidates] == [5, 6] and start is not None and start.epoch == 0


def test_the_bands_line_names_every_band_and_its_source():
    """Each measure's band with its unit, and where the figures come from; a band of 0 is left out."""
    line = bands_line(DEFAULT_BANDS)
    assert DEFAULT_BANDS.source in line and f"WER ±{WER:.2f}" in line
    assert f"MCD ±{DEFAULT_BANDS.of('mcd_db'):.2f} dB" in line
    assert line.count("±") == len([band for band in DEFAULT_BANDS.values.values() if band > 0])
    assert "val_mel" not in line  # no seed moves it: its band is 0, not shown as ±0.0000


def test_a_lone_voice_and_no_rows():
    """One candidate: the only one measured, no disagreement; only failed rows: nothing to recommend."""
    assert summarise([FIVE]).lines()[:1] == ["Recommended: epoch 5, the only candidate measured."]
    assert summarise([FIVE]).disagreement == ""
    assert summarise([BROKEN]).reason == "Nothing to recommend: no candidate has been measured yet."


def test_values_show_their_standard_error_and_the_lines_they_rest_on():
    """WER ``0.20±0.02``; a value without one shows none; the lines column; MCD on 3 of 5 lines is noted."""
    text = table([FIVE, BROKEN])
    head, five, broken = text.splitlines()[:3]
    assert head.split()[-1] == "lines" and five.split()[-1] == "5" and broken.split()[-1] == "—"
    assert f"{FIVE.wer:.2f}±0.02" in five.split() and "0.750" in five.split()
    assert "MCD: the mean of 3 of the 5 lines (those with a recording) (epoch 5 · val_mel 0.6000)" in text
    wer = next(c for c in COLUMNS if c.field == "wer")
    assert wer.text(Row(label="x", model_path=Path("x"), wer=0.5)) == "0.50"


def test_the_csv_keeps_lines_and_errors_and_reads_older_csvs():
    """Lines and standard errors round-trip; a CSV written before the two columns reads with both empty; a
    garbled one is a BoardError naming line and column."""
    rows = [START, FIVE, BROKEN]
    assert read_csv(to_csv(rows)) == rows
    records = list(csv.reader(io.StringIO(to_csv(rows))))
    assert records[0][-4:] == ["failed", "lines", "stderr", "recognizer"]
    older = io.StringIO()
    csv.writer(older, lineterminator="\n").writerows(record[:-3] for record in records)
    older = older.getvalue()
    assert [(r.lines, r.stderr) for r in read_csv(older)] == [({}, {})] * 3
    assert [r.wer for r in read_csv(older)] == [r.wer for r in rows]
    with pytest.raises(BoardError, match="line 2, stderr: not a JSON object of numbers"):
        read_csv(to_csv(rows[:1]).replace('{""wer"": 0.02}', "[1]"))


def test_standard_errors_of_a_mean_and_the_jackknife_agree():
    """s/sqrt(n) of a mean; the jackknife of the leave-one-out means gives the same; one value gives none."""
    values = [0.1, 0.3, 0.2, 0.6]
    mean = sum(values) / 4
    expected = math.sqrt(sum((v - mean) ** 2 for v in values) / 3 / 4)
    assert standard_error(values) == pytest.approx(expected)
    left_out = [(sum(values) - v) / 3 for v in values]
    assert jackknife_error(left_out) == pytest.approx(expected)
    assert standard_error([0.4]) is None and jackknife_error([0.4]) is None


HEARD = Row(label="recordings", model_path=Path("/data/target/wavs"), wer=0.06, dnsmos_ovrl=3.3 - 2.5 * OVRL)
"""The lines' own recordings: as clear as joe, less clean (DNSMOS within its band of FIVE's and SIX's)."""


def test_a_candidate_as_clean_as_its_recordings_keeps_the_dnsmos_guard():
    """Adapting joe to noisier recordings lowers DNSMOS: without the recordings' row the least adapted candidate
    wins on DNSMOS; with it, a candidate no worse than the recordings keeps the guard, the most similar is picked,
    and the reason says it is as clean as the recordings. The row is neither candidate nor start voice."""
    near = Row(label="epoch 2", model_path=Path("/run/epoch=0001.ckpt"), wer=0.08, dnsmos_ovrl=3.3, similarity=0.6)
    far = dataclasses.replace(SIX, wer=0.08)
    assert summarise([START, near, far]).recommended == near.label
    summary = summarise([START, near, far, HEARD])
    assert summary.recommended == far.label
    assert "within their noise bands of the best or no worse than the recordings'" in summary.reason
    assert summary.reason.endswith(
        f"It is worse than the start voice joe beyond the noise bands (DNSMOS {far.dnsmos_ovrl:.2f} against 3.30), "
        f"as the recordings themselves are (DNSMOS {HEARD.dnsmos_ovrl:.2f})."
    )
    assert "recordings" not in summary.disagreement
    candidates, start = evaluations_of([START, near, far, HEARD])
    assert [c.label for c in candidates] == [near.label, far.label] and start is not None
    assert recordings_of([START, near, HEARD]) is not None and recordings_of([START, near]) is None


def test_a_candidate_worse_than_its_recordings_is_still_left_out():
    """The floor is the recordings' own level: a candidate below it beyond the band stays out."""
    near = Row(label="epoch 2", model_path=Path("/run/epoch=0001.ckpt"), wer=0.08, dnsmos_ovrl=3.3, similarity=0.6)
    worse = Row(label="epoch 9", model_path=Path("/run/epoch=0008.ckpt"), wer=0.08,
                dnsmos_ovrl=HEARD.dnsmos_ovrl - 2 * OVRL, similarity=0.9)  # fmt: skip
    assert summarise([START, near, worse, HEARD]).recommended == near.label


def test_a_voice_named_recordings_is_a_candidate():
    """Only the row of a folder is the recordings' row: a voice file labelled ``recordings`` is a candidate."""
    voice = dataclasses.replace(HEARD, model_path=Path("/voices/recordings.onnx"), similarity=0.7)
    assert not is_recordings(voice) and is_recordings(HEARD)
    assert summarise([START, voice]).recommended == "recordings"
