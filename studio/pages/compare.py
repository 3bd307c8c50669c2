"""The Compare page: pick the best checkpoint by ear and by numbers.

Tabs, all over one ``studio.comparison.Comparison``:

- "Listen" (``studio.pages.compare_listen.ListenTab``): render lines by candidates, switch between them at the
  same position, hear the recordings;
- "Blind test" (``studio.pages.compare_blind.BlindTab``): rate the renders under hidden letters, then reveal;
- "Leaderboard" (``studio.pages.compare_board.BoardTab``): objective measures per candidate, kept beside the run,
  and a 5-trial blind tie-break where the recommended candidate has ties;
- "Runs" (``studio.widgets.run_curves.RunCurvesView``): runs' val_mel and epoch-time curves overlaid.

Every tab plays through the Listen tab's player; what the sound device says (``Cannot play audio: …``, its own
rate, a stop mid-clip) is one notice above the tabs (``studio.widgets.notices``, topic ``device``), kept until a
clip plays, so a trial rated with nothing heard still shows why.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QLabel, QTabWidget, QVBoxLayout, QWidget

from engines.errors import VoiceStudioError
from engines.extras import install_line, missing
from engines.pool import EnginePool
from studio.comparison import Comparison
from studio.pages.compare_blind import BlindTab
from studio.pages.compare_board import BoardTab
from studio.pages.compare_listen import ListenTab
from studio.state import VoiceLibrary, Workspace
from studio.state_files import FolderChange
from studio.widgets.blind_test import REFERENCE
from studio.widgets.notices import Notices
from studio.widgets.run_curves import RunCurvesView


class ComparePage(QWidget):
    """A tab widget over one :class:`~studio.comparison.Comparison` (the ``comparison`` attribute).

    Args:
        workspace: where runs and exported voices are (the folders the pickers start in).
        library: the studio's voices, offered as candidates.
        pool: the engines that render (the studio's one pool).

    Attributes:
        listen, blind, board, runs: the tabs.
        notice: what the sound device says, above the tabs (hidden while it says nothing).
    """

    def __init__(self, workspace: Workspace, library: VoiceLibrary, pool: EnginePool) -> None:
        super().__init__()
        self.comparison = Comparison()
        self.tabs = QTabWidget()
        self.listen = ListenTab(self.comparison, workspace, library, pool)
        folders = workspace.save_folders  # Export CSV… starts where a CSV went last
        self.blind = BlindTab(self.comparison, self.rendered_audio, self.play, self.stop, folders=folders)
        cache_dir = self.listen.renderer.cache_dir
        take_lines = self.listen.take_typed_lines
        self.board = BoardTab(
            self.comparison, pool, cache_dir, take_lines=take_lines, play=self.play, stop=self.stop, folders=folders
        )
        self.runs = RunCurvesView(runs_folder=lambda: workspace.runs_dir)
        for widget, title in ((self.listen, "Listen"), (self.blind, "Blind test"), (self.board, "Leaderboard")):
            self.tabs.addTab(widget, title)
        self.tabs.addTab(self.runs, "Runs")
        self.tabs.currentChanged.connect(self._on_tab)
        self.notice = Notices()
        self.notice.setVisible(False)
        self.listen.device_said.connect(self._device)
        self.blind.panel.rated_unheard.connect(self._check_device)
        self.board.tie_break.rated_unheard.connect(self._check_device)
        workspace.runs.events.changed.connect(self._on_run_changed)
        self.needs = QLabel(comparing_missing())
        """What this install cannot compare, and how to add it (an ONNX-only install); hidden when it can all."""
        self.needs.setWordWrap(True)
        self.needs.setVisible(bool(self.needs.text()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.needs)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs)

    def add_tab(self, widget: QWidget, title: str) -> int:
        """Append a tab; returns its index."""
        return self.tabs.addTab(widget, title)

    def open_run(self, run_dir: Path) -> None:
        """Show the Listen tab with the run's ranked checkpoints and start voice checked, its held-out clips as the
        lines (read off the GUI thread), then their renders (instant when cached); add the run to the Runs tab
        (beside those added before)."""
        run_dir = Path(run_dir).absolute()
        self.tabs.setCurrentWidget(self.listen)
        self.listen.open_run(run_dir)
        if run_dir not in [folder.absolute() for folder in self.runs.folders]:
            self.runs.add_run(run_dir)

    def _on_run_changed(self, change: FolderChange) -> None:
        """A run shown here wrote new epochs or ranked checkpoints (``Workspace.runs``): its new checkpoints are
        listed among the candidates (unchecked: the comparison under way stays), its curves redrawn."""
        self.listen.candidates_box.list_new(change)
        if any(change.concerns(folder) for folder in self.runs.folders):
            self.runs.set_runs(self.runs.folders)

    def rendered_audio(self, label: str, line: int) -> tuple[np.ndarray, int] | None:
        """The render of line ``line`` by candidate ``label``: ``(float32 [N], Hz)``, or ``None`` before it is
        rendered (what a blind test's ``get_audio`` asks). ``label`` ``REFERENCE`` gives the line's recording
        (``None`` where it has none or it cannot be read)."""
        if label == REFERENCE:
            lines = self.comparison.lines
            if not 0 <= line < len(lines) or lines[line].reference is None:
                return None
            try:
                return lines[line].reference_audio()
            except (VoiceStudioError, OSError):
                return None
        rendered = self.comparison.rendered.get((label, line))
        return None if rendered is None else (rendered.audio, rendered.sample_rate)

    def play(self, audio: np.ndarray, rate: int) -> bool:
        """Play a clip from its start through the page's player (loudness-matched); returns whether it plays. No
        output device is the page's notice, for the Listen tab, the blind test and the leaderboard's tie-break
        alike (``ListenTab.play_clip``)."""
        return self.listen.play_clip(audio, rate, 0.0)

    def _device(self, text: str) -> None:
        """What the sound device says (``""``: nothing, a clip plays), in the notice above the tabs."""
        self.notice.put("device", text)
        self.notice.setVisible(bool(self.notice.text()))

    def _check_device(self) -> None:
        """A trial was rated with nothing of it played: where no clip could play, say why again."""
        cannot = self.listen.player.cannot_play()
        if cannot:
            self._device(cannot)

    def stop(self) -> None:
        """Stop playing."""
        self.listen.player.stop()

    def _on_tab(self, _index: int) -> None:
        """A tab change stops playing; the blind test takes the keys (A/B/X, 1/2, Enter) when shown, and so does a
        tie-break under way on the leaderboard."""
        self.stop()
        if self.tabs.currentWidget() is self.blind and self.blind.panel.isVisible():
            self.blind.panel.setFocus()
        elif self.tabs.currentWidget() is self.board and self.board.tie_break.current() is not None:
            self.board.tie_break.setFocus()

    def shutdown(self) -> None:
        """Stop playing and drop a running render or scoring (the finished renders and scores are cached)."""
        self.listen.shutdown()
        self.board.shutdown()


def comparing_missing() -> str:
    """The one line the page shows where an extra it uses is not installed (an ONNX-only install lacks both):
    checkpoints (``.ckpt``) need torch, the leaderboard the ``compare`` extra; ``""`` where both are here.
    Nothing is imported to find out."""
    needs = [
        f"checkpoints (.ckpt) need torch: {install_line('torch')}" if missing("torch") else "",
        f"the leaderboard needs {', '.join(missing('compare'))}: {install_line('compare')}"
        if missing("compare")
        else "",
    ]
    said = "; ".join(n for n in needs if n)
    return f"Listening and blind tests work; {said}." if said else ""
