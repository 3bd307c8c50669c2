"""Export tells the truth (trainer.evaluate.choice, ``voice-studio export``, the Train page's Export voice): it
takes the recommended checkpoint where the run was measured, names it and why, names the lowest val_mel beside
it, and warns in one line when the checkpoint taken is measurably worse than the start voice."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.checkpoints.best import ranked_checkpoints
from trainer.evaluate.bands import DEFAULT_BANDS
from trainer.evaluate.board import Row, to_csv
from trainer.evaluate.choice import choose, file_warning, run_choice
from trainer.evaluate.evaluation import Evaluation
from trainer.events import schema as events
from trainer.run.document import TRAINING_FILE, RunDocument
from trainer.run.options import RunOptions

WER = DEFAULT_BANDS.of("wer")
VAL_MEL = {0: 1.3012, 1: 1.1247, 2: 1.1885}
"""Epoch (from 0) -> val_mel: epoch 1 (shown as epoch 2) is the lowest."""
START = Evaluation(epoch=0, values={"wer": 0.33, "dnsmos_ovrl": 3.1}, label="start: joe")


def _name(epoch: int) -> str:
    return f"best-epoch={epoch:04d}-val_mel={VAL_MEL[epoch]:.4f}.ckpt"


def _run(folder: Path, make_checkpoint) -> Path:
    """A finished 3-epoch run started from joe, its checkpoints ranked by val_mel (``make_checkpoint(path)``)."""
    (folder / "checkpoints").mkdir(parents=True)
    for epoch in VAL_MEL:
        make_checkpoint(folder / "checkpoints" / _name(epoch))
    ranking = sorted([v, _name(e)] for e, v in VAL_MEL.items())
    (folder / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    options = RunOptions(dataset=folder / "data", out=folder, start="joe", preset="test", epochs=3)
    document = RunDocument(options=options, cache=folder / "cache", config={"epochs": 3, "batch_size": None})
    (folder / TRAINING_FILE).write_text(json.dumps(document.to_json()))
    finish = events.Finish(epochs=3, seconds=4.5, setup_s=1.0, status="done")
    (folder / "events.jsonl").write_text(json.dumps(finish.to_record()) + "\n")
    return folder


@pytest.fixture
def bare_run(tmp_path) -> Path:
    """The run with empty checkpoint files (choosing reads no weights)."""
    return _run(tmp_path / "runs" / "tune", lambda path: path.write_bytes(b""))


def _ev(epoch_from_0: int, **values: float) -> Evaluation:
    """An evaluation of ranked epoch ``epoch_from_0`` (labelled as the studio labels it)."""
    return Evaluation(epoch=epoch_from_0 + 1, values=values, lines=5, label=f"epoch {epoch_from_0 + 1}")


def test_without_measurements_the_lowest_val_mel_is_taken_and_said_to_be(bare_run):
    """Nothing measured: the lowest val_mel, named with its file and why; no other choice, no warning."""
    choice = run_choice(bare_run)
    assert choice.checkpoint.epoch == 1 and choice.recommended is None and choice.beside == choice.warning == ""
    assert choice.lines() == [
        f"Exporting {choice.checkpoint.describe()} — the lowest val_mel (nothing of this run was measured, so none "
        "can be recommended: the Compare page's Leaderboard, or Score on the Train page, measures its checkpoints)."
    ]


def test_the_recommended_is_taken_by_default_with_the_lowest_val_mel_beside_it(bare_run):
    """Epoch 3 (from 0: 2) keeps WER within its band of the best and sounds most like the speaker: taken, the
    lowest val_mel (epoch 2) named beside it; asked for val_mel, the other way round."""
    evaluations = [
        _ev(0, wer=0.40, dnsmos_ovrl=3.0, similarity=0.70),
        _ev(1, wer=0.10, dnsmos_ovrl=3.1, similarity=0.75),
        _ev(2, wer=0.10 + WER / 2, dnsmos_ovrl=3.1, similarity=0.80),
    ]
    ranked = ranked_checkpoints(bare_run)
    choice = choose(ranked, evaluations, START)
    assert choice.checkpoint.epoch == 2 and choice.recommended is choice.checkpoint and choice.lowest.epoch == 1
    assert choice.why.startswith(f"{choice.checkpoint.describe()} — the highest similarity (0.800) among the ")
    assert choice.beside == f"The lowest val_mel is {choice.lowest.label()}."
    lowest = choose(ranked, evaluations, START, take="val_mel")
    assert lowest.checkpoint is lowest.lowest and lowest.why.endswith("— the lowest val_mel, as asked")
    assert lowest.beside.startswith(
        f"The recommended checkpoint is {choice.checkpoint.label()}: the highest similarity"
    )
    assert choice.warning == lowest.warning == ""  # WER 0.10-0.115 beats joe's 0.33, DNSMOS as good


def test_taking_a_checkpoint_worse_than_the_start_voice_warns_and_names_the_recommended(bare_run):
    """The lowest val_mel has WER 1.00 against joe's 0.33: one warning line naming both values, the band and
    the recommended checkpoint."""
    evaluations = [
        _ev(1, wer=1.00, dnsmos_ovrl=3.1, similarity=0.75),
        _ev(2, wer=0.30, dnsmos_ovrl=3.1, similarity=0.7),
    ]
    choice = choose(ranked_checkpoints(bare_run), evaluations, START, take="val_mel")
    recommended = choice.recommended
    assert recommended is not None and recommended.epoch == 2
    assert choice.warning == (
        f"Warning: epoch 2 is measurably worse than the start voice joe: WER 1.00 against 0.33 (beyond its ±{WER:.2f} "
        f"band); the recommended checkpoint is {recommended.label()}."
    )
    assert choice.lines()[-1] == choice.warning and "\n" not in choice.warning


def test_measured_checkpoints_no_longer_kept_leave_the_lowest_val_mel(bare_run):
    """Evaluations of epochs the run no longer keeps: the lowest val_mel, saying why none is recommended."""
    choice = choose(ranked_checkpoints(bare_run), [_ev(7, wer=0.1, similarity=0.9)], START)
    assert choice.checkpoint.epoch == 1 and "the checkpoints measured are no longer kept" in choice.why


def _measured(run: Path, joe, wer: float) -> None:
    """The run's best checkpoint and joe measured, as the Train page saves them (WER ``wer`` against 0.33)."""
    best = run / "checkpoints" / _name(1)
    heard = {"wer": wer, "recognizer": "Whisper tiny.en", "dnsmos_ovrl": 3.1}
    row = Row(label="epoch 2 · val_mel 1.1247", model_path=best, similarity=0.7, **heard)
    (run / "leaderboard-best.csv").write_text(to_csv([row]))
    start = Row(label="start: joe", model_path=joe.model_path, similarity=0.4, **{**heard, "wer": 0.33})
    (run / "leaderboard-start.csv").write_text(to_csv([start]))


def test_the_reported_case_a_run_whose_best_is_less_intelligible_than_joe(bare_run, joe):
    """The run's saved rows: its lowest val_mel scores WER 1.00, joe 0.33; the only measured checkpoint is taken,
    and the warning says no other was measured."""
    _measured(bare_run, joe, wer=1.0)
    choice = run_choice(bare_run)
    assert choice.checkpoint.epoch == 1 and choice.why.endswith(
        "— the only checkpoint measured, which is also the lowest val_mel"
    )
    assert choice.warning.startswith("Warning: epoch 2 is measurably worse than the start voice joe: WER 1.00 against")
    assert choice.warning.endswith(
        "no other checkpoint of this run was measured (the Train page's Compare scores them all)."
    )
    assert file_warning(bare_run / "checkpoints" / _name(1)) == choice.warning
    assert file_warning(bare_run / "checkpoints" / _name(0)) == ""  # not measured


def _export(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", "export", *args], capture_output=True, text=True, timeout=180
    )


def test_cli_export_says_which_why_and_warns(tmp_path, joe, make_tiny_checkpoint):
    """``export RUN``: which checkpoint, why, and the warning, on stderr; a checkpoint named outright is named and
    warned about the same way; no traceback."""
    pytest.importorskip("torch")
    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint)
    _measured(run, joe, wer=1.0)
    result = _export(str(run), "-o", str(tmp_path / "a.onnx"))
    assert result.returncode == 0, result.stderr
    choice = run_choice(run)
    said = result.stderr.splitlines()
    assert said[:2] == [f"Exporting {choice.why}.", choice.warning] and "Traceback" not in result.stderr
    named = run / "checkpoints" / _name(1)
    result = _export(str(named), "-o", str(tmp_path / "b.onnx"))
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[:2] == [f"Exporting {named} (the checkpoint named).", choice.warning]


def test_cli_export_take_val_mel_and_a_bad_take(tmp_path, make_tiny_checkpoint):
    """``--take val_mel`` on an unmeasured run: the lowest val_mel; ``--take best``: argparse's one line, exit 2."""
    pytest.importorskip("torch")
    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint)
    result = _export(str(run), "--take", "val_mel", "-o", str(tmp_path / "a.onnx"))
    assert result.returncode == 0 and f"Exporting {run_choice(run).checkpoint.describe()}" in result.stderr
    result = _export(str(run), "--take", "best", "-o", str(tmp_path / "b.onnx"))
    assert result.returncode == 2 and "invalid choice: 'best'" in result.stderr and "Traceback" not in result.stderr


def test_the_clis_choices_are_the_trainers():
    """``--take``'s choices (kept in the CLI so its parser imports nothing) are ``trainer.evaluate.choice.TAKES``."""
    from studio.cli.export import TAKES as CLI_TAKES
    from trainer.evaluate.choice import TAKES

    assert CLI_TAKES == TAKES


@pytest.mark.gui
def test_the_train_pages_export_names_the_checkpoint_and_warns(qtbot, tmp_path, joe, make_tiny_checkpoint):
    """Export voice on a measured run: the status and log say which checkpoint and why and, after writing it,
    still carry the warning; the menu names both choices."""
    from PySide6.QtWidgets import QDialogButtonBox

    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint)
    _measured(run, joe, wer=1.0)
    page = TrainPage(Workspace(runs_dir=run.parent, voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.tabs.setCurrentIndex(1)
    page.runs.table.selectRow(0)
    choice = run_choice(run)
    page._name_export_choices()
    texts = [a.text() for a in page.export_actions.values()]
    assert texts == [f"Export the recommended checkpoint: {choice.checkpoint.label()}"] + [
        f"Export the lowest val_mel: {choice.lowest.label()}"
    ]
    page.buttons["export"].click()  # asks the voice's name first (prefilled)
    with qtbot.waitSignal(page.voice_exported, timeout=60_000):
        page.naming_dialog.buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    log = page.view.log.toPlainText()
    assert f"Exporting {choice.why} to " in log and choice.warning in log
    assert page.status.text().startswith(f"Exported en_US-tune-medium.onnx from {choice.checkpoint.describe()}")
    assert page.status.text().endswith(f"\n{choice.warning}")  # on a line of its own


def test_the_compare_pages_leaderboard_of_the_run_is_what_export_follows(bare_run):
    """The Compare page's saved leaderboard of the run (``leaderboard.csv`` in the run folder, the reported case:
    epoch 2 has the lowest val_mel but mumbles): Export takes the recommended epoch 1 and warns for neither; an
    older scorer's file (WER without its recognizer) is not followed."""
    from trainer.evaluate.best_row import BOARD_FILE

    folder = bare_run / "checkpoints"
    heard = {"recognizer": "Whisper tiny.en", "dnsmos_ovrl": 3.2}
    rows = [
        Row(label="start: joe", model_path=Path("/voices/joe.onnx"), wer=0.10, similarity=0.5, **heard),
        Row(label="epoch 1", model_path=folder / _name(0), val_mel=VAL_MEL[0], wer=0.12, similarity=0.70, **heard),
        Row(label="epoch 2", model_path=folder / _name(1), val_mel=VAL_MEL[1], wer=1.00, similarity=0.75, **heard),
    ]
    (bare_run / BOARD_FILE).write_text(to_csv(rows))
    choice = run_choice(bare_run)
    assert choice.checkpoint.epoch == 0 and choice.lowest.epoch == 1 and choice.warning == ""
    assert choice.why.startswith(f"{choice.checkpoint.describe()} — the highest similarity (0.700)")
    assert run_choice(bare_run, "val_mel").warning.startswith("Warning: epoch 2 is measurably worse than the start")
    older = [Row(label=r.label, model_path=r.model_path, val_mel=r.val_mel, wer=r.wer) for r in rows]
    (bare_run / BOARD_FILE).write_text(to_csv(older))
    assert run_choice(bare_run).recommended is None


def test_a_checkpoint_as_clean_as_the_recordings_is_recommended_and_not_warned_of(bare_run):
    """The Compare page's leaderboard with the recordings' row (less clean than joe, as the target corpus is):
    the recordings are no checkpoint; the more adapted epoch 2, as clean as the recordings, is recommended over
    the cleaner epoch 1 and not warned of; without the row, epoch 1 is taken and epoch 2 warned of."""
    from trainer.evaluate.best_row import BOARD_FILE
    from trainer.evaluate.board import RECORDINGS_LABEL
    from trainer.evaluate.choice import measured, measured_recordings

    folder, ovrl = bare_run / "checkpoints", DEFAULT_BANDS.of("dnsmos_ovrl")
    said = {"recognizer": "Whisper tiny.en", "wer": 0.05}
    rows = [
        Row(label="start: joe", model_path=Path("/voices/joe.onnx"), dnsmos_ovrl=3.39, similarity=0.5, **said),
        Row(label="epoch 1", model_path=folder / _name(0), val_mel=VAL_MEL[0], dnsmos_ovrl=3.39, similarity=0.6,
            **said),
        Row(label="epoch 2", model_path=folder / _name(1), val_mel=VAL_MEL[1], dnsmos_ovrl=3.17 - ovrl / 2,
            similarity=0.8, **said),
        Row(label=RECORDINGS_LABEL, model_path=Path("/data/target/wavs"), dnsmos_ovrl=3.17, **said),
    ]  # fmt: skip
    (bare_run / BOARD_FILE).write_text(to_csv(rows))
    evaluations, start = measured(bare_run)
    assert [e.label for e in evaluations] == ["epoch 1", "epoch 2"] and start is not None
    heard = measured_recordings(bare_run)
    assert heard is not None and heard.values["dnsmos_ovrl"] == 3.17
    choice = run_choice(bare_run)
    assert choice.checkpoint.epoch == 1 and choice.warning == ""
    assert "no worse than the recordings'" in choice.why
    (bare_run / BOARD_FILE).write_text(to_csv(rows[:3]))
    assert run_choice(bare_run).checkpoint.epoch == 0
    assert run_choice(bare_run, "val_mel").warning.startswith("Warning: epoch 2 is measurably worse than the start")


AT_70 = "best-epoch=0001-val_mel=1.1247-strength=0.70.ckpt"
"""Epoch 2 (the lowest val_mel) taken to strength 0.7, as ``trainer.checkpoints.strength`` names it."""


def _board_with_a_strength(run: Path, strength_wer: float = 0.12, make=lambda path: path.write_bytes(b"")) -> Path:
    """The Compare page's saved leaderboard of ``run`` with its epoch 2 at 70% (``make(path)`` writes the file in
    ``strengths/``; default empty): epoch 2 mumbles (WER 1.00), epoch 2 at 70% says the lines (WER
    ``strength_wer``) and sounds most like the speaker. Returns the strength file."""
    from trainer.evaluate.best_row import BOARD_FILE

    folder, at = run / "checkpoints", run / "strengths" / AT_70
    at.parent.mkdir(exist_ok=True)
    make(at)
    heard = {"recognizer": "Whisper tiny.en", "dnsmos_ovrl": 3.2}
    rows = [
        Row(label="start: joe", model_path=Path("/voices/joe.onnx"), wer=0.10, similarity=0.5, **heard),
        Row(label="epoch 1", model_path=folder / _name(0), val_mel=VAL_MEL[0], wer=0.12, similarity=0.60, **heard),
        Row(label="epoch 2", model_path=folder / _name(1), val_mel=VAL_MEL[1], wer=1.00, similarity=0.80, **heard),
        Row(label="epoch 2 at 70% · val_mel 1.1247", model_path=at, val_mel=VAL_MEL[1], wer=strength_wer,
            similarity=0.75, **heard),
    ]  # fmt: skip
    (run / BOARD_FILE).write_text(to_csv(rows))
    return at


def test_a_recommended_checkpoint_at_a_strength_is_what_export_takes(bare_run):
    """The leaderboard's recommended row is epoch 2 at 70% (a file in ``strengths/``): Export takes that file (not
    epoch 2 as trained, nor another), names it so, with the lowest val_mel beside it; asked for val_mel, epoch 2
    is taken and the warning names the strength file as the recommended one."""
    at = _board_with_a_strength(bare_run)
    choice = run_choice(bare_run)
    assert choice.checkpoint.path == at and choice.recommended is choice.checkpoint
    assert choice.checkpoint.label() == "epoch 2 at 70% · val_mel 1.1247"
    assert choice.why.startswith(
        f"epoch 2 at 70% · val_mel 1.1247 (file {AT_70}, whose name counts epochs from 0) — the highest similarity"
    )
    assert choice.lowest.path == bare_run / "checkpoints" / _name(1) and choice.warning == ""
    assert choice.beside == "The lowest val_mel is epoch 2 · val_mel 1.1247."
    lowest = run_choice(bare_run, "val_mel")
    assert lowest.checkpoint.path == bare_run / "checkpoints" / _name(1)
    assert lowest.warning.startswith("Warning: epoch 2 is measurably worse than the start voice joe: WER 1.00")
    assert lowest.warning.endswith("the recommended checkpoint is epoch 2 at 70% · val_mel 1.1247.")


def test_cli_export_of_a_run_takes_its_recommended_checkpoint_at_a_strength(tmp_path, make_tiny_checkpoint):
    """``export RUN`` where the leaderboard recommends epoch 2 at 70%: that file is exported, and said to be; with
    ``--strength 0.5`` it is not taken to a strength of a strength: one line naming its checkpoint (exit 2)."""
    pytest.importorskip("torch")
    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint)
    _board_with_a_strength(run, make=make_tiny_checkpoint)
    result = _export(str(run), "-o", str(tmp_path / "a.onnx"))
    assert result.returncode == 0, result.stderr
    said = result.stderr.splitlines()[0]
    assert said == f"Exporting {run_choice(run).why}." and said.startswith(
        f"Exporting epoch 2 at 70% · val_mel 1.1247 (file {AT_70}"
    )
    assert (tmp_path / "a.onnx").is_file()
    refused = _export(str(run), "--strength", "0.5", "-o", str(tmp_path / "b.onnx"))
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert f"is at strength 0.70 already: take its checkpoint, {_name(1)}, to the strength wanted" in refused.stderr


def test_a_checkpoint_at_a_strength_named_outright_is_warned_of_by_its_own_row(bare_run):
    """``export RUN/strengths/X.ckpt``: the warning is the strength file's own row's (WER 0.90 against joe's 0.10),
    not epoch 2's; epoch 2 named outright gets epoch 2's; a strength file never measured gets none."""
    at = _board_with_a_strength(bare_run, strength_wer=0.90)
    assert file_warning(at).startswith("Warning: epoch 2 at 70% is measurably worse than the start voice joe: WER 0.90")
    assert file_warning(bare_run / "checkpoints" / _name(1)).startswith(
        "Warning: epoch 2 is measurably worse than the start voice joe: WER 1.00"
    )
    unmeasured = at.with_name("best-epoch=0001-val_mel=1.1247-strength=0.50.ckpt")
    unmeasured.write_bytes(b"")
    assert file_warning(unmeasured) == ""


def test_a_measured_checkpoint_at_a_strength_no_longer_on_disk_is_not_taken(bare_run):
    """The strength file the leaderboard recommended was removed: Export takes the best of what is on disk (epoch
    1), never the missing file nor epoch 2 in its place."""
    _board_with_a_strength(bare_run).unlink()
    choice = run_choice(bare_run)
    assert choice.checkpoint.path == bare_run / "checkpoints" / _name(0)
    assert "at 70%" not in choice.why


def test_a_measured_checkpoint_since_removed_is_not_taken(bare_run):
    """The leaderboard recommended epoch 1, whose file is gone since (ranked out, removed): Export takes a file
    on disk (the only other measured one, epoch 2), never the missing one."""
    from trainer.evaluate.best_row import BOARD_FILE

    _board_with_a_strength(bare_run)
    rows = (bare_run / BOARD_FILE).read_text().splitlines()
    (bare_run / BOARD_FILE).write_text("\n".join(r for r in rows if "at 70%" not in r) + "\n")  # epoch 1 is best
    assert run_choice(bare_run).checkpoint.path == bare_run / "checkpoints" / _name(0)
    (bare_run / "checkpoints" / _name(0)).unlink()
    choice = run_choice(bare_run)
    assert choice.checkpoint.path.is_file() and choice.checkpoint.path == bare_run / "checkpoints" / _name(1)


def test_the_runs_export_on_the_leaderboard_is_not_a_checkpoint_to_export(bare_run, tmp_path):
    """The leaderboard scored the run's export (``voices/tune.onnx``, listed by ``run_candidates``) best: Export
    takes a checkpoint, never that voice file in a checkpoint's place."""
    from trainer.evaluate.best_row import BOARD_FILE

    voice = tmp_path / "voices" / "tune.onnx"
    voice.parent.mkdir()
    voice.write_bytes(b"")
    heard = {"recognizer": "Whisper tiny.en", "dnsmos_ovrl": 3.2, "wer": 0.1}
    rows = [
        Row(
            label="epoch 2", model_path=bare_run / "checkpoints" / _name(1), val_mel=VAL_MEL[1], similarity=0.6, **heard
        ),
        Row(label="export", model_path=voice, similarity=0.7, **heard),
    ]
    (bare_run / BOARD_FILE).write_text(to_csv(rows))
    assert run_choice(bare_run).checkpoint.path == bare_run / "checkpoints" / _name(1)


@pytest.mark.gui
def test_the_train_pages_export_menu_names_a_recommended_checkpoint_at_a_strength(qtbot, tmp_path, bare_run):
    """The Export button's menu names the recommended checkpoint at its strength, the lowest val_mel beside it."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    _board_with_a_strength(bare_run)
    page = TrainPage(Workspace(runs_dir=bare_run.parent, voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.tabs.setCurrentIndex(1)
    page.runs.table.selectRow(0)
    page._name_export_choices()
    assert [a.text() for a in page.export_actions.values()] == [
        "Export the recommended checkpoint: epoch 2 at 70% · val_mel 1.1247",
        "Export the lowest val_mel: epoch 2 · val_mel 1.1247",
    ]


def test_a_recommended_last_checkpoint_is_named_as_last_not_epoch_0(bare_run):
    """``last.ckpt`` measured best (its epoch is not in its name, its val_mel not in the ranking): Export takes it
    and names it ``last (file last.ckpt)``, not ``epoch 0 · val_mel nan``."""
    (bare_run / "last.ckpt").write_bytes(b"")
    last = Evaluation(
        epoch=0, values={"wer": 0.05, "similarity": 0.95}, lines=5, label="last", path=str(bare_run / "last.ckpt")
    )
    evaluations = [_ev(1, wer=0.2, similarity=0.6), last]
    choice = run_choice(bare_run, evaluations=evaluations, start=START)
    assert choice.checkpoint.path == bare_run / "last.ckpt"
    assert choice.why.startswith("last (file last.ckpt) — ") and "nan" not in " ".join(choice.lines())
    assert "epoch 0" not in " ".join(choice.lines())


def test_a_leaderboard_row_of_a_file_rewritten_since_it_was_scored_is_not_followed(bare_run):
    """The Compare page scored ``last.ckpt`` best (its ``leaderboard.json`` stamps the file); the run went on and
    rewrote ``last.ckpt``: Export no longer takes it on the old row (it measured another voice), and follows the
    rows whose files are as scored."""
    import os

    from studio.pages.compare_board import save_board
    from trainer.evaluate.best_row import stamped

    last, folder = bare_run / "last.ckpt", bare_run / "checkpoints"
    last.write_bytes(b"epoch 3")
    heard = {"recognizer": "Whisper tiny.en", "dnsmos_ovrl": 3.2}
    rows = [
        Row(label="epoch 1", model_path=folder / _name(0), val_mel=VAL_MEL[0], wer=0.12, similarity=0.70, **heard),
        Row(label="last", model_path=last, wer=0.05, similarity=0.90, **heard),
    ]
    key = {"candidates": [{"label": r.label, **stamped(r.model_path)} for r in rows], "lines": [], "settings": {}}
    save_board(bare_run, rows, key)
    assert run_choice(bare_run).checkpoint.path == last
    last.write_bytes(b"epoch 40, written later")
    os.utime(last, ns=(last.stat().st_atime_ns, last.stat().st_mtime_ns + 10**9))
    choice = run_choice(bare_run)
    assert choice.checkpoint.path == folder / _name(0) and choice.recommended.path == folder / _name(0)
