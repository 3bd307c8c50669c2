"""The Train page shows a finished run's best checkpoint on the leaderboard, beside its val_mel: measured on the
run's held-out clips (real torch engine, real measures) when the run finishes, saved in the run folder, shown
again without measuring when the run is reopened, and measured afresh when the best checkpoint changed (Qt
offscreen)."""

from __future__ import annotations

import gc
import json

import pytest

pytest.importorskip("lightning")
pytestmark = pytest.mark.gui

RANKING = [[0.71, "best-epoch=0001-val_mel=0.7100.ckpt"], [0.95, "best-epoch=0000-val_mel=0.9500.ckpt"]]


@pytest.fixture
def finished(prepared_run, make_tiny_checkpoint):
    """The prepared run, finished: two ranked tiny checkpoints, a Finish event, no leaderboard row saved."""
    from trainer.evaluate.best_row import BEST_FILE, START_FILE
    from trainer.events import schema as events

    (prepared_run / BEST_FILE).unlink(missing_ok=True)
    (prepared_run / START_FILE).unlink(missing_ok=True)
    (prepared_run / "checkpoints").mkdir(exist_ok=True)
    for seed, (_, name) in enumerate(RANKING):
        make_tiny_checkpoint(prepared_run / "checkpoints" / name, seed=seed)
    (prepared_run / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": RANKING}))
    finish = events.Finish(epochs=1, seconds=3.0, setup_s=1.0, status="done")
    (prepared_run / "events.jsonl").write_text(json.dumps(finish.to_record()) + "\n")
    return prepared_run


@pytest.fixture
def page(qtbot, tmp_path, finished):
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    page = TrainPage(Workspace(runs_dir=finished.parent, voices_dir=tmp_path / "voices"), VoiceLibrary())
    page.board_limit = 2
    qtbot.addWidget(page)
    yield page
    page.shutdown()
    page._board.join(60)
    gc.collect()


def _wait_scored(page, qtbot) -> None:
    qtbot.waitUntil(lambda: not page._board.busy(), timeout=180_000)
    assert page.view.best_row.row is not None, page.view.best_row.caption.text()


def _shown(page) -> dict[str, tuple[str, str]]:
    """The row's cells by field: (text, tooltip)."""
    from studio.widgets.best_row import MEASURES

    table = page.view.best_row.table
    return {c.field: (table.item(0, i).text(), table.item(0, i).toolTip()) for i, c in enumerate(MEASURES)}


def test_a_finished_run_is_scored_saved_and_shown_again_without_scoring(page, qtbot, finished):
    from trainer.evaluate.best_row import BEST_FILE, START_FILE
    from trainer.evaluate.leaderboard import read_csv
    from trainer.events.run_state import load_run

    heard: list[str] = []
    page.message.connect(heard.append)
    page.state = load_run(finished)
    page._on_process_finished(0, False)  # what the page does when its trainer exits after the Finish event
    assert page._board.busy() and page.view.best_row.progress.isVisibleTo(page.view)
    _wait_scored(page, qtbot)
    assert heard[-1].startswith("Measured epoch") and "held-out clips" in heard[-1]
    saved = finished / BEST_FILE
    [row] = read_csv(saved.read_text(encoding="utf-8"))
    assert row.model_path == finished / "checkpoints" / RANKING[0][1] and row.val_mel == pytest.approx(0.71)
    cells = _shown(page)
    assert cells["val_mel"][0] == "0.7100" and cells["wer"][0] != "—" and cells["dnsmos_ovrl"][0] != "—"
    assert all(tip for text, tip in cells.values() if text == "—")  # a missing measure says why
    assert "0.7100" in page.view.best_row.caption.text()
    baseline = page.view.best_row.baseline  # the start voice, scored the same way, under the best
    assert baseline is not None and baseline.label == "start: joe" and baseline.model_path.name.endswith(".onnx")
    assert page.view.best_row.text("dnsmos_ovrl", 1) not in ("", "—") and page.view.best_row.table.rowCount() == 2
    assert page.view.best_row.text("dnsmos_ovrl", 1) != page.view.best_row.text("dnsmos_ovrl", 0)

    written = saved.stat().st_mtime_ns
    page.show_run(load_run(finished))  # opened again: the saved row at once, nothing measured
    assert not page._board.busy() and _shown(page) == cells
    assert page.view.best_row.baseline == baseline  # the start voice's saved row, at once
    qtbot.wait(200)
    assert saved.stat().st_mtime_ns == written

    said = len(heard)
    page.score_best()  # Score pressed again: it ends at once from what is kept on disk, and says so
    _wait_scored(page, qtbot)
    assert len(heard) == said + 1 and heard[-1].startswith("Measured epoch") and _shown(page) == cells

    (finished / START_FILE).unlink()  # a run measured before baselines were kept: Score adds it
    page.show_run(load_run(finished))
    assert not page._board.busy() and page.view.best_row.baseline is None and _shown(page) == cells
    assert "start voice's baseline not yet: Score" in page.view.best_row.caption.text()


def test_a_changed_best_checkpoint_is_scored_again(page, qtbot, finished, make_tiny_checkpoint):
    from trainer.evaluate.best_row import BEST_FILE
    from trainer.evaluate.leaderboard import read_csv
    from trainer.events.run_state import load_run

    page.show_run(load_run(finished))
    assert not page._board.busy()  # an opened run without a saved row waits for Score
    assert page.view.best_row.row is None and "Score" in page.view.best_row.caption.text()
    page.view.best_row.score_button.click()
    _wait_scored(page, qtbot)
    first = (finished / BEST_FILE).stat().st_mtime_ns

    name = "best-epoch=0003-val_mel=0.6500.ckpt"  # the run resumed and ranked a better checkpoint
    make_tiny_checkpoint(finished / "checkpoints" / name, seed=5)
    ranking = [[0.65, name], *RANKING]
    (finished / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    page.show_run(load_run(finished))
    assert page.view.best_row.row is None  # the saved row is the old best's: never shown
    assert page._board.busy() and "0.6500" in page.view.best_row.caption.text()  # measured before: again, at once
    _wait_scored(page, qtbot)
    [row] = read_csv((finished / BEST_FILE).read_text(encoding="utf-8"))
    assert row.model_path == finished / "checkpoints" / name and _shown(page)["val_mel"][0] == "0.6500"
    assert (finished / BEST_FILE).stat().st_mtime_ns > first


def test_double_clicking_the_shown_run_reads_it_again(page, qtbot, finished, make_tiny_checkpoint):
    """A run resumed outside the studio (a better checkpoint ranked): double-clicking it in the runs table, though
    it is the run already selected, re-reads it: its row in the table and the page show the new best, and as
    its old best was measured, the new one is measured without asking."""
    from PySide6.QtCore import Qt

    from trainer.evaluate.best_row import BEST_FILE
    from trainer.evaluate.board import Row, to_csv

    page.show()
    page.tabs.setCurrentWidget(page.runs)
    page.runs.refresh()
    row = next(i for i, run in enumerate(page.runs.runs) if run.folder == finished)
    page.runs.table.selectRow(row)
    assert page.state is not None and page.state.folder == finished and not page._board.busy()
    old = Row(label="epoch 2 · val_mel 0.7100", model_path=finished / "checkpoints" / RANKING[0][1], val_mel=0.71)
    (finished / BEST_FILE).write_text(to_csv([old]))  # the old best was measured
    name = "best-epoch=0004-val_mel=0.6000.ckpt"
    make_tiny_checkpoint(finished / "checkpoints" / name, seed=6)
    ranking = [[0.60, name], *RANKING]
    (finished / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))

    table = page.runs.table
    point = table.visualItemRect(table.item(row, 0)).center()
    qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=point)  # a double-click: press, release,
    qtbot.mouseDClick(table.viewport(), Qt.MouseButton.LeftButton, pos=point)  # then the double-click event
    assert table.item(row, 4).text() == "0.6000" and page.state.best_checkpoint.path.name == name
    assert page.view.best_row.row is None and "0.6000" in page.view.best_row.caption.text()
    assert page._board.busy()
    _wait_scored(page, qtbot)
    assert _shown(page)["val_mel"][0] == "0.6000"


def test_a_run_from_scratch_says_no_baseline_when_scored_and_when_opened_again(page, qtbot, finished, tmp_path):
    """A run started from scratch has no start voice's row: its caption says so in the same words right after
    Score measures it and when the run is opened again (never "the start voice under it")."""
    import shutil

    from trainer.events.run_state import load_run

    scratch = shutil.copytree(finished, tmp_path / "scratch")
    document = json.loads((scratch / "training.json").read_text(encoding="utf-8"))
    document["start"] = "scratch"
    (scratch / "training.json").write_text(json.dumps(document), encoding="utf-8")
    page.board_limit = 1
    page.show_run(load_run(scratch))
    page.view.best_row.score_button.click()
    _wait_scored(page, qtbot)
    scored = page.view.best_row.caption.text()
    assert page.view.best_row.baseline is None and page.view.best_row.table.rowCount() == 1
    assert "start voice under it" not in scored and "no baseline: the run started from scratch" in scored

    page.show_run(load_run(scratch))  # opened again: the saved row at once, the same words
    assert not page._board.busy() and page.view.best_row.caption.text() == scored
