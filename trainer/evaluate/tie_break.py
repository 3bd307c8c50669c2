"""Settling a tie by ear: a short pairwise blind test of the recommended candidate against those within noise of it.

Where the leaderboard's recommended candidate (``trainer.evaluate.recommend``) has ties, the measures cannot
tell them apart, and a listener may. :func:`offer_of` says so for a leaderboard's rows; :func:`plan` lays out
:data:`TRIALS` pairwise trials (the recommended candidate against each tied one in turn, on the scored lines in
turn, A and B counterbalanced); the ratings are a ``trainer.evaluate.listening.ListeningTest`` saved as the other
blind tests save theirs (:func:`open_tie_break`); :func:`outcome` reads whom the listener preferred and by how
much (the win rate with its 95% Wilson interval, ``ListeningTest.standings``) and whether the recommendation
follows the ear, by :data:`RULE`. Plain Python: no Qt.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from trainer.evaluate.bands import DEFAULT_BANDS, Bands
from trainer.evaluate.board import Row
from trainer.evaluate.evaluation import Evaluation, listed, measure_name
from trainer.evaluate.listening import ListeningTest, Rating, RatingsError, Standing, wilson_interval
from trainer.evaluate.recommend import BLIND_TRIALS, SUMMARISED, recommend
from trainer.evaluate.summary import evaluations_of
from trainer.evaluate.trials import Trial, new_test, open_test

TRIALS = BLIND_TRIALS
"""Trials of the tie-break (the number ``recommend``'s reason promises)."""
RATINGS_FILE = "tie-break.json"
"""The tie-break's ratings file in the folder where a comparison is kept (beside the blind test's)."""


def wins_needed(trials: int = TRIALS) -> int:
    """The fewest wins in ``trials`` whose 95% Wilson interval lies wholly above 50% (5 trials: 5); ``trials + 1``
    when none does."""
    return next((k for k in range(trials + 1) if wilson_interval(k, trials)[0] > 0.5), trials + 1)


RULE = (
    "A listener's choice counts when the 95% Wilson interval of its win rate lies above 50% "
    f"(in {TRIALS} trials: {wins_needed()} of {TRIALS}); then the recommendation follows the ear."
)
"""When the recommended row follows the listener (the rule the page states beside the result)."""
MEASURES_PREFIX = "Recommended: "
"""How ``recommend``'s reason begins (``Recommended: epoch 6, the highest similarity …``)."""


@dataclass(frozen=True, kw_only=True)
class Offer:
    """A blind test that can settle a tie.

    Attributes:
        recommended: the label of the row the measures recommend.
        tied: the labels of the rows within noise of it, best first.
        names: label -> how a sentence names it (``epoch 6``).
        said: ``Epoch 6 and epoch 5 are within noise on every measure`` (or on which measures, and not on which).
    """

    recommended: str
    tied: list[str]
    names: dict[str, str] = field(default_factory=dict)
    said: str = ""

    @property
    def candidates(self) -> list[str]:
        """The labels the test compares: the recommended first, then the tied ones."""
        return [self.recommended, *self.tied]

    def name(self, label: str) -> str:
        """How a sentence names ``label`` (the label itself where unknown)."""
        return self.names.get(label, label)

    def sentence(self) -> str:
        """The offer as the leaderboard shows it beside its button: ``…: settle it by ear.``"""
        return f"{self.said}: settle it by ear."

    def line(self) -> str:
        """The offer as one line where no test can run (``voice-studio compare``)."""
        return f"{self.said}: settle it by ear with {TRIALS} blind trials on the Compare page's Leaderboard tab."


def offer_of(rows: list[Row], bands: Bands = DEFAULT_BANDS) -> Offer | None:
    """The tie-break a leaderboard's ``rows`` call for (the recommended row has ties; ``recommend``'s rule, as
    ``summary.summarise`` applies it), or ``None``."""
    candidates, start = evaluations_of(rows)
    chosen = recommend(candidates, bands, start, noun="candidate")
    if chosen.chosen is None or not chosen.ties:
        return None
    pick, ties = chosen.chosen, chosen.ties
    names = {e.label: e.name() for e in (pick, *ties)}
    return Offer(recommended=pick.label, tied=[e.label for e in ties], names=names, said=_said(pick, ties, bands))


def _said(pick: Evaluation, ties: list[Evaluation], bands: Bands) -> str:
    """``Epoch 6 and epoch 5 are within noise on every measure`` (:func:`_every`) or ``… on similarity and WER,
    not on MCD``: the measures (``recommend.SUMMARISED``) all of them have, each tied one within its band of
    ``pick`` or not."""
    shared = [m for m in SUMMARISED if all(e.has(m) for e in (pick, *ties))]
    near = [m for m in shared if not any(bands.differs(m, e.values[m], pick.values[m]) for e in ties)]
    apart = [measure_name(m) for m in shared if m not in near]
    names = listed([pick.name(), *(e.name() for e in ties)])
    where = listed([measure_name(m) for m in near]) + f", not on {listed(apart)}" if apart else _every(shared)
    return f"{names[:1].upper()}{names[1:]} are within noise on {where}"


def _every(shared: list[str]) -> str:
    """``every measure`` (all of ``recommend.SUMMARISED`` taken), ``every measure taken`` (most), or ``every
    measure taken (DNSMOS and WER)`` (three or fewer)."""
    if len(shared) == len(SUMMARISED):
        return "every measure"
    few = f" ({listed([measure_name(m) for m in shared])})" if len(shared) <= 3 else ""
    return f"every measure taken{few}"


def plan(test: ListeningTest, recommended: str, lines: int, trials: int = TRIALS) -> list[Trial]:
    """The tie-break's ``trials`` pairwise trials, drawn from the test's seed (a reopened test shows the same ones).

    Trial ``k`` plays ``recommended`` against the ``k``-th other candidate in turn, on the lines in a shuffled
    turn; A and B are drawn the first time a pair meets on a line and swapped each time it meets there again.

    Raises:
        ValueError: ``recommended`` not in the test, or no lines.
    """
    if recommended not in test.candidates:
        raise ValueError(f"{recommended!r} is not in this test")
    if lines < 1:
        raise ValueError("a tie-break needs a line to play")
    rng = random.Random(f"{test.seed}:tie-break")
    others = [c for c in test.candidates if c != recommended]
    order = rng.sample(range(lines), lines)
    first: dict[tuple[str, int], bool] = {}
    met = Counter[tuple[str, int]]()
    out = []
    for k in range(trials):
        pair = (others[k % len(others)], order[k % lines])
        swapped = first.setdefault(pair, rng.random() < 0.5) ^ (met[pair] % 2 == 1)
        met[pair] += 1
        a, b = (pair[0], recommended) if swapped else (recommended, pair[0])
        out.append(Trial(kind="pairwise", line=pair[1], a=a, b=b))
    return out


def answer(test: ListeningTest, trial: Trial, line: str, side: int) -> Rating:
    """Rate ``trial`` (its line's text ``line``): side 1 (A) or 2 (B) sounded better; the rating is added to the
    test (a trial met again on its line adds another). After the last trial the test is revealed (rating closes).

    Raises:
        ValueError: ``side`` not 1 or 2, or the test is finished.
    """
    if side not in (1, 2):
        raise ValueError(f"side {side}: use 1 (A) or 2 (B)")
    if finished(test):
        raise ValueError("the tie-break is finished")
    rating = Rating(kind="pairwise", line=line, a=trial.a, b=trial.b, choice=trial.a if side == 1 else trial.b)
    test.rate(rating)
    if finished(test):
        test.reveal()
    return rating


def finished(test: ListeningTest, trials: int = TRIALS) -> bool:
    """Whether every trial is rated."""
    return len(test.ratings) >= trials


def fits(test: ListeningTest, offer: Offer, lines: list[str]) -> bool:
    """Whether ``test`` is a tie-break of ``offer``'s candidates on ``lines``: its ratings all pairwise, on those
    lines, at most :data:`TRIALS`."""
    ours = all(r.kind == "pairwise" and r.line in lines for r in test.ratings) and len(test.ratings) <= TRIALS
    return set(test.candidates) == set(offer.candidates) and ours


def saved_tie_break(offer: Offer, lines: list[str], path: Path) -> ListeningTest | None:
    """The tie-break saved at ``path`` when it is one of ``offer`` on ``lines`` (:func:`fits`), else ``None``;
    nothing is written."""
    if not path.is_file():
        return None
    try:
        test = ListeningTest.load(path)
    except RatingsError:
        return None
    return test if fits(test, offer, lines) else None


def open_tie_break(offer: Offer, lines: list[str], path: Path) -> tuple[ListeningTest, str]:
    """The tie-break of ``offer`` on ``lines``: the one at ``path`` (or set aside beside it) reopened
    (``trials.open_test``), else a new one saved there; one that rated other lines is set aside for a new one.
    Returns the test and a notice ('' if none).

    Raises:
        OSError: the folder cannot be made or written.
    """
    test, notice = open_test(offer.candidates, path, lines)
    if fits(test, offer, lines):
        return test, notice
    return new_test(offer.candidates, path)


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What a finished tie-break says.

    Attributes:
        preferred: the label the listener preferred (the highest win rate; the measures' pick among equals).
        standing: its wins of its trials, win rate and 95% Wilson interval.
        clear: whether the interval lies wholly above 50% (:data:`RULE`).
        measures_pick: the label the measures recommend.
        recommended: the label now recommended: ``preferred`` when clear, else ``measures_pick``.
        sentence: ``By ear, you preferred epoch 5 to epoch 6 in 5 of 5 blind trials (100%, 95% CI 57%–100%): …``.
        headline: where the recommendation follows the ear, the leaderboard's line for it: ``Recommended by ear:
            epoch 5, preferred in 5 of 5 blind trials.``; else "".
    """

    preferred: str
    standing: Standing
    clear: bool
    measures_pick: str
    recommended: str
    sentence: str
    headline: str = ""

    @property
    def overrides(self) -> bool:
        """Whether the ear moved the recommendation off the measures' pick."""
        return self.recommended != self.measures_pick


def outcome(test: ListeningTest, offer: Offer) -> Outcome | None:
    """The listener's preference in a finished tie-break of ``offer`` (``None`` before every trial is rated)."""
    if not finished(test):
        return None
    standings = [s for s in test.standings() if s.trials]
    best = max(standings, key=lambda s: (s.rate, s.candidate == offer.recommended))
    clear = best.low > 0.5
    pick = offer.recommended
    follows = clear and best.candidate != pick
    headline = (
        f"Recommended by ear: {offer.name(best.candidate)}, preferred in {best.wins} of {best.trials} blind trials."
    )
    return Outcome(
        preferred=best.candidate,
        standing=best,
        clear=clear,
        measures_pick=pick,
        recommended=best.candidate if clear else pick,
        sentence=_outcome_sentence(best, clear, offer),
        headline=headline if follows else "",
    )


def _outcome_sentence(best: Standing, clear: bool, offer: Offer) -> str:
    """``By ear, you preferred epoch 5 to epoch 6 in 5 of 5 blind trials (100%, 95% CI 57%–100%): clear, so …``."""
    pick, preferred = offer.name(offer.recommended), offer.name(best.candidate)
    against = [pick] if best.candidate != offer.recommended else [offer.name(t) for t in offer.tied]
    interval = f"{_percent(best.rate)}, 95% CI {_percent(best.low)}–{_percent(best.high)}"
    said = f"By ear, you preferred {preferred} to {listed(against)} in {best.wins} of {best.trials} blind trials"
    if not clear:
        return (
            f"{said} ({interval}): not clear (the interval reaches 50%), so {pick} stays recommended by the measures."
        )
    if best.candidate == offer.recommended:
        return f"{said} ({interval}): clear, and the measures agree: {pick} stays recommended."
    return f"{said} ({interval}): clear, so the recommendation follows your ear to {preferred}."


def measures_reason(reason: str) -> str:
    """``recommend``'s reason said as the measures' (``Recommended by the measures: epoch 6, …``), for beside a
    recommendation that follows the ear."""
    return "Recommended by the measures: " + reason.removeprefix(MEASURES_PREFIX)


def _percent(value: float) -> str:
    """``0.625`` -> ``62%``."""
    return f"{100 * value:.0f}%"
