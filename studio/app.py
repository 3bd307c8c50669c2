"""Starting the studio: the Qt application and the main window."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Open the studio window with the embedded default voice ready; returns the exit status."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from engines.ort_engine import use_shared_thread_pool
    from studio.main_window import MainWindow

    use_shared_thread_pool()
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("Voice Studio")
    app.setOrganizationName("voice-studio")
    window = MainWindow()
    window.show()
    QTimer.singleShot(0, window.synthesize_page.preload)  # the default voice loads while the window paints
    return app.exec()
