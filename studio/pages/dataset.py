"""The Dataset page: drop recordings in, see every clip and what is wrong with it, fix, export for Piper.

Everything that touches files (import, slicing, fixes, edits, export) runs off the
GUI thread, one job at a time, long ones with a progress bar, the time left and
Cancel (``studio.pages.dataset_actions``, ``studio.pages.dataset_jobs``); the page
reloads the manifest whenever a page says it changed the project (``Workspace.datasets``: its own jobs, the
Train page's Resample). The clip table is a Qt model; the editor below it shows
the current clip; the report tab shows histograms and the health report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QPushButton,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from engines.imports import importing
from engines.output_device import why_not_played
from studio.pages.dataset_actions import NO_PROJECT, TARGET_RATE, DatasetActions
from studio.pages.dataset_record import RecordTab
from studio.state import Workspace
from studio.state_files import FolderChange
from studio.widgets.clip_editor import ClipEditor, clips_and_editor
from studio.widgets.clip_table import ClipTable, rows
from studio.widgets.compact import MinimumKeepingSplitter
from studio.widgets.flow_layout import flow_row
from studio.widgets.histograms import HistogramPanel
from studio.widgets.recordings_picker import StartFolders
from studio.widgets.task_progress import TaskProgress
from studio.workers import Task, TaskSlot

HINT = "Drop folders, recordings, metadata.csv files or archives (.zip, .tar.gz, .tar.xz) here."
"""What the line under the buttons says until a job has run on the project shown."""


class DatasetPage(DatasetActions, QWidget):
    """Project folder, drop zone, clip table with fixes for the selection, clip editor, report, export.

    Signals:
        message(str): a notice for the status bar.
    """

    message = Signal(str)

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAcceptDrops(True)
        self.workspace = workspace
        self._busy = False
        self._phonemizer: Any = None
        self._lexicon_file: Any = None
        self._playing: Any = None
        self._project = None
        self._clip_audio: tuple[Any, int] | None = None
        """The current clip's samples (float32 ``[N]``) and sample rate (Hz): what Space plays."""
        self._warmed = False
        self._cache: Any = None
        self._unsaved: dict[str, str] = {}
        """Text edits of clips the user has left, not saved yet: ``{clip id: text}`` (see ``save_pending``)."""
        self.jobs = TaskSlot()
        self.start_folders = StartFolders()
        """Where the page's file dialogs open (``studio.widgets.recordings_picker.StartFolders``)."""
        self._rows_timer = QTimer(self)
        self._rows_timer.setSingleShot(True)
        self._rows_timer.timeout.connect(self._show_rows_so_far)
        self._build()
        self.refresh()
        workspace.datasets.events.changed.connect(self._on_dataset_changed)

    # --- layout -----------------------------------------------------------------
    def _build(self) -> None:
        self.folder_label = QLabel()
        self.hint = QLabel(HINT)
        self.hint.setWordWrap(True)  # a long result (a slicing warning, a layout hint) is read in full
        self.cache_label = QLabel()
        """The training cache's status (``trainer.data.preprocess.status``), with a link to open its folder."""
        self.cache_label.setWordWrap(True)  # a long path and its "Open folder" link are read in full
        self.cache_label.linkActivated.connect(self._open_cache_folder)
        self.job_progress = TaskProgress()
        self.job_progress.cancel_requested.connect(self.cancel_job)
        self.buttons = {
            "open": self._button("Open project…", self._on_open_clicked),
            "new": self._button("New project…", self._on_new_project_clicked),
            "add": self._button("Add recordings…", self._on_add_clicked),
            "slice": self._button("Slice long recording…", self._on_slice_clicked),
            "distil": self._button("New dataset from a voice…", self._on_distil_clicked),
            "export": self._button("Export for Piper…", self._on_export_clicked),
            "cache": self._button("Build training cache…", self._on_cache_clicked),
            "trim": self._button("Trim silence", lambda: self.fix_selected(trim=True)),
            "normalize": self._button("Normalize loudness", lambda: self.fix_selected(normalize=True)),
            "resample": self._button(f"Resample to {TARGET_RATE:,} Hz", lambda: self.fix_selected(resample=True)),
            "exclude": self._button("Exclude", lambda: self.set_excluded(True)),
            "include": self._button("Include", lambda: self.set_excluded(False)),
            "confirm": self._button("Confirm texts", self.confirm_selected),
            "merge": self._button("Merge", self.merge_selected),
            "speaker": self._button("Set speaker…", self._on_speaker_clicked),
            "take_texts": self._button("Take the sources' transcripts", self._on_take_texts_clicked),
        }
        self.buttons["take_texts"].setVisible(False)  # shown when an import offers changed transcripts
        self._offered_paths: list[Path] = []
        self.selection_label = QLabel()
        self.table = ClipTable()
        self.model, self.proxy = self.table.clips, self.table.proxy
        self.table.selectionModel().selectionChanged.connect(self._on_selection_changed)
        self.editor = self._build_editor()
        self.report = QTextBrowser()
        self.histograms = HistogramPanel()
        self.tabs = QTabWidget()
        self.tabs.addTab(self._clips_tab(), "Clips")
        self.tabs.addTab(self._report_tab(), "Report")
        self.record_tab = RecordTab(lambda: self.project() if self.has_project() else None)
        self.record_tab.clip_written.connect(self._on_take_written)
        self.workspace.events.dataset_project.connect(self.record_tab.project_changed)
        self.tabs.addTab(self.record_tab, "Record")
        top = flow_row(
            self.folder_label, *(self.buttons[n] for n in ("open", "new", "add", "slice", "distil", "export", "cache"))
        )
        layout = QVBoxLayout(self)
        layout.addWidget(top)
        layout.addWidget(self.hint)
        layout.addWidget(self.buttons["take_texts"], 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.cache_label)
        layout.addWidget(self.job_progress)
        layout.addWidget(self.tabs, 1)

    def _button(self, text: str, slot) -> QPushButton:
        button = QPushButton(text)
        button.clicked.connect(slot)
        return button

    def _build_editor(self) -> ClipEditor:
        editor = ClipEditor()
        editor.preview_function = self._preview
        editor.text_saved.connect(self.save_text)
        editor.confirm_requested.connect(self.confirm_current)
        editor.trim_requested.connect(self.trim_clip)
        editor.split_requested.connect(self.split_clip)
        editor.play_requested.connect(lambda _: self.toggle_play())
        return editor

    def _clips_tab(self) -> QWidget:
        names = ("trim", "normalize", "resample", "exclude", "include", "confirm", "speaker", "merge")
        actions = flow_row(self.selection_label, *(self.buttons[name] for name in names))  # wraps when narrow
        splitter = clips_and_editor(self.table, self.editor)
        space = QShortcut(QKeySequence(Qt.Key.Key_Space), splitter, self.toggle_play)
        space.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)  # a focused button takes Space as a press
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(actions)
        layout.addWidget(splitter, 1)
        return tab

    def _report_tab(self) -> QWidget:
        """Histograms above the report text, in a splitter the user can drag; the text gets the larger part."""
        save = self._button("Save report…", self._on_save_report_clicked)
        self.report.setMinimumHeight(120)
        self.report_splitter = MinimumKeepingSplitter(Qt.Orientation.Vertical)
        self.report_splitter.addWidget(self.histograms)
        self.report_splitter.addWidget(self.report)
        self.report_splitter.setStretchFactor(0, 2)
        self.report_splitter.setStretchFactor(1, 3)
        self.report_splitter.setSizes([220, 380])
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addWidget(self.report_splitter, 1)
        layout.addWidget(save, 0, Qt.AlignmentFlag.AlignRight)
        return tab

    def _on_take_written(self, clip_id: str) -> None:
        """A take accepted on the Record tab: every page showing the project reads it again."""
        self.workspace.datasets.announce(self.project_dir, what=f"take {clip_id} recorded on the Dataset page")

    # --- project ----------------------------------------------------------------
    @property
    def project_dir(self) -> Path:
        """The project folder shown: the workspace's dataset project."""
        return self.workspace.dataset_project

    @project_dir.setter
    def project_dir(self, folder: Path) -> None:
        self.workspace.dataset_project = Path(folder)

    def project(self):
        from trainer.dataset.project import DatasetProject

        return DatasetProject(self.project_dir)

    def refresh(self) -> None:
        """Reload the table, the editor and the report from the manifest."""
        from trainer.dataset.report import build_report, to_markdown

        self.folder_label.setText(self._folder_said())
        current, selected = self.editor.clip_id, self.selected_ids()
        if not self.has_project():
            self._project = None
            self.model.set_rows([])
            self.report.setMarkdown("No recordings yet.")
            self.histograms.show_nothing()
            self.cache_label.setText("")
            self._on_selection_changed()
            return
        project = self._project = self.project()
        report = build_report(project)  # the health checks run once, for the table and the report
        self.model.set_rows(rows(project, report.findings))
        self.report.setMarkdown(to_markdown(report))
        self.histograms.show_report(report)
        self._show_cache_status(project)
        kept = [i for i in selected if i in project.clips]  # a fix or edit keeps the clips it acted on selected
        if not kept and current is not None and current in project.clips:
            kept = [current]
        if kept:
            self.select(kept)
        self._on_selection_changed()

    def _folder_said(self) -> str:
        """The folder line: a project by its path; a folder that does not exist yet as the new project an import
        or slicing makes there; an existing folder without a manifest as not a project yet."""
        folder = self.project_dir
        if self.has_project():
            return f"Project: {folder}"
        if not folder.exists():
            return f"New project: {folder} (created on import)"
        return f"Folder: {folder} (not a dataset project yet)"

    def _on_dataset_changed(self, change: FolderChange) -> None:
        """A page (this one's job, the Train page's Resample) changed dataset files: the project shown is read
        again when they are its own, so its table, report and cache line never describe files that changed."""
        if change.concerns(self.project_dir):
            self.refresh()

    def selected_ids(self) -> list[str]:
        """Ids of the selected rows, in table order."""
        return self.table.selected_ids()

    def select(self, clip_ids: list[str]) -> None:
        """Select these clips' rows (the first becomes the current clip)."""
        self.table.select(clip_ids)

    def _on_selection_changed(self, *_) -> None:
        ids = self.selected_ids()
        self.selection_label.setText(f"{len(ids)} selected:" if ids else "Select clips to fix:")
        for name in ("trim", "normalize", "resample", "exclude", "include", "confirm", "speaker"):
            self.buttons[name].setEnabled(bool(ids) and not self._busy)
        self.buttons["merge"].setEnabled(len(ids) >= 2 and not self._busy)
        self._stash_edit()  # save on leave: the edit of the clip shown until now
        self._show_clip(ids[0] if len(ids) == 1 else None)
        if self._unsaved and not self._busy:
            QTimer.singleShot(0, self.save_pending)  # once the current signal (maybe a job's end) is handled

    def _show_clip(self, clip_id: str | None) -> None:
        with importing("soundfile"):
            import soundfile

        from trainer.dataset.analysis import as_measured

        project = self._project
        clip = project.clips.get(clip_id) if project and clip_id else None
        self._clip_audio = None
        if clip is None or clip.unreadable:
            self.editor.show_clip(None)
            return
        audio, rate = soundfile.read(str(project.clip_path(clip_id)), dtype="float32", always_2d=True)
        audio = as_measured(audio, rate)  # drawn and played as analysed: NaN/inf and 1e30 as 0, clicks repaired
        self._clip_audio = (audio[:, 0], rate)  # what Space plays
        analysis = clip.analysis or {}
        speech = None
        if analysis.get("speech_start_s") is not None:
            speech = (max(0.0, analysis["speech_start_s"] - 0.15), analysis["speech_end_s"] + 0.15)
        self.editor.show_clip(clip_id, audio[:, 0], rate, clip.text or "", clip.reviewed, speech)
        if clip_id in self._unsaved:  # shown again before its edit was saved: the editor holds it again
            self.editor.show_pending(self._unsaved.pop(clip_id))

    def _get_phonemizer(self, project=None):
        """The project's phonemizer, made once per project, with its lexicon as the file is now (an edit of
        ``lexicon.txt`` applies from the next preview or saved text on).

        Raises:
            VoiceStudioError: the voice config cannot phonemize, or the lexicon has a bad line (naming it).
        """
        from engines.frontend.lexicon import PROJECT_LEXICON, LexiconFile

        if self._phonemizer is None:
            from engines.phonemes import Phonemizer
            from engines.voice import load_config

            project = project or self.project()
            lexicon = LexiconFile(Path(project.folder) / PROJECT_LEXICON)
            self._phonemizer = Phonemizer(load_config(Path(project.target_config)), lexicon.current())
            self._lexicon_file = lexicon
        self._phonemizer.lexicon = self._lexicon_file.current()
        return self._phonemizer

    def _preview(self, text: str):
        from trainer.dataset.curation import preview_text

        return preview_text(self._get_phonemizer(), text)

    def _on_open_clicked(self) -> None:
        start = self.start_folders.start(self.project_dir)
        folder = QFileDialog.getExistingDirectory(self, "Dataset project folder", str(start))
        if folder:
            self.open_project(Path(folder))

    def _on_distil_clicked(self) -> None:
        from studio.pages.dataset_distil import on_distil_clicked

        on_distil_clicked(self)

    def open_project(self, folder: Path) -> None:
        """Show another project; what was shown about the one left (the last job's result, its report and
        histograms, the clip in the editor) goes with it. Its unsaved text edits are saved first."""
        self.save_edits_now()  # the edits belong to the project being left
        self.project_dir = Path(folder)
        self.start_folders.forget()  # dialogs open in this project's folder now
        self._phonemizer = None
        self._offer_texts([], None)  # an offer is of the project left
        self.hint.setText(HINT if self.has_project() else f"{self.project_dir}: {NO_PROJECT}")
        self.refresh()

    def has_project(self) -> bool:
        """Whether the folder shown is a dataset project (it has a manifest): import and slicing make one."""
        return (self.project_dir / "manifest.json").is_file()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt override
        """First shown: start the dataset workers' fork server, so the first import does not wait for it."""
        super().showEvent(event)
        if not self._warmed:
            from trainer.dataset.workers import warm_up

            self._warmed = True
            warm_up()

    def dragEnterEvent(self, event) -> None:  # noqa: N802 - Qt override
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802 - Qt override
        self.import_paths([Path(u.toLocalFile()) for u in event.mimeData().urls()])
        event.acceptProposedAction()

    # --- listening --------------------------------------------------------------
    def toggle_play(self) -> Task | None:
        """Play the current clip (the space bar); pressed again while playing, stop."""
        from studio.speaking import Speaking, replay_and_wait

        if self._playing is not None and self._playing.active:
            self._playing.stop()
            return None
        if self._clip_audio is None:
            return None
        audio, rate = self._clip_audio
        speaking = self._playing = Speaking()
        task = Task(lambda cancel: replay_and_wait(audio, rate, speaking, cancel), self)
        speaking.cancel = task.cancel
        clip = ", ".join(self.selected_ids()[:1]) or "the clip"
        task.failed.connect(lambda exc: self.message.emit(f"Cannot play {clip}: {why_not_played(exc)}"))
        task.done.connect(lambda note: self.message.emit(note) if note else None)  # the device's own rate, once
        task.ended.connect(lambda: setattr(speaking, "ended", True))
        return task.start()
