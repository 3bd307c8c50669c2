"""The training run's events: one frozen dataclass per kind, written as versioned JSON lines (no torch here).

One line per event, each an object with ``v`` (schema version), ``kind``, ``time``
(Unix seconds) and the kind's fields, in the order the dataclass declares them
(``Event.to_record``). :func:`parse_event` turns a record back into its event; the
check of required fields and their JSON types comes from the dataclass fields and
their annotations (``X | None`` fields may be absent; unknown fields are ignored,
so a newer trainer's extra fields still read). Seconds are wall-clock seconds;
epochs count from 0, as Lightning and Piper's checkpoint names do.

Writing and reading the file: ``trainer.events.log``.
"""

from __future__ import annotations

import time
import typing
from dataclasses import MISSING, asdict, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from engines.errors import VoiceStudioError
from engines.records import matches

SCHEMA_VERSION = 1
"""The ``v`` of every record; a record of another version is refused (no migration exists yet)."""

E = TypeVar("E", bound="Event")


class EventError(VoiceStudioError, ValueError):
    """A record that does not follow the schema; the message names the kind and field."""


@dataclass(frozen=True, kw_only=True)
class Event:
    """Fields every event has: ``time`` (Unix seconds, when it was made). ``kind`` names the subclass on disk."""

    kind: ClassVar[str] = ""
    time: float = field(default_factory=time.time)

    def to_record(self) -> dict[str, Any]:
        """The JSON-lines object: ``v``, ``kind``, then the fields in declared order (``None`` extras left out)."""
        values = {k: v for k, v in asdict(self).items() if v is not None or _required(type(self), k)}
        return {"v": SCHEMA_VERSION, "kind": self.kind, **values}

    @classmethod
    def from_record(cls: type[E], record: dict[str, Any]) -> E:
        """The event a record of this kind holds.

        Raises:
            EventError: another version or kind, or a missing or mistyped field (named).
        """
        event = parse_event(record)
        if not isinstance(event, cls):
            raise EventError(f"a {record.get('kind')!r} record is not a {cls.kind!r} event")
        return event


@dataclass(frozen=True, kw_only=True)
class RunStart(Event):
    """Training begins (each session: ``start`` is ``resume`` for a resumed one); ``epochs`` is the run's total;
    ``host`` the machine's name (of global rank 0; absent in records of older trainers)."""

    kind: ClassVar[str] = "run_start"
    config: dict[str, Any]
    num_utterances: int
    device: str
    epochs: int
    start: str
    precision: str | None = None
    batch_size: int | None = None
    host: str | None = None


@dataclass(frozen=True, kw_only=True)
class Progress(Event):
    """Within an epoch: ``batches`` done so far of ``batches_total`` (the epoch's training batches, per DDP
    process), the speed since the last progress (utterances/s over all processes; 0 before the first batch),
    ``elapsed_s`` since the epoch began and ``seconds_left`` of its training batches (``trainer.time_left``: from
    the batches' settled rate; absent until it has settled).
    ``batches`` 0 marks an epoch's start. The last three fields are absent in records of older trainers."""

    kind: ClassVar[str] = "progress"
    epoch: int
    step: int
    batches: int
    items_per_s: float
    batches_total: int | None = None
    elapsed_s: float | None = None
    seconds_left: float | None = None


@dataclass(frozen=True, kw_only=True)
class Epoch(Event):
    """One finished epoch: wall ``seconds`` split into train, validation, previews and checkpoint wait; the
    losses and learning rates by name; ``max_memory_gib`` the peak CUDA memory (absent on the CPU);
    ``step_s`` the training steps' own split of ``train_s``: seconds per ``STEP_PARTS`` name summed over
    the epoch (``trainer.gan.step_timer``; at most ``train_s`` in all; absent in records of older trainers)."""

    kind: ClassVar[str] = "epoch"
    epoch: int
    step: int
    seconds: float
    train_s: float
    losses: dict[str, float]
    learning_rates: dict[str, float]
    val_s: float
    preview_s: float
    checkpoint_wait_s: float
    max_memory_gib: float | None = None
    step_s: dict[str, float] | None = None

    def split(self) -> list[float]:
        """``[train_s, val_s, preview_s, checkpoint_wait_s]``, seconds (``SPLIT`` order)."""
        return [float(self.train_s), float(self.val_s), float(self.preview_s), float(self.checkpoint_wait_s)]

    def step_split(self) -> list[float] | None:
        """``train_s`` as ``[*STEP_PARTS seconds, the rest]`` (the rest: what no part timed, at least 0);
        ``None`` for a record without ``step_s``. A part the record lacks counts 0."""
        if self.step_s is None:
            return None
        parts = [float(self.step_s.get(name, 0.0)) for name in STEP_PARTS]
        return [*parts, max(0.0, float(self.train_s) - sum(parts))]


SPLIT = ("train_s", "val_s", "preview_s", "checkpoint_wait_s")
"""The parts of an epoch's wall time (``Epoch`` fields), in seconds, in the order ``Epoch.split`` gives them."""
STEP_PARTS = ("data", "generator", "alignment", "discriminator", "backward", "optimizer")
"""The parts of the training step an ``Epoch``'s ``step_s`` times (``trainer.gan.step_timer`` says what each holds)."""


@dataclass(frozen=True, kw_only=True)
class Preview(Event):
    """A preview line spoken with the generator of ``epoch``, written to ``path`` (a WAV); ``text``: the line.

    Optional (absent in records of older trainers): ``step``, the global step of the generator that spoke it
    (as ``Progress.step``); ``requested`` True when someone asked for it (``trainer.events.run_state.request_preview``),
    not the schedule (``trainer.events.preview_schedule``). One spoken within its epoch, after a training step rather
    than at the epoch's end, lies in ``previews/epoch=EEEE-batch=BBBB/`` (that step counted within the epoch,
    from 1: ``trainer.events.preview_lines.preview_moment``).
    """

    kind: ClassVar[str] = "preview"
    epoch: int
    path: str
    text: str | None = None
    step: int | None = None
    requested: bool | None = None


@dataclass(frozen=True, kw_only=True)
class Checkpoint(Event):
    """A checkpoint written: ``role`` is ``best`` (generator only, ranked by val_mel) or ``resume``."""

    kind: ClassVar[str] = "checkpoint"
    epoch: int
    path: str
    role: str


@dataclass(frozen=True, kw_only=True)
class Evaluation(Event):
    """The canary lines (held-out clips) spoken by the checkpoint of ``epoch`` and measured in a process of
    their own (``trainer.evaluate.canary``); written by the trainer once that process is done.

    ``values``: the measures' means by ``trainer.evaluate.board.Row`` field (``wer``, ``similarity``,
    ``dnsmos_ovrl``, ``f0_gap_hz``...; a measure not taken is absent and ``errors`` says why); ``lines``: how
    many lines they rest on; ``seconds``: the evaluation's wall time; ``recognizer``: the speech recognizer
    behind ``wer``, where said; ``bands`` (the run's first evaluation): the noise band per measure, from the
    same lines rendered under more noise seeds (``trainer.evaluate.bands.measured``), and ``bands_source``
    saying so; ``recordings`` (the run's first evaluation): the canary lines' own recordings heard as the renders
    are (``trainer.evaluate.board.HEARD``: DNSMOS and WER, by the same recognizer), the floor of the
    recommendation's guards; ``errors``: measure (or ``evaluation`` for the whole) -> why it is missing;
    ``verdict``: still improving / levelled off / getting worse over the run's evaluations up to this one, in
    one sentence (``trainer.evaluate.run_measures.run_verdict``), as the trainer said it when it wrote the record.
    """

    kind: ClassVar[str] = "evaluation"
    epoch: int
    values: dict[str, float]
    lines: int
    seconds: float
    recognizer: str | None = None
    bands: dict[str, float] | None = None
    bands_source: str | None = None
    recordings: dict[str, float] | None = None
    errors: dict[str, str] | None = None
    verdict: str | None = None


@dataclass(frozen=True, kw_only=True)
class Eta(Event):
    """After ``epoch``: seconds left for the run, and until the next preview and checkpoint."""

    kind: ClassVar[str] = "eta"
    epoch: int
    seconds_left: float
    next_preview_s: float
    next_checkpoint_s: float


@dataclass(frozen=True, kw_only=True)
class Stage(Event):
    """A long setup step begins or reports (e.g. ``setup``, ``recovery``, ``epoch``, ``stopping``, ``d_warmup``: the
    discriminator warm-up, ``WARMUP_STAGE``).

    Optional, for a step that counts (absent in records of older trainers): ``step`` done of ``steps`` (the
    part now under way, e.g. lines spoken), ``elapsed_s`` since the stage began, ``seconds_left`` of that part
    (``trainer.time_left``: from the steps' settled rate; absent until it has settled); ``cached`` True when the
    stage's result was taken from a cache.
    """

    kind: ClassVar[str] = "stage"
    name: str
    message: str
    step: int | None = None
    steps: int | None = None
    elapsed_s: float | None = None
    seconds_left: float | None = None
    cached: bool | None = None


@dataclass(frozen=True, kw_only=True)
class Recovery(Event):
    """How well a part recovered for an ONNX start fits: ``metric`` of ``part`` is ``value``."""

    kind: ClassVar[str] = "recovery"
    part: str
    metric: str
    value: float


@dataclass(frozen=True, kw_only=True)
class WarningEvent(Event):
    """Something the person should know (a conversion of the start, clips left out, an interruption)."""

    kind: ClassVar[str] = "warning"
    message: str


@dataclass(frozen=True, kw_only=True)
class ErrorEvent(Event):
    """The run failed: ``message`` is the exception's type and text."""

    kind: ClassVar[str] = "error"
    message: str


@dataclass(frozen=True, kw_only=True)
class Finish(Event):
    """The session ended: ``status`` ``done`` or ``stopped``; ``seconds`` include setup (``setup_s``: from the
    session's start to its first epoch, a start's recovery included) and compilation; ``epochs`` is the last
    epoch's index; ``preset`` the run's (``test``: a smoke test; absent in older records)."""

    kind: ClassVar[str] = "finish"
    epochs: int
    seconds: float
    setup_s: float
    status: str
    preset: str | None = None


WARMUP_STAGE = "d_warmup"
"""The ``Stage.name`` of the discriminator warm-up (``trainer.gan.d_warmup``), which goes on while epochs run: its
progress reports ``step`` (steps done) of ``steps`` (at most), its last one ``step`` equal to ``steps``."""


KINDS: dict[str, type[Event]] = {
    cls.kind: cls
    for cls in (
        RunStart,
        Progress,
        Epoch,
        Preview,
        Checkpoint,
        Evaluation,
        Eta,
        Stage,
        Recovery,
        WarningEvent,
        ErrorEvent,
        Finish,
    )
}
"""Every event class by its ``kind``."""


def parse_event(record: dict[str, Any]) -> Event:
    """The event a record holds (the class its ``kind`` names).

    Raises:
        EventError: another schema version, an unknown kind, or a missing or mistyped field (named).
    """
    validate(record)
    cls = KINDS[record["kind"]]
    return cls(**{f.name: record[f.name] for f in fields(cls) if f.name in record})


def validate(record: dict[str, Any]) -> None:
    """Check one record against its kind's dataclass fields.

    Raises:
        EventError: naming the kind and field at fault.
    """
    if not isinstance(record, dict):
        raise EventError(f"a record must be a JSON object, got {record!r}")
    if record.get("v") != SCHEMA_VERSION:
        raise EventError(f"schema version {record.get('v')!r} is not {SCHEMA_VERSION}")
    kind = record.get("kind")
    if kind not in KINDS:
        raise EventError(f"unknown event kind {kind!r}")
    cls = KINDS[kind]
    for name, hint in typing.get_type_hints(cls).items():
        if name == "kind" or (name not in record and not _required(cls, name)):
            continue
        value = record.get(name)
        if not matches(value, hint):
            raise EventError(f"{kind}: field {name!r} must be {_type_name(hint)}, got {value!r}")


def _required(cls: type[Event], name: str) -> bool:
    """Whether field ``name`` must be in a record (``time`` and fields without a default)."""
    spec = next(f for f in fields(cls) if f.name == name)
    return name == "time" or (spec.default is MISSING and spec.default_factory is MISSING)


def _type_name(hint: Any) -> str:
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = typing.get_origin(hint) or hint
    if args and base is not dict:
        return _type_name(args[0])
    if base is float:
        return "a number"
    name = base.__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"
