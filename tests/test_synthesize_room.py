"""The Synthesize page at 1024×640 and its words (issue 17, fix round): the remote panel's room, the status line,
notices that belong to their subject, History rows, file dialogs' start folders, File → Quit (Qt offscreen)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from conftest import close_window, save_dialog
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QHeaderView, QWidget

pytestmark = pytest.mark.gui

SCREEN = (1024, 640)
UNREACHABLE = "http://127.0.0.1:9"
"""A server address where nothing answers (the discard port): a request fails at once with "cannot connect"."""


@pytest.fixture
def window(qapp, tmp_path, monkeypatch):
    """A 1024×640 main window on the Synthesize page, its settings written under ``tmp_path``."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    win = MainWindow(Settings(), runs_root=tmp_path / "runs")
    win.resize(*SCREEN)
    win.show()
    win.show_area("Synthesize")
    QApplication.processEvents()
    yield win
    close_window(win, qapp)


def _clipped(root: QWidget) -> list[str]:
    """Visible widgets of ``root`` given less than their minimum size hint (as tests/test_window_keyboard.py); an
    editable combo box's own line edit (drawn inside the box's frame, the box measured itself) is left out."""
    found = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root) or widget.objectName().startswith("qt_") or isinstance(widget, QHeaderView):
            continue
        if isinstance(widget.parentWidget(), QComboBox):
            continue
        need = widget.minimumSizeHint().boundedTo(widget.sizeHint())
        if widget.width() < need.width() or widget.height() < need.height():
            found.append(f"{type(widget).__name__} {widget.size().toTuple()} < {need.toTuple()}")
    return found


def test_remote_fields_keep_their_height_before_and_after_an_error_said_once(window, qtbot):
    """Remote engine at 1024×640: URL, key, model, voice, format and Test at their minimum size hint; a failed
    Speak says the server's error once, in the panel (not under the buttons, not in the status bar), and the
    fields still keep their height."""
    page = window.synthesize_page
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    panel = page.remote_panel
    panel.url.setText(UNREACHABLE)
    window.resize(window.minimumSize())  # the smallest the window can be made (a 1024×640 screen's, less a frame)
    qtbot.wait(50)  # the layouts settle (a scroll area lays out its column on a posted request)
    assert _clipped(page) == []
    assert panel.url.height() >= panel.url.minimumSizeHint().height()
    window.statusBar().clearMessage()
    page.text_edit.setPlainText("Hello.")
    page.speak()
    qtbot.waitUntil(lambda: "cannot connect" in panel.status.text(), timeout=20_000)
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=10_000)
    qtbot.wait(50)
    assert "cannot connect" not in page.notice.text() and "cannot connect" not in window.statusBar().currentMessage()
    assert _clipped(page) == []
    assert panel.status.height() >= panel.status.heightForWidth(panel.status.width())  # the red line whole


def test_status_has_its_own_line_under_the_buttons(window):
    """The status line is under the Speak/Stop/Save row and as wide as the bar: a long timing reads on one or two
    lines instead of three right-aligned ones beside the buttons."""
    page = window.synthesize_page
    page.status.setText("en_US-joe-medium · torch: loaded in 2.1 s, first audio 0.31 s, RTF 0.12, 3.2 s of audio")
    QApplication.processEvents()
    buttons = page.speak_button.geometry()
    assert page.status.geometry().top() >= buttons.bottom()
    assert page.status.width() >= page.bar.width() - 2
    assert page.status.heightForWidth(page.status.width()) <= 2 * page.status.fontMetrics().lineSpacing() + 2


def test_the_sound_device_notice_stays_while_a_line_starts(window, qtbot):
    """A notice that audio cannot be played stays when Speak starts a line (and its engine loads); it goes only
    when a check of the device says otherwise."""
    page = window.synthesize_page
    page.show_notice("Cannot play audio: no audio output device was found.", "device")
    page.text_edit.setPlainText("Hello.")
    page.speak()
    assert "Cannot play audio" in page.notice.about("device")
    page.stop()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=20_000)


def test_a_damaged_voice_file_is_said_in_words_and_goes_at_the_next_add(window, qtbot, joe, tmp_path):
    """Add voice… with a corrupt .onnx: the notice says it in words (protobuf's own words only in the tooltip),
    stays through an engine switch, and goes when a voice is added next; another one goes when a line is spoken."""
    import shutil

    page = window.synthesize_page
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"\x08\x07garbage" * 20)
    shutil.copy(f"{joe.model_path}.json", tmp_path / "broken.onnx.json")
    page.add_voice_files([broken])
    text = page.notice.about("add")
    assert text == f"{broken}: not a valid ONNX model: the file is damaged or not an ONNX voice", text
    assert "DecodeError" not in page.notice.text() and "Error" in page.notice.toolTip()
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    page.engine_box.setCurrentIndex(page.engine_box.findData("onnx"))
    assert page.notice.about("add") == text
    page.add_voice_files([joe.model_path])
    assert page.notice.about("add") == "" and page.notice.toolTip() == ""
    page.add_voice_files([broken])
    assert page.notice.about("add") == text
    page.text_edit.setPlainText("Hi.")
    with qtbot.waitSignal(page.line_finished, timeout=30_000):
        page.speak()
    assert page.notice.about("add") == ""


def test_history_rows_show_the_stopped_mark_first_elided_wrapped_with_tooltips(qtbot):
    """A stopped line with a long text: the row begins with the mark and the voice · engine, the text is cut in
    its middle, the row wraps (no sideways scrolling), and the tooltip has the whole text."""
    from studio.speaking import Line
    from studio.state import SpokenLines
    from studio.widgets.history import HistoryList

    lines = SpokenLines()
    history = HistoryList(lines)
    qtbot.addWidget(history)
    history.resize(300, 300)
    text = "The quick brown fox jumps over the lazy dog, and then it runs far away over the hills. The end."
    audio = np.zeros(5 * 22050 + 2205, dtype=np.float32)
    lines.add(Line(text=text, voice="joe-copy", engine="onnx", audio=audio, sample_rate=22050, stopped=True))
    row = history.item(0)
    assert row.text().startswith("(stopped after 5.1 s) joe-copy")
    assert "…" in row.text() and row.text().endswith("The end.") and len(row.text()) < len(row.toolTip())
    assert row.toolTip().endswith(text) and row.toolTip().startswith("(stopped after 5.1 s) ")
    assert history.wordWrap() and history.horizontalScrollBarPolicy() == Qt.ScrollBarPolicy.ScrollBarAlwaysOff


def test_save_wav_starts_where_the_last_save_went(window, qtbot, monkeypatch, tmp_path):
    """Save WAV… starts in the user's Music/Documents/home, never the launch folder, proposing the voice and the
    text as the name; after a save to another folder the next one starts there."""
    from studio.widgets import speak_bar

    page = window.synthesize_page
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "Music").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    asked = save_dialog(monkeypatch, speak_bar, elsewhere / "mine.wav")
    page.text_edit.setPlainText("Hi.")
    with qtbot.waitSignal(page.line_finished, timeout=30_000):
        page.speak()
    page.save_button.click()
    page.save_button.click()
    assert asked == [str(tmp_path / "home" / "Music" / "joe-hi.wav"), str(elsewhere / "joe-hi.wav")], asked
    assert (elsewhere / "mine.wav").is_file()


def test_compare_dialogs_start_in_the_studio_folders(window, monkeypatch, tmp_path):
    """Compare's Add voice file… starts in the voices folder (no name filled in), Add training run… and Runs →
    Add run… in the runs folder, each made when missing."""
    from studio.pages import compare_sources
    from studio.widgets import run_curves

    page = window.compare_page
    workspace = window.state.workspace
    workspace.voices_dir = tmp_path / "voices"
    asked: list[str] = []
    monkeypatch.setattr(
        compare_sources.QFileDialog, "getOpenFileNames", lambda _p, _t, start, _f: (asked.append(start), ([], ""))[1]
    )
    monkeypatch.setattr(
        compare_sources.QFileDialog, "getExistingDirectory", lambda _p, _t, start: (asked.append(start), "")[1]
    )
    monkeypatch.setattr(
        run_curves.QFileDialog, "getExistingDirectory", lambda _p, _t, start: (asked.append(start), "")[1]
    )
    sources = page.listen.candidates_box
    sources._choose_files()
    sources._choose_run()
    page.runs.add_run()
    runs = str(workspace.runs_dir)
    assert asked == [str(tmp_path / "voices"), runs, runs], asked
    assert all(os.path.isdir(p) for p in asked)


def test_quit_closes_the_window_as_the_close_button_and_is_listed(window, qtbot):
    """File → Quit has Ctrl+Q and closes the window (the pages' shutdowns run); Help lists it."""
    from PySide6.QtGui import QKeySequence

    from studio.shortcuts import ShortcutsDialog

    assert QKeySequence("Ctrl+Q") in window.quit_action.shortcuts()
    assert any(keys == "Ctrl+Q" for _, keys, _ in ShortcutsDialog(window).listed())
    closed = []
    window.compare_page.shutdown = lambda: closed.append("compare")
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not window.isVisible(), timeout=5_000)
    assert closed == ["compare"]


def test_say_offers_speed_as_the_inverse_of_length_scale_not_both():
    """``say --help`` names --speed (faster when larger); --speed with --length-scale is refused in one line."""
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-m", "studio", "say", "--help"], capture_output=True, text=True)
    assert "--speed" in shown.stdout and "1/speed" in shown.stdout
    both = [sys.executable, "-m", "studio", "say", "Hi.", "-o", "x.wav", "--speed", "2", "--length-scale", "0.5"]
    refused = subprocess.run(both, capture_output=True, text=True)
    assert refused.returncode == 2 and "not allowed with argument" in refused.stderr


def test_compare_says_which_way_length_scale_goes(window):
    """The Compare page's length_scale row says larger is slower (Synthesize's Speed goes the other way)."""
    from PySide6.QtWidgets import QFormLayout

    box = window.compare_page.listen.settings_box
    label = box.layout().labelForField(box.length_scale)
    assert isinstance(box.layout(), QFormLayout) and label.text() == "length_scale (larger is slower)"


def test_the_text_column_keeps_its_width_when_the_splitter_is_dragged_against_it(window, qtbot):
    """The handle between the text column and the settings dragged far left, as a user would: it stops at the
    column's minimum width (the column scrolls only vertically, so anything narrower cut every row: the voice row,
    Pronunciations… / Send to Home Assistant…, the Speak bar), and the voice buttons stay whole on screen."""
    from PySide6.QtCore import QPoint
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QScrollArea, QSplitter

    page = window.synthesize_page
    splitter = page.findChild(QSplitter)
    area = splitter.widget(0)
    assert isinstance(area, QScrollArea)
    handle = splitter.handle(1)
    middle = handle.rect().center()
    QTest.mousePress(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, middle)
    QTest.mouseMove(handle, middle - QPoint(2000, 0))
    QTest.mouseRelease(handle, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, middle - QPoint(2000, 0))
    qtbot.wait(50)
    column = area.widget()
    assert splitter.sizes()[0] < 600  # the handle did move
    assert area.viewport().width() >= column.minimumSizeHint().width()
    for button in (page.pronunciations_button, page.send_button, page.speak_button):
        corner = button.mapTo(area.viewport(), QPoint(button.width(), 0))
        assert corner.x() <= area.viewport().width(), button.text()
