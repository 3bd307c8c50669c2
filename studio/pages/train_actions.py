"""What the Train page's action buttons do besides training: resample the dataset, export the run's recommended
checkpoint (or its lowest val_mel, from the Export button's menu) as a voice named as Home Assistant expects (asked,
prefilled: ``studio.pages.train_home_assistant``) or as a sherpa-onnx bundle for Android
(``trainer.checkpoints.sherpa_bundle``), send it to Home Assistant (a wyoming-piper upload or a data folder), open
the run folder, ask the trainer for previews now; the work runs off the GUI thread (``studio.workers.Task``).
Export says which checkpoint it takes and why, and warns when that one is measurably worse than the start voice
(``trainer.evaluate.choice``).

A mixin of :class:`studio.pages.train.TrainPage`, as ``studio.pages.dataset_actions`` is of the Dataset
page: it relies on the page's attributes declared below.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QLabel, QMenu, QToolButton, QWidget

from engines.imports import importing
from engines.words import count
from studio.state import Workspace
from studio.widgets.run_view import RunView
from studio.widgets.train_setup import TrainSetup
from studio.workers import Task
from trainer.events.run_state import RunState

if TYPE_CHECKING:
    from trainer.checkpoints.sherpa_bundle import SherpaBundle


class TrainActions:
    """Resample, export, open-folder and Preview now of the Train page."""

    setup: TrainSetup
    workspace: Workspace
    view: RunView
    status: QLabel
    state: RunState | None
    voices_dir: Path
    message: SignalInstance
    voice_exported: SignalInstance
    _generation: int
    _preview_asked: bool
    check: Callable[..., Task | None]
    _update_buttons: Callable[[], None]
    export_actions: dict[str, QAction]
    """The Export button's menu entries by ``trainer.evaluate.choice.TAKES`` name."""
    sherpa_action: QAction
    """The Export button's menu entry that bundles the recommended checkpoint for sherpa-onnx."""
    send_action: QAction
    """The Export button's Send to Home Assistant… entry (enabled once this session exported a voice)."""
    exported: Path | None = None
    """The voice this page exported last (what Send to Home Assistant… sends)."""
    ask_export: Callable[..., None]
    ask_send: Callable[[], None]
    _resampling: Task | None = None
    """The Resample running, until its end is handled (:meth:`is_resampling`)."""

    def _page(self) -> QObject:
        """This mixin as the page it is part of (the parent of its tasks)."""
        return cast(QObject, self)

    def _resample(self, rate: int) -> Task:
        folder = Path(self.setup.dataset.text().strip())  # the offer is cleared when the dataset changes
        from studio.widgets.locations import with_path

        doing = f"Resampling the curated copies of {folder} to {rate:,} Hz"
        self.setup.show_message(f"{doing}…", "info")
        generation = self._generation

        def work(state):
            from trainer.dataset.project import DatasetProject

            return DatasetProject(folder).apply_fixes(resample_to=rate, state=state)

        def moved(done: int, total: int) -> None:  # a moving figure while it works: clips done of all
            if generation == self._generation:
                self.setup.show_message(f"{doing}: {done} / {count(total, 'clip')}…", "info")

        def ended(error: Exception | None) -> None:
            said = f"Resampling failed: {with_path(folder, error)}" if error else f"Resampled {folder}"
            unchanged = generation == self._generation
            self.workspace.datasets.announce(folder, what=f"resampling to {rate:,} Hz on the Train page")
            self._resampling = None  # said: from here a change of the folder is not this page's
            if not unchanged:  # another dataset is chosen now: its findings are not these
                self.message.emit(f"{said}.")
            elif error is not None:
                self.setup.show_message(said)
            else:
                self.check()

        task = Task(work, self._page())
        task.progress.connect(moved)
        task.done.connect(lambda _: ended(None))
        task.failed.connect(ended)
        self._resampling = task.start()
        return task

    def is_resampling(self) -> bool:
        """Whether a Resample of this page's is writing the dataset's curated copies, or has not yet said what it
        changed (until its end is handled on the GUI thread)."""
        return self._resampling is not None

    def export_button(self) -> QToolButton:
        """The Export voice button: a click exports the recommended checkpoint; its menu offers the lowest val_mel
        too, each named by the checkpoint it takes when the menu opens."""
        button = QToolButton()
        button.setText("Export voice")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.MenuButtonPopup)
        button.setToolTip("Export the run's recommended checkpoint as a voice (the arrow: the lowest val_mel)")
        menu = QMenu(button)
        self.export_actions = {take: menu.addAction(text) for take, text in EXPORT_CHOICES}
        for take, action in self.export_actions.items():
            action.triggered.connect(lambda _=False, take=take: self.ask_export(take))
        menu.addSeparator()
        self.sherpa_action = menu.addAction("Export for sherpa-onnx (Android)…")
        self.sherpa_action.triggered.connect(lambda _=False: self.export_sherpa())
        self.send_action = menu.addAction("Send to Home Assistant…")
        self.send_action.setEnabled(False)
        self.send_action.triggered.connect(lambda: self.ask_send())
        menu.aboutToShow.connect(self._name_export_choices)
        button.setMenu(menu)
        return button

    def export_sherpa(self, folder: Path | None = None) -> Task | None:
        """Bundle the shown run's recommended checkpoint for sherpa-onnx in ``RUN-sherpa-onnx`` inside ``folder``
        (asked for where not given; ``trainer.checkpoints.sherpa_bundle``), off the GUI thread; the page says
        where it went, or why not."""
        from trainer.checkpoints.best import CheckpointError
        from trainer.evaluate.choice import run_choice

        if self.state is None:
            return None
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(cast(QWidget, self), "Folder for the sherpa-onnx bundle")
            if not chosen:
                return None
            folder = Path(chosen)
        try:
            choice = run_choice(self.state.folder)
        except CheckpointError as exc:
            self._say(f"Nothing to export: {exc}")
            return None
        run, best = self.state.folder, choice.checkpoint
        target = folder / f"{run.name}-sherpa-onnx"
        self._say(f"Bundling {choice.why} for sherpa-onnx in {target}…")

        def work(cancel: threading.Event):
            with importing("trainer.checkpoints.sherpa_bundle"):
                from trainer.checkpoints.sherpa_bundle import bundle_checkpoint

            taken, _ = intact_choice(best, run)
            return bundle_checkpoint(taken.path, target, name=f"{run.name}.onnx")

        task = Task(work, self._page())
        task.done.connect(lambda bundle: self._say(bundle_words(bundle)))
        task.failed.connect(lambda exc: self._say(f"sherpa-onnx bundle of {best.path.name} failed: {exc}"))
        return task.start()

    def _name_export_choices(self) -> None:
        """Name the checkpoint each of the menu's choices takes (the recommended: none where nothing is measured)."""
        from trainer.checkpoints.best import CheckpointError
        from trainer.evaluate.choice import run_choice

        try:
            choice = run_choice(self.state.folder) if self.state is not None else None
        except CheckpointError:
            choice = None
        for take, text in EXPORT_CHOICES:
            taken = None if choice is None else choice.recommended if take == "recommended" else choice.lowest
            named = taken.label() if taken is not None else "none measured yet (takes the lowest val_mel)"
            self.export_actions[take].setText(f"{text}: {named}" if choice is not None else text)

    def export(self, take: str = "recommended", naming=None) -> Task | None:
        """Export the shown run's recommended checkpoint (``take="val_mel"``: its lowest val_mel, the one the Runs
        tab shows) as a voice in the user's voice folder; the page and the log say which, why, the other choice,
        and warn when it is measurably worse than the start voice. Where that checkpoint is damaged
        (``trainer.checkpoints.damage``), the run's best intact one is exported instead, and the damage said."""
        from trainer.checkpoints.best import CheckpointError
        from trainer.evaluate.choice import run_choice

        if self.state is None:
            return None
        from trainer.checkpoints.naming import run_naming

        try:
            choice = run_choice(self.state.folder, take)
            naming = naming or run_naming(self.state.folder)  # as the dialog is prefilled
        except (CheckpointError, ValueError) as exc:
            self._say(f"Nothing to export: {exc}")
            return None
        best, target = choice.checkpoint, self.voices_dir / f"{naming.stem}.onnx"
        self._say("\n".join([f"Exporting {choice.why} to {target}…", *choice.lines()[1:]]))  # the warning: a line

        def work(cancel: threading.Event):
            with importing("trainer.checkpoints.export"):
                from trainer.checkpoints.export import export_voice

            taken, damaged = intact_choice(best, folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            return export_voice(taken.path, target, None, None, naming=naming)[0], taken, damaged

        folder = self.state.folder
        task = Task(work, self._page())
        task.done.connect(lambda done: self._on_exported(done[0], done[1], done[2] or choice.warning))
        task.failed.connect(lambda exc: self._say(f"Export of {best.path.name} failed: {exc}"))
        return task.start()

    def _say(self, text: str) -> None:
        """Show ``text`` under the buttons and append it to the run's log."""
        self.status.setText(text)
        self.view.log.appendPlainText(text)

    def _on_exported(self, path, best, warning: str = "") -> None:
        import json

        from trainer.run.presets import is_smoke_test, trained_preset

        try:  # what the voice itself says (its .onnx.json), as the voice pickers label it
            written = json.loads(Path(f"{path}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            written = {}
        smoke = is_smoke_test(trained_preset(written)) or (self.state is not None and is_smoke_test(self.state.preset))
        note = (
            " It is a smoke test (test preset): it shows the pipeline works, it is not a usable voice." if smoke else ""
        )
        said = f"Exported {Path(path).name} from {best.describe()}: it is now among the Synthesize page's voices."
        self._say("\n".join(filter(None, [said + note, warning])))
        self.exported = Path(path)
        self.send_action.setEnabled(True)
        self.voice_exported.emit(Path(path))

    def preview_now(self) -> None:
        """Ask the shown run's trainer (this page's, or one elsewhere being followed) to speak its preview lines
        after its current training step (``trainer.events.run_state.request_preview``); they come to the Previews tab,
        shown now, and the button waits for them."""
        from trainer.events.run_state import request_preview

        if self.state is None or self._preview_asked:
            return
        request_preview(self.state.folder)
        self._preview_asked = True
        self.view.expect_previews()
        self._update_buttons()

    def _note_previews(self, events: list) -> None:
        """Previews that were asked for have come (``Preview`` events marked ``requested``): Preview now works
        again."""
        from trainer.events.schema import Preview

        if self._preview_asked and any(isinstance(e, Preview) and e.requested for e in events):
            self._preview_asked = False

    def _open_folder(self) -> None:
        if self.state is not None:
            from studio.widgets.locations import open_location

            open_location(cast(QWidget, self), self.state.folder)


def intact_choice(chosen, run_dir: Path):
    """``(checkpoint to export, words on the damage)``: ``chosen`` where it is whole, else the run's best intact
    ranked checkpoint and a line naming the damaged file (reads each file tried whole: off the GUI thread).

    Raises:
        DamagedCheckpoint: ``chosen`` is damaged and the run has no intact checkpoint.
    """
    from trainer.checkpoints.damage import DamagedCheckpoint, best_intact, why_damaged

    why = why_damaged(chosen.path)
    if why is None:
        return chosen, ""
    taken = best_intact(run_dir)
    if taken is None:
        raise DamagedCheckpoint(chosen.path, why, "the run has no intact checkpoint to export")
    return taken, f"{chosen.path.name} is damaged ({why}): the best intact checkpoint was exported instead."


SHERPA_HOW = "docs/formats.md says how sherpa-onnx and its Android TTS engine load it"
"""Where the page points for the bundle's use."""


def bundle_words(bundle: SherpaBundle) -> str:
    """What the page says of a written sherpa-onnx bundle (``trainer.checkpoints.sherpa_bundle.SherpaBundle``):
    where it is, where its use is told, and the options sherpa-onnx must be given where the voice needs any."""
    note = f" {bundle.options_note()}." if bundle.options else ""
    return f"Wrote the sherpa-onnx bundle {bundle.folder} ({SHERPA_HOW}).{note}"


EXPORT_CHOICES = (("recommended", "Export the recommended checkpoint"), ("val_mel", "Export the lowest val_mel"))
"""The Export button's menu: ``trainer.evaluate.choice.TAKES`` and how the menu words each."""
