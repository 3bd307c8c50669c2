"""Layout helpers that let a page fit a small window (1024×640): scroll areas for tall forms, splitters.

See also ``studio.widgets.flow_layout`` for button rows that wrap.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QFormLayout,
    QFrame,
    QScrollArea,
    QScrollBar,
    QSplitter,
    QTableView,
    QWidget,
)


class _ShortScrollArea(QScrollArea):
    """A scroll area whose minimum height is what it is given with ``setMinimumHeight`` (it scrolls below that) and
    whose minimum width is its widget's, with room for the vertical scroll bar: it never scrolls sideways, so a
    splitter handle dragged against it stops there instead of cutting every row (Qt's own minimum is ~70 px)."""

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt override
        widget = self.widget()
        if widget is None:
            return QSize(super().minimumSizeHint().width(), self.minimumHeight())
        least = widget.minimumSizeHint().expandedTo(widget.minimumSize()).width()
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(least + bar + 2 * self.frameWidth(), self.minimumHeight())


class _WheelScrolls(QObject):
    """An event filter on the choice fields of a scroll area: the mouse wheel over one without the focus scrolls
    the area. Qt's own wheel changes the field under the pointer, so scrolling a form changed whatever field
    passed under it (the Train page's Device, which cleared the check's findings)."""

    def __init__(self, area: QScrollArea) -> None:
        super().__init__(area)
        self.area = area

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget) or watched.hasFocus():
            return False
        QCoreApplication.sendEvent(self.area.verticalScrollBar(), event)
        return True


def wheel_scrolls(area: QScrollArea) -> None:
    """Make the wheel over ``area``'s combo boxes, spin boxes and sliders scroll it unless the field has the focus (a
    click or Tab gives it; the wheel no longer does), so that scrolling changes no choice."""
    guard = _WheelScrolls(area)
    widget = area.widget()
    if widget is None:
        return
    sliders = [s for s in widget.findChildren(QAbstractSlider) if not isinstance(s, QScrollBar)]
    for field in [*widget.findChildren(QComboBox), *widget.findChildren(QAbstractSpinBox), *sliders]:
        field.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        field.installEventFilter(guard)


def scrolled(widget: QWidget, least: int = 40) -> QScrollArea:
    """``widget`` in a frameless scroll area that scrolls vertically when given less than its height; a splitter
    or layout can shrink the area to ``least`` px (less than a scroll area's own minimum). The wheel over its
    choice fields scrolls it (:func:`wheel_scrolls`)."""
    area = _ShortScrollArea()
    area.setWidget(widget)
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setMinimumHeight(least)
    area.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the controls inside (the area follows them)
    wheel_scrolls(area)
    return area


def stacked(top: QWidget, bottom: QWidget, top_height: int) -> QSplitter:
    """``top`` over ``bottom`` in a vertical splitter; ``top`` starts ``top_height`` px high, ``bottom`` takes the
    rest and what the window gains, and neither can be dragged shut."""
    return split(Qt.Orientation.Vertical, top, bottom, fixed=0, size=top_height)


class MinimumKeepingSplitter(QSplitter):
    """A splitter that gives a child its minimum size as soon as that grows (a row or chart shown inside it).

    Qt's splitter honours its children's minimum sizes only when it is resized or a handle moves, so a part whose
    minimum grew in a window left at its size stayed squeezed under it, its contents clipped (the Train page's run
    with a best-checkpoint row shown after the window was laid out; issue 31, item 2). Its parts do not collapse:
    a handle dragged past a part's minimum stops there."""

    _tried: list[int] | None = None
    """The sizes last laid out again: a window too small for every minimum is not laid out again and again."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.setChildrenCollapsible(False)

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest and self._squeezed() and self.sizes() != self._tried:
            self._tried = self.sizes()
            self.setSizes(self._tried)  # laid out again within each child's minimum
        return handled

    def _squeezed(self) -> bool:
        vertical = self.orientation() == Qt.Orientation.Vertical
        for index, size in enumerate(self.sizes()):
            child = self.widget(index)
            if child is None or not child.isVisible():
                continue
            least = child.minimumSizeHint().expandedTo(child.minimumSize())
            if size < (least.height() if vertical else least.width()):
                return True
        return False


def split(orientation: Qt.Orientation, first: QWidget, second: QWidget, fixed: int, size: int) -> QSplitter:
    """``first`` then ``second`` in a splitter of ``orientation``: the one at index ``fixed`` (0 or 1) starts
    ``size`` px, the other takes the rest and what the window gains, neither can be dragged shut, and a child whose
    minimum grows gets it at once (:class:`MinimumKeepingSplitter`)."""
    splitter = MinimumKeepingSplitter(orientation)
    splitter.addWidget(first)
    splitter.addWidget(second)
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
