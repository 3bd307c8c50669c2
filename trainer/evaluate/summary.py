"""What a leaderboard adds up to, in words: the recommended candidate and why, where the measures disagree, and
the noise band of each measure (``voice-studio compare`` prints it under the table; the Compare page shows it).

The rows become evaluations (``trainer.evaluate.evaluation.from_row``); the row labelled ``start: NAME`` is the
start voice and the row ``recordings`` the lines' own recordings, baselines rather than candidates; the rule is
``trainer.evaluate.recommend``'s. Plain Python.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainer.evaluate.bands import DEFAULT_BANDS, MEASURES, Bands
from trainer.evaluate.board import Row, is_recordings
from trainer.evaluate.evaluation import Evaluation, band_text, from_row, measure_name
from trainer.evaluate.recommend import disagreement, recommend


@dataclass(frozen=True, kw_only=True)
class BoardSummary:
    """The leaderboard in words.

    Attributes:
        recommended: the recommended row's label ("" when there is none).
        reason: why (``Recommendation.reason``), or why there is none.
        disagreement: which candidate each measure favours (``recommend.disagreement``); "" with one candidate.
        ties: labels of the rows within noise of the recommended one (a blind test can tell them apart).
        bands: the noise band of each measure and where the figures come from (:func:`bands_line`).
    """

    recommended: str = ""
    reason: str = ""
    disagreement: str = ""
    ties: list[str] = field(default_factory=list)
    bands: str = ""

    def lines(self) -> list[str]:
        """The summary as the lines printed under the table."""
        return [text for text in (self.reason, self.disagreement, self.bands) if text]


def evaluations_of(rows: list[Row]) -> tuple[list[Evaluation], Evaluation | None]:
    """The rendered rows as ``(candidates, the start voice or None)``; the recordings' row is neither."""
    measured = [from_row(row) for row in rows if row.failed is None and not is_recordings(row)]
    start = next((e for e in measured if e.is_start()), None)
    return [e for e in measured if e is not start], start


def recordings_of(rows: list[Row]) -> Evaluation | None:
    """The recordings' row (``board.RECORDINGS_LABEL``) as an evaluation, or ``None`` where there is none."""
    return next((from_row(row) for row in rows if is_recordings(row)), None)


def summarise(rows: list[Row], bands: Bands = DEFAULT_BANDS) -> BoardSummary:
    """The recommended row (the rule of ``trainer.evaluate.recommend``, the recordings' row as its floor), the
    disagreement sentence (between the candidates and the start voice) and the bands."""
    candidates, start = evaluations_of(rows)
    chosen = recommend(candidates, bands, start, noun="candidate", recordings=recordings_of(rows))
    everyone = [*([start] if start is not None else []), *candidates]
    return BoardSummary(
        recommended=chosen.chosen.label if chosen.chosen is not None else "",
        reason=chosen.reason,
        disagreement=disagreement(everyone, bands),
        ties=[e.label for e in chosen.ties],
        bands=bands_line(bands),
    )


def bands_line(bands: Bands) -> str:
    """``Noise bands (how far a value moves for the same checkpoint under another seed; SOURCE): val_mel ±0.0050,
    WER ±0.03, …``: differences inside them are not told apart (a measure whose band is 0, such as val_mel that no
    seed moves, is left out)."""
    said = [f"{measure_name(m)} {band_text(m, bands.of(m))}" for m in MEASURES if bands.of(m) > 0]
    source = f"; {bands.source}" if bands.source else ""
    return f"Noise bands (how far a value moves for the same checkpoint under another seed{source}): {', '.join(said)}."
