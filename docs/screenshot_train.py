"""Regenerate docs/train.png: the Train page mid-run (test preset, 48 target-voice clips, from scratch).

Run under a display from the project root, with ``../shared`` present
(``bash docs/screenshots.sh``: Xvfb with openbox, so the title bar shows).
It imports the clips into a temporary project, starts a real trainer and grabs
the window once a few epochs are charted, then ends the trainer.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

from capture import save_framed  # docs/capture.py (this script's folder)
from PySide6.QtWidgets import QApplication

from studio.main_window import MainWindow
from studio.settings import Settings

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "target-voice"
CLIPS, EPOCHS, SHOWN = 48, 60, 8


def small_project(work: Path) -> Path:
    """The first ``CLIPS`` target-voice clips, imported into a dataset project."""
    from trainer.dataset.project import DatasetProject

    data = work / "data"
    (data / "wavs").mkdir(parents=True)
    rows = (CORPUS / "metadata.csv").read_text(encoding="utf-8").splitlines()[:CLIPS]
    (data / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for row in rows:
        shutil.copy(CORPUS / "wavs" / f"{row.split('|')[0]}.flac", data / "wavs")
    project = DatasetProject.create(work / "my-dataset")
    project.import_sources([data])
    return project.folder


def wait(app: QApplication, until, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not until() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.05)


def main() -> None:
    app = QApplication(sys.argv)
    work = Path(tempfile.mkdtemp())
    project = small_project(work)
    window = MainWindow(Settings(), runs_root=work / "runs")
    window.resize(1280, 800)
    page = window.train_page
    window.show_area("Train")
    window.show()
    page.setup.dataset.setText(str(project))
    page.setup.start.setCurrentIndex(page.setup.start.findData("scratch"))
    page.setup.preset.setCurrentText("test")
    page.setup.epochs.setValue(EPOCHS)
    page.start()
    wait(app, lambda: len(page.view.epoch_chart.data) >= SHOWN, 900)
    page.check()  # show the pre-flight findings of the same setup next to the run
    wait(app, lambda: "Checking" not in page.setup.findings.text(), 60)
    out = Path(__file__).with_name("train.png")
    save_framed(window, out)
    print(f"wrote {out} at epoch {len(page.view.epoch_chart.data)}")
    page.process.kill()
    page.process.wait(10_000)


if __name__ == "__main__":
    main()
