"""A row of widgets that wraps onto more lines when the window is narrow (Qt's "Flow Layout" example).

Button rows use it so that a page's minimum width is that of its widest button, not the sum of all.
"""

from __future__ import annotations

from PySide6.QtCore import QMargins, QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QSizePolicy, QWidget, QWidgetItem


class FlowLayout(QLayout):
    """Items left to right at their size hints, wrapping to a new line where the width runs out.

    The layout has a height for width (``heightForWidth``), so the widget it is set on grows by a line
    when the items wrap. Spacing (px) is the same between items and between lines.
    """

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    def add_widgets(self, *widgets: QWidget) -> None:
        """Append ``widgets`` in order."""
        for widget in widgets:
            self.addWidget(widget)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt override
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt override
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt override
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt override
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt override
        """One line of every item."""
        hints = [item.sizeHint() for item in self._visible()]
        width = sum(hint.width() for hint in hints) + self.spacing() * max(0, len(hints) - 1)
        height = max((hint.height() for hint in hints), default=0)
        return QSize(width, height).grownBy(self.contentsMargins())

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt override
        """The widest item's width, one line high (the height for a width comes from ``heightForWidth``)."""
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        return size.grownBy(self.contentsMargins())

    def _visible(self) -> list[QLayoutItem]:
        return [item for item in self._items if not (isinstance(item, QWidgetItem) and item.isEmpty())]

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Place the items in ``rect`` (when ``move``); returns the height (px) they need."""
        margins: QMargins = self.contentsMargins()
        area = rect.marginsRemoved(margins)
        x, y, line_height = area.x(), area.y(), 0
        for item in self._visible():
            hint = item.sizeHint()
            hint.setWidth(min(hint.width(), area.width()))  # a long label is cut, not pushed out of sight
            if x > area.x() and x + hint.width() > area.right() + 1:
                x, y, line_height = area.x(), y + line_height + self.spacing(), 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self.spacing()
            line_height = max(line_height, hint.height())
        return y + line_height - rect.y() + margins.bottom()


def flow_row(*widgets: QWidget) -> QWidget:
    """A widget holding ``widgets`` in a :class:`FlowLayout` (wrapping when narrow)."""
    row = QWidget()
    row.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Minimum)
    FlowLayout(row).add_widgets(*widgets)
    return row
