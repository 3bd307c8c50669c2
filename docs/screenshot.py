"""Regenerate docs/synthesize.png: the Synthesize page mid-line, in a real window.

Run under a display (``bash docs/screenshots.sh``: Xvfb with openbox, so the title bar shows).
"""

from __future__ import annotations

import sys
from pathlib import Path

from capture import save_framed  # docs/capture.py (this script's folder)
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from engines.onnx.engine import use_shared_thread_pool
from studio.main_window import MainWindow
from studio.settings import Settings

TEXT = (
    "The storm rolled in just after midnight, rattling every window in the old farmhouse. "
    "Martha lit a candle and walked slowly down the creaking stairs."
)


def main() -> None:
    use_shared_thread_pool()
    app = QApplication(sys.argv)
    window = MainWindow(Settings())
    window.resize(1200, 720)
    window.show()
    page = window.synthesize_page
    page.preload().join()
    page.text_edit.setPlainText("Hello! Welcome to Voice Studio.")
    page.speak()
    out = Path(__file__).with_name("synthesize.png")

    def second_line() -> None:
        page.text_edit.setPlainText(TEXT)
        page.speak()

    def shoot() -> None:
        save_framed(window, out)
        print(f"wrote {out}")
        page.stop()
        app.quit()

    QTimer.singleShot(4000, second_line)
    QTimer.singleShot(12000, shoot)
    app.exec()


if __name__ == "__main__":
    main()
