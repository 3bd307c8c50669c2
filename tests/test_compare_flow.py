"""The whole compare loop as a user goes through it, in the main window (Qt offscreen): the Train page's
"Compare checkpoints" on a tiny run, two checkpoints and two held-out lines rendered, keys 1/2, a blind
pairwise test rated with the keyboard, revealed and exported, the leaderboard scored and saved in the run
folder; then a restarted studio shows the saved leaderboard and ratings on the same run."""

from __future__ import annotations

import gc
import json

import pytest
from conftest import target_voice_slice
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QFileDialog, QLabel, QTableWidget, QWidget

pytest.importorskip("lightning")
pytest.importorskip("resemblyzer", reason="the leaderboard's speaker similarity needs resemblyzer")
pytestmark = pytest.mark.gui

RANKING = [[0.71, "best-epoch=0001-val_mel=0.7100.ckpt"], [0.95, "best-epoch=0000-val_mel=0.9500.ckpt"]]


@pytest.fixture(scope="module")
def run(tmp_path_factory, make_tiny_checkpoint):
    """A run prepared on 40 target-voice clips (two held out) from joe, with two ranked tiny checkpoints."""
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", 40)
    out = tmp_path_factory.mktemp("runs") / "tune"
    run = create_run(RunOptions(dataset=folder, out=out, start="joe", preset="test", epochs=2))
    (run / "checkpoints").mkdir(exist_ok=True)
    for seed, (_, name) in enumerate(RANKING):
        make_tiny_checkpoint(run / "checkpoints" / name, seed=seed)
    (run / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": RANKING}))
    return run


def _window(qtbot, run):
    from studio.main_window import MainWindow
    from studio.settings import Settings

    window = MainWindow(Settings(), runs_root=run.parent)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    return window


def _close(window) -> None:
    window.close()  # shuts the pages down (the compare page drops its tasks)
    window.compare_page.listen.slot.join(30)
    window.compare_page.board.slot.join(30)
    gc.collect()


def _open_from_train_page(window, qtbot, run) -> list:
    """Train page → "Compare checkpoints" on the run; then only the two checkpoints checked and rendered."""
    from trainer.events.run_state import load_run

    window.show_area("Train")
    window.train_page.show_run(load_run(run))
    page, listen = window.compare_page, window.compare_page.listen
    with qtbot.waitSignal(listen.lines_box.lines_chosen, timeout=120_000):
        window.train_page.buttons["compare"].click()
    assert window.stack.currentWidget() is page and page.tabs.currentWidget() is listen
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=120_000)
    checkpoints = [(run / "checkpoints" / name).absolute() for _, name in RANKING]
    listen.candidates_box.check_only(set(checkpoints))
    assert [c.model_path.absolute() for c in page.comparison.candidates] == checkpoints  # as listed: best val_mel first
    assert len(page.comparison.lines) == 2 and all(line.reference for line in page.comparison.lines)
    listen.render_button.click()
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=60_000)
    assert page.comparison.missing() == 0, listen.status.text()
    return [c.label for c in page.comparison.candidates]


def _visible_texts(widget: QWidget) -> str:
    """Every text shown in ``widget``: labels, buttons, tooltips and table cells."""
    texts = []
    for w in (widget, *widget.findChildren(QWidget)):
        if not w.isVisibleTo(widget):
            continue
        texts.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        elif isinstance(w, QTableWidget):
            texts += [w.item(r, c).text() for r in range(w.rowCount()) for c in range(w.columnCount()) if w.item(r, c)]
    return "\n".join(texts)


def test_compare_checkpoints_render_listen_rate_reveal_export_score_and_reopen(qtbot, run, tmp_path, monkeypatch):
    window = _window(qtbot, run)
    page = window.compare_page
    assert page.blind.hint.text().startswith("Check two or more candidates")
    labels = _open_from_train_page(window, qtbot, run)
    listen = page.listen

    listen.line_list.setFocus()
    listen.line_list.setCurrentRow(1)
    qtbot.keyClick(listen.line_list, Qt.Key.Key_2)
    assert listen.current == 1 and listen.view.audio is page.comparison.rendered[(labels[1], 1)].audio
    qtbot.keyClick(listen.line_list, Qt.Key.Key_1)
    assert listen.current == 0 and listen.view.audio is page.comparison.rendered[(labels[0], 1)].audio

    page.tabs.setCurrentWidget(page.blind)
    panel = page.blind.panel
    assert panel.isVisible() and not page.blind.hint.isVisible()
    assert panel.ratings_path == run.absolute() / "blind-test.json"
    assert len(panel.trials["pairwise"]) == 2  # one pair on each of two lines
    for choice in (Qt.Key.Key_1, Qt.Key.Key_2):
        trial = panel.current()
        qtbot.keyClick(panel, Qt.Key.Key_A)
        assert listen.player.is_playing() and "no audio" not in panel.status.text()
        qtbot.keyClick(panel, Qt.Key.Key_Space)
        assert not listen.player.is_playing()
        qtbot.keyClick(panel, choice)
        assert panel.test.ratings[-1].choice == (trial.a if choice == Qt.Key.Key_1 else trial.b)
        assert not any(label in _visible_texts(page.blind) for label in labels)  # hidden until the reveal
        qtbot.keyClick(panel, Qt.Key.Key_Return)
    assert "2 rated" in panel.progress.text()
    panel.buttons["reveal"].click()
    assert all(label in _visible_texts(page.blind) for label in labels)
    exported = tmp_path / "ratings.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(exported), "CSV (*.csv)"))
    panel.buttons["export"].click()
    assert panel.test.read_csv(exported.read_text(), exported) == panel.test.ratings

    page.tabs.setCurrentWidget(page.board)
    board = page.board
    board.view.score_button.click()
    assert board.progress.isVisible() and not board.view.score_button.isEnabled()
    qtbot.waitUntil(lambda: not board.slot.busy(), timeout=120_000)
    rows = board.view.rows
    from trainer.evaluate.board import is_recordings
    from trainer.evaluate.leaderboard import COLUMNS, read_csv

    *voices, heard = rows  # the held-out clips' own recordings last, heard as the renders are
    assert [r.label for r in voices] == labels and is_recordings(heard), board.view.status.text()
    assert "Scored 2 candidates and their recordings; saved as" in board.view.status.text()
    measures = [c.field for c in COLUMNS[1:]]
    assert all(getattr(r, f) is not None or r.missing.get(f) for r in voices for f in measures), rows
    assert all(r.dnsmos_ovrl is not None and r.rate_pps is not None for r in rows), rows  # random weights: noise
    assert rows[0].val_mel == pytest.approx(0.71) and rows[1].val_mel == pytest.approx(0.95)  # as listed
    assert read_csv((run / "leaderboard.csv").read_text()) == rows
    assert board.view.table.rowCount() == 3 and not board.from_file
    ratings = list(panel.test.ratings)
    _close(window)

    again = _window(qtbot, run)  # a restarted studio, the same run
    assert _open_from_train_page(again, qtbot, run) == labels
    board = again.compare_page.board
    assert board.from_file and board.view.rows == rows and "saved earlier" in board.view.status.text()
    assert board.view.table.rowCount() == 3
    again.compare_page.tabs.setCurrentWidget(again.compare_page.blind)
    reopened = again.compare_page.blind.panel
    assert reopened.test.ratings == ratings and reopened.test.revealed
    comparison = again.compare_page.comparison
    again.compare_page.listen.lines_box.choose_typed("Hello there.")
    board.view.score_button.click()  # takes the typed line: the saved rows are not its rows
    assert [line.text for line in comparison.lines] == ["Hello there."] and board.view.rows == []
    assert again.compare_page.blind.hint.isVisible() and comparison.missing() == 2
    qtbot.waitUntil(lambda: not board.slot.busy(), timeout=120_000)
    assert [r.label for r in board.view.rows] == labels and comparison.missing() == 0  # scoring rendered them
    assert reopened.isVisible() and not again.compare_page.blind.hint.isVisible()
    _close(again)


def test_many_long_labels_or_runs_do_not_widen_the_page_past_the_screen(qtbot, tmp_path):
    """Nine candidates with long labels share the Listen tab's button row, and runs without epochs listed in the
    Runs tab's status wrap: the page's minimum width stays that of its empty layout (no window wider than a
    1400 px screen)."""
    from engines.pool import EnginePool
    from studio.pages.compare import ComparePage
    from studio.state import VoiceLibrary, Workspace
    from trainer.evaluate.render import Candidate

    page = ComparePage(Workspace(runs_dir=tmp_path), VoiceLibrary(), EnginePool())
    qtbot.addWidget(page)
    empty = page.minimumSizeHint().width()
    long = "a rather long candidate label of a checkpoint"
    page.comparison.set_candidates(Candidate(label=f"{long} {n}", model_path=tmp_path / f"{n}.ckpt") for n in range(9))
    assert len(page.listen.buttons.buttons()) == 9 and page.listen.buttons.button(8).toolTip() == f"{long} 8"
    page.runs.set_runs([tmp_path / f"a run folder with a long name number {n}" for n in range(9)])
    assert page.runs.status.text().startswith("No epochs yet in: ")
    page.show()
    for tab in (page.listen, page.runs):
        page.tabs.setCurrentWidget(tab)
        QApplication.processEvents()
        assert page.minimumSizeHint().width() <= empty < 1000
