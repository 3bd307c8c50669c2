"""The main window: four areas (Dataset, Train, Compare, Synthesize) and voice drops.

The window builds the studio's models (``studio.state``) from the settings,
hands them to the pages, and saves the settings from them when they change.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsView,
    QHBoxLayout,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QWidget,
)

from studio.guide import FirstRunNote, GuideDialog
from studio.pages.compare import ComparePage
from studio.pages.dataset import DatasetPage
from studio.pages.synthesize import SynthesizePage
from studio.pages.train import TrainPage
from studio.settings import Settings
from studio.shortcuts import AREAS, PAGE_KEYS, QUIT_KEYS, ShortcutsDialog, page_tooltip
from studio.state import StudioState, Workspace
from studio.state_files import OutsideWatch
from studio.widgets.tab_keys import install_tab_keys

SMALLEST = QSize(960, 580)
PREFERRED = QSize(1100, 700)
"""The window's size at start where the screen has room (else :func:`start_size` shrinks it)."""
FRAME = QSize(16, 60)
"""Room left for a window manager's frame and title bar (pixels), so a window that fills the screen shows whole."""
"""The smallest window (px) unless a page needs more: it fits a 1024×640 screen with a window manager's frame.
Set explicitly because wrapped button rows need more height at a narrow width than the layouts' minimum says."""
TYPED_SAVE_MS = 1500
"""The settings keep the text box this long after typing pauses (and at close), not at every key."""
LOOK_MS = 3000
"""How often the shown dataset folders are looked at for changes made outside the studio (a few stat calls each,
``studio.state_files.folder_stamp``), milliseconds."""


class MainWindow(QMainWindow):
    """Navigation list on the left, one page per area on the right.

    Dropping ``.onnx`` files or folders anywhere on the window adds them as voices.
    """

    def __init__(self, settings: Settings | None = None, runs_root: Path | None = None) -> None:
        super().__init__()
        install_tab_keys()  # Tab leaves every text box and table, in every page and dialog
        self.settings = settings if settings is not None else Settings.load()
        self.setWindowTitle("Voice Studio")
        self.resize(PREFERRED)
        self.setAcceptDrops(True)
        self.state = StudioState(workspace=Workspace(runs_dir=runs_root))
        found = self.settings.apply(self.state.library, self.state.workspace, self.state.lines)

        self.synthesize_page = SynthesizePage(self.state)
        for error in found.errors:
            self.synthesize_page.show_notice(str(error))
        self.synthesize_page.add_voice_files(found.checkpoints)
        page_kept = (self.settings.last_voice, self.settings.engine, self.settings.text, self.settings.ssml)
        self.synthesize_page.restore(*page_kept)
        self.dataset_page = DatasetPage(self.state.workspace)
        self.train_page = TrainPage(self.state.workspace, self.state.library)
        self.compare_page = ComparePage(self.state.workspace, self.state.library, self.state.engines)
        for page in (self.dataset_page, self.synthesize_page, self.train_page):
            page.message.connect(lambda text: self.say(text, 8000))
        self.synthesize_page.checkpoint_added.connect(lambda v: self.say(f"Added {v.name}", 8000))
        self.train_page.voice_exported.connect(lambda path: self.synthesize_page.add_voice_files([path]))
        self.train_page.compare_requested.connect(self.compare_run)
        self._typed = QTimer(self, singleShot=True, interval=TYPED_SAVE_MS)
        self._typed.timeout.connect(self._save_settings)
        self.state.library.events.changed.connect(self._save_settings)
        self.state.workspace.events.remote.connect(self._save_settings)
        self.state.workspace.events.dataset_project.connect(self._save_settings)
        self.synthesize_page.picker.voice_changed.connect(self._save_settings)
        self.synthesize_page.engines.changed.connect(self._save_settings)
        self.synthesize_page.ssml_box.toggled.connect(self._save_settings)
        self.state.workspace.save_folders.events.changed.connect(self._save_settings)
        self.synthesize_page.line_finished.connect(self._save_settings)  # the History, at once
        self.synthesize_page.text_edit.textChanged.connect(self._typed.start)  # the text box, once typing pauses
        pages = {
            "Dataset": self.dataset_page,
            "Train": self.train_page,
            "Compare": self.compare_page,
            "Synthesize": self.synthesize_page,
        }
        self.nav = QListWidget()
        self.nav.addItems(AREAS)
        for row, area in enumerate(AREAS):
            self.nav.item(row).setToolTip(page_tooltip(area))
        self.nav.setFixedWidth(130)
        self.nav.setStyleSheet("QListWidget { font-size: 15px; } QListWidget::item { padding: 10px 8px; }")
        self.stack = QStackedWidget()
        for area in AREAS:
            self.stack.addWidget(pages[area])
            _plots_out_of_tab_order(pages[area])
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.setCurrentRow(AREAS.index("Synthesize"))

        self.outside = OutsideWatch(self.state.workspace.datasets, self._shown_datasets, self._writing_datasets)
        """Dataset folders changed without a page saying so (a command in a terminal)."""
        self._looking = QTimer(self, interval=LOOK_MS)
        self._looking.timeout.connect(self.outside.look)
        self._looking.start()
        self.nav.currentRowChanged.connect(lambda _row: self.outside.look())
        app = QApplication.instance()
        if isinstance(app, QApplication):
            app.applicationStateChanged.connect(self._on_application_state)
        self.first_run = FirstRunNote()
        self.first_run.show_guide.connect(self.show_guide)
        self.state.workspace.events.dataset_project.connect(lambda _path: self._update_first_run())
        for channel in (self.state.workspace.datasets, self.state.workspace.runs):  # an import made the project
            channel.events.changed.connect(lambda _change: self._update_first_run())
        self.nav.currentRowChanged.connect(lambda _row: self._update_first_run())
        self._update_first_run()
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.statusBar().addPermanentWidget(self.first_run)
        self._build_menus()
        self.setMinimumSize(self.minimumSizeHint().expandedTo(SMALLEST))
        screen = self.screen()
        if screen is not None:
            self.resize(start_size(screen.availableGeometry().size(), self.minimumSize()))
        self.statusBar().showMessage("Ready")

    def _build_menus(self) -> None:
        """File: Quit (Ctrl+Q); Go: one action per page (Ctrl+1 … Ctrl+4, anywhere in the window); Help: Making a
        voice… (the steps, ``studio.guide``) and Keyboard shortcuts…."""
        file_menu = self.menuBar().addMenu("&File")
        self.quit_action = file_menu.addAction("&Quit")
        keys = QKeySequence.keyBindings(QKeySequence.StandardKey.Quit)  # the platform's (none under some themes)
        self.quit_action.setShortcuts([*keys, *([] if QKeySequence(QUIT_KEYS) in keys else [QKeySequence(QUIT_KEYS)])])
        self.quit_action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)  # as the close button: closeEvent asks and shuts the pages
        go = self.menuBar().addMenu("&Go")
        for area in AREAS:
            action = QAction(f"{area} page", self)
            action.setShortcut(QKeySequence(PAGE_KEYS[area]))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False, a=area: self.show_area(a))
            go.addAction(action)
        help_menu = self.menuBar().addMenu("&Help")
        self.guide_action = help_menu.addAction("Making a voice…")
        self.guide_action.triggered.connect(self.show_guide)
        self.shortcuts_action = help_menu.addAction("Keyboard shortcuts…")
        self.shortcuts_action.triggered.connect(self.show_shortcuts)

    def show_guide(self) -> GuideDialog:
        """Open Help → Making a voice… (``studio.guide``); its buttons show the pages. Returns the dialog shown."""
        dialog = GuideDialog(self)
        dialog.go.connect(self.show_area)
        dialog.show()
        return dialog

    def _shown_datasets(self) -> list[Path]:
        """The dataset folders the pages show: the Dataset page's project and the Train page's dataset."""
        typed = self.train_page.setup.dataset.text().strip()
        return [self.dataset_page.project_dir, *([Path(typed)] if typed else [])]

    def _writing_datasets(self) -> bool:
        """Whether a job of the studio's is writing dataset folders now (the Dataset page's, a Resample)."""
        return self.dataset_page.is_busy() or self.train_page.is_resampling()

    def _on_application_state(self, state: Qt.ApplicationState) -> None:
        """Back from another application (a terminal, perhaps): the shown datasets are looked at at once."""
        if state == Qt.ApplicationState.ApplicationActive:
            self.outside.look()

    def say(self, text: str, ms: int = 0) -> None:
        """Show ``text`` in the status bar for ``ms`` (0: until the next), cut with "…" where it would run under
        the first-run note (Qt's status bar clips a message at its permanent widgets mid-word, without a sign)."""
        bar = self.statusBar()
        room = bar.width() - (self.first_run.width() if self.first_run.isVisible() else 0) - 24
        shown = bar.fontMetrics().elidedText(text, Qt.TextElideMode.ElideRight, max(room, 40))
        bar.showMessage(shown, ms)
        self._said = (text, shown, time.monotonic() + ms / 1000 if ms else None)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        """A message said with :meth:`say` is cut again for the new width, for what is left of its time."""
        super().resizeEvent(event)
        text, shown, until = getattr(self, "_said", ("", "", None))
        if text and self.statusBar().currentMessage() == shown:
            left = 0 if until is None else int((until - time.monotonic()) * 1000)
            if until is None or left > 0:
                self.say(text, left)

    def _update_first_run(self) -> None:
        """Show the first-run note until a dataset project or a run exists (``studio.guide.started``)."""
        workspace = self.state.workspace
        self.first_run.update_for(workspace.dataset_project, workspace.runs_dir)

    def show_shortcuts(self) -> ShortcutsDialog:
        """Open the list of keyboard shortcuts (Help → Keyboard shortcuts…); returns the dialog shown."""
        dialog = ShortcutsDialog(self)
        dialog.show()
        return dialog

    def show_area(self, area: str) -> None:
        """Switch to one of ``AREAS``."""
        self.nav.setCurrentRow(AREAS.index(area))

    def compare_run(self, run_dir: Path) -> None:
        """Show the Compare page on a run: its ranked checkpoints and held-out clips (the Train page's "Compare
        checkpoints")."""
        self.show_area("Compare")
        self.compare_page.open_run(run_dir)

    def _save_settings(self, _change: object = None) -> None:
        """Write the settings from the models (the voices added, the remote fields, the dataset project, the folders
        saved to, the History) and the Synthesize page's voice, engine, text and SSML box."""
        self._typed.stop()
        self.settings.take(self.state.library, self.state.workspace, self.state.lines)
        if len(self.state.library):
            self.settings.last_voice = str(self.synthesize_page.voice.model_path)
        self.settings.engine = self.synthesize_page.engine_kind()
        self.settings.text = self.synthesize_page.text_edit.toPlainText()
        self.settings.ssml = self.synthesize_page.ssml_box.isChecked()
        try:
            self.settings.save()
        except OSError as exc:
            self.say(f"Could not save settings: {exc}", 8000)

    # --- drag and drop ----------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if any(_is_voice_drop(Path(u.toLocalFile())) for u in event.mimeData().urls()):
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        paths = [Path(u.toLocalFile()) for u in event.mimeData().urls()]
        self.add_voices([p for p in paths if _is_voice_drop(p)])
        event.acceptProposedAction()

    def add_voices(self, paths: list[Path]) -> None:
        """Add voices (files or folders) and show the Synthesize page."""
        added = self.synthesize_page.add_voice_files(paths)
        if added:
            self.show_area("Synthesize")
            self.say(f"Added {', '.join(v.name for v in added)}", 8000)

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt override
        self._save_settings()  # the text as typed until now, and the History
        self.dataset_page.shutdown()  # its job cancelled (what it finished is kept); an edited transcript saved
        self.synthesize_page.stop()
        self.synthesize_page.remote_panel.shutdown()
        self.train_page.shutdown()
        self.compare_page.shutdown()
        super().closeEvent(event)


def _plots_out_of_tab_order(page: QWidget) -> None:
    """Charts and waveforms (graphics views) take focus on a click, not on Tab: they have no keys to offer."""
    for view in page.findChildren(QGraphicsView):
        if view.focusPolicy() & Qt.FocusPolicy.TabFocus:
            view.setFocusPolicy(Qt.FocusPolicy.ClickFocus)


def _is_voice_drop(path: Path) -> bool:
    return path.suffix.lower() in (".onnx", ".ckpt") or path.is_dir()


def start_size(available: QSize, smallest: QSize) -> QSize:
    """The window's size at start: :data:`PREFERRED` within the screen's ``available`` area less the frame, but
    never under ``smallest`` (a 1024×640 laptop screen gets 1008×580, not a window whose right side is off it)."""
    return PREFERRED.boundedTo(available - FRAME).expandedTo(smallest)
