"""A run's ``events.jsonl``: the trainer appends events (:class:`EventLog`), the studio reads them back.

The trainer appends each line with one write, so a reader may see a cut last line after a crash
(:func:`read_events` skips it) or while the trainer writes (:class:`EventTail` waits for its end). A line the
disk had no room for is taken back off the file, and a log opened again (a resume) first drops a cut last line,
so a cut line never ends up in the middle of the file. Events may come from two threads (the checkpoint writer
announces the files it put in place); each line is written whole under a lock.
The records are ``trainer.events.schema`` dataclasses' ``to_record()``; no torch is imported here.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO

from trainer.events.schema import Event, EventError, parse_event
from trainer.events.words import sentence, worth_a_line


class EventLog:
    """Appends events to a JSON-lines file (flushed line by line), echoing each in plain words to ``echo``
    (``trainer.events.words``)."""

    def __init__(self, path: Path | str, echo: TextIO | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        drop_cut_line(self.path)
        self._file = self.path.open("ab", buffering=0)
        self._echo = echo
        self._lock = threading.Lock()

    def emit(self, event: Event) -> Event:
        """Append one event (checked against its schema first) and echo it; returns it. Thread-safe.

        Raises:
            EventError: a field of the wrong type (e.g. a bool where an int belongs).
            OSError: the line could not be written (a full disk: naming the file); it is echoed all the same, and
                nothing of it stays in the file.
        """
        record = event.to_record()
        parse_event(record)
        line = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8")
        with self._lock:
            try:
                self._append(line)
            finally:
                if self._echo is not None and worth_a_line(event):
                    print(sentence(event), file=self._echo, flush=True)
        return event

    def _append(self, line: bytes) -> None:
        """Write ``line`` whole, or (an error part-way) take back what was written of it.

        Raises:
            OSError: as the OS said it, naming this file.
        """
        start = self._file.tell()
        try:
            done = 0
            while done < len(line):
                done += self._file.write(line[done:]) or 0
        except OSError as exc:
            self._file.truncate(start)
            raise OSError(exc.errno, exc.strerror or str(exc), str(self.path)) from None

    def close(self) -> None:
        """Close the file (later ``emit`` calls fail)."""
        self._file.close()


def drop_cut_line(path: Path) -> None:
    """Cut an events file back to its last whole line: a line a crash or a full disk left unfinished, which the
    next line appended would otherwise leave in the middle of the file. A missing file is left so."""
    if not path.is_file():
        return
    with path.open("r+b") as f:
        size = f.seek(0, os.SEEK_END)
        if size == 0:
            return
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return
        start = max(0, size - (1 << 20))  # a record is a few KB
        f.seek(start)
        cut = f.read().rfind(b"\n")
        if cut >= 0 or start == 0:
            f.truncate(start + cut + 1)


class NoLog(EventLog):
    """An :class:`EventLog` that writes nothing: what the ranks other than 0 of a DDP run emit to (events
    are checked against their schema all the same)."""

    def __init__(self) -> None:  # no file, no echo
        pass

    def emit(self, event: Event) -> Event:
        parse_event(event.to_record())
        return event

    def close(self) -> None:
        pass


def read_events(path: Path | str) -> Iterator[Event]:
    """Events of a file in order; a cut last line (a crash mid-write) is skipped.

    Raises:
        EventError: a complete line that is not a valid record (with its line number).
    """
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            event = parse_event(json.loads(line))
        except (json.JSONDecodeError, EventError) as exc:
            if number == len(lines):  # no newline after it: the writer was cut off
                return
            raise EventError(f"{path}:{number}: {exc}") from exc
        yield event


class EventTail:
    """New complete events of an events file, each call; survives the file not existing yet."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._offset = 0
        self._rest = b""

    def read(self) -> list[Event]:
        """Events appended since the last call; lines that are not valid records are skipped."""
        try:
            with self.path.open("rb") as f:
                f.seek(self._offset)
                data = f.read()
        except FileNotFoundError:
            return []
        self._offset += len(data)
        data = self._rest + data
        cut = data.rfind(b"\n") + 1
        lines, self._rest = data[:cut], data[cut:]
        found = []
        for line in lines.decode("utf-8", errors="replace").splitlines():
            try:
                found.append(parse_event(json.loads(line)))
            except (json.JSONDecodeError, EventError):
                continue
        return found
