"""The dataset as a whole, in the one set of words the Dataset page's report and the Train page's Check both use:
how many clips the trainer can use, how many it leaves out and why, and their sample rates against the voice's.

The report (``trainer.dataset.report``) says these beside each clip's findings; the pre-flight
(``trainer.run.preflight``) turns them into its findings, adding what depends on the run (the starting voice,
the device, the disk). Both count the clips as the trainer takes them (``trainer.dataset.export.selection``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engines.words import count

MIN_CLIPS = 2
"""Fewer usable clips than this cannot train (one is held out for validation)."""
FEW_CLIPS = 50
"""Below this a fine-tune is weak; datasets of 100-2,000 utterances are usual."""


@dataclass(frozen=True, kw_only=True)
class Overall:
    """One finding about the whole dataset: ``level`` ``error`` or ``warning``; ``resample_to`` (Hz) where the fix
    is to resample the curated copies to the voice's rate."""

    level: str
    message: str
    resample_to: int | None = None


def overall(clips: int, skipped: Counter, rates: Counter, rate: int, who: str, *, cache: bool = False) -> list[Overall]:
    """What the whole dataset means for training: too few ``clips`` (usable ones), the ``skipped`` ones by reason
    in words (``WHY_LEFT_OUT``'s), and ``rates`` (Hz -> clips) other than ``rate``, the rate of ``who`` (e.g.
    "the starting voice"); a training ``cache`` at another rate is an error (it cannot be resampled in place)."""
    if clips < MIN_CLIPS:
        usable = count(clips, "usable clip")
        return [Overall(level="error", message=f"The dataset has {usable}; training needs at least {MIN_CLIPS}.")]
    said = []
    if clips < FEW_CLIPS:
        said.append(Overall(level="warning", message=f"Only {count(clips, 'clip')}: 100 to 2,000 make a good voice."))
    if skipped:
        reasons = "; ".join(f"{n} × {reason}" for reason, n in skipped.most_common())
        left = count(sum(skipped.values()), "clip")
        said.append(Overall(level="warning", message=f"{left} will be left out: {reasons}."))
    return said + _rate_words(rates, rate, who, cache)


def _rate_words(rates: Counter, rate: int, who: str, cache: bool) -> list[Overall]:
    other = {r: n for r, n in rates.items() if r and r != rate}
    if not other:
        return []
    if cache:
        message = (
            f"The training cache is at {next(iter(other))} Hz but {who} is at {rate} Hz: "
            "rebuild the cache from the project at the voice's rate."
        )
        return [Overall(level="error", message=message)]
    listed = ", ".join(f"{n} at {r:,} Hz" for r, n in sorted(other.items()))
    message = (
        f"{who[0].upper() + who[1:]} is at {rate:,} Hz, clips are not ({listed}). Training resamples them; "
        "resample the curated copies too (originals stay untouched)?"
    )
    return [Overall(level="warning", message=message, resample_to=rate)]


def project_counts(project) -> tuple[int, Counter, Counter]:
    """``(usable clips, skipped reason -> clips, sample rate Hz -> usable clips)`` of a
    ``trainer.dataset.project.DatasetProject``, as the trainer takes its clips (reads the manifest only)."""
    from trainer.dataset.export import WHY_LEFT_OUT, left_out, selection

    chosen = selection(project)[0]
    rates = Counter(c.analysis.get("sample_rate") for c in chosen if c.analysis)
    skipped = Counter(WHY_LEFT_OUT.get(kind, kind) for kind in left_out(project).values())
    return len(chosen), skipped, rates
