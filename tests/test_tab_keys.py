"""Tab and Shift+Tab leave every text box and table (issue 17: Tab traps), through the whole window, Qt offscreen."""

from __future__ import annotations

import pytest
from conftest import close_window, shared_path
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget

from studio.main_window import AREAS

pytestmark = pytest.mark.gui

LIMIT = 120
"""Tab presses allowed for one full cycle through the window."""


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    """A 1024×640 main window with something in every table and text box: the Dataset page holds the five 'cards'
    clips, the Train page lists two runs, the Compare page's lines are typed."""
    from pytestqt.qtbot import QtBot

    from studio.main_window import MainWindow
    from studio.settings import Settings
    from trainer.events.run_state import TRAINING_FILE

    runs = tmp_path_factory.mktemp("runs")
    for name in ("first", "second"):
        (runs / name).mkdir()
        (runs / name / TRAINING_FILE).write_text("{}", encoding="utf-8")
    win = MainWindow(Settings(), runs_root=runs)
    win.resize(1024, 640)
    win.show()
    page = win.dataset_page
    page.new_project(tmp_path_factory.mktemp("data") / "project")
    page.import_paths([shared_path("corpus", "real-speech", "cards")])
    QtBot(qapp).waitUntil(lambda: not page.is_busy() and page.model.rowCount() == 5, timeout=120_000)
    win.compare_page.listen.lines_box.choose_typed("first line\nsecond line")
    yield win
    close_window(win, qapp)


def _focus(window, qtbot, widget: QWidget) -> None:
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    widget.setFocus(Qt.FocusReason.TabFocusReason)
    qtbot.waitUntil(widget.hasFocus, timeout=2000)


def _walk(start: QWidget, key=Qt.Key.Key_Tab) -> list[QWidget]:
    """Widgets focused pressing ``key`` from ``start`` until focus is back on it; fails where a press leaves focus
    where it was or the cycle does not come back within ``LIMIT`` presses."""
    chain = [start]
    for _ in range(LIMIT):
        before = QApplication.focusWidget()
        QTest.keyClick(before, key)
        QApplication.processEvents()
        now = QApplication.focusWidget()
        assert now is not before, f"{key.name} stayed in {type(before).__name__} {before.objectName()}"
        if now is start:
            return chain
        chain.append(now)
    raise AssertionError(f"{key.name} did not come back to {type(start).__name__} in {LIMIT} presses")


def _tab_states(page: QWidget):
    """Every tab of every tab widget of ``page``, one at a time (the page as it is once when it has none)."""
    tabs = [t for t in page.findChildren(QTabWidget) if t.isVisibleTo(page)] or [None]
    for widget in tabs:
        for index in range(widget.count() if widget else 1):
            if widget is not None:
                widget.setCurrentIndex(index)
            QApplication.processEvents()
            yield f"{type(widget).__name__}:{widget.tabText(index)}" if widget else "page"


@pytest.mark.parametrize("area", AREAS)
def test_tab_and_shift_tab_go_round_every_page_and_tab(window, qtbot, area):
    window.show_area(area)
    page = window.stack.currentWidget()
    for _state in _tab_states(page):
        for key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
            _focus(window, qtbot, window.nav)
            chain = _walk(window.nav, key)
            assert any(page.isAncestorOf(w) for w in chain), _state  # the walk went through the page


def test_tab_leaves_the_typed_lines_box_and_ctrl_tab_types_a_tab(window, qtbot):
    window.show_area("Compare")
    page = window.compare_page
    page.tabs.setCurrentWidget(page.listen)
    box = page.listen.lines_box
    box.choose_typed("first line\nsecond line")
    _focus(window, qtbot, box.text)
    QTest.keyClick(box.text, Qt.Key.Key_Tab)
    assert box.text.toPlainText() == "first line\nsecond line" and not box.text.hasFocus()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert box.text.hasFocus()  # Shift+Tab comes back into it
    QTest.keyClick(box.text, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert box.text.toPlainText() == "first line\nsecond line\t" and box.text.hasFocus()


def test_tab_leaves_the_runs_table_with_the_run_shown(window, qtbot):
    window.show_area("Train")
    page = window.train_page
    page.tabs.setCurrentWidget(page.runs)
    table = page.runs.table
    assert table.rowCount() == 2
    table.selectRow(0)
    shown = page.state.folder
    _focus(window, qtbot, table)
    QTest.keyClick(table, Qt.Key.Key_Tab)
    assert not table.hasFocus() and page.state.folder == shown and page.runs.selected()[0].folder == shown


def test_tab_leaves_the_clip_table_with_the_selection_unchanged(window, qtbot):
    window.show_area("Dataset")
    page = window.dataset_page
    page.tabs.setCurrentIndex(0)
    page.table.setCurrentIndex(page.proxy.index(1, 0))  # as a click on clip 002 leaves it
    assert page.selected_ids() == ["002"]
    _focus(window, qtbot, page.table)
    for key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab):
        page.table.setFocus(Qt.FocusReason.TabFocusReason)
        QTest.keyClick(page.table, key)
        assert not page.table.hasFocus(), key
        assert page.selected_ids() == ["002"] and page.editor.clip_id == "002"
    page.table.setFocus(Qt.FocusReason.TabFocusReason)
    QTest.keyClick(page.table, Qt.Key.Key_Down)  # the arrow keys still move within the table
    assert page.selected_ids() == ["003"] and page.table.hasFocus()
    _walk(page.table)  # and a Tab cycle with clips in it comes back round


def test_a_dialog_opened_later_lets_tab_leave_its_table(window, qtbot):
    dialog = window.show_shortcuts()  # made after the window: fixed when Qt polishes it
    try:
        qtbot.waitUntil(dialog.isVisible, timeout=2000)
        assert not dialog.table.tabKeyNavigation()
    finally:
        dialog.close()
