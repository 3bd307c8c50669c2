"""The training run's event stream: versioned JSON lines the studio follows live (no torch import here).

One line per event, each an object with ``v`` (schema version), ``kind``, ``time``
(Unix seconds) and the kind's fields. The trainer appends and flushes each line, so
a reader may see a cut last line after a crash: :func:`read_events` skips it.

Kinds and their fields (``SCHEMA``): ``run_start`` (config, dataset size, device; also
``precision`` and ``batch_size``),
``progress`` (step, it/s), ``epoch`` (wall time split into train, validation,
previews and checkpoint wait; losses; learning rates; ``max_memory_gib`` on CUDA),
``preview``, ``checkpoint``,
``eta``, ``stage`` (a long setup step begins, e.g. the recovery), ``recovery`` (how well
the parts recovered for an ONNX start fit),
``warning``, ``error``, ``finish`` (total time including setup and
compilation). Seconds are wall-clock seconds.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from engines.errors import VoiceStudioError

SCHEMA_VERSION = 1

NUMBER = (int, float)
SCHEMA: dict[str, dict[str, type | tuple[type, ...]]] = {
    "run_start": {"config": dict, "num_utterances": int, "device": str, "epochs": int, "start": str},
    "progress": {"epoch": int, "step": int, "batches": int, "items_per_s": NUMBER},
    "epoch": {
        "epoch": int,
        "step": int,
        "seconds": NUMBER,
        "train_s": NUMBER,
        "val_s": NUMBER,
        "preview_s": NUMBER,
        "checkpoint_wait_s": NUMBER,
        "losses": dict,
        "learning_rates": dict,
    },
    "preview": {"epoch": int, "path": str},
    "checkpoint": {"epoch": int, "path": str, "role": str},
    "eta": {"epoch": int, "seconds_left": NUMBER, "next_preview_s": NUMBER, "next_checkpoint_s": NUMBER},
    "stage": {"name": str, "message": str},
    "recovery": {"part": str, "metric": str, "value": NUMBER},
    "warning": {"message": str},
    "error": {"message": str},
    "finish": {"epochs": int, "seconds": NUMBER, "setup_s": NUMBER, "status": str},
}
"""Required fields by kind, with their JSON types; extra fields are allowed."""


class EventError(VoiceStudioError, ValueError):
    """A record that does not follow the schema; the message names the field."""


def make(kind: str, **fields: Any) -> dict[str, Any]:
    """An event record of ``kind`` stamped with the schema version and the time.

    Raises:
        EventError: unknown kind, or a missing or mistyped field.
    """
    record = {"v": SCHEMA_VERSION, "kind": kind, "time": time.time(), **fields}
    validate(record)
    return record


def validate(record: dict[str, Any]) -> None:
    """Check one record against ``SCHEMA``.

    Raises:
        EventError: naming the kind and field at fault.
    """
    if record.get("v") != SCHEMA_VERSION:
        raise EventError(f"schema version {record.get('v')!r} is not {SCHEMA_VERSION}")
    kind = record.get("kind")
    if kind not in SCHEMA:
        raise EventError(f"unknown event kind {kind!r}")
    if not isinstance(record.get("time"), NUMBER):
        raise EventError(f"{kind}: field 'time' must be a number")
    for name, expected in SCHEMA[kind].items():
        value = record.get(name)
        if value is None or isinstance(value, bool) or not isinstance(value, expected):
            raise EventError(f"{kind}: field {name!r} must be {_type_name(expected)}, got {value!r}")


def _type_name(expected) -> str:
    if expected == NUMBER:
        return "a number"
    name = expected.__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


class EventLog:
    """Appends events to a JSON-lines file (flushed line by line), echoing a readable line to ``echo``."""

    def __init__(self, path: Path | str, echo: TextIO | None = None) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("a", encoding="utf-8")
        self._echo = echo

    def emit(self, kind: str, **fields: Any) -> dict[str, Any]:
        """Validate, append and flush one event; returns the record."""
        record = make(kind, **fields)
        self._file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self._file.flush()
        if self._echo is not None:
            print(describe(record), file=self._echo, flush=True)
        return record

    def close(self) -> None:
        self._file.close()


def read_events(path: Path | str) -> Iterator[dict[str, Any]]:
    """Records of an events file in order; a cut last line (a crash mid-write) is skipped.

    Raises:
        EventError: a complete line that is not a valid record (with its line number).
    """
    lines = Path(path).read_text(encoding="utf-8").split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            validate(record)
        except (json.JSONDecodeError, EventError) as exc:
            if number == len(lines):  # no newline after it: the writer was cut off
                return
            raise EventError(f"{path}:{number}: {exc}") from exc
        yield record


def describe(record: dict[str, Any]) -> str:
    """One readable terminal line for an event.

    Epochs are counted from 1 here, as people count them (and as the Train page shows them); the
    records and file names count from 0, as Lightning and Piper's checkpoint names do.
    """
    kind = record["kind"]
    if kind == "epoch":
        losses = " ".join(f"{k} {v:.3f}" for k, v in record["losses"].items())
        split = f"train {record['train_s']:.1f}, val {record['val_s']:.1f}"
        return f"epoch {record['epoch'] + 1}: {record['seconds']:.1f} s ({split}) {losses}"
    if kind == "progress":
        return f"epoch {record['epoch'] + 1} step {record['step']}: {record['items_per_s']:.1f} it/s"
    if kind == "finish":
        seconds = f"{record['seconds']:.1f} s this session"
        return f"finished ({record['status']}) after epoch {record['epochs']}; {seconds}"
    fields = {k: v for k, v in record.items() if k not in ("v", "kind", "time", "config")}
    return f"{kind}: " + ", ".join(f"{k}={v}" for k, v in fields.items())
