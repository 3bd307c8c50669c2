"""The leaderboard (trainer.evaluate.leaderboard): the default voice and a tiny checkpoint scored on target-voice
lines with their recordings, served from the cache the second time; CSV round trip; val_mel at save time."""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import target_voice_slice

from engines.pool import EnginePool
from trainer.evaluate.board import BoardError
from trainer.evaluate.leaderboard import COLUMNS, Row, read_csv, score, table, to_csv, val_mel_at_save
from trainer.evaluate.lines import read_lines_file, typed_lines
from trainer.evaluate.render import Candidate, RenderSettings
from trainer.tasks import Cancelled, TaskState

pytest.importorskip("torch")
pytest.importorskip("resemblyzer", reason="speaker similarity needs resemblyzer (the compare extra)")

MEASURES = [c.field for c in COLUMNS[1:]]


class NoEngines:
    """An EnginePool maker that fails the test: everything must come from the cache."""

    def __call__(self, name, voice, **kwargs):
        raise AssertionError(f"an engine was made for {voice.model_path.name}: a render was not cached")


@pytest.fixture(scope="module")
def board(tmp_path_factory, joe, make_tiny_checkpoint):
    """joe and a tiny checkpoint (``best-epoch=0002-val_mel=0.8123.ckpt``) scored on two target-voice lines."""
    folder = target_voice_slice(tmp_path_factory.mktemp("lines"), 2)
    tiny = make_tiny_checkpoint(tmp_path_factory.mktemp("run") / "best-epoch=0002-val_mel=0.8123.ckpt")
    candidates = [Candidate(label="joe", model_path=joe.model_path), Candidate(label="tiny", model_path=tiny)]
    lines, cache = read_lines_file(folder / "metadata.csv"), tmp_path_factory.mktemp("cache")
    seen: list[tuple[int, int]] = []
    rows = score(candidates, lines, RenderSettings(seed=1), cache, TaskState(progress=lambda *p: seen.append(p)))
    return candidates, lines, cache, rows, seen


def _snapshot(cache: Path) -> dict[str, int]:
    return {str(p.relative_to(cache)): p.stat().st_mtime_ns for p in cache.rglob("*") if p.is_file()}


def test_one_row_per_candidate_with_the_measures_filled(board):
    """joe has every measure but val_mel (an ONNX voice); the checkpoint's val_mel comes from its file name."""
    candidates, lines, _, rows, seen = board
    assert [r.label for r in rows] == ["joe", "tiny"]
    joe, tiny = rows
    assert [f for f in MEASURES if getattr(joe, f) is None] == ["val_mel"] and "ONNX" in joe.missing["val_mel"]
    assert tiny.val_mel == pytest.approx(0.8123)
    for row in rows:
        assert all(getattr(row, f) is not None or row.missing.get(f) for f in MEASURES), row
        assert row.dataset_rate_pps == joe.dataset_rate_pps  # the references' own rate: the same for both
    assert 0.0 <= joe.wer <= 0.5 and 1.0 <= joe.dnsmos_ovrl <= 5.0 and 0.0 < joe.similarity < 1.0
    assert tiny.dnsmos_ovrl < joe.dnsmos_ovrl and tiny.wer > joe.wer  # random weights speak noise
    assert seen == [(d, 4) for d in range(5)] * 2  # 4 renders, then from 0 the 4 scorings


def test_the_second_score_comes_from_the_cache(board):
    """Same candidates, lines and settings: no engine is made and no cached file is rewritten; same rows."""
    candidates, lines, cache, rows, _ = board
    before = _snapshot(cache)
    assert any(name.endswith(".scores.json") for name in before) and any(n.startswith("references/") for n in before)
    again = score(candidates, lines, RenderSettings(seed=1), cache, pool=EnginePool(make=NoEngines()))
    assert again == rows
    assert _snapshot(cache) == before


def test_the_csv_round_trips_and_the_table_shows_every_row_and_reason(board):
    """read_csv(to_csv(rows)) == rows; the table has a line per row and says why values are missing."""
    rows = board[3]
    assert read_csv(to_csv(rows)) == rows
    text = table(rows)
    assert text.splitlines()[0].split()[:3] == ["candidate", "val_mel", "MCD"]
    assert [line.split()[0] for line in text.splitlines()[1:3]] == ["joe", "tiny"]
    assert "val_mel: an ONNX voice" in text
    assert "lower is better: val_mel, MCD, F0 RMSE, WER; higher is better: similarity" in text
    assert "it can exceed 1" in text and "(negative: lower than the recordings)" in text
    with pytest.raises(BoardError, match="line 2, wer: 'abc' is not a number"):
        read_csv(to_csv(rows).replace(f",{rows[0].wer!r},", ",abc,", 1))


def test_each_value_says_how_many_lines_it_rests_on_and_its_standard_error(board):
    """Two lines: every measure rests on 2 (val_mel on none); a mean's standard error is s/sqrt(2) of the two
    one-line rows' values (from the cache); similarity's is the jackknife's, a spread > 0."""
    from trainer.evaluate.spread import standard_error

    candidates, lines, cache, rows, _ = board
    joe = rows[0]
    singles = [score(candidates[:1], [line], RenderSettings(seed=1), cache)[0] for line in lines]
    for name in ("wer", "dnsmos_ovrl", "mcd_db", "f0_rmse_hz", "rate_pps", "similarity"):
        assert joe.lines[name] == 2, name
    for name in ("wer", "dnsmos_ovrl", "mcd_db", "rate_pps"):
        assert joe.stderr[name] == pytest.approx(standard_error([getattr(r, name) for r in singles])), name
    assert joe.stderr["similarity"] > 0 and "val_mel" not in joe.lines and "val_mel" not in joe.stderr
    assert all(not r.stderr for r in singles)  # one line: no standard error


def test_a_line_that_fails_a_measure_is_left_out_and_counted(board, tmp_path):
    """A silent reference: MCD and F0 come from the other line and ``missing`` counts the failed one."""
    candidates, lines, cache, rows, _ = board
    silent = tmp_path / "silent.wav"
    sf.write(silent, np.zeros(32000, np.float32), 16000)
    mixed = [lines[0], dataclasses.replace(lines[1], reference=silent)]
    (row,) = score(candidates[:1], mixed, RenderSettings(seed=1), cache)
    one_line = score(candidates[:1], lines[:1], RenderSettings(seed=1), cache)[0]
    assert row.mcd_db == pytest.approx(one_line.mcd_db) and row.f0_rmse_hz == pytest.approx(one_line.f0_rmse_hz)
    assert row.missing["mcd_db"].startswith("1 of 2 lines not measured (reference audio is empty or silent")


def test_without_resemblyzer_similarity_says_how_to_install_it_and_is_measured_once_installed(
    board, tmp_path, monkeypatch
):
    """resemblyzer missing: similarity is None with the install hint and nothing is cached; installed: measured."""
    from trainer.evaluate.similarity import MISSING

    candidates, lines, cache, _, _ = board
    audio, rate = lines[0].reference_audio()
    sf.write(tmp_path / "quieter.wav", audio * 0.5, rate)  # another reference file: scored afresh
    line = dataclasses.replace(lines[0], reference=tmp_path / "quieter.wav")
    monkeypatch.setitem(sys.modules, "resemblyzer", None)  # as if not installed: the import fails
    (row,) = score(candidates[:1], [line], RenderSettings(seed=1), cache)
    assert row.similarity is None and row.missing["similarity"] == MISSING and row.mcd_db is not None
    monkeypatch.undo()
    (again,) = score(candidates[:1], [line], RenderSettings(seed=1), cache)
    assert again.similarity is not None and "similarity" not in again.missing


def test_lines_without_references_leave_reference_measures_missing_with_the_reason(board):
    """Typed lines: MCD, F0, similarity and the dataset rate are None and say no line has a reference."""
    candidates, _, cache, _, _ = board
    (row,) = score(candidates[:1], typed_lines("Who left the garden gate open?"), RenderSettings(seed=1), cache)
    for name in ("mcd_db", "f0_rmse_hz", "f0_gap_hz", "similarity", "dataset_rate_pps"):
        assert getattr(row, name) is None and "no line has a reference recording" in row.missing[name]
    assert row.wer is not None and row.rate_pps is not None and row.dnsmos_ovrl is not None


def test_cancel_stops_scoring_and_keeps_no_row(board):
    """A cancelled state raises Cancelled (even when everything is cached)."""
    candidates, lines, cache, _, _ = board
    state = TaskState()
    state.cancel()
    with pytest.raises(Cancelled, match="no row kept"):
        score(candidates, lines, RenderSettings(seed=1), cache, state)


def test_cancel_while_rendering_says_what_stays_without_saying_kept(board, tmp_path):
    """Cancelled while rendering: one line that says no row is kept and how many renders stay cached
    (it said "no row kept (rendering cancelled: kept 1 of 4)", both at once)."""
    candidates, lines, _, _, _ = board
    state = TaskState(progress=lambda done, total: state.cancel())
    with pytest.raises(Cancelled) as caught:
        score(candidates, lines, RenderSettings(seed=1), tmp_path / "cache", state)
    message = str(caught.value)
    made = rf"no row kept \({caught.value.done} of 4 renders made; the renders so far stay cached\)"
    assert re.fullmatch(rf"scoring cancelled; {made}", message) and caught.value.done < 4


def test_val_mel_at_save_from_the_callback_state_and_from_the_run_events(tmp_path, make_tiny_checkpoint):
    """A Lightning ModelCheckpoint on val_mel gives its score; a run's last.ckpt gives its epoch's val_mel."""
    import torch

    from trainer.events.log import EventLog
    from trainer.events.schema import Epoch

    path = make_tiny_checkpoint(tmp_path / "saved.ckpt")
    checkpoint = torch.load(path, weights_only=True)
    checkpoint["callbacks"] = {"ModelCheckpoint{'monitor': 'val_mel', 'mode': 'min'}": {"current_score": 0.61}}
    torch.save(checkpoint, path)
    assert val_mel_at_save(path) == pytest.approx(0.61)
    run = tmp_path / "run"
    run.mkdir()
    (run / "training.json").write_text("{}")
    log = EventLog(run / "events.jsonl")
    for epoch, value in ((0, 0.9), (1, 0.7)):  # the tiny checkpoint was saved at epoch 1
        times = dict(seconds=1.0, train_s=1.0, val_s=0.0, preview_s=0.0, checkpoint_wait_s=0.0)
        log.emit(Epoch(epoch=epoch, step=epoch, losses={"val_mel": value}, learning_rates={}, **times))
    log.close()
    assert val_mel_at_save(make_tiny_checkpoint(run / "last.ckpt")) == pytest.approx(0.7)
    assert val_mel_at_save(make_tiny_checkpoint(tmp_path / "loose.ckpt")) is None


def test_rows_are_keyword_only_with_nothing_measured_by_default():
    """A Row is built by keyword; every measure defaults to None."""
    row = Row(label="x", model_path=Path("x.onnx"))
    assert all(getattr(row, f) is None for f in MEASURES) and row.missing == {}
    assert read_csv(to_csv([row])) == [row]


def test_val_mel_comes_precise_from_the_checkpoint_before_its_file_name(tmp_path, make_tiny_checkpoint):
    """A ranked checkpoint keeps its val_mel in full (the name rounds it); table and CSV show 4 decimals."""
    import torch

    path = make_tiny_checkpoint(tmp_path / "best-epoch=0001-val_mel=0.6171.ckpt")
    checkpoint = torch.load(path, weights_only=True)
    checkpoint["val_mel"] = 0.6171204447746277
    torch.save(checkpoint, path)
    assert val_mel_at_save(path) == 0.6171204447746277
    row = Row(label="x", model_path=path, val_mel=val_mel_at_save(path))
    assert ",0.6171," in to_csv([row]) and "0.6171 " in table([row]).splitlines()[1] + " "


def test_the_recordings_row_hears_the_lines_recordings_as_the_renders_are(board):
    """recordings=True adds a last row for the lines' recordings: their own DNSMOS (as quality.dnsmos gives it)
    and WER, the dataset rate, nothing measured against a reference; counted in the progress, cached, kept by
    the CSV; typed lines (no recording) add none."""
    from trainer.evaluate import quality
    from trainer.evaluate.board import RECORDINGS_LABEL, RECORDINGS_MEANING, is_recordings

    candidates, lines, cache, _, _ = board
    seen: list[tuple[int, int]] = []
    joe_row, heard = score(
        candidates[:1], lines, RenderSettings(seed=1), cache, TaskState(progress=lambda *p: seen.append(p)),
        recordings=True,
    )  # fmt: skip
    assert is_recordings(heard) and not is_recordings(joe_row) and heard.label == RECORDINGS_LABEL
    assert heard.model_path == lines[0].reference.parent and seen[-1] == (4, 4)  # 1 candidate x 2 lines, 2 recordings
    direct = [quality.dnsmos(*sf.read(line.reference, dtype="float32")).ovrl for line in lines]
    assert heard.dnsmos_ovrl == pytest.approx(np.mean(direct), abs=1e-6) and heard.lines["dnsmos_ovrl"] == 2
    assert 0 <= heard.wer < 0.5 and heard.recognizer == joe_row.recognizer
    assert heard.rate_pps == heard.dataset_rate_pps == joe_row.dataset_rate_pps
    assert heard.mcd_db is heard.similarity is heard.f0_gap_hz is None and heard.missing == {}
    before = _snapshot(cache)
    again = score(candidates[:1], lines, RenderSettings(seed=1), cache, recordings=True)
    assert again == [joe_row, heard] and _snapshot(cache) == before
    assert [is_recordings(row) for row in read_csv(to_csv(again))] == [False, True]
    assert RECORDINGS_MEANING in table(again)
    typed = score(candidates[:1], typed_lines("Who left the garden gate open?"), RenderSettings(seed=1), cache,
                  recordings=True)  # fmt: skip
    assert len(typed) == 1
