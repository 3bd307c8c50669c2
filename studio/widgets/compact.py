"""Layout helpers that let a page fit a small window (1024×640): scroll areas for tall forms, splitters.

See also ``studio.widgets.flow_layout`` for button rows that wrap.
"""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QAbstractItemView, QFormLayout, QFrame, QScrollArea, QSplitter, QTableView, QWidget


class _ShortScrollArea(QScrollArea):
    """A scroll area whose minimum height is what it is given with ``setMinimumHeight`` (it scrolls below that)."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        return QSize(super().minimumSizeHint().width(), self.minimumHeight())


def scrolled(widget: QWidget, least: int = 40) -> QScrollArea:
    """``widget`` in a frameless scroll area that scrolls vertically when given less than its height; a splitter
    or layout can shrink the area to ``least`` px (less than a scroll area's own minimum)."""
    area = _ShortScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setMinimumHeight(least)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the controls inside (the area follows them)
    return area


def stacked(top: QWidget, bottom: QWidget, top_height: int) -> QSplitter:
    """``top`` over ``bottom`` in a vertical splitter; ``top`` starts ``top_height`` px high, ``bottom`` takes the
    rest and what the window gains, and neither can be dragged shut."""
    return split(Qt.Orientation.Vertical, top, bottom, fixed=0, size=top_height)


def split(orientation: Qt.Orientation, first: QWidget, second: QWidget, fixed: int, size: int) -> QSplitter:
    """``first`` then ``second`` in a splitter of ``orientation``: the one at index ``fixed`` (0 or 1) starts
    ``size`` px, the other takes the rest and what the window gains, and neither can be dragged shut."""
    splitter = QSplitter(orientation)
    splitter.addWidget(first)
    splitter.addWidget(second)
    splitter.setChildrenCollapsible(False)
    splitter.setStretchFactor(fixed, 0)
    splitter.setStretchFactor(1 - fixed, 1)
    splitter.setSizes([size, 10_000] if fixed == 0 else [10_000, size])
    return splitter


def keep_rows_visible(table: QAbstractItemView, rows: int) -> None:
    """Make ``table`` at least tall enough to show its header and ``rows`` rows (a splitter cannot squeeze it)."""
    header = table.horizontalHeader().sizeHint().height() if isinstance(table, QTableView) else 0
    row = table.verticalHeader().defaultSectionSize() if isinstance(table, QTableView) else table.sizeHintForRow(0)
    table.setMinimumHeight(header + rows * max(row, 1) + 2 * table.frameWidth())


def form_rows_height(widget: QWidget, rows: int) -> int:
    """The height (px) ``widget`` needs to show its ``QFormLayout``'s first ``rows`` rows whole, with its frame and
    title above them (a group box's), at its preferred size: what to keep in view when a scroll area holds it.

    Raises:
        TypeError: ``widget``'s layout is not a ``QFormLayout``.
    """
    form = widget.layout()
    if not isinstance(form, QFormLayout):
        raise TypeError(f"{type(widget).__name__} has no form layout")
    widget.resize(widget.sizeHint())
    form.activate()
    bottom = 0
    for row in range(min(rows, form.rowCount())):
        for role in (QFormLayout.ItemRole.LabelRole, QFormLayout.ItemRole.FieldRole, QFormLayout.ItemRole.SpanningRole):
            item = form.itemAt(row, role)
            if item is not None:
                bottom = max(bottom, item.geometry().bottom() + 1)
    return bottom + form.contentsMargins().bottom() + widget.contentsMargins().bottom()
