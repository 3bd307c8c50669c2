"""One evaluation of a checkpoint (or of the start voice): its measures by name, as the verdict and the recommended
checkpoint (``trainer.evaluate.verdict``, ``trainer.evaluate.recommend``) read them.

An evaluation comes from a run's canary lines during training, or from a leaderboard row (:func:`from_row`);
the measure names are ``trainer.evaluate.bands.MEASURES``'s (the ``trainer.evaluate.board.Row`` fields).
Plain Python: no Qt, no torch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from trainer.evaluate.board import COLUMNS, Row, names_recordings

START_PREFIX = "start: "
"""How a leaderboard labels the voice a run started from (``start: joe``)."""

NAMES = {"dnsmos_ovrl": "DNSMOS", "dnsmos_sig": "DNSMOS SIG", "dnsmos_bak": "DNSMOS BAK"}
"""A measure's name in sentences where its table heading is too terse (the rest: ``board.COLUMNS`` headings)."""

_EPOCH_IN_NAME = re.compile(r"epoch=(\d+)")
_EPOCH_IN_LABEL = re.compile(r"^(?:.*/)?epoch (\d+)\b")


@dataclass(frozen=True, kw_only=True)
class Evaluation:
    """A checkpoint's measures at one epoch.

    Attributes:
        epoch: the epoch the checkpoint ends, counted from 1 as the studio names checkpoints (a file's
            ``epoch=0004`` is epoch 5); 0 for the start voice or where no epoch is known.
        values: measure name (``trainer.evaluate.bands.MEASURES``: ``val_mel``, ``wer``, ``dnsmos_ovrl``,
            ``similarity``, ``f0_gap_hz``, ``mcd_db``...) -> value in its unit; a measure not taken is absent.
        lines: how many lines the measures rest on (0 where unknown).
        label: how to name it in a sentence (``epoch 5``, ``start: joe``); empty: ``epoch N``.
        path: the checkpoint (or voice) file measured; empty where unknown.
    """

    epoch: int
    values: dict[str, float] = field(default_factory=dict)
    lines: int = 0
    label: str = ""
    path: str = ""

    def name(self) -> str:
        """How a sentence names it: ``epoch 5``, ``the start voice joe``, ``the recordings``, or its label."""
        if self.is_recordings():
            return f"the {self.label}"
        if self.label.startswith(START_PREFIX):
            return f"the start voice {self.label[len(START_PREFIX) :]}"
        if not self.label:
            return f"epoch {self.epoch}"
        return self.label.split(" · ")[0]  # "epoch 5 · val_mel 0.6120" -> "epoch 5"

    def has(self, measure: str) -> bool:
        """Whether ``measure`` was taken."""
        return measure in self.values

    def is_start(self) -> bool:
        """Whether this is the voice a run started from (labelled ``start: NAME``)."""
        return self.label.startswith(START_PREFIX)

    def is_recordings(self) -> bool:
        """Whether this measures the lines' own recordings (``board.RECORDINGS_LABEL``), not a voice."""
        return names_recordings(self.label, self.path)


def measure_name(measure: str) -> str:
    """``WER``, ``DNSMOS``, ``MCD``, ``similarity``: a measure as sentences name it."""
    if measure in NAMES:
        return NAMES[measure]
    return next((c.header for c in COLUMNS if c.field == measure), measure)


def shown(measure: str, value: float) -> str:
    """``value`` as the leaderboard formats ``measure`` (``board.COLUMNS``), with its unit (``7.12 dB``)."""
    column = next((c for c in COLUMNS if c.field == measure), None)
    if column is None:
        return f"{value:.3g}"
    text = column.fmt.format(value)
    return f"{text} {column.unit}" if column.unit and column.unit != "MOS" else text


def band_text(measure: str, band: float) -> str:
    """A noise band as the leaderboard would show a difference of that size: ``±0.03``, ``±0.15 dB``."""
    return "±" + shown(measure, band).lstrip("+")


def from_row(row: Row) -> Evaluation:
    """A leaderboard row as an evaluation: its measures (``None`` left out), lines from ``row.lines``, the epoch
    from the file name (``epoch=0004`` -> 5) or the label (``epoch 5 · …``), 0 for the start voice or unknown."""
    from trainer.evaluate.bands import MEASURES

    values = {name: float(v) for name in MEASURES if (v := getattr(row, name, None)) is not None}
    return Evaluation(
        epoch=row_epoch(row),
        values=values,
        lines=max(row.lines.values(), default=0),
        label=row.label,
        path=str(row.model_path),
    )


def row_epoch(row: Row) -> int:
    """The epoch (from 1) of a row's checkpoint: from its file name (counted from 0 there), else its label."""
    found = _EPOCH_IN_NAME.search(Path(row.model_path).name)
    if found is not None:
        return int(found.group(1)) + 1
    labelled = _EPOCH_IN_LABEL.match(row.label)
    return int(labelled.group(1)) if labelled else 0


def few(names: list[str], most: int = 3) -> str:
    """:func:`listed` of at most ``most`` names, then how many more: ``epoch 4, epoch 3 and 2 more``."""
    return listed(names) if len(names) <= most else listed([*names[:most], f"{len(names) - most} more"])


def listed(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1] if names else ""
