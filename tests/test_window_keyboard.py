"""The main window on a 1024×640 screen and from the keyboard (issue 17, finding 3), Qt offscreen."""

from __future__ import annotations

import pytest
from conftest import close_window
from PySide6.QtCore import QRect, QSize, Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QApplication,
    QHeaderView,
    QPlainTextEdit,
    QPushButton,
    QScrollArea,
    QTabBar,
    QVBoxLayout,
    QWidget,
)

from studio.main_window import AREAS

pytestmark = pytest.mark.gui

SCREEN = (1024, 640)
"""A small laptop screen (px)."""
FRAME = (24, 60)
"""Room left on that screen for a window manager's frame and title bar, and a panel (px)."""


@pytest.fixture(scope="module")
def window(qapp):
    """One main window, 1024×640, for this module."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    win = MainWindow(Settings())
    win.resize(*SCREEN)
    win.show()
    yield win
    close_window(win, qapp)


def _show(window, area: str) -> QWidget:
    window.show_area(area)
    window.resize(*SCREEN)
    QApplication.processEvents()
    return window.stack.currentWidget()


def _clipped(window, page: QWidget) -> list[str]:
    """Visible widgets of ``page`` given less than they need in either dimension: less than their minimum size
    hint, or than their size hint where that is smaller (a tab bar's hint counts scroll buttons it does not show).
    Qt's own parts (``qt_*``) and header views (sized by their table) are left out."""
    found = []
    for widget in page.findChildren(QWidget):
        if not widget.isVisibleTo(window) or widget.objectName().startswith("qt_") or isinstance(widget, QHeaderView):
            continue
        need = widget.minimumSizeHint().boundedTo(widget.sizeHint())
        size = widget.size()
        if size.width() < need.width() or size.height() < need.height():
            found.append(f"{type(widget).__name__} {size.toTuple()} < {need.toTuple()}")
    return found


@pytest.mark.parametrize("area", AREAS)
def test_every_page_fits_a_1024x640_screen_unclipped(window, area):
    page = _show(window, area)
    least = window.minimumSizeHint().expandedTo(window.minimumSize())
    assert least.width() <= SCREEN[0] - FRAME[0] and least.height() <= SCREEN[1] - FRAME[1], least
    assert window.size().toTuple() == SCREEN  # the window took the size; no page forced it wider
    assert _clipped(window, page) == []
    try:
        for size in (window.minimumSize(), QSize(1400, 900)):  # the smallest it can be made, and a larger screen
            window.resize(size)
            QApplication.processEvents()
            assert _clipped(window, page) == [], size
            bars = [b for b in page.findChildren(QTabBar) if b.isVisibleTo(window)]
            assert all(b.width() >= b.sizeHint().width() for b in bars), size  # every tab whole, no scroll arrows
    finally:
        window.resize(*SCREEN)


def _in_view(widget: QWidget, area: QScrollArea) -> bool:
    """Whether all of ``widget`` shows in the scroll ``area``'s viewport (none of it scrolled or clipped away)."""
    top_left = widget.mapTo(area.viewport(), widget.rect().topLeft())
    return area.viewport().rect().contains(QRect(top_left, widget.size())) and widget.isVisibleTo(area)


def test_the_clip_editor_shows_whole_beside_six_table_rows(window, qtbot, tmp_path):
    """With a clip selected, the editor's mel spectrogram, transcript and every button show without scrolling while
    the table keeps 6 rows: at 1024×640 and in the smallest window."""
    from conftest import shared_path

    page = _show(window, "Dataset")
    page.new_project(tmp_path / "project")
    page.import_paths([shared_path("corpus", "real-speech", "cards")])
    qtbot.waitUntil(lambda: not page.is_busy() and page.model.rowCount() == 5, timeout=120_000)
    page.select(["002"])
    table, editor = page.table, page.editor
    area = next(a for a in page.findChildren(QScrollArea) if a.widget() is editor)
    try:
        for size in (QSize(*SCREEN), window.minimumSize()):
            window.resize(size)
            QApplication.processEvents()
            assert table.viewport().height() >= 6 * table.verticalHeader().defaultSectionSize(), size
            for widget in (editor.mel, editor.text, editor.phonemes, *editor.buttons.values()):
                assert _in_view(widget, area), (size, widget.objectName() or type(widget).__name__)
            assert editor.waveform.height() >= 90 and editor.mel.height() >= 70
            assert _clipped(window, page) == []
        splitter = table.parentWidget()  # the splitter between them moves both ways
        before = splitter.sizes()
        splitter.moveSplitter(before[0] - 100, 1)
        assert splitter.sizes()[0] == before[0] - 100 and splitter.sizes()[1] > before[1]
        splitter.moveSplitter(before[0], 1)
        assert splitter.sizes() == before
    finally:
        window.resize(*SCREEN)
        page.open_project(tmp_path / "none")


def _tab_chain(start: QWidget, key=Qt.Key.Key_Tab, limit: int = 40) -> list[QWidget]:
    """The widgets focused by pressing ``key`` from ``start`` until focus comes back round (or ``limit``)."""
    from PySide6.QtTest import QTest

    start.setFocus(Qt.FocusReason.OtherFocusReason)
    QApplication.processEvents()
    chain = [QApplication.focusWidget()]
    for _ in range(limit):
        QTest.keyClick(QApplication.focusWidget(), key)
        QApplication.processEvents()
        if QApplication.focusWidget() is chain[0]:
            break
        chain.append(QApplication.focusWidget())
    return chain


def test_tab_goes_through_the_synthesize_page_and_out_of_the_text_box(window, qtbot):
    page = _show(window, "Synthesize")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    page.stop_button.setEnabled(True)  # as while a line is spoken and once one is on screen
    page.save_button.setEnabled(True)
    text = page.text_edit.toPlainText()
    try:
        chain = _tab_chain(page.voice_box)
    finally:
        page.stop_button.setEnabled(False)
        page.save_button.setEnabled(False)
    assert page.text_edit.toPlainText() == text  # Tab typed nothing
    at = chain.index(page.text_edit)
    assert chain[at + 1] is page.speak_button  # one Tab leaves the text box
    sliders = [s.slider for s in (page.speed, page.noise_scale, page.noise_w)]
    for widget in (page.speak_button, page.stop_button, page.save_button, *sliders):
        assert widget in chain
    assert chain.index(page.speak_button) < chain.index(page.stop_button) < chain.index(page.save_button)
    back = _tab_chain(page.speak_button, Qt.Key.Key_Backtab, limit=1)
    assert back[1] is page.text_edit  # Shift+Tab comes back into it


def test_ctrl_tab_types_a_tab_in_the_text_box(window, qtbot):
    page = _show(window, "Synthesize")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    page.text_edit.setPlainText("a")
    page.text_edit.moveCursor(page.text_edit.textCursor().MoveOperation.End)
    page.text_edit.setFocus()
    qtbot.keyClick(page.text_edit, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert page.text_edit.toPlainText() == "a\t"
    assert QApplication.focusWidget() is page.text_edit


def test_ctrl_digits_show_the_pages_in_navigation_order(window, qtbot):
    _show(window, "Synthesize")
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=2000)
    for digit, area in zip((Qt.Key.Key_1, Qt.Key.Key_2, Qt.Key.Key_3, Qt.Key.Key_4), AREAS, strict=True):
        qtbot.keyClick(window.nav, digit, Qt.KeyboardModifier.ControlModifier)
        assert window.nav.currentItem().text() == area
        assert window.stack.currentIndex() == window.nav.currentRow()


def test_help_lists_the_shortcuts_and_the_navigation_tells_its_keys(window, qtbot):
    menus = {action.text().replace("&", ""): action.menu() for action in window.menuBar().actions()}
    go_keys = [action.shortcut().toString() for action in menus["Go"].actions()]
    assert go_keys == ["Ctrl+1", "Ctrl+2", "Ctrl+3", "Ctrl+4"]
    (help_action,) = [a for a in menus["Help"].actions() if a.text() == "Keyboard shortcuts…"]
    help_action.trigger()
    dialogs = [w for w in QApplication.topLevelWidgets() if w.windowTitle() == "Keyboard shortcuts" and w.isVisible()]
    assert len(dialogs) == 1
    listed = dialogs[0].listed()
    keys = {keys for _action, keys, _where in listed}
    assert set(go_keys) <= keys
    assert {"Ctrl+Enter", "Esc", "Ctrl+Tab", "1 … 9", "R", "Space", "Tab / Shift+Tab"} <= keys
    dialogs[0].close()
    for row, area in enumerate(AREAS):
        assert window.nav.item(row).toolTip() == f"Show the {area} page ({go_keys[row]})"


def _ring_pixels(widget: QWidget, colour: QColor) -> int:
    image = widget.grab().toImage()
    return sum(image.pixelColor(x, y) == colour for x in range(image.width()) for y in range(image.height()))


def test_the_focus_ring_is_drawn_in_the_palette_highlight(qapp, qtbot):
    from PySide6.QtWidgets import QStyleFactory

    from studio.widgets.focus_ring import RING_WIDTH, FocusRingStyle, install_focus_ring

    before = qapp.style().name()
    try:
        assert isinstance(install_focus_ring(), FocusRingStyle)
        assert isinstance(qapp.style(), FocusRingStyle)
        holder = QWidget()
        qtbot.addWidget(holder)
        palette = holder.palette()
        palette.setColor(QPalette.ColorRole.Highlight, QColor(200, 0, 150))  # any palette: its highlight is used
        holder.setPalette(palette)
        button, other, text = QPushButton("Speak"), QPushButton("Stop"), QPlainTextEdit("a line")
        layout = QVBoxLayout(holder)
        for widget in (button, other, text):
            layout.addWidget(widget)
        holder.show()
        for focused in (button, text):  # a push button's panel; a text box's frame (not hidden by its viewport)
            focused.setFocus(Qt.FocusReason.TabFocusReason)
            qtbot.waitUntil(focused.hasFocus, timeout=2000)
            perimeter = 2 * (focused.width() + focused.height()) - 8
            assert _ring_pixels(focused, QColor(200, 0, 150)) >= RING_WIDTH * perimeter * 0.9
            assert _ring_pixels(other, QColor(200, 0, 150)) == 0
    finally:
        qapp.setStyle(QStyleFactory.create(before))


def test_a_long_candidate_label_leaves_the_leaderboard_measures_in_view(qtbot, tmp_path):
    from studio.widgets.leaderboard_view import LABEL_WIDTH, LeaderboardView
    from trainer.evaluate.leaderboard import Row

    view = LeaderboardView()
    qtbot.addWidget(view)
    long = "epoch 12 · val_mel 0.61712345 · " + "a long checkpoint label " * 6
    view.set_rows([Row(label=f"{long}{n}", model_path=tmp_path / f"{n}.onnx", val_mel=0.5 + n) for n in range(2)])
    assert view.table.columnWidth(0) == LABEL_WIDTH
    assert view.table.columnWidth(1) >= view.table.horizontalHeader().sectionSizeHint(1)  # the measures: whole


def test_the_window_starts_within_a_small_screen():
    """On a 1024×640 screen the window starts inside it (less the frame), on a large one at its preferred size."""
    from PySide6.QtCore import QSize

    from studio.main_window import PREFERRED, SMALLEST, start_size

    small = start_size(QSize(1024, 640), SMALLEST)
    assert small.width() <= 1024 - 16 and small.height() <= 640 - 40
    assert small.width() >= SMALLEST.width() and small.height() >= SMALLEST.height()
    assert start_size(QSize(1920, 1080), SMALLEST) == PREFERRED


@pytest.fixture
def scored_run(prepared_run, make_tiny_checkpoint, tmp_path):
    """A copy of the prepared run, finished after two epochs, its best checkpoint and its start voice scored (the
    rows saved as the Train page saves them), as the Runs tab opens a run scored before."""
    import json
    import shutil

    from trainer.evaluate.best_row import BEST_FILE, START_FILE, start_candidate
    from trainer.evaluate.board import Row, to_csv
    from trainer.events import schema as events

    run = shutil.copytree(prepared_run, tmp_path / "runs" / "tune", ignore=shutil.ignore_patterns("checkpoints"))
    (run / "checkpoints").mkdir()
    best = make_tiny_checkpoint(run / "checkpoints" / "best-epoch=0001-val_mel=1.2848.ckpt")
    ranking = [[1.2848, best.name]]
    (run / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    epochs = [
        events.Epoch(
            epoch=n,
            step=10 * (n + 1),
            seconds=20.0 + n,
            train_s=17.0,
            val_s=2.0,
            preview_s=1.0,
            checkpoint_wait_s=n,
            losses={
                "train_mel": 40.0 - n,
                "val_mel": 1.5 - n / 4,
                "train_kl": 9.0,
                "val_kl": 8.0,
                "train_dur": 1.5,
                "val_dur": 1.4,
                "train_gen": 2.5,
                "train_disc": 2.7,
            },
            learning_rates={"lr_g": 2e-4},
        )
        for n in range(2)
    ]
    finish = events.Finish(epochs=2, seconds=42.3, setup_s=1.0, status="done")
    (run / "events.jsonl").write_text("".join(json.dumps(e.to_record()) + "\n" for e in (*epochs, finish)))
    measures = dict(
        mcd_db=14.67,
        f0_rmse_hz=102.3,
        f0_gap_hz=-42.6,
        similarity=0.61,
        dnsmos_sig=1.09,
        dnsmos_bak=1.11,
        dnsmos_ovrl=1.07,
        wer=1.0,
        rate_pps=13.8,
        dataset_rate_pps=14.2,
        recognizer="Whisper tiny.en",
    )
    start = start_candidate(run)
    assert start is not None
    (run / BEST_FILE).write_text(to_csv([Row(label="best", model_path=best, val_mel=1.2848, **measures)]))
    (run / START_FILE).write_text(to_csv([Row(label=start.label, model_path=start.model_path, **measures)]))
    return run


def test_the_train_page_shows_a_finished_scored_run_unclipped(window, scored_run):
    """Setup, the best checkpoint's row with its baseline, and the charts with their axis titles and legends all
    get at least what they need, at 1024×640 and in the smallest window."""
    from trainer.events.run_state import load_run

    page = _show(window, "Train")
    page.show_run(load_run(scored_run))
    page.tabs.setCurrentWidget(page.view)
    best = page.view.best_row
    assert best.isVisibleTo(page) and best.table.rowCount() == 2  # the best and the start voice's baseline
    try:
        for size in (QSize(*SCREEN), window.minimumSize()):
            window.resize(size)
            QApplication.processEvents()
            assert _clipped(window, page) == [], (size, "; ".join(_clipped(window, page)))
            table = best.table
            rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
            assert table.viewport().height() >= rows, size  # no row cut (a scroll bar never covers one)
            setup = page.setup  # the whole run and, above it, the setup's first three rows (one in the smallest window)
            for field in (setup.dataset, setup.start, setup.preset, setup.epochs)[: 4 if size == QSize(*SCREEN) else 1]:
                area = next(a for a in page.findChildren(QScrollArea) if a.widget() is setup)
                assert _in_view(field, area), (size, field)
    finally:
        window.resize(*SCREEN)


def test_the_quality_tab_hides_empty_plots_and_keeps_measured_ones_readable(window, scored_run):
    """A run without quality measures shows the sentence saying how they come, not four empty plots (they were
    about 20 px tall beside it at 1024×640); with measures (and a verdict above them) every plot's view keeps
    LEAST_VIEW px, at 1024×640 and in the smallest window, with nothing clipped."""
    from studio.widgets.quality_chart import LEAST_VIEW, NONE_YET
    from trainer.evaluate.bands import Bands
    from trainer.events.run_state import load_run

    page = _show(window, "Train")
    page.show_run(load_run(scored_run))
    page.tabs.setCurrentWidget(page.view)
    quality = page.view.quality
    page.view.side.setCurrentWidget(quality)
    try:
        for size in (QSize(*SCREEN), window.minimumSize()):
            window.resize(size)
            quality.set_evaluations({}, Bands(), 2)
            QApplication.processEvents()
            assert not quality.chart.isVisible() and quality.caption.text() == NONE_YET
            quality.set_verdict("Still improving: keep training; the best so far is epoch 2 of 2.")
            quality.set_evaluations({"wer": ([1, 2], [0.2, 0.1]), "similarity": ([1, 2], [0.8, 0.9])}, Bands(), 2)
            QApplication.processEvents()
            assert quality.chart.isVisible() and _clipped(window, page) == [], size
            views = {name: plot.vb.height() for name, plot in quality.plots.items()}
            assert min(views.values()) >= LEAST_VIEW, (size, views)
    finally:
        window.resize(*SCREEN)


def test_the_train_page_following_a_run_keeps_every_chart_title_in_view(window, tmp_path):
    """Following a run at 1024×640 and in the smallest window: nothing clipped, the Run and Runs tabs whole beside
    the stats line (its whole line, ETAs and all, was the corner's width and squeezed them into scroll arrows), and
    each time chart's bottom axis title ("epoch") inside its chart (the epoch-time chart's one-column legend was
    taller than the chart and pushed the title out of it; issue 31, item 2)."""
    from conftest import write_started_run

    from studio.pages.train import STOPPING
    from trainer.events.log import EventLog
    from trainer.events.run_state import load_run
    from trainer.events.schema import Epoch, Eta, Progress

    run = tmp_path / "runs" / "following"
    write_started_run(run, tmp_path, epochs=1000)
    log = EventLog(run / "events.jsonl")
    for epoch in range(1, 6):
        times = {"seconds": 61.0, "train_s": 55.0, "val_s": 4.0, "preview_s": 1.0, "checkpoint_wait_s": 1.0}
        log.emit(Epoch(epoch=epoch, step=30 * (epoch + 1), losses={"val_mel": 1.5}, learning_rates={}, **times))
        log.emit(Eta(epoch=epoch, seconds_left=61.0 * (999 - epoch), next_preview_s=300.0, next_checkpoint_s=300.0))
    log.emit(Progress(epoch=6, step=190, batches=3, items_per_s=1.7, batches_total=30, elapsed_s=5.0))
    log.close()
    page = _show(window, "Train")
    page.show_run(load_run(run))
    page.tabs.setCurrentWidget(page.view)
    stats = page.view.stats
    assert "ETA" in stats.text() and "next checkpoint" in stats.text() and "GPU" in stats.text()
    try:
        for size in (QSize(1400, 900), QSize(*SCREEN), window.minimumSize()):
            window.resize(size)
            QApplication.processEvents()
            assert _clipped(window, page) == [], size
            bar = page.tabs.tabBar()
            assert bar.width() >= bar.sizeHint().width(), size  # both tabs whole, no scroll arrows
            shown = stats.shown_text()
            assert shown.startswith("epoch 7 of 1000 · ")
            assert stats.fontMetrics().horizontalAdvance(shown) <= stats.width()
            assert shown == stats.text() or shown.endswith(" · …"), shown  # whole parts; what is left out is in the tip
            assert all(part in stats.toolTip() for part in stats.text().split(" · ")), size
            top = page.tabs.mapTo(page, page.tabs.rect().topLeft()).y()
            for said in ("Stopped.", f"{STOPPING} {'a long line that wraps onto a second one ' * 4}"):
                page.status.setText(said)
                QApplication.processEvents()
                assert page.tabs.mapTo(page, page.tabs.rect().topLeft()).y() == top, (size, said)  # nothing jumps
                assert _clipped(window, page) == [], (size, said)
            for chart in (page.view.epoch_chart, page.view.step_chart):
                page.view.time_tabs.setCurrentWidget(chart)
                QApplication.processEvents()
                title = chart.plot.getAxis("bottom").label
                bottom = chart.mapFromScene(title.mapToScene(title.boundingRect().bottomLeft())).y()
                assert 0 < bottom <= chart.viewport().height(), (size, type(chart).__name__, bottom)
    finally:
        window.resize(*SCREEN)


def test_a_starting_run_folds_the_setup_so_the_charts_get_the_height(window, tmp_path):
    """When a run starts on the page the setup (which cannot change during it) folds to its first row at 1024×640,
    and the charts below take the height (with the check's warnings shown they were left a few pixels)."""
    from conftest import write_started_run

    run = tmp_path / "runs" / "starting"
    write_started_run(run, tmp_path, epochs=20)
    page = _show(window, "Train")
    area = page._setup_area
    before = page.view.live.height()
    assert area.height() > area.minimumSizeHint().height()  # idle: the setup shows more than its first row
    area.verticalScrollBar().setValue(area.verticalScrollBar().maximum())  # scrolled to the check's findings
    page._begin(run, "Starting starting…", lambda: None)  # what Start and Resume do, with no trainer launched
    page._ticker.stop()
    QApplication.processEvents()
    assert area.height() == area.minimumSizeHint().height()
    assert area.verticalScrollBar().value() == 0 and _in_view(page.setup.dataset, area)  # its first row, whole
    assert page.view.live.height() > before and _clipped(window, page) == []  # the charts, side tabs and all


def _target_voice_clips(folder, ids: list[str]):
    """These clips of ``../shared/corpus/target-voice`` in Piper's layout (metadata.csv + wavs/) in ``folder``."""
    import shutil

    from conftest import shared_path

    corpus = shared_path("corpus", "target-voice")
    (folder / "wavs").mkdir(parents=True)
    lines = (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()
    chosen = [line for line in lines if line.split("|")[0] in ids]
    (folder / "metadata.csv").write_text("\n".join(chosen) + "\n", encoding="utf-8")
    for line in chosen:
        shutil.copy(corpus / "wavs" / f"{line.split('|')[0]}.flac", folder / "wavs")
    return folder


def test_the_clip_table_keeps_the_text_column_readable_beside_warnings_and_edits(window, qtbot, tmp_path):
    """With target-voice clips some of which have warnings, one edited and all normalized, the text column keeps
    at least ``TEXT_LEAST`` of the viewport and every column ends inside it (elided with "…", never cut), at
    1024×640 and in the smallest window; the longest clip's phonemes leave the editor's buttons in view."""
    from studio.widgets.clip_table import COLUMN_LEAST, COLUMNS, TEXT_LEAST, text_least

    page = _show(window, "Dataset")
    page.new_project(tmp_path / "project")
    ids = ["slt_0001", "slt_0002", "slt_0003", "slt_0190", "slt_0196"]  # the last two: too many phonemes
    page.import_paths([_target_voice_clips(tmp_path / "clips", ids)])
    qtbot.waitUntil(lambda: not page.is_busy() and page.model.rowCount() == 5, timeout=120_000)
    page.table.selectAll()
    page.fix_selected(normalize=True)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    page.select(["slt_0002"])
    page.editor.text.setText("Who left the garden gate wide open?")
    qtbot.keyClick(page.editor.text, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=60_000)
    table, header = page.table, page.table.horizontalHeader()
    shown = [c for c in range(len(COLUMNS)) if not table.isColumnHidden(c)]
    assert [COLUMNS[c] for c in shown] == list(COLUMNS)[:2] + list(COLUMNS)[3:]  # all but speaker
    try:
        for size in (QSize(*SCREEN), window.minimumSize()):
            window.resize(size)
            QApplication.processEvents()
            width = table.viewport().width()
            assert header.sectionSize(1) >= text_least(width) >= TEXT_LEAST * width - 1, (size, width)
            for column in shown:  # every column whole in view: a narrow one elides its header and cells
                right = header.sectionViewportPosition(column) + header.sectionSize(column)
                assert right <= width and header.sectionSize(column) >= COLUMN_LEAST, (size, COLUMNS[column])
            assert not table.horizontalScrollBar().isVisible()
            page.select(["slt_0196"])  # the longest clip: its phonemes take one line, the buttons stay in view
            QApplication.processEvents()
            area = next(a for a in page.findChildren(QScrollArea) if a.widget() is page.editor)
            for widget in (page.editor.phonemes, *page.editor.buttons.values()):
                assert _in_view(widget, area), (size, widget.text())
            assert "phoneme_ids" in page.editor.phonemes.toolTip()
    finally:
        window.resize(*SCREEN)
        page.open_project(tmp_path / "none")
