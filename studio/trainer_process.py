"""``voice-studio train`` as a child process of the studio (QProcess), followed through its events file.

The trainer writes ``RUN/events.jsonl``; a timer reads what is new
(``trainer.events.run_state.EventTail``) and hands the records over as a signal, so
following works the same for a run started now, resumed, or started before the
studio was restarted. The process's own output (the events echoed as text, and
any traceback) goes to the log signal line by line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

from trainer.events.log import EventTail
from trainer.events.run_state import request_stop
from trainer.run.options import RunOptions

POLL_MS = 300
"""How often the events file is read, milliseconds."""


class TrainerProcess(QObject):
    """One trainer child process.

    Signals:
        records(list): new events (``trainer.events.schema.Event``) from the run's events file.
        log(str): a line the process printed.
        finished(int, bool): exit code, and True when it crashed or was killed.
    """

    records = Signal(list)
    log = Signal(str)
    finished = Signal(int, bool)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.run_dir: Path | None = None
        self.stopping = False
        self._tail: EventTail | None = None
        self._process = QProcess(self)
        self._process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        self._process.readyReadStandardOutput.connect(self._on_output)
        self._process.finished.connect(self._on_finished)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)
        self._partial = ""

    def is_running(self) -> bool:
        """True while the child process lives."""
        return self._process.state() != QProcess.ProcessState.NotRunning

    def start(self, run_dir: Path, arguments: list[str], env: dict[str, str] | None = None) -> None:
        """Run ``voice-studio ARGUMENTS`` for the run in ``run_dir`` and follow its events from the start."""
        self.run_dir, self.stopping = Path(run_dir), False
        self._tail = EventTail(self.run_dir / "events.jsonl")
        environment = QProcessEnvironment.systemEnvironment()
        environment.insert("PYTHONUNBUFFERED", "1")
        for key, value in (env or {}).items():
            environment.insert(key, value)
        self._process.setProcessEnvironment(environment)
        self._process.start(sys.executable, ["-m", "studio", *arguments])
        self._timer.start()

    def start_run(self, options: RunOptions) -> None:
        """Create and train the run ``options`` ask for (``voice-studio train`` with their flags)."""
        self.start(options.out, ["train", *options.to_argv()], options.environment())

    def resume_run(self, folder: Path) -> None:
        """Continue the run in ``folder`` from its last checkpoint, with its own settings."""
        self.start(folder, ["train", "--resume", str(folder)])

    def poll(self) -> None:
        """Read new events now."""
        if self._tail is not None:
            new = self._tail.read()
            if new:
                self.records.emit(new)

    def stop(self) -> None:
        """Ask the trainer to stop after the current epoch; it writes its resume checkpoint, then exits."""
        if self.run_dir is not None and self.is_running():
            request_stop(self.run_dir)
            self.stopping = True

    def kill(self) -> None:
        """End the process at once (the run stays resumable from its last checkpoint)."""
        if self.is_running():
            self._process.kill()

    def wait(self, milliseconds: int) -> bool:
        """Block until the process ends (for closing the app); False on timeout."""
        return not self.is_running() or self._process.waitForFinished(milliseconds)

    def _on_output(self) -> None:
        text = self._partial + bytes(self._process.readAllStandardOutput().data()).decode("utf-8", errors="replace")
        *lines, self._partial = text.replace("\r", "\n").split("\n")
        for line in lines:
            if line.strip():
                self.log.emit(line)

    def _on_finished(self, code: int, status) -> None:
        self._on_output()
        if self._partial.strip():
            self.log.emit(self._partial)
            self._partial = ""
        self.poll()
        self._timer.stop()
        self.finished.emit(code, status == QProcess.ExitStatus.CrashExit)
