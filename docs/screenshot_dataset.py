"""Regenerate docs/dataset.png (the Dataset page with the target-voice corpus and a sliced long reading),
docs/dataset-report.png (its Report tab) and docs/narrow.png (the same page in a window sized for a 1024×640
laptop screen).

Run under a display from the project root, with ``../shared`` present
(``bash docs/screenshots.sh``: Xvfb with openbox, so the title bar shows).
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from capture import save_framed  # docs/capture.py (this script's folder)
from PySide6.QtCore import QSize
from PySide6.QtWidgets import QApplication

from studio.main_window import MainWindow, start_size
from studio.settings import Settings

SHARED = Path(__file__).resolve().parents[2] / "shared" / "corpus"


def main() -> None:
    app = QApplication(sys.argv)
    window = MainWindow(Settings())
    window.resize(1280, 800)
    page = window.dataset_page
    page.project_dir = Path(tempfile.mkdtemp()) / "slt-dataset"
    window.show_area("Dataset")
    window.show()
    for run in (
        lambda: page.import_paths([SHARED / "target-voice"]),
        lambda: page.slice_paths([SHARED / "real-speech" / "long" / "two_cities.wav"]),
    ):
        task = run()
        while task.is_running() or page.is_busy():
            app.processEvents()
            task.join(0.05)
    page.select(["two_cities_002"])
    for _ in range(20):
        app.processEvents()
        task.join(0.05)
    shoot(window, "dataset.png")
    page.tabs.setCurrentIndex(1)
    shoot(window, "dataset-report.png")
    page.tabs.setCurrentIndex(0)
    window.resize(start_size(QSize(1024, 640), window.minimumSize()))
    shoot(window, "narrow.png")


def shoot(window: MainWindow, name: str) -> None:
    """Let the window settle (layout, the report's histograms), then save it as ``docs/NAME``."""
    app = QApplication.instance()
    for _ in range(40):
        app.processEvents()
        time.sleep(0.05)
    out = Path(__file__).with_name(name)
    save_framed(window, out)
    print(f"wrote {out} ({window.width()}×{window.height()})")


if __name__ == "__main__":
    main()
