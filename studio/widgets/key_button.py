"""A button that shows a key number and a short label, elided on the right only where even that does not fit (the
Compare page's candidates)."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QPushButton, QSizePolicy, QStyle, QWidget

MOST_CHARS = 18
"""The widest a button asks to be, in average characters of its text (a longer label is elided to it)."""


class KeyButton(QPushButton):
    """A candidate's button: its key number, then its label as given in ``short`` (``ep 6``; default: ``label``),
    elided on the right only where the button is narrower than that (many or long labels share the row rather
    than widen the window past the screen); the whole ``label`` is the tooltip. Its size hint is the width of
    the whole text, at most ``MOST_CHARS`` characters; its minimum, the key and "…". A candidate that cannot be
    rendered (``failed``: why) is marked ⚠ and its tooltip says why."""

    def __init__(
        self, key: str, label: str, failed: str | None = None, parent: QWidget | None = None, *, short: str = ""
    ) -> None:
        super().__init__(parent)
        shown = short or label
        self.key, self.label = key, (f"⚠ {shown}" if failed else shown)
        self.setToolTip(f"{label}\ncannot be rendered: {failed}" if failed else label)
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Fixed)
        self._elide()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The whole key and label on one line (at most ``MOST_CHARS`` characters), at a button's height."""
        metrics = self.fontMetrics()
        width = self._margin() + metrics.horizontalAdvance(self._prefix() + self.label)
        return QSize(min(width, self._margin() + MOST_CHARS * metrics.averageCharWidth()), super().sizeHint().height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """The key and "…": a row of many buttons never makes the page wider than its other parts."""
        width = self._margin() + self.fontMetrics().horizontalAdvance(self._prefix() + "…")
        return QSize(width, super().minimumSizeHint().height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt override
        super().resizeEvent(event)
        self._elide()

    def _prefix(self) -> str:
        return f"{self.key}  " if self.key else ""

    def _margin(self) -> int:
        """Room (px) the style keeps around a button's text, and a character's to spare."""
        return 2 * self.style().pixelMetric(QStyle.PixelMetric.PM_ButtonMargin) + self.fontMetrics().averageCharWidth()

    def _elide(self) -> None:
        prefix, metrics = self._prefix(), self.fontMetrics()
        room = max(0, self.width() - self._margin() - metrics.horizontalAdvance(prefix))
        fits = metrics.horizontalAdvance(self.label) <= room  # elidedText cuts a label that fits to the pixel
        self.setText(
            prefix + (self.label if fits else metrics.elidedText(self.label, Qt.TextElideMode.ElideRight, room))
        )
