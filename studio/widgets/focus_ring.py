"""A visible keyboard focus ring, app-wide: the widget with focus gets a 2 px outline in the palette's highlight colour.

Fusion's own focus rectangle is a faint, translucent line drawn only after a Tab press; text
boxes' focused frames are hardly darker than the others. ``FocusRingStyle`` wraps whatever style
the application has (``QProxyStyle``) and adds the ring on top of what that style draws, so
widgets keep their look otherwise, and light and dark palettes both read (the highlight colour).
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QPainter, QPalette, QPen
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QFrame, QProxyStyle, QStyle, QStyleOption, QWidget

RING_WIDTH = 2
"""The ring's line width (px)."""

RINGED = (
    QStyle.PrimitiveElement.PE_FrameFocusRect,
    QStyle.PrimitiveElement.PE_FrameLineEdit,
    QStyle.PrimitiveElement.PE_PanelButtonCommand,
)
"""Primitives that get the ring when their widget has focus: the style's focus rectangle (check boxes, tabs,
items), line edit frames and push buttons' panels. Complex controls (sliders, combo and spin boxes) and
framed scroll areas (text boxes, tables, lists) get it too."""


class FocusRingStyle(QProxyStyle):
    """The application's style plus a ``RING_WIDTH`` px highlight-coloured ring around what has focus."""

    def drawPrimitive(self, element, option: QStyleOption, painter: QPainter, widget: QWidget | None = None) -> None:  # noqa: N802
        """Draw ``element`` as the base style does, then the ring if it is a focus element of a focused widget."""
        super().drawPrimitive(element, option, painter, widget)
        if element in RINGED and option.state & QStyle.StateFlag.State_HasFocus:
            _ring(option, painter)

    def drawComplexControl(self, control, option, painter: QPainter, widget: QWidget | None = None) -> None:  # noqa: N802
        """Draw ``control`` (a slider, combo box, spin box…); the ring around it when it has focus."""
        super().drawComplexControl(control, option, painter, widget)
        if option.state & QStyle.StateFlag.State_HasFocus and widget is not None and widget.hasFocus():
            _ring(option, painter)

    def drawControl(self, element, option: QStyleOption, painter: QPainter, widget: QWidget | None = None) -> None:  # noqa: N802
        """Draw ``element``; a focused scroll area's frame (text boxes, tables, lists) gets the ring."""
        super().drawControl(element, option, painter, widget)
        framed = getattr(option, "frameShape", QFrame.Shape.NoFrame) != QFrame.Shape.NoFrame
        if element == QStyle.ControlElement.CE_ShapedFrame and framed and widget is not None and widget.hasFocus():
            _ring(option, painter)

    def pixelMetric(self, metric, option: QStyleOption | None = None, widget: QWidget | None = None) -> int:  # noqa: N802
        """As the base style, but frames are at least ``RING_WIDTH`` px wide so a text box's ring is not covered
        by its viewport."""
        value = super().pixelMetric(metric, option, widget)
        if metric == QStyle.PixelMetric.PM_DefaultFrameWidth and isinstance(widget, QAbstractScrollArea):
            return max(value, RING_WIDTH)
        return value


def _ring(option: QStyleOption, painter: QPainter) -> None:
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    pen = QPen(option.palette.color(QPalette.ColorRole.Highlight), RING_WIDTH)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    half = RING_WIDTH / 2
    painter.drawRect(QRectF(option.rect).adjusted(half, half, -half, -half))
    painter.restore()


def install_focus_ring() -> FocusRingStyle:
    """Wrap the running application's style in :class:`FocusRingStyle` (once); returns the style in use."""
    current = QApplication.style()
    if isinstance(current, FocusRingStyle):
        return current
    style = FocusRingStyle(current.name())
    QApplication.setStyle(style)
    return style
