"""Run by the ONNX-only venv's Python (tests/test_onnx_only.py): the studio's window offscreen, without pytest-qt.

Opens the main window as ``voice-studio`` does (fresh settings, runs in ``argv[1]``), shows the Train page, and
prints one JSON object: where ``studio`` was imported from, the Train and Compare pages' explanation lines,
which Train buttons are enabled, the Synthesize page's engines, and what adding a ``.ckpt`` voice said.
"""

import json
import os
import sys
from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

import studio
from studio.main_window import MainWindow
from studio.settings import Settings


def report(window: MainWindow, notices: list[str]) -> dict:
    train, engines = window.train_page, window.synthesize_page.engines.box
    return {
        "studio": studio.__file__,
        "shown": window.stack.currentWidget() is train,
        "train_line": train.needs.text() if train.needs.isVisible() else "",
        "train_buttons": {name: button.isEnabled() for name, button in train.buttons.items()},
        "compare_line": window.compare_page.needs.text(),
        "engines": [engines.itemData(i) for i in range(engines.count())],
        "ckpt_notice": notices,
    }


def main() -> None:
    app = QApplication(sys.argv[:1])
    window = MainWindow(settings=Settings(), runs_root=Path(sys.argv[1]))
    window.show()
    window.show_area("Train")
    notices: list[str] = []
    window.synthesize_page.picker.notice.connect(lambda text, _detail="": notices.append(text))
    window.synthesize_page.add_voice_files([Path(sys.argv[2])])  # a .ckpt: read on a worker, which says why not

    def finish(waited_ms: int = 0) -> None:
        if not notices and waited_ms < 20_000:
            QTimer.singleShot(100, lambda: finish(waited_ms + 100))
            return
        print(json.dumps(report(window, notices)), flush=True)
        os._exit(0)  # as the studio leaves (studio.app.leave): no teardown of Qt objects

    QTimer.singleShot(200, finish)
    app.exec()


if __name__ == "__main__":
    main()
