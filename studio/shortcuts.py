"""The studio's keyboard shortcuts, as listed in Help → Keyboard shortcuts… and the navigation's tooltips.

The page keys (``PAGE_KEYS``) are bound by the main window; the others are bound where they act
(the Synthesize page, the Dataset page, the Compare tabs) and only listed here.
"""

from __future__ import annotations

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTableWidget, QTableWidgetItem, QVBoxLayout, QWidget

AREAS = ("Dataset", "Train", "Compare", "Synthesize")
"""The pages, in the navigation's order."""
PAGE_KEYS = {area: f"Ctrl+{index}" for index, area in enumerate(AREAS, start=1)}
"""The key that shows each page: Ctrl+1 … Ctrl+4, in the navigation's order."""
QUIT_KEYS = "Ctrl+Q"
"""File → Quit (``QKeySequence.StandardKey.Quit`` where the platform has one; Ctrl+Q on Linux and Windows)."""

SHORTCUTS: tuple[tuple[str, str, str], ...] = (
    ("Quit (as the window's close button: a running training is asked about)", QUIT_KEYS, "Anywhere"),
    *((f"Show the {area} page", keys, "Anywhere") for area, keys in PAGE_KEYS.items()),
    ("Move focus to the next / previous control", "Tab / Shift+Tab", "Anywhere"),
    ("Speak the text", "Ctrl+Enter", "Synthesize"),
    ("Stop speaking", "Esc", "Synthesize"),
    ("Insert a tab character in the text", "Ctrl+Tab", "Synthesize"),
    ("Play / stop the current clip", "Space", "Dataset"),
    ("Record / stop a take", "Space", "Dataset → Record"),
    ("Accept the take; retake", "Enter; R", "Dataset → Record"),
    ("Next / previous prompt", "→ / ←", "Dataset → Record"),
    ("Switch to candidate 1–9 at the same position", "1 … 9", "Compare → Listen"),
    ("Play the reference recording", "R", "Compare → Listen"),
    ("Play / stop", "Space", "Compare → Listen"),
    ("Play A / B / X", "A / B / X", "Compare → Blind test"),
    ("Choose 1 or 2; next trial", "1 / 2; Enter", "Compare → Blind test"),
)
"""Every shortcut: (what it does, keys, where it works)."""


def page_tooltip(area: str) -> str:
    """The navigation item's tooltip for ``area``: its key."""
    return f"Show the {area} page ({PAGE_KEYS[area]})"


class ShortcutsDialog(QDialog):
    """A table of ``SHORTCUTS``: action, keys, where."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        self.table = QTableWidget(len(SHORTCUTS), 3)
        self.table.setHorizontalHeaderLabels(["Action", "Keys", "Where"])
        self.table.verticalHeader().hide()
        for row, cells in enumerate(SHORTCUTS):
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(620, 420)

    def listed(self) -> list[tuple[str, str, str]]:
        """The rows shown: (action, keys, where)."""
        cells = [[self.table.item(r, c) for c in range(3)] for r in range(self.table.rowCount())]
        return [(a.text(), b.text(), c.text()) for a, b, c in cells if a and b and c]
