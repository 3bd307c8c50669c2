"""Render the app icon ``assets/voice-studio.svg`` to ``assets/voice-studio.png`` (256×256, RGBA).

The installer builds the Windows ``.ico`` and the macOS ``.icns`` from this PNG. Run after editing the SVG:
``python tools/app_icon.py``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

ASSETS = Path(__file__).resolve().parents[1] / "assets"
SIZE = 256


def main() -> int:
    """Render the PNG; returns the exit status."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication(sys.argv)
    image = QImage(SIZE, SIZE, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    QSvgRenderer(str(ASSETS / "voice-studio.svg")).render(painter)
    painter.end()
    saved = image.save(str(ASSETS / "voice-studio.png"))
    del app
    return 0 if saved else 1


if __name__ == "__main__":
    sys.exit(main())
