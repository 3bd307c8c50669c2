"""The Compare page: pick the best checkpoint by ear and by numbers.

Tabs: "Listen" (``studio.pages.compare_listen.ListenTab``: render lines by candidates, switch between them
at the same position, hear the recordings) and the others put in with :meth:`ComparePage.add_tab`
(blind test, leaderboard, runs). Every tab shares one ``studio.comparison.Comparison``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from engines.pool import EnginePool
from studio.comparison import Comparison
from studio.pages.compare_listen import ListenTab
from studio.state import VoiceLibrary, Workspace


class ComparePage(QWidget):
    """A tab widget over one :class:`~studio.comparison.Comparison` (the ``comparison`` attribute).

    Args:
        workspace: where runs and exported voices are (the folders the pickers start in).
        library: the studio's voices, offered as candidates.
        pool: the engines that render (the studio's one pool).
    """

    def __init__(self, workspace: Workspace, library: VoiceLibrary, pool: EnginePool) -> None:
        super().__init__()
        self.comparison = Comparison()
        self.tabs = QTabWidget()
        self.listen = ListenTab(self.comparison, workspace, library, pool)
        self.tabs.addTab(self.listen, "Listen")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.tabs)

    def add_tab(self, widget: QWidget, title: str) -> int:
        """Append a tab; returns its index."""
        return self.tabs.addTab(widget, title)

    def open_run(self, run_dir: Path) -> None:
        """Show the Listen tab with the run's ranked checkpoints and start voice checked, its held-out clips as the
        lines (read off the GUI thread), then their renders (instant when cached)."""
        self.tabs.setCurrentWidget(self.listen)
        self.listen.open_run(Path(run_dir))

    def rendered_audio(self, label: str, line: int) -> tuple[np.ndarray, int] | None:
        """The render of line ``line`` by candidate ``label``: ``(float32 [N], Hz)``, or ``None`` before it is
        rendered (what a blind test's ``get_audio`` asks)."""
        rendered = self.comparison.rendered.get((label, line))
        return None if rendered is None else (rendered.audio, rendered.sample_rate)

    def play(self, audio: np.ndarray, rate: int) -> None:
        """Play a clip through the page's player (loudness-matched); no output device is a status line."""
        self.listen.play_clip(audio, rate)

    def stop(self) -> None:
        """Stop playing."""
        self.listen.player.stop()

    def shutdown(self) -> None:
        """Stop playing and drop a running render (the finished renders are cached)."""
        self.listen.shutdown()
