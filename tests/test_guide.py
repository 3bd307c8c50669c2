"""A newcomer's way to a voice of their own (issue 31, item 1): Help → Making a voice… and the first-run note."""

from __future__ import annotations

import pytest
from conftest import close_window

pytestmark = pytest.mark.gui


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    """A main window on empty user folders, at the smallest screen the studio is made for (1024×640)."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    win = MainWindow(Settings(), runs_root=tmp_path_factory.mktemp("runs"))
    win.resize(1024 - 16, 640 - 60)
    win.show()
    yield win
    close_window(win, qapp)


def test_help_walks_dataset_train_compare_synthesize_and_goes_to_each_page(window, qtbot):
    """Help's first entry is "Making a voice…": four steps in the navigation's order, each saying what the page
    gives; its buttons show the page asked for."""
    from PySide6.QtWidgets import QLabel

    from studio.guide import STEPS
    from studio.shortcuts import AREAS

    help_menu = [a.menu() for a in window.menuBar().actions() if a.text() == "&Help"][0]
    assert [a.text() for a in help_menu.actions()][0] == "Making a voice…"
    assert tuple(step.area for step in STEPS) == AREAS
    for step in STEPS:
        dialog = window.show_guide()
        qtbot.addWidget(dialog)
        texts = [label.text() for label in dialog.findChildren(QLabel)]
        assert any(step.title in t and f"You get {step.gives}" in t for t in texts), texts
        dialog.buttons[step.area].click()
        assert window.stack.currentWidget() is window.__dict__[f"{step.area.lower()}_page"]
        assert not dialog.isVisible()


def test_the_first_run_note_shows_until_a_dataset_project_exists(window, qtbot, tmp_path):
    """On empty user folders the status bar's note says the four steps and opens the guide; once a dataset project
    exists (its manifest.json) the note goes; Hide hides it for the session."""
    from studio.guide import NOTE

    window.state.workspace.dataset_project = tmp_path / "none-yet"
    assert window.first_run.isVisible() and window.first_run.toolTip() == NOTE
    from studio.guide import GuideDialog

    window.first_run.follow("guide")  # the link's click
    shown = [w for w in window.findChildren(GuideDialog) if w.isVisible()]
    assert len(shown) == 1
    shown[0].close()
    project = tmp_path / "project"
    project.mkdir()
    (project / "manifest.json").write_text("{}", encoding="utf-8")
    window.state.workspace.dataset_project = project
    assert not window.first_run.isVisible()
    window.state.workspace.dataset_project = tmp_path / "none-yet"
    assert window.first_run.isVisible()
    window.first_run.follow("hide")
    window.show_area("Train")
    assert not window.first_run.isVisible()


def test_an_import_into_the_shown_folder_hides_the_note_and_messages_stop_before_it(qtbot, tmp_path):
    """The Dataset page shows a folder that is not a project yet; an import makes it one, and the note goes at once
    (it stayed beside the project until the folder was chosen again). A message longer than the room left of the
    note ends in "…" instead of running under it."""
    from conftest import target_voice_slice

    from studio.main_window import MainWindow
    from studio.settings import Settings

    window = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(window)
    window.resize(1024 - 16, 640 - 60)
    window.show()
    page = window.dataset_page
    page.project_dir = tmp_path / "new-project"
    assert window.first_run.isVisible()
    long = "A message about what an import found, " * 8
    window.say(long)
    shown = window.statusBar().currentMessage()
    assert shown.endswith("…") and len(shown) < len(long)
    room = window.statusBar().width() - window.first_run.width()
    assert window.statusBar().fontMetrics().horizontalAdvance(shown) < room
    page.import_paths([target_voice_slice(tmp_path / "piper-data", 2)])
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    assert page.has_project() and not window.first_run.isVisible()
    window.resize(1280, 800)
    window.say(long, 60_000)
    wide = window.statusBar().currentMessage()
    assert wide.endswith("…") and len(shown) < len(wide) < len(long)  # no note now: the whole bar's width
    window.resize(1024 - 16, 640 - 60)  # narrower: cut again for the new width, not clipped at the edge
    narrow = window.statusBar().currentMessage()
    assert narrow.endswith("…") and len(narrow) < len(wide)
    assert window.statusBar().fontMetrics().horizontalAdvance(narrow) < window.statusBar().width()
