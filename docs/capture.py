"""Save a window as the user sees it, title bar and frame included (the README's screenshots).

Under a window manager the frame belongs to the window manager, not to Qt, so
``QWidget.grab()`` leaves it out. :func:`save_framed` captures the screen with
ImageMagick's ``import`` and crops it to the window's frame geometry; without
``import`` (or without a window manager) it falls back to ``grab()`` and says so.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from PySide6.QtWidgets import QApplication, QWidget


def save_framed(window: QWidget, out: Path) -> None:
    """Write ``window`` with its frame to ``out`` (PNG).

    Raises:
        subprocess.CalledProcessError: ``import`` failed (e.g. no display).
    """
    for _ in range(10):
        QApplication.processEvents()
    frame = window.frameGeometry()
    if shutil.which("import") is None or frame.size() == window.geometry().size():
        print(f"{out.name}: no window manager frame or no ImageMagick; saving the window without its title bar")
        window.grab().save(str(out))
        return
    ratio = window.devicePixelRatioF()
    width, height, x, y = (int(v * ratio) for v in (frame.width(), frame.height(), frame.x(), frame.y()))
    crop = f"{width}x{height}+{x}+{y}"
    subprocess.run(["import", "-window", "root", "-crop", crop, "+repage", str(out)], check=True)
