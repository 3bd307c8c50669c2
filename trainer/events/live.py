"""Whether a trainer is writing a run folder now, for a studio that shows the run without having started it
(a terminal's run, or other machines' over shared storage).

While it trains, the writing process (global rank 0) keeps ``trainer.json`` in the run folder: its host name
and process id. A studio on the same host asks the operating system whether that process still runs (a
killed trainer leaves the file behind); for a trainer on another host, or on Windows (where ``os.kill`` would
end the process, not probe it), the run counts as training while its events file changed in the last
``RECENT_S``.
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

from engines.files import write_text

LIVE_FILE = "trainer.json"
RECENT_S = 300
"""Seconds within which a changed events file means a trainer elsewhere is writing it: a training run writes
progress every second; validation, previews and checkpoints take seconds to minutes."""


def mark_training(run_dir: Path) -> Path:
    """Write ``run_dir/trainer.json`` (this host, this process); returns its path."""
    record = {"host": socket.gethostname(), "pid": os.getpid()}
    return write_text(Path(run_dir) / LIVE_FILE, json.dumps(record) + "\n")


def clear_training(run_dir: Path) -> None:
    """Remove ``run_dir/trainer.json`` (training ended); nothing when it is gone."""
    (Path(run_dir) / LIVE_FILE).unlink(missing_ok=True)


def trainer_alive(run_dir: Path) -> bool:
    """Whether a trainer is writing ``run_dir`` now (module docstring): False without ``trainer.json``."""
    try:
        record = json.loads((Path(run_dir) / LIVE_FILE).read_text(encoding="utf-8"))
        host, pid = str(record["host"]), int(record["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if host == socket.gethostname() and os.name == "posix":
        return _process_runs(pid)
    try:
        return time.time() - (Path(run_dir) / "events.jsonl").stat().st_mtime < RECENT_S
    except OSError:
        return False


def _process_runs(pid: int) -> bool:
    """Whether process ``pid`` exists (POSIX: signal 0 probes without sending)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True
