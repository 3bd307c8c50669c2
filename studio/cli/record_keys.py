"""Single keys from a terminal for ``voice-studio dataset record``: the terminal in cbreak mode (keys come at once,
unechoed; Ctrl+C still interrupts) while a daemon thread turns them into the session's commands
(``studio.cli.record_session.KEYS``)."""

from __future__ import annotations

import os
import queue
import select
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

ARROW = 3
"""Characters of an arrow key's escape sequence (``ESC [ C``)."""


def keys_to_commands(typed: str) -> list[str]:
    """The commands in ``typed`` (what the terminal sent, arrow keys as ``ESC [ C`` and ``ESC [ D``); other keys
    are ignored."""
    from studio.cli.record_session import KEYS

    found, i = [], 0
    while i < len(typed):
        key = typed[i : i + ARROW] if typed.startswith("\x1b[", i) else typed[i].lower()
        i += len(key)
        if key in KEYS:
            found.append(KEYS[key])
    return found


@contextmanager
def terminal_keys(stream: TextIO) -> Iterator[queue.Queue]:
    """A queue of the commands typed on the terminal ``stream``, while the block runs (the terminal restored
    after)."""
    import termios
    import tty

    fd = stream.fileno()
    saved = termios.tcgetattr(fd)
    found: queue.Queue = queue.Queue()
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            if select.select([fd], [], [], 0.1)[0]:
                for command in keys_to_commands(os.read(fd, 16).decode(errors="replace")):
                    found.put(command)

    tty.setcbreak(fd)
    reader = threading.Thread(target=read, name="record keys", daemon=True)
    reader.start()
    try:
        yield found
    finally:
        done.set()
        reader.join(1)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
