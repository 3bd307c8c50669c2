"""Small helpers shared by the Compare page's tables: a read-only row table, and exporting text to a file
the user picks (written atomically)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from PySide6.QtWidgets import QAbstractItemView, QFileDialog, QLabel, QTableWidget, QWidget

from engines.files import write_text
from studio.state import SaveFolders
from studio.widgets.notices import failed_on
from studio.widgets.start_folders import save_start


def read_only_table(headers: Sequence[str]) -> QTableWidget:
    """A table of ``headers`` that selects whole rows, is not editable and shows no row numbers."""
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.verticalHeader().setVisible(False)
    return table


def export_text(
    parent: QWidget,
    status: QLabel,
    text: str,
    *,
    title: str,
    name: str,
    path: Path | None,
    folders: SaveFolders,
    near: Path | None = None,
) -> Path | None:
    """Write ``text`` to ``path`` (asked for with a CSV save dialog titled ``title``, proposing the file ``name``
    in the folder the last CSV went to (``folders``), else ``near``, when ``None``), atomically; ``status`` says
    what happened. Returns the path written, or ``None`` (cancelled or not writable)."""
    if path is None:
        chosen, _ = QFileDialog.getSaveFileName(parent, title, save_start(name, "csv", folders, near), "CSV (*.csv)")
        if not chosen:
            return None
        path = Path(chosen)
    try:
        write_text(path, text)
        folders.remember("csv", path)
    except OSError as exc:
        status.setText(failed_on("Could not write", path, exc))
        return None
    return path
