"""Scoring says a moving figure in each step (Qt offscreen, real tiny checkpoints, real measures): the
leaderboard's second step (measuring) counts each render scored from 0, its status said once and capitalised;
the Train page's automatic scoring of the best checkpoint shows ``n / m``."""

from __future__ import annotations

import gc
import re

import pytest
from test_train_leaderboard import finished, page  # noqa: F401 - fixtures

pytest.importorskip("lightning")
pytest.importorskip("resemblyzer", reason="speaker similarity needs resemblyzer (the compare extra)")
pytestmark = pytest.mark.gui


def _recording(progress) -> list[tuple[str, int, int]]:
    """(line, bar value, bar maximum) after every report the ``TaskProgress`` gets from now on."""
    seen: list[tuple[str, int, int]] = []
    for name in ("show_progress", "show_status"):
        original = getattr(progress, name)

        def recorded(*args, original=original):
            original(*args)
            seen.append((progress.text.text(), progress.bar.value(), progress.bar.maximum()))

        setattr(progress, name, recorded)  # follow() connects the task to these
    return seen


@pytest.fixture
def board(qtbot, tmp_path, make_tiny_checkpoint):
    from engines.pool import EnginePool
    from studio.comparison import Comparison
    from studio.pages.compare_board import BoardTab
    from trainer.evaluate.lines import typed_lines
    from trainer.evaluate.render import Candidate

    comparison = Comparison()
    tiny = [make_tiny_checkpoint(tmp_path / f"best-epoch=000{i}-val_mel=0.9{i}00.ckpt", seed=i) for i in range(2)]
    comparison.set_candidates([Candidate(label=f"tiny {i}", model_path=p) for i, p in enumerate(tiny)])
    comparison.set_lines(typed_lines("Hello there.\nA second line."))
    tab = BoardTab(comparison, EnginePool(), tmp_path / "cache")
    qtbot.addWidget(tab)
    yield tab
    tab.shutdown()
    tab.slot.join(60)
    gc.collect()


def test_leaderboard_scoring_counts_each_render_in_its_second_step(board, qtbot):
    """Step 2 starts at 0 of 4 (not a full bar) and moves one render at a time; the step is said once."""
    seen = _recording(board.progress)
    assert board.start_score() is not None
    qtbot.waitUntil(lambda: not board.slot.busy(), timeout=180_000)
    assert len(board.view.rows) == 2, board.view.status.text()
    step2 = [s for s in seen if "step 2 of 2" in s[0]]
    assert step2 and step2[0][0].startswith("Scoring 4 renders (step 2 of 2"), seen
    assert step2[0][2] in (0, 4) and step2[0][1] <= 0  # moving or empty, never left full from rendering
    counts = [int(m.group(1)) for text, _, _ in step2 if (m := re.search(r"\) (\d) / 4", text))]
    assert counts == [0, 1, 2, 3, 4], seen
    assert [value for _, value, top in step2 if top == 4] == [0, 1, 2, 3, 4]
    assert all(text.lower().count("scoring") == 1 for text, _, _ in step2), step2
    assert "step" not in board.view.status.text()  # said once: on the progress line, not again above


def test_train_page_scoring_of_the_best_checkpoint_shows_n_of_m(page, qtbot, finished):  # noqa: F811
    """ "Scoring the best checkpoint: scoring 2 renders (step 2 of 2: …) 1 / 2" as docs/train.md promises."""
    from trainer.events.run_state import load_run

    seen = _recording(page.view.best_row.progress)
    page.state = load_run(finished)
    page._on_process_finished(0, False)
    qtbot.waitUntil(lambda: not page._board.busy(), timeout=180_000)
    texts = [text for text, _, _ in seen]
    assert any(re.match(r"Scoring the best checkpoint: scoring 2 renders \(step 2 of 2.*\) 1 / 2", t) for t in texts)
    assert any(re.match(r"Scoring the best checkpoint: rendering 2 lines .* 2 / 2", t) for t in texts), texts


def test_the_best_rows_progress_line_elides_with_dots_beside_cancel_at_1024_by_640(qtbot, tmp_path, finished):  # noqa: F811
    """A long scoring line in the Train page's best row at 1024×640 ends in "…" (whole parts left out), stays left
    of Cancel, and the whole line is its tooltip; the Listen tab's render progress (the same widget) too."""
    import threading

    from conftest import shown_window
    from PySide6.QtWidgets import QApplication

    from studio.workers import Task
    from trainer.events.run_state import load_run

    window = shown_window(qtbot, tmp_path / "runs", "Train")
    window.train_page.show_run(load_run(finished))
    release = threading.Event()

    def work(state):
        state.status("rendering 10 lines (step 1 of 2: the best checkpoint, then the start voice)…")
        state.progress(0, 1)
        release.wait(30)

    for area, progress in (
        ("Train", window.train_page.view.best_row.progress),
        ("Compare", window.compare_page.listen.progress),
    ):
        window.show_area(area)
        task = Task(work)
        progress.follow(task, "Scoring the best checkpoint:", cancellable=True, phases=True)
        task.start()
        qtbot.waitUntil(lambda progress=progress: "0 / 1" in progress.text.text())
        QApplication.processEvents()
        line, cancel = progress.text, progress.cancel_button
        assert line.isVisible() and cancel.isVisible()
        assert line.geometry().right() < cancel.geometry().left(), (line.geometry(), cancel.geometry())
        assert line.minimumSizeHint().width() <= line.width()  # never more than it has: nothing cut or hidden
        shown = line.shown_text()
        assert shown != line.text() and shown.endswith("…"), shown
        assert line.fontMetrics().horizontalAdvance(shown) <= line.contentsRect().width()
        assert line.toolTip() == line.text() and "elapsed" in line.text()
        release.set()
        assert task.join(30)
        release.clear()
        progress.finish()
    window.close()
    gc.collect()
