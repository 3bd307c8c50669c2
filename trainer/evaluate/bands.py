"""Noise bands: how far each measure moves for the *same* checkpoint when only the noise seed changes.

A difference between two candidates smaller than the measure's band cannot be told from the noise of
synthesis (``noise_scale``, ``noise_w``) and of the measure itself, so the verdict, the recommended checkpoint
and the leaderboard treat such differences as ties.

A band is half the spread (max - min) of a measure's mean over the same lines rendered with several seeds, or,
where a run has not measured its own, the constant in :data:`DEFAULT_BANDS` (measured on the embedded voice joe,
``tests/bench/judge.py``; the "Judging a voice" table of docs/benchmarks.md gives the run).
"""

from __future__ import annotations

from dataclasses import dataclass, field

MEASURES: dict[str, str] = {
    "val_mel": "lower",
    "wer": "lower",
    "mcd_db": "lower",
    "f0_rmse_hz": "lower",
    "f0_gap_hz": "closer",
    "similarity": "higher",
    "dnsmos_ovrl": "higher",
    "dnsmos_sig": "higher",
    "dnsmos_bak": "higher",
}
"""Measure name (a ``trainer.evaluate.board.Row`` field) -> which way is better: ``lower``, ``higher`` or
``closer`` (to 0)."""


@dataclass(frozen=True, kw_only=True)
class Bands:
    """Noise band per measure, in the measure's unit (``wer``: a fraction; ``mcd_db``: dB; ``f0_*``: Hz).

    Attributes:
        values: measure name -> band (>= 0); a measure without one has band 0 (every difference counts).
        source: one line saying where the numbers come from (shown beside them).
    """

    values: dict[str, float] = field(default_factory=dict)
    source: str = ""

    def of(self, name: str) -> float:
        """The band of ``name`` (0 when unknown)."""
        return float(self.values.get(name, 0.0))

    def differs(self, name: str, a: float, b: float) -> bool:
        """Whether ``a`` and ``b`` differ by more than ``name``'s band (beyond noise)."""
        return abs(_oriented(name, a) - _oriented(name, b)) > self.of(name)

    def better(self, name: str, a: float, b: float) -> bool:
        """Whether ``a`` is better than ``b`` by more than the band (``MEASURES`` says which way is better)."""
        return _oriented(name, a) - _oriented(name, b) > self.of(name)

    def worse(self, name: str, a: float, b: float) -> bool:
        """Whether ``a`` is worse than ``b`` by more than the band."""
        return self.better(name, b, a)


def oriented(name: str, value: float) -> float:
    """``value`` turned so that larger is better (:data:`MEASURES` says which way), to rank candidates by."""
    return _oriented(name, value)


def _oriented(name: str, value: float) -> float:
    """``value`` turned so that larger is better (``lower``: negated; ``closer``: minus its magnitude)."""
    way = MEASURES.get(name, "lower")
    if way == "higher":
        return float(value)
    if way == "closer":
        return -abs(float(value))
    return -float(value)


def measured(spreads: dict[str, list[float]], source: str) -> Bands:
    """Bands from each measure's means over several seeds: half of (max - min) per measure.

    Args:
        spreads: measure name -> its value for the same checkpoint and lines under each seed (at least 2).
        source: where they come from, e.g. "this run's 5 canary lines, 3 seeds".

    Raises:
        ValueError: a measure with fewer than 2 values.
    """
    values = {}
    for name, seen in spreads.items():
        if len(seen) < 2:
            raise ValueError(f"a noise band needs at least 2 seeds, {name} has {len(seen)}")
        values[name] = (max(seen) - min(seen)) / 2
    return Bands(values=values, source=source)


DEFAULT_BANDS = Bands(
    values={
        "val_mel": 0.0,
        "wer": 0.060,
        "mcd_db": 0.028,
        "f0_rmse_hz": 0.48,
        "f0_gap_hz": 1.26,
        "similarity": 0.002,
        "dnsmos_ovrl": 0.038,
        "dnsmos_sig": 0.027,
        "dnsmos_bak": 0.037,
    },
    source="measured on joe: 5 lines of the target-voice corpus under 4 noise seeds (tests/bench/judge.py)",
)
"""Bands used where a run has measured none of its own (the "Judging a voice" table of docs/benchmarks.md,
2026-12-02). val_mel is not rendered, so no seed moves it: its band is 0 (every difference counts)."""
