"""A one-line label that never widens its window: text too long for its width ends in "…" (the whole text is in
``text()`` and, unless one is set, the tooltip). With a ``separator`` (a line of parts, ``a · b · c``) it drops
whole parts from the end instead of cutting one; :class:`CornerLine` is such a line beside a tab bar."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QSizePolicy, QTabWidget, QWidget

MORE = "…"
"""Ends a line that left parts out (they are in the tooltip)."""


class ElidedLabel(QLabel):
    """One line of plain text, elided at the right (``elide``: where) when the label is narrower than it;
    ``separator``: drop whole parts from the end (:func:`fit_parts`)."""

    def __init__(
        self,
        text: str = "",
        parent: QWidget | None = None,
        *,
        separator: str | None = None,
        elide: Qt.TextElideMode = Qt.TextElideMode.ElideRight,
    ) -> None:
        self._own_tip = False
        super().__init__(text, parent)
        self.separator, self.elide = separator, elide
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        """The text; it is the tooltip too unless one was set (:meth:`setToolTip`)."""
        super().setText(text)
        if not self._own_tip:
            super().setToolTip(text)

    def setToolTip(self, tip: str) -> None:  # noqa: N802 - Qt override
        """A tooltip of its own (an empty one gives the tooltip back to the text)."""
        self._own_tip = bool(tip)
        super().setToolTip(tip or self.text())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(0, self.fontMetrics().height())

    def shown_text(self) -> str:
        """What the label draws at its present width."""
        width, metrics = self.contentsRect().width(), self.fontMetrics()
        if self.separator is None:
            return metrics.elidedText(self.text(), self.elide, width)
        shown = fit_parts(self.text(), self.separator, width, metrics.horizontalAdvance)
        return metrics.elidedText(shown, Qt.TextElideMode.ElideRight, width)  # even the first part too long

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt override
        painter = QPainter(self)
        painter.drawText(self.contentsRect(), int(self.alignment()), self.shown_text())
        painter.end()


class CornerLine(ElidedLabel):
    """A line of parts in ``tabs``' corner (``QTabWidget.setCornerWidget``) that asks for no more than the room the
    tab bar leaves: the tabs are always shown whole, and the line keeps the parts that fit beside them.

    A tab widget gives its corner widget the width of its size hint and its tab bar the rest, so a long corner
    text squeezed the bar into scroll arrows (issue 31, item 2)."""

    GAP = 12
    """px kept between the last tab and the line."""

    def __init__(self, tabs: QTabWidget, separator: str = " · ") -> None:
        super().__init__("", tabs, separator=separator)
        self._tabs = tabs
        self.setAlignment(Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignRight)

    def setText(self, text: str) -> None:  # noqa: N802 - Qt override
        super().setText(text)
        self.updateGeometry()  # the tab widget lays its corner out again for the new width

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        margins = self.contentsMargins()
        whole = self.fontMetrics().horizontalAdvance(self.text()) + margins.left() + margins.right() + 2
        room = self._tabs.width() - self._tabs.tabBar().sizeHint().width() - self.GAP
        return QSize(max(0, min(whole, room)), self._tabs.tabBar().sizeHint().height())


def fit_parts(text: str, separator: str, width: float, advance: Callable[[str], float]) -> str:
    """The longest head of ``text``'s parts (split at ``separator``) that fits ``width`` (px) as measured by
    ``advance`` (e.g. ``QFontMetrics.horizontalAdvance``), ending in ``separator + MORE`` when parts are left out;
    the first part alone when none fits."""
    parts = text.split(separator)
    for count in range(len(parts), 0, -1):
        shown = separator.join(parts[:count]) + ("" if count == len(parts) else separator + MORE)
        if advance(shown) <= width:
            return shown
    return parts[0]


def add_elided_line(widget: QListWidget, text: str) -> QListWidgetItem:
    """Add ``text`` to ``widget`` as a line that ends in "…" where the list is narrower than it (the whole line is
    its tooltip), never scrolling sideways: the item asks for 1 px of width, so the view gives it the viewport's."""
    widget.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    item = QListWidgetItem(text, widget)
    item.setToolTip(text)
    item.setSizeHint(QSize(1, widget.sizeHintForRow(widget.row(item))))
    return item
