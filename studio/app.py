"""Starting the studio: the Qt application and the main window."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Open the studio window with the embedded default voice ready; returns the exit status."""
    problem = display_problem()
    if problem:
        print(f"voice-studio: error: {problem}", file=sys.stderr)
        return 2
    from pyqtgraph.util.garbage_collector import GarbageCollector
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from engines.onnx.engine import use_shared_thread_pool
    from studio.main_window import MainWindow
    from studio.widgets.focus_ring import install_focus_ring

    use_shared_thread_pool()
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    identify(app)
    install_focus_ring()  # a visible ring, in the palette's highlight colour, around what has keyboard focus
    # Cyclic garbage may hold Qt widgets, which must be destroyed on the GUI thread: a collection
    # triggered in a worker thread deadlocks in PySide. Automatic collection is off; this collects
    # on a GUI-thread timer instead.
    app.garbage_collector = GarbageCollector(interval=1.0)
    window = MainWindow()
    window.show()
    QTimer.singleShot(0, window.synthesize_page.preload)  # the default voice loads while the window paints
    return leave(app.exec())


def identify(app) -> None:
    """Name ``app`` (a ``QApplication``) and give it the studio's icon (``assets/voice-studio.png``, on every
    window's title bar and in the task bar), and the name of the ``.desktop`` entry the Linux installer writes
    (``voice-studio.desktop``), which Wayland desktops match windows with."""
    from PySide6.QtGui import QIcon

    import assets

    app.setApplicationName("Voice Studio")
    app.setOrganizationName("voice-studio")
    app.setDesktopFileName("voice-studio")
    app.setWindowIcon(QIcon(str(assets.path("voice-studio.png"))))


TASK_GRACE_S = 2.0
"""Seconds the closing studio waits for its worker tasks (already cancelled by the pages' shutdowns) to end."""


def leave(status: int, grace_s: float = TASK_GRACE_S) -> int:
    """End the process at once once the window has closed, returning ``status`` as its exit status.

    The pages' shutdowns have run by then (a trainer was stopped after its epoch or left as the Train page says,
    the settings and an edited transcript saved; files are written atomically). Worker tasks get ``grace_s``
    seconds to end; then logs and standard streams are flushed and the process exits without the interpreter's
    teardown of its modules and Qt objects, which took 1.5 s with the ONNX engine loaded and several seconds
    with torch (issue 17).
    """
    import logging
    import os
    import threading
    import time

    deadline = time.monotonic() + grace_s
    for thread in threading.enumerate():
        if thread.name == "studio-task" and thread is not threading.current_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken stream: nothing more to say on it
            pass
    os._exit(status)


def display_problem() -> str | None:
    """Why no window can be shown (Linux/BSD without X11 or Wayland), or ``None``."""
    import os

    if sys.platform in ("win32", "darwin") or os.environ.get("QT_QPA_PLATFORM"):
        return None
    if os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"):
        return None
    return (
        "no graphical display (neither DISPLAY nor WAYLAND_DISPLAY is set). Run the studio in a desktop "
        "session, or use the command line: voice-studio say --help"
    )
