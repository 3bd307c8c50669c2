"""A button that shows a key number and a label elided on the right to its width (the Compare page's candidates)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QSizePolicy, QStyle, QWidget


class KeyButton(QPushButton):
    """A candidate's button: its key number, then its label elided on the right to fit (many or long labels share
    the row rather than widen the window past the screen); the whole label is the tooltip. A candidate that
    cannot be rendered (``failed``: why) is marked ⚠ and its tooltip says why."""

    def __init__(self, key: str, label: str, failed: str | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.key, self.label = key, (f"⚠ {label}" if failed else label)
        self.setToolTip(f"{label}\ncannot be rendered: {failed}" if failed else label)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self._elide()

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        prefix, metrics = (f"{self.key}  " if self.key else ""), self.fontMetrics()
        margin = 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_ButtonMargin) + metrics.averageCharWidth()
        room = max(0, self.width() - margin - metrics.horizontalAdvance(prefix))
        self.setText(prefix + metrics.elidedText(self.label, Qt.TextElideMode.ElideRight, room))
