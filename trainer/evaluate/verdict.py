"""Is the voice still getting better? A verdict in plain words over a run's evaluations, and the checkpoint to keep.

The states (issue 27, point 6), judged on the evaluations in epoch order, each measure on the evaluations that
have it, differences inside a measure's noise band (``trainer.evaluate.bands``) not counting:

- ``worse`` (*getting worse*): WER or DNSMOS of the latest evaluation is worse beyond its band than the best
  so far in the run (an earlier evaluation, the first included), and, where the run measured the canary lines'
  own recordings, worse than them too (a voice coming to sound like noisier recordings is not getting worse).
  The sentence says whether val_mel still falls meanwhile: the case a val_mel chart hides. The start voice is
  not the yardstick here (a fine-tune usually begins below it and climbs; the recommendation and Export say
  where a checkpoint is worse than it).
- ``improving`` (*still improving*): some heard measure (every measure but val_mel; val_mel where nothing else
  was measured) of the latest evaluation is better beyond its band than at the first of the last ``window``.
- ``levelled`` (*levelled off*): nothing better beyond its band over the last ``window`` evaluations.
- ``too_few``: fewer than 2 evaluations, or fewer than ``window`` and no change beyond the bands yet.

The checkpoint to keep is the recommended one (``trainer.evaluate.recommend``, whose docstring states the rule).
Plain Python: no Qt, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainer.evaluate.bands import Bands
from trainer.evaluate.evaluation import Evaluation, band_text, listed, measure_name, shown
from trainer.evaluate.recommend import GUARDS, Recommendation, best_of, level_with_recordings, recommend, val_mel_best

__all__ = ["STATES", "Evaluation", "Verdict", "recommend", "val_mel_best", "verdict"]

STATES = ("too_few", "improving", "levelled", "worse")
"""The verdict's states, as :attr:`Verdict.state` names them."""


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """What the evaluations say.

    Attributes:
        state: one of :data:`STATES`.
        sentence: one plain-English line for the user, e.g. ``Getting worse: WER rose from 0.08 (epoch 4) to 0.15
            (epoch 9), beyond its ±0.03 noise band, while val_mel still falls — keep epoch 4.``
        keep_epoch: the recommended checkpoint's epoch (from 1), were the run stopped now; ``None`` with no
            evaluation.
        recommendation: the recommended checkpoint and why (``recommend``).
    """

    state: str
    sentence: str
    keep_epoch: int | None
    recommendation: Recommendation


@dataclass(frozen=True, kw_only=True)
class Change:
    """One measure's move between two evaluations (``before`` -> ``after``)."""

    measure: str
    before: Evaluation
    after: Evaluation

    def values(self) -> tuple[float, float]:
        """The measure's value before and after."""
        return self.before.values[self.measure], self.after.values[self.measure]


def verdict(
    evaluations: list[Evaluation],
    bands: Bands,
    window: int = 3,
    *,
    start: Evaluation | None = None,
    recordings: Evaluation | None = None,
) -> Verdict:
    """The verdict on ``evaluations`` (a run's checkpoints, any order; the rule in this module's docstring) and
    the checkpoint to keep. ``start``: the start voice's evaluation, which the recommendation's reason compares
    the checkpoint to keep with; ``recordings``: the lines' own recordings measured alike, the guards' floor in
    the recommendation and in *getting worse*.

    Args:
        window: how many latest evaluations *still improving* and *levelled off* look at (>= 2).

    Raises:
        ValueError: ``window`` < 2.
    """
    if window < 2:
        raise ValueError(f"a verdict window is at least 2 evaluations, not {window}")
    ordered = sorted(evaluations, key=lambda e: e.epoch)
    chosen = recommend(ordered, bands, start, recordings=recordings)
    keep = chosen.chosen.epoch if chosen.chosen is not None else None
    kept = chosen.chosen.name() if chosen.chosen is not None else ""

    def told(state: str, sentence: str) -> Verdict:
        return Verdict(state=state, sentence=sentence, keep_epoch=keep, recommendation=chosen)

    if len(ordered) < 2:
        return told("too_few", _too_early(ordered, window))
    if worse := worsened(ordered, bands, recordings):
        return told("worse", _worse_sentence(worse, ordered, bands, kept))
    recent = ordered[-window:]
    better = [c for c in moves(recent, bands) if bands.better(c.measure, *reversed(c.values()))]
    if better:
        return told("improving", _improving_sentence(better, bands, chosen))
    if len(ordered) < window:
        return told("too_few", _too_early(ordered, window))
    return told("levelled", _levelled_sentence(recent, bands, kept))


def worsened(ordered: list[Evaluation], bands: Bands, recordings: Evaluation | None = None) -> list[Change]:
    """Each of :data:`GUARDS` whose latest value (in epoch order) is worse beyond its band than its best in an
    earlier evaluation, and than ``recordings``' where they have it, as ``best -> latest``."""
    changes = []
    for measure in GUARDS:
        having = [e for e in ordered if e.has(measure)]
        if not having:
            continue
        best, latest = best_of(having[:-1], measure), having[-1]
        if best is None or not bands.worse(measure, latest.values[measure], best.values[measure]):
            continue
        if not level_with_recordings(latest, measure, recordings, bands):  # as clean (or clear) as them: not worse
            changes.append(Change(measure=measure, before=best, after=latest))
    return changes


def heard(evaluations: list[Evaluation]) -> list[str]:
    """The measures the verdict judges improvement on: every measure taken but val_mel (which keeps falling
    while what is heard stops improving), in ``bands.MEASURES`` order; val_mel alone where nothing else was."""
    from trainer.evaluate.bands import MEASURES

    taken = [m for m in MEASURES if any(e.has(m) for e in evaluations)]
    return [m for m in taken if m != "val_mel"] or taken


def moves(recent: list[Evaluation], bands: Bands) -> list[Change]:
    """Each :func:`heard` measure's move beyond its band, from the first to the last of ``recent`` having it."""
    changes = []
    for measure in heard(recent):
        having = [e for e in recent if e.has(measure)]
        if len(having) >= 2 and bands.differs(measure, having[0].values[measure], having[-1].values[measure]):
            changes.append(Change(measure=measure, before=having[0], after=having[-1]))
    return changes


def val_mel_falls(since: Evaluation, ordered: list[Evaluation], bands: Bands) -> bool:
    """Whether the latest val_mel is lower beyond its band than at ``since`` (at the first evaluation where
    ``since`` has none, e.g. the start voice)."""
    having = [e for e in ordered if e.has("val_mel")]
    if len(having) < 2:
        return False
    base = since if since.has("val_mel") else having[0]
    return bands.better("val_mel", having[-1].values["val_mel"], base.values["val_mel"])


def _moved(change: Change) -> str:
    """``WER rose from 0.08 (epoch 4) to 0.15 (epoch 9)``."""
    before, after = change.values()
    verb = "rose" if after > before else "fell"
    if change.measure == "f0_gap_hz":
        verb = "moved"
    name = measure_name(change.measure)
    was, now = shown(change.measure, before), shown(change.measure, after)
    return f"{name} {verb} from {was} ({change.before.name()}) to {now} ({change.after.name()})"


def _bands_said(changes: list[Change], bands: Bands) -> str:
    """``beyond its ±0.03 noise band`` or ``beyond their noise bands (±0.03, ±0.05)``."""
    texts = [band_text(c.measure, bands.of(c.measure)) for c in changes]
    return f"beyond its {texts[0]} noise band" if len(texts) == 1 else f"beyond their noise bands ({', '.join(texts)})"


def _worse_sentence(worse: list[Change], ordered: list[Evaluation], bands: Bands, kept: str) -> str:
    """``Getting worse: WER rose from … to …, beyond its ±0.03 noise band, while val_mel still falls — keep
    epoch 4.`` (``kept``: the recommended one's name)."""
    still = any(val_mel_falls(c.before, ordered, bands) for c in worse)
    falls = " while val_mel still falls" if still else ""
    keeping = f" — keep {kept}" if kept else ""
    return f"Getting worse: {listed([_moved(c) for c in worse])}, {_bands_said(worse, bands)},{falls}{keeping}."


def _improving_sentence(better: list[Change], bands: Bands, chosen: Recommendation) -> str:
    """``Still improving: similarity rose from … to …, beyond its ±0.010 noise band; the best so far is …``."""
    shown_changes = better[:3]
    best = f"; the best so far is {chosen.chosen.name()}" if chosen.chosen is not None else ""
    return f"Still improving: {listed([_moved(c) for c in shown_changes])}, {_bands_said(shown_changes, bands)}{best}."


def _levelled_sentence(recent: list[Evaluation], bands: Bands, kept: str) -> str:
    """``Levelled off: nothing improved beyond its noise band over the last 3 evaluations (epochs 4–6) — keep
    epoch 5.``, with what fell meanwhile and whether val_mel still falls."""
    span = f"epochs {recent[0].epoch}–{recent[-1].epoch}"
    worse = [c for c in moves(recent, bands) if bands.worse(c.measure, *reversed(c.values()))]
    fell = f"; {listed([_moved(c) for c in worse[:2]])}" if worse else ""
    still = " val_mel still falls, but nothing heard improves;" if val_mel_falls(recent[0], recent, bands) else ""
    keeping = f" keep {kept}" if kept else ""
    return (
        f"Levelled off: nothing improved beyond its noise band over the last {len(recent)} evaluations "
        f"({span}{fell}) —{still}{keeping}."
    )


def _too_early(ordered: list[Evaluation], window: int) -> str:
    """Why there is no verdict yet: no evaluation, one, or fewer than ``window`` and nothing beyond noise."""
    if not ordered:
        return f"No evaluation yet: a verdict needs 2, and {window} to call it levelled off."
    if len(ordered) == 1:
        return f"Too early to tell: one evaluation so far ({ordered[0].name()}); a verdict needs 2."
    return (
        f"Too early to tell: no change beyond the noise bands over {len(ordered)} evaluations yet; "
        f"levelled off needs {window}."
    )
