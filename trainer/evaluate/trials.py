"""The trials of a blind listening test: which candidates each trial plays, in which hidden order.

A :class:`~trainer.evaluate.listening.ListeningTest` keeps candidates and ratings; this module lays out the
trials a listener goes through, drawn from the test's saved seed so a reopened test shows the same trials
in the same order, and finds the rating a trial already has. Plain Python, no Qt.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from trainer.evaluate.listening import MUSHRA_CONTROLS, ListeningTest, Rating, RatingsError

MODES = ("pairwise", "abx", "mushra")
"""Trial kinds, as ``listening.KINDS``."""


@dataclass(frozen=True, kw_only=True)
class Trial:
    """One trial.

    Attributes:
        kind: one of ``MODES``.
        line: index of the line in the test's lines.
        a, b: the candidates played as A and B (``pairwise``, ``abx``); empty for ``mushra``.
        x: the candidate X is (``abx``).
        order: the hidden order of the sliders (``mushra``): the candidates and ``MUSHRA_CONTROLS``.
    """

    kind: str
    line: int
    a: str = ""
    b: str = ""
    x: str = ""
    order: tuple[str, ...] = ()


def plan_trials(test: ListeningTest, kind: str, references: list[bool]) -> list[Trial]:
    """The trials of one kind, shuffled by the test's seed.

    ``pairwise`` and ``abx``: every pair of candidates on every line (A and B in random order; X one of
    them at random); ``mushra``: one trial per line that has a reference (``references[i]``), with all
    candidates, the hidden reference and the anchor as sliders in random order.

    Raises:
        ValueError: an unknown ``kind``.
    """
    if kind not in MODES:
        raise ValueError(f"trial kind {kind!r}: use one of {', '.join(MODES)}")
    rng = random.Random(f"{test.seed}:{kind}")
    trials = []
    if kind == "mushra":
        for line, has_reference in enumerate(references):
            if has_reference:
                order = [*test.candidates, *MUSHRA_CONTROLS]
                rng.shuffle(order)
                trials.append(Trial(kind=kind, line=line, order=tuple(order)))
        return trials
    for line in range(len(references)):
        for pair in itertools.combinations(test.candidates, 2):
            a, b = rng.sample(pair, 2)
            trials.append(Trial(kind=kind, line=line, a=a, b=b, x=rng.choice((a, b)) if kind == "abx" else ""))
    rng.shuffle(trials)
    return trials


def trial_rating(test: ListeningTest, trial: Trial, line_text: str) -> Rating | None:
    """The rating already given for ``trial`` (its line shown as ``line_text``), or ``None``."""
    return next((r for r in test.ratings if _same_trial(r, trial, line_text)), None)


def _same_trial(rating: Rating, trial: Trial, line_text: str) -> bool:
    if rating.kind != trial.kind or rating.line != line_text:
        return False
    return trial.kind == "mushra" or {rating.a, rating.b} == {trial.a, trial.b}


def replace_rating(test: ListeningTest, trial: Trial, line_text: str, rating: Rating) -> None:
    """Put ``rating`` in the test in place of the one ``trial`` had (a changed answer replaces the first)."""
    old = trial_rating(test, trial, line_text)
    if old is not None:
        test.ratings.remove(old)
    test.rate(rating)


def counted(n: int, noun: str) -> str:
    """``1 rating``, ``2 ratings`` (``noun`` singular, plural with an ``s``)."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def reopened(test: ListeningTest, lines: list[str], where: str) -> str:
    """The notice for a reopened test: how many of its ratings are for ``lines`` (the ones the trials show),
    and how many are kept for other lines."""
    shown = set(lines)
    here = sum(r.line in shown for r in test.ratings)
    other = len(test.ratings) - here
    rest = f" ({counted(other, 'rating')} of other lines kept in it)" if other else ""
    return f"Reopened {counted(here, 'rating')} of these candidates on these lines from {where}{rest}."


def open_test(candidates: list[str], path: Path, lines: list[str] | None = None) -> tuple[ListeningTest, str]:
    """The test of these candidates (in any order): the one saved at ``path``, else one set aside earlier
    beside it (moved back to ``path``), else a new one saved there.

    A file at ``path`` for other candidates, or unreadable, is first set aside (``NAME.YYYYmmdd-HHMMSS.json``),
    never overwritten, so choosing those candidates again reopens it. Returns the test and a notice for the
    user ('' if none), which counts the ratings of ``lines`` (ratings are tied to their line's text; default:
    every rating's line).

    Raises:
        OSError: the folder cannot be made or written.
    """
    notice = ""
    if path.exists():
        saved, reason = _load(path)
        if saved is not None and set(saved.candidates) == set(candidates):
            return saved, reopened(saved, _lines_of(saved, lines), path.name)
        kept = _set_aside(path)
        notice = f"The ratings in {path} {reason}; they are kept as {kept.name}. "
    earlier = _aside_for(candidates, path)
    if earlier is not None:
        earlier.rename(path)
        test = ListeningTest.load(path)
        return test, notice + reopened(test, _lines_of(test, lines), earlier.name)
    return _fresh(candidates, path, notice)


def new_test(candidates: list[str], path: Path) -> tuple[ListeningTest, str]:
    """Start over: the test at ``path`` (if any) is set aside as ``open_test`` does for other candidates, and a
    new test of ``candidates`` (new letters and trials, no ratings) is saved there. Returns it and a notice.

    Raises:
        OSError: the file cannot be renamed or written.
    """
    notice = ""
    if path.exists():
        notice = f"The earlier ratings are kept as {_set_aside(path).name}. "
    test, _ = _fresh(candidates, path, "")
    return test, notice + "A new test begins: new letters, no ratings."


def _lines_of(test: ListeningTest, lines: list[str] | None) -> list[str]:
    return [r.line for r in test.ratings] if lines is None else lines


def _fresh(candidates: list[str], path: Path, notice: str) -> tuple[ListeningTest, str]:
    test = ListeningTest(list(candidates))
    path.parent.mkdir(parents=True, exist_ok=True)
    test.save(path)
    return test, notice + ("A new test begins." if notice else "")


def _load(path: Path) -> tuple[ListeningTest | None, str]:
    """The test in ``path`` and '', or ``None`` and why it is not this test."""
    try:
        return ListeningTest.load(path), "were for other candidates"
    except RatingsError as exc:
        return None, f"could not be read ({exc})"


def _aside_for(candidates: list[str], path: Path) -> Path | None:
    """The newest file set aside beside ``path`` that holds a test of these candidates, or ``None``."""
    for kept in sorted(path.parent.glob(f"{path.stem}.*{path.suffix}"), key=lambda p: p.stat().st_mtime, reverse=True):
        saved, _ = _load(kept)
        if saved is not None and set(saved.candidates) == set(candidates):
            return kept
    return None


def _set_aside(path: Path) -> Path:
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    kept = path.with_name(f"{path.stem}.{stamp}{path.suffix}")
    n = 1
    while kept.exists():
        n += 1
        kept = path.with_name(f"{path.stem}.{stamp}-{n}{path.suffix}")
    path.rename(kept)
    return kept
