"""What the Dataset page's buttons do: each runs a ``trainer.dataset`` function on the project off the GUI
thread as a job (``studio.pages.dataset_jobs``: one at a time, with progress, and Cancel for import,
slicing, fixes and the training cache), then the page reloads the manifest.

A mixin of :class:`studio.pages.dataset.DatasetPage`: besides ``DatasetJobs``'s needs it relies on the
page's ``selected_ids``, ``has_project`` and ``_project``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFileDialog, QInputDialog, QLabel

from engines.words import count
from studio.pages.dataset_jobs import BUSY, DatasetJobs
from studio.state import Workspace
from studio.widgets.recordings_picker import StartFolders
from studio.widgets.start_folders import proposed_name, save_start
from studio.workers import Task

TARGET_RATE = 22050
"""Piper's usual training sample rate, Hz: the Resample fix's target."""
ROWS_EVERY_MS = 1000
"""While import or slicing runs, the table shows the clips measured so far at most this often, ms."""
NEW_PROJECT = (
    "New project {folder}: add recordings (drop them here), slice a long recording, or record prompts chosen for "
    "coverage on the Record tab"
)
"""The hint for a project just made: every way in (a newcomer recording from nothing is pointed to the booth)."""
NO_PROJECT = (
    "not a dataset project yet: add recordings (drop them here) or slice a long recording to start one, or make one "
    "with New project… to record prompts on the Record tab"
)
"""What the page says of a folder without a manifest, where the command line says ``NotAProject``."""
SHOWN = 3
"""Problems (and changed transcripts) an import met that the hint names; all of them are in its tooltip."""


class DatasetActions(DatasetJobs):
    """Background jobs of the Dataset page (import, slicing, fixes, edits, export, cache, report)."""

    start_folders: StartFolders
    workspace: Workspace
    _rows_timer: QTimer
    _offered_paths: list[Path]
    """What the last import read, to import again taking the transcripts it offered (``take_texts``)."""
    model: Any
    if TYPE_CHECKING:  # the page's, named here for the type checker

        def select(self, clip_ids: list[str]) -> None: ...
        def open_project(self, folder: Path) -> None: ...

    cache_label: QLabel
    table: Any
    _cache: Any

    # --- import and slicing -----------------------------------------------------
    def _on_add_clicked(self) -> None:
        from studio.widgets.recordings_picker import RecordingsPicker

        picker = RecordingsPicker(self, self.start_folders.recordings())
        picker.exec()
        if paths := picker.chosen():
            self.start_folders.picked_recordings(paths[0])
            self.import_paths(paths)

    def import_paths(self, paths: list[Path], replace_texts: bool = False) -> Task | None:
        """Import recordings (files, folders, archives, metadata.csv) in the background; the table shows the
        clips as they are measured (reloaded at most every ``ROWS_EVERY_MS``), and in full when it is done.

        The hint says what it skipped as the command line does (:func:`describe_import`). Transcripts that the
        sources of clips imported before now word otherwise are offered by the ``take_texts`` button, which
        imports ``paths`` again with ``replace_texts`` (``DatasetProject.import_sources``); never taken silently.
        """
        work = lambda p, state: p.import_sources(paths, state=state, replace_texts=replace_texts)  # noqa: E731
        task = self.run_job("Importing", work, describe_import, create=True, cancellable=True)
        if task is not None:
            self._offer_texts([], None)  # until this import says what it offers
            task.progress.connect(lambda *_: self._rows_soon())
            task.done.connect(lambda result: self._offer_texts(paths, result))  # after the page's reload
        return task

    def _offer_texts(self, paths: list[Path], result) -> None:
        """Show the ``take_texts`` button when ``result`` (an ``ImportResult``) offers changed transcripts, else
        hide it; the hint's tooltip lists every problem and change of the import."""
        offered = result.offered() if result is not None else []
        self._offered_paths = paths if offered else []
        button = self.buttons["take_texts"]
        button.setText("Take the source's transcript" if len(offered) == 1 else "Take the sources' transcripts")
        button.setToolTip("\n".join(change.describe() for change in offered))
        button.setVisible(bool(offered))
        if result is not None:
            self.hint.setToolTip("\n".join([*result.problems, *(c.describe() for c in result.changed)]))

    def _on_take_texts_clicked(self) -> None:
        self.import_paths(self._offered_paths, replace_texts=True)

    def _rows_soon(self) -> None:
        """Show the clips measured so far within ``ROWS_EVERY_MS`` (not on every progress report)."""
        if not self._rows_timer.isActive():
            self._rows_timer.start(ROWS_EVERY_MS)

    def _show_rows_so_far(self) -> None:
        """The clips in the manifest now, while a job adds them: those shown before keep their status and
        warnings, new ones say ``checking…`` (health findings come when it ends); the selection and the scroll
        position stay."""
        from studio.widgets.clip_table import rows_so_far
        from trainer.dataset.project import DatasetProject

        if self._busy and self.has_project():
            self.table.show_rows(rows_so_far(DatasetProject(self.project_dir), self.table.shown_rows()))

    def _on_new_project_clicked(self) -> None:
        """Ask for the new project's folder: an empty one, or a new path typed in the picker (Qt's own folder
        picker refuses a folder that does not exist yet: ``studio.widgets.locations.choose_folder`` takes it)."""
        from studio.widgets.locations import choose_folder

        start = self.start_folders.start(self.project_dir)
        folder = choose_folder(self, "New dataset project: choose an empty folder or type a new one", start)
        if folder:
            self.start_folders.picked(folder.parent)
            self.new_project(folder)

    def new_project(self, folder: Path) -> None:
        """Make ``folder`` (new or empty) a dataset project with no clips and show it; an existing project is
        opened instead, and a folder holding other files is refused (both said in the hint)."""
        from trainer.dataset.project import DatasetProject
        from trainer.out_folder import OutFolderError

        if (folder / "manifest.json").is_file():
            self.open_project(folder)
            self.hint.setText(f"{folder} is already a dataset project: opened it")
            return
        if folder.is_dir() and any(folder.iterdir()):
            self.hint.setText(f"{folder}: holds other files; choose a new or empty folder for a new project")
            return
        try:
            DatasetProject.create(folder).save()
        except (OutFolderError, OSError) as exc:
            self.hint.setText(f"Cannot make a project in {folder}: {exc}")
            return
        self.open_project(folder)
        self.hint.setText(NEW_PROJECT.format(folder=folder))

    def _on_slice_clicked(self) -> None:
        from studio.widgets.slice_options import SliceOptionsDialog

        kinds = "Audio (*.wav *.flac *.ogg *.mp3)"
        start = str(self.start_folders.recordings())
        files, _ = QFileDialog.getOpenFileNames(self, "Long recordings to slice", start, kinds)
        if not files:
            return
        self.start_folders.picked_recordings(Path(files[0]))
        dialog = SliceOptionsDialog(self)
        if dialog.exec():
            self.slice_paths([Path(f) for f in files], dialog.options(), dialog.drafting())

    def slice_paths(self, paths: list[Path], options=None, drafting=None) -> Task | None:
        """Slice long recordings into draft clips in the background (``trainer.dataset.slicing_run``: ``options``
        a ``SliceOptions``, ``drafting`` a ``Drafting``; default PocketSphinx drafts). The new drafts are
        selected and scrolled to when it ends (with those of a resumed recording made before), the kept ones
        after a Cancel; slicing a recording again resumes it (``trainer.dataset.slicing_run``)."""
        from engines.words import count
        from trainer.dataset.slicing_run import Drafting, slice_recordings

        drafting = drafting or Drafting()

        def work(project, state):
            return slice_recordings(
                project, paths, options, drafting.recognizer, drafting.model, language=drafting.language, state=state
            )

        def describe(r) -> str:
            what = "drafts: check each text, then Confirm texts" if drafting.recognizer else "clips: type their texts"
            text = f"{count(len(r.added), 'utterance')} added as {what}" if r.added else "No utterance added"
            lines = [*r.earlier, *(f"failed: {p}" for p in r.problems), *(f"warning: {n}" for n in r.notes)]
            return "; ".join([text, *lines])  # earlier: each recording resumed or already sliced, by name

        task = self.run_job("Slicing", work, describe, create=True, cancellable=True)
        if task is not None:
            task.progress.connect(lambda *_: self._rows_soon())
            task.done.connect(lambda r: self.select(r.resumed + r.added))  # after the page's reload (connected first)
            task.cancelled.connect(lambda exc: self.select(exc.partial.added if exc.partial else []))
        return task

    # --- fixes and edits --------------------------------------------------------
    def fix_selected(self, trim: bool = False, normalize: bool = False, resample: bool = False) -> Task | None:
        """Apply a fix to the selected clips' curated copies; the message says what changed, with counts
        (``trainer.dataset.fixes.summary``), and the clips stay selected."""
        from trainer.dataset.fixes import apply_and_describe

        ids = self.selected_ids()
        rate = TARGET_RATE if resample else None
        return self.run_job(
            "Resampling" if resample else "Trimming" if trim else "Normalizing",
            lambda p, state: apply_and_describe(p, ids, resample_to=rate, trim=trim, normalize=normalize, state=state),
            lambda said: said,
            cancellable=True,
        )

    def set_excluded(self, excluded: bool) -> Task | None:
        from trainer.dataset.curation import set_excluded

        ids = self.selected_ids()
        word = "Excluded" if excluded else "Included"
        return self.run_job(
            word, lambda p, _: set_excluded(p, ids, excluded), lambda c: f"{word} {count(len(c), 'clip')}"
        )

    def _on_speaker_clicked(self) -> None:
        known = sorted({c.speaker for c in self._project.clips.values() if c.speaker}) if self._project else []
        ids = self.selected_ids()
        label = f"Speaker of the {count(len(ids), 'selected clip')} (a new name adds a speaker):"
        name, ok = QInputDialog.getItem(self, "Set speaker", label, known, 0, True)
        if ok:
            self.set_speaker_selected(name)

    def set_speaker_selected(self, name: str) -> Task | None:
        """Set the speaker of the selected clips (``trainer.dataset.curation.set_speaker``)."""
        from trainer.dataset.curation import set_speaker

        ids = self.selected_ids()
        return self.run_job(
            "Setting the speaker",
            lambda p, _: set_speaker(p, ids, name),
            lambda c: f"Set the speaker of {count(len(c), 'clip')} to {name.strip()!r}",
        )

    def confirm_selected(self) -> Task | None:
        return self._confirm(self.selected_ids())

    def _confirm(self, ids: list[str]) -> Task | None:
        from trainer.dataset.curation import confirm

        return self.run_job("Confirming", lambda p, _: confirm(p, ids), lambda c: f"Confirmed {count(len(c), 'text')}")

    def confirm_current(self, clip_id: str) -> Task | None:
        """Confirm draft: the text in the editor is the one confirmed (an edit is saved with it)."""
        from engines.errors import VoiceStudioError
        from trainer.dataset.curation import confirm

        if self._busy:  # before the edit is taken: it stays pending
            self.message.emit(BUSY)
            return None
        if clip_id == self.editor.clip_id and self.editor.pending_text() is not None:
            try:
                self._get_phonemizer()  # made here, in the GUI thread, and kept for the confirm below
            except VoiceStudioError as exc:  # the edit stays in the editor, unsaved and unconfirmed
                self.message.emit(f"Not confirmed: the text typed cannot be saved: {exc}")
                return None
        pending = self.editor.take_pending() if clip_id == self.editor.clip_id else None
        texts = dict([pending]) if pending else None
        phonemizer = self._get_phonemizer() if texts else None
        return self.run_job(
            "Confirming",
            lambda p, _: confirm(p, [clip_id], texts, phonemizer),
            lambda c: f"Confirmed the text of {clip_id}" if c else f"{clip_id}: no draft text to confirm",
        )

    def save_text(self, clip_id: str, text: str) -> Task | None:
        """Save a clip's text (the editor's Save text, or Return)."""
        if clip_id != self.editor.clip_id:
            self._unsaved[clip_id] = text
        return self.run_job("Saving text", lambda p, _: None, lambda _: "")

    def trim_clip(self, clip_id: str, start_s: float, end_s: float) -> Task | None:
        from trainer.dataset.curation import trim_clip

        return self.run_job(
            "Trimming", lambda p, _: trim_clip(p, clip_id, start_s, end_s), lambda c: f"Trimmed {c.id}: {c.edits[-1]}"
        )

    def split_clip(self, clip_id: str, at_s: float) -> Task | None:
        from trainer.dataset.curation import split

        return self.run_job(
            "Splitting", lambda p, _: split(p, clip_id, at_s), lambda ids: f"Split {clip_id} into {', '.join(ids)}"
        )

    def merge_selected(self) -> Task | None:
        from trainer.dataset.curation import merge

        ids = self.selected_ids()
        return self.run_job(
            "Merging", lambda p, _: merge(p, ids), lambda new: f"Merged {count(len(ids), 'clip')} into {new}"
        )

    # --- export and report ------------------------------------------------------
    def _refuse_without_project(self) -> bool:
        """Say so (and return True) when the folder shown is not a project yet, before any dialog opens."""
        if self.has_project():
            return False
        self.hint.setText(f"{self.project_dir}: {NO_PROJECT}")
        return True

    def _on_export_clicked(self) -> None:
        if self._refuse_without_project():
            return
        from studio.widgets.locations import choose_folder

        base = self.start_folders.start(self.project_dir)
        base = self.project_dir.parent if base == self.project_dir else base
        folder = choose_folder(
            self, "Export Piper training data to (a new or empty folder)", base / f"{self.project_dir.name}-piper"
        )
        if folder:
            self.start_folders.picked(folder.parent)
            self.export_to(folder)

    def export_to(self, out_dir: Path, rate: int = TARGET_RATE) -> Task | None:
        """Write Piper's training layout in the background."""
        from trainer.dataset.export import export_piper

        return self.run_job(
            "Exporting",
            lambda p, _: export_piper(p, out_dir, rate),
            lambda r: (
                f"Exported {count(len(r.written), 'clip')} to {out_dir}; {len(r.skipped)} left out (see the report)"
            ),
            writes=False,
            also=(out_dir,),  # a Piper folder: the Train page may have it chosen
        )

    def _on_cache_clicked(self) -> None:
        from engines.extras import explain
        from studio.widgets.locations import choose_folder

        if self._refuse_without_project():
            return
        if needs := explain("train", "Building the training cache"):  # an ONNX-only install: before any dialog
            self.hint.setText(needs)
            return
        folder = choose_folder(self, "Build the training cache in (a new or empty folder)", self._cache_start())
        if folder:
            self.build_cache(folder)

    def _cache_start(self) -> Path:
        """Where the cache picker starts: the last cache's folder, else ``<project>-cache`` beside the project."""
        from trainer.data.preprocess.status import cache_status

        last = cache_status(self.project()).folder
        return last or self.project_dir.parent / f"{self.project_dir.name}-cache"

    def _show_cache_status(self, project) -> None:
        """Say whether a training cache was built, where, and whether it is up to date (a link opens it)."""
        import html

        from trainer.data.preprocess.status import cache_status

        status = self._cache = cache_status(project)
        text = html.escape(status.describe())
        self.cache_label.setText(text + (" · <a href='open'>Open folder</a>" if status.built else ""))

    def _open_cache_folder(self, _link: str = "") -> None:
        from studio.widgets.locations import open_location

        if self._cache.folder is not None:
            open_location(self, self._cache.folder)

    def build_cache(self, out_dir: Path, rate: int = TARGET_RATE) -> Task | None:
        """Preprocess the trainable clips (phoneme_ids, audio, spectrograms) for the trainer, in the background,
        into exactly ``out_dir`` (created when missing)."""
        from trainer.data.preprocess import CacheSettings, build_cache

        def work(p, state):
            from trainer.dataset.export import selection

            chosen, left_out = selection(p)
            return build_cache(p, out_dir, CacheSettings(sample_rate=rate), state=state), len(chosen), len(left_out)

        def describe(done) -> str:  # as Export says it
            left = f"; {done[2]} left out (see the report)" if done[2] else ""
            return f"Training cache of {count(done[1], 'clip')} written to {done[0]}{left}"

        return self.run_job("Building the training cache", work, describe, cancellable=True, also=(out_dir,))

    def _on_save_report_clicked(self) -> None:
        name = proposed_name(self.project_dir.name, "report", suffix=".html")
        start = save_start(name, "report", self.workspace.save_folders, self.start_folders.start(self.project_dir))
        path, _ = QFileDialog.getSaveFileName(self, "Save report", start, "HTML (*.html);;Markdown (*.md)")
        if path:
            self.save_report(Path(path))

    def save_report(self, path: Path) -> Task | None:
        """Write the health report as HTML (``.html``) or Markdown (any other name); the next Save report… starts
        in its folder."""
        from engines.files import write_text
        from trainer.dataset.report import build_report, to_html, to_markdown

        render = to_html if path.suffix.lower() in (".html", ".htm") else to_markdown

        def saved(_) -> str:
            self.workspace.save_folders.remember("report", path)
            return f"Report saved: {path}"

        return self.run_job(
            "Writing the report", lambda p, _: write_text(path, render(build_report(p))), saved, writes=False
        )


def describe_import(result) -> str:
    """What an import (``trainer.dataset.import_result.ImportResult``) did, as the hint says it: the counts, what
    it skipped (the first ``SHOWN``, named as the command line names them), the transcripts their sources now
    word otherwise, and its warnings (the new clips far louder or quieter than the others)."""
    parts = [result.counts()]
    if result.problems:
        parts.append(f"skipped: {_first(result.problems, 'problem')}")
    if changes := result.changed:
        differ = "differs from its source" if len(changes) == 1 else "differ from their source"
        parts.append(f"{count(len(changes), 'transcript')} {differ}: {_first([c.describe() for c in changes])}")
    parts += [f"warning: {note}" for note in result.notes]  # as slicing says its notes
    return "; ".join(parts)


def _first(lines: list[str], what: str = "more") -> str:
    """The first ``SHOWN`` of ``lines``, and how many more there are (listed in the hint's tooltip)."""
    more = len(lines) - SHOWN
    rest = f" (and {more} more {what}{'s' if more > 1 else ''} in this line's tooltip)" if more > 0 else ""
    return "; ".join(lines[:SHOWN]) + rest
