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
    from trainer import events
    from trainer.evaluate.best_row import BEST_FILE

    (prepared_run / BEST_FILE).unlink(missing_ok=True)
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
    from trainer.evaluate.best_row import BEST_FILE
    from trainer.evaluate.leaderboard import read_csv
    from trainer.run_state import load_run

    page.state = load_run(finished)
    page._on_process_finished(0, False)  # what the page does when its trainer exits after the Finish event
    assert page._board.busy() and page.view.best_row.progress.isVisibleTo(page.view)
    _wait_scored(page, qtbot)
    saved = finished / BEST_FILE
    [row] = read_csv(saved.read_text(encoding="utf-8"))
    assert row.model_path == finished / "checkpoints" / RANKING[0][1] and row.val_mel == pytest.approx(0.71)
    cells = _shown(page)
    assert cells["val_mel"][0] == "0.7100" and cells["wer"][0] != "—" and cells["dnsmos_ovrl"][0] != "—"
    assert all(tip for text, tip in cells.values() if text == "—")  # a missing measure says why
    assert "0.7100" in page.view.best_row.caption.text()

    written = saved.stat().st_mtime_ns
    page.show_run(load_run(finished))  # opened again: the saved row at once, nothing measured
    assert not page._board.busy() and _shown(page) == cells
    qtbot.wait(200)
    assert saved.stat().st_mtime_ns == written


def test_a_changed_best_checkpoint_is_scored_again(page, qtbot, finished, make_tiny_checkpoint):
    from trainer.evaluate.best_row import BEST_FILE
    from trainer.evaluate.leaderboard import read_csv
    from trainer.run_state import load_run

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
    assert page.view.best_row.row is None  # the saved row is the old best's
    page.view.best_row.score_button.click()
    _wait_scored(page, qtbot)
    [row] = read_csv((finished / BEST_FILE).read_text(encoding="utf-8"))
    assert row.model_path == finished / "checkpoints" / name and _shown(page)["val_mel"][0] == "0.6500"
    assert (finished / BEST_FILE).stat().st_mtime_ns > first
