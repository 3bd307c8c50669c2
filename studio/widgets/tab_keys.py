"""Tab and Shift+Tab leave every text box and table, app-wide (issue 17: no widget keeps Tab to itself).

Qt's multi-line text boxes type a tab character on Tab and its tables move from cell to cell (wrapping
to the next row, which changes the selection), so a keyboard user who tabs into either never gets
out. :class:`TabKeys` is an application event filter that fixes each such widget as Qt polishes it
(before it is first shown, so dialogs and widgets made later are covered too):

- ``QPlainTextEdit`` / ``QTextEdit`` (and ``QTextBrowser``): ``tabChangesFocus``; in an editable one
  Ctrl+Tab types the tab character instead.
- every ``QAbstractItemView`` (tables, lists, trees): ``tabKeyNavigation`` off; the arrow keys still
  move within it.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QApplication, QPlainTextEdit, QTextEdit

TextBox = QPlainTextEdit | QTextEdit


class TabKeys(QObject):
    """Event filter on the application: see the module's docstring."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        """Fix a text box or item view when it is polished; type a tab on Ctrl+Tab in an editable text box."""
        kind = event.type()
        if kind == QEvent.Type.Polish:
            release_tab(watched)
        elif kind == QEvent.Type.KeyPress and isinstance(watched, TextBox) and _is_ctrl_tab(event):
            if not watched.isReadOnly():
                watched.insertPlainText("\t")
                return True
        return False


def release_tab(widget: QObject) -> None:
    """Make Tab leave ``widget`` if it is a text box (``tabChangesFocus``) or an item view (no
    ``tabKeyNavigation``); any other object is left as it is."""
    if isinstance(widget, TextBox):
        widget.setTabChangesFocus(True)
    elif isinstance(widget, QAbstractItemView):
        widget.setTabKeyNavigation(False)


def _is_ctrl_tab(event: QEvent) -> bool:
    if not isinstance(event, QKeyEvent) or event.key() != Qt.Key.Key_Tab:
        return False
    return event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier == Qt.KeyboardModifier.ControlModifier


_installed: list[TabKeys] = []


def install_tab_keys() -> TabKeys:
    """Install the :class:`TabKeys` filter on the running ``QApplication`` (once; later calls return it).

    Raises:
        RuntimeError: no ``QApplication`` exists yet.
    """
    app = QApplication.instance()
    if app is None:
        raise RuntimeError("install_tab_keys needs a QApplication")
    if not _installed:
        _installed.append(TabKeys(app))
        app.installEventFilter(_installed[0])
    return _installed[0]
