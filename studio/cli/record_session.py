"""The terminal's recording session for ``voice-studio dataset record``: the booth (``trainer.dataset.recording.booth``)
polled 30 times a second, driven by single keys on a terminal or by line commands from a script.

On a terminal (stdin a TTY): Space record/stop, Enter accept, r retake, s or → skip, b or ← back, m measure the room
again, q quit, and a one-line level meter redrawn on stderr 10 times a second. Otherwise one command a line
(``COMMANDS``); a command the booth cannot do yet waits until it can (``record`` until the room tone is measured,
``accept`` and ``retake`` until the take stopped and was checked), so a script need not time them; the end of the
input quits. Each take is checked off the loop's thread (the recognizer takes seconds) and its findings printed.
"""

from __future__ import annotations

import queue
import sys
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TextIO

from engines.words import count

POLL_S = 1 / 30
"""Seconds between polls of the booth (the page's 33 fps)."""
METER_S = 0.1
"""Seconds between redraws of the terminal's level meter."""
COMMANDS = ("record", "stop", "accept", "retake", "skip", "back", "room", "quit")
"""The line commands (``room``: measure the room tone again)."""
KEYS = {" ": "toggle", "\r": "accept", "\n": "accept", "r": "retake", "s": "skip", "\x1b[C": "skip", "b": "back"}
KEYS |= {"\x1b[D": "back", "m": "room", "q": "quit"}
"""Terminal keys -> commands (``toggle``: record, or stop a take being recorded)."""
KEYS_HELP = "Space record/stop · Enter accept · r retake · s/→ skip · b/← back · m measure room · q quit"
LINES_HELP = "commands, one a line: " + ", ".join(COMMANDS)
METER_DB = 60.0
"""The meter's span, dB under full scale."""
METER_WIDTH = 30
"""Characters of the meter's bar."""


def meter_line(levels) -> str:
    """A ``trainer.dataset.recording.levels.Levels`` as one line: a bar of the RMS (``#``) and the peak (``=``)
    from -60 to 0 dBFS, the held peak (``|``), the numbers, and ``CLIP`` while the clip light is on."""

    def column(db: float) -> int:
        return round(min(max(0.0, (db + METER_DB) / METER_DB), 1.0) * METER_WIDTH)

    rms, peak, hold = column(levels.rms_dbfs), column(levels.peak_dbfs), column(levels.hold_dbfs)
    bar = ["#" if i < rms else "=" if i < peak else " " for i in range(METER_WIDTH)]
    if hold:
        bar[hold - 1] = "|"
    numbers = f"peak {levels.peak_dbfs:6.1f}  rms {levels.rms_dbfs:6.1f}  hold {levels.hold_dbfs:6.1f} dBFS"
    return f"[{''.join(bar)}] {numbers} {'CLIP' if levels.clipped else '    '}"


@dataclass
class Tally:
    """What a session accepted: the clip ids and the seconds of audio."""

    clips: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Session:
    """A booth (opened, in its room tone) driven by ``commands`` (a queue of command names; ``None`` ends it),
    talking on ``out``; ``meter``: redraw the level meter on stderr. ``recognizer``: the take checks' (``None``:
    the best installed)."""

    def __init__(self, booth, commands: queue.Queue, out: TextIO, *, meter: bool, recognizer=None) -> None:
        self.booth, self.commands, self.out, self.meter = booth, commands, out, meter
        self.recognizer = recognizer
        self.tally = Tally()
        self.check: Any = None
        self._checking: Future | None = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="take check")
        self._waiting: str | None = None
        self._drawn = 0.0
        self._shown: tuple = ()

    def say(self, line: str) -> None:
        """A line of the dialogue (the meter's line cleared first)."""
        if self.meter:
            print("\r\x1b[K", end="", file=sys.stderr, flush=True)
        print(line, file=self.out, flush=True)

    def run(self) -> None:
        """Poll, draw and obey until ``quit``, the end of the commands or the end of the prompts."""
        try:
            while self._step():
                time.sleep(POLL_S)
            if self.booth.prompt is None:
                self.say("every prompt of this session is done")
        finally:
            self._pool.shutdown(wait=False, cancel_futures=True)

    def _step(self) -> bool:
        from trainer.dataset.recording.booth import RECORDING, REVIEW

        before = self.booth.phase
        levels = self.booth.poll()
        if before == RECORDING and self.booth.phase == REVIEW:
            self._start_check()
        self._take_check()
        self._announce()
        self._draw(levels)
        command = self._waiting or self._next()
        self._waiting = None
        if command is None:
            return True
        if command == "quit":
            return False
        if not self.do(command):
            self._wait(command)
        return self.booth.prompt is not None or self.booth.phase == REVIEW

    def _wait(self, command: str) -> None:
        """A script's command waits until the booth can do it; a key pressed too early is said to be."""
        from trainer.dataset.recording.booth import ROOM

        if not self.meter:
            self._waiting = command
        elif self.booth.phase == ROOM:
            self.say("wait: the room tone is being measured")
        else:
            self.say("wait: the take is being checked" if self._checking else "stop the take first (Space)")

    def _next(self) -> str | None:
        try:
            command = self.commands.get_nowait()
        except queue.Empty:
            return None
        return "quit" if command is None else command

    def _draw(self, levels) -> None:
        now = time.monotonic()
        if self.meter and now - self._drawn >= METER_S:
            self._drawn = now
            print(f"\r{meter_line(levels)}", end="", file=sys.stderr, flush=True)

    def _announce(self) -> None:
        """Say what changed: the room tone measured, the prompt shown."""
        from trainer.dataset.recording.booth import READY, ROOM

        booth = self.booth
        state = (booth.phase, booth.index)
        if state == self._shown or booth.phase not in (ROOM, READY):
            return
        if booth.phase == ROOM:
            if self._shown[:1] != (ROOM,):  # a skip or back while it is measured moves no room tone
                self.say(f"room tone: stay quiet for {_room_s():g} s…")
        elif self._shown[:1] == (ROOM,):
            self._room_measured()
        if booth.phase == READY and booth.prompt is not None:
            self.say(f"prompt {booth.index + 1} of {len(booth.prompts)}: {booth.prompt}")
        self._shown = state

    def _room_measured(self) -> None:
        self.say(f"noise floor: {self.booth.noise_floor_dbfs:.0f} dBFS")
        if self.booth.room_doubt:
            again = "m measures again" if self.meter else "'room' measures again"
            self.say(f"warning: {self.booth.room_doubt} ({again}; recording goes on with this floor)")

    # --- the take's check -----------------------------------------------------------
    def _start_check(self) -> None:
        self.check = None
        self.say(f"take: {len(self.booth.take) / self.booth.rate:.1f} s; checking…")
        self._checking = self._pool.submit(self.booth.check, recognizer=self.recognizer)

    def _take_check(self) -> None:
        if self._checking is None or not self._checking.done():
            return
        checking, self._checking = self._checking, None
        try:
            self.check = checking.result()
        except Exception as error:  # noqa: BLE001 - whatever broke the check is one line; the take can be recorded again
            self.say(f"  the take could not be checked ({type(error).__name__}: {error}); r records it again")
            return
        for line in self.check.lines():
            self.say(f"  {line}")
        if self.check.note:
            self.say(f"  ({self.check.note})")
        self.say("  Enter keeps it, r records it again" if self.meter else "  accept keeps it, retake records it again")

    # --- commands ----------------------------------------------------------------------
    def do(self, command: str) -> bool:
        """Carry out ``command`` now; ``False`` when the booth cannot yet (the command waits)."""
        from trainer.dataset.recording.booth import RECORDING, REVIEW, ROOM

        phase = self.booth.phase
        if command == "toggle":
            command = "stop" if phase == RECORDING else "record"
        if command in ("record", "retake", "accept") and (phase == ROOM or self._checking is not None):
            return False
        if command in ("retake", "accept") and phase == RECORDING:
            return False
        action = {
            "record": self._record,
            "retake": self._record,
            "stop": self._stop,
            "accept": self._accept,
            "skip": self._skip,
            "back": self._back,
            "room": self._room,
        }.get(command)
        if action is None:
            self.say(f"unknown command {command!r}; {LINES_HELP}")
        elif command in ("accept", "retake") and phase != REVIEW:
            self.say(f"no take to {command}: record one first")
        else:
            action()
        return True

    def _record(self) -> None:
        if self.booth.prompt is None:
            return
        self.check = None
        self.booth.record()
        self.say("recording… (it stops itself after 1 s of silence)")

    def _stop(self) -> None:
        from trainer.dataset.recording.booth import RECORDING, REVIEW

        if self.booth.phase == RECORDING:
            self.booth.stop()
            if self.booth.phase == REVIEW:
                self._start_check()

    def _accept(self) -> None:
        if self.check is None:
            self.say("this take was not checked, so it is not kept: r records it again")
            return
        seconds = len(self.booth.take) / self.booth.rate
        entry = self.booth.accept(self.check)
        self.tally.clips.append(entry.id)
        self.tally.seconds += seconds
        self.check = None
        self.say(f"saved {entry.id} ({count(len(self.tally.clips), 'take')} accepted)")

    def _skip(self) -> None:
        self._drop_take()
        self.booth.skip()

    def _back(self) -> None:
        self._drop_take()
        self.booth.back()
        self._shown = self._shown[:1]  # the prompt gone back to is shown again (its phase kept: no room line)

    def _room(self) -> None:
        from trainer.dataset.recording.booth import RECORDING

        self._drop_take()
        if self.booth.phase == RECORDING:
            self.booth.stop()
        self.booth.measure_room()

    def _drop_take(self) -> None:
        """Forget the take in review and its check (one still running is left to finish unread)."""
        self.check, self._checking = None, None


def _room_s() -> float:
    from trainer.dataset.recording.silence import ROOM_TONE_S

    return ROOM_TONE_S


def line_commands(stream: TextIO) -> queue.Queue:
    """A queue filled from ``stream`` by a daemon thread: one command a line (blank lines skipped), then ``None``."""
    found: queue.Queue = queue.Queue()

    def read() -> None:
        for line in stream:
            if line.strip():
                found.put(line.strip().lower())
        found.put(None)

    threading.Thread(target=read, name="record commands", daemon=True).start()
    return found
