"""What the Train page's action buttons do besides training: resample the dataset, export the run's best
checkpoint as a voice, open the run folder, ask the trainer for previews now; the work runs off the GUI thread
(``studio.workers.Task``).

A mixin of :class:`studio.pages.train.TrainPage`, as ``studio.pages.dataset_actions`` is of the Dataset
page: it relies on the page's attributes declared below.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import cast

from PySide6.QtCore import QObject, SignalInstance
from PySide6.QtWidgets import QLabel, QWidget

from engines.imports import importing
from engines.words import count
from studio.widgets.run_view import RunView
from studio.widgets.train_setup import TrainSetup
from studio.workers import Task
from trainer.run_state import RunState


class TrainActions:
    """Resample, export, open-folder and Preview now of the Train page."""

    setup: TrainSetup
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
            if generation != self._generation:  # another dataset is chosen now: its findings are not these
                self.message.emit(f"{said}.")
            elif error is not None:
                self.setup.show_message(said)
            else:
                self.check()

        task = Task(work, self._page())
        task.progress.connect(moved)
        task.done.connect(lambda _: ended(None))
        task.failed.connect(ended)
        return task.start()

    def export(self) -> Task | None:
        """Export the shown run's best-ranked checkpoint (``checkpoints/best.json``, lowest val_mel: the one the
        Runs tab shows) as a voice in the user's voice folder; the page and the log name the checkpoint."""
        from trainer.checkpoints import CheckpointError, best_checkpoint

        if self.state is None:
            return None
        try:
            best = best_checkpoint(self.state.folder)
        except CheckpointError as exc:
            self._say(f"Nothing to export: {exc}")
            return None
        target = self.voices_dir / f"{self.state.folder.name}.onnx"
        self._say(f"Exporting the best checkpoint {best.describe()} to {target}…")

        def work(cancel: threading.Event):
            with importing("trainer.export"):
                from trainer.export import export_voice

            target.parent.mkdir(parents=True, exist_ok=True)
            return export_voice(best.path, target, None, None)[0]

        task = Task(work, self._page())
        task.done.connect(lambda path: self._on_exported(path, best))
        task.failed.connect(lambda exc: self._say(f"Export of {best.path.name} failed: {exc}"))
        return task.start()

    def _say(self, text: str) -> None:
        """Show ``text`` under the buttons and append it to the run's log."""
        self.status.setText(text)
        self.view.log.appendPlainText(text)

    def _on_exported(self, path, best) -> None:
        import json

        from trainer.presets import is_smoke_test, trained_preset

        try:  # what the voice itself says (its .onnx.json), as the voice pickers label it
            written = json.loads(Path(f"{path}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            written = {}
        smoke = is_smoke_test(trained_preset(written)) or (self.state is not None and is_smoke_test(self.state.preset))
        note = (
            " It is a smoke test (test preset): it shows the pipeline works, it is not a usable voice." if smoke else ""
        )
        self._say(
            f"Exported {Path(path).name} from {best.describe()}: it is now among the Synthesize page's voices.{note}"
        )
        self.voice_exported.emit(Path(path))

    def preview_now(self) -> None:
        """Ask the shown run's trainer (this page's, or one elsewhere being followed) to speak its preview lines
        after its current training step (``trainer.run_state.request_preview``); they come to the Previews tab,
        shown now, and the button waits for them."""
        from trainer.run_state import request_preview

        if self.state is None or self._preview_asked:
            return
        request_preview(self.state.folder)
        self._preview_asked = True
        self.view.expect_previews()
        self._update_buttons()

    def _note_previews(self, events: list) -> None:
        """Previews that were asked for have come (``Preview`` events marked ``requested``): Preview now works
        again."""
        from trainer.events import Preview

        if self._preview_asked and any(isinstance(e, Preview) and e.requested for e in events):
            self._preview_asked = False

    def _open_folder(self) -> None:
        if self.state is not None:
            from studio.widgets.locations import open_location

            open_location(cast(QWidget, self), self.state.folder)
