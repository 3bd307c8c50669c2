"""Blind listening tests: hidden labels, ratings kept on disk, win rates with confidence intervals.

Three kinds of trial, as listening tests in speech synthesis run them:

- ``pairwise``: which of two candidates sounds better on a line (``choice`` is the preferred candidate);
- ``abx``: is X the same as A or as B (``choice`` is the answer, ``truth`` the candidate X was);
- ``mushra``: a 0-100 score per candidate on a line (ITU-R BS.1534-3, with a hidden reference and an
  anchor where a recording exists).

Candidates are shown under shuffled letters (``A``, ``B``, ...) until :meth:`ListeningTest.reveal`.
Ratings are saved as versioned JSON (beside the run, or in the user data folder for loose voices)
and exported as CSV. Plain Python: the Compare page observes a :class:`ListeningTest`; no Qt here.
"""

from __future__ import annotations

import csv
import io
import json
import math
import random
import string
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engines.base import VoiceError
from engines.files import write_text
from engines.imports import importing
from engines.records import read_json_object, record

VERSION = 1
"""Version of the ratings file."""
KINDS = ("pairwise", "abx", "mushra")
"""Trial kinds a rating may be."""
Z_95 = 1.959963984540054
"""Two-sided 95% standard normal quantile, Phi^-1(0.975)."""
CSV_FIELDS = ("kind", "line", "a", "b", "choice", "truth", "scores")
HIDDEN_REFERENCE = "hidden reference"
"""MUSHRA score key of the recording itself, rated blind among the candidates (ITU-R BS.1534-3)."""
ANCHOR = "anchor 3.5 kHz"
"""MUSHRA score key of the low anchor: the recording low-pass filtered at 3.5 kHz (ITU-R BS.1534-3)."""
MUSHRA_CONTROLS = (HIDDEN_REFERENCE, ANCHOR)
"""Score keys a MUSHRA rating may hold besides the test's candidates (for screening listeners)."""
SCREEN_REFERENCE_BELOW = 90.0
SCREEN_SHARE = 0.15
"""ITU-R BS.1534-3 post-screening: a listener who rates the hidden reference below 90 on more than 15% of the
trials is excluded (here: the results say so)."""
ANCHOR_CUTOFF_HZ = 3500.0
"""Cut-off of the MUSHRA low anchor (ITU-R BS.1534-3: "low-pass filtered version of the original
signal with a cut-off frequency of 3.5 kHz")."""


class RatingsError(VoiceError):
    """A ratings file or CSV that cannot be read; the message names the file and the field."""


def wilson_interval(wins: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a proportion ``wins / n`` (E. B. Wilson, "Probable inference, the law of
    succession, and statistical inference", JASA 22 (1927), 209-212).

    Unlike the normal (Wald) interval it stays inside [0, 1] and is sensible for few trials and for 0 or n
    wins, which listening tests with a handful of ratings produce.

    Returns:
        ``(low, high)``, proportions in [0, 1]; ``(0.0, 1.0)`` when ``n`` is 0 (nothing is known).

    Raises:
        ValueError: ``wins`` outside ``[0, n]``.
    """
    if not 0 <= wins <= n:
        raise ValueError(f"wins must be between 0 and n ({n}), not {wins}")
    if n == 0:
        return 0.0, 1.0
    p, z2 = wins / n, z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, kw_only=True)
class Rating:
    """One trial's answer; candidates are named by their real labels (never the blind letters).

    Attributes:
        kind: one of ``KINDS``.
        line: the text (or line id) the trial played.
        a, b: the two candidates compared (``pairwise``, ``abx``); empty for ``mushra``.
        choice: the preferred candidate (``pairwise``) or the answer for X (``abx``).
        truth: the candidate X was (``abx``).
        scores: candidate -> 0-100 (``mushra``).
    """

    kind: str
    line: str
    a: str = ""
    b: str = ""
    choice: str = ""
    truth: str = ""
    scores: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"rating kind {self.kind!r}: use one of {', '.join(KINDS)}")
        if self.kind != "mushra" and self.choice not in (self.a, self.b):
            raise ValueError(f"choice {self.choice!r} is neither {self.a!r} nor {self.b!r}")
        if any(not 0 <= s <= 100 for s in self.scores.values()):
            raise ValueError("MUSHRA scores are from 0 to 100")


@dataclass(frozen=True, kw_only=True)
class Standing:
    """A candidate's pairwise record: ``wins`` of ``trials``, the win rate and its 95% Wilson interval."""

    candidate: str
    wins: int
    trials: int
    rate: float
    low: float
    high: float


class ListeningTest:
    """Candidates under blind letters, the ratings given, and what they say once revealed.

    Args:
        candidates: real labels (file names, "epoch 120"...), in the order the user chose them.
        seed: shuffles the letters (saved, so a reopened test shows the same letters).
    """

    def __init__(self, candidates: list[str], seed: int | None = None) -> None:
        if len(set(candidates)) != len(candidates) or len(candidates) < 2:
            raise ValueError("a listening test needs two or more distinct candidates")
        self.candidates = list(candidates)
        self.seed = random.randrange(2**31) if seed is None else seed
        order = self.candidates[:]
        random.Random(self.seed).shuffle(order)
        self._letters = {c: _letter(i) for i, c in enumerate(order)}
        self.ratings: list[Rating] = []
        self.revealed = False

    def letter(self, candidate: str) -> str:
        """The blind letter a candidate is shown under."""
        return self._letters[candidate]

    def candidate(self, letter: str) -> str:
        """The candidate behind a letter (for playing and rating; the page shows only the letter)."""
        return next(c for c, shown in self._letters.items() if shown == letter)

    def shown_name(self, candidate: str) -> str:
        """What the page may show: the test's letter until :meth:`reveal`, then the real label only (trials
        show letters as positions A/B within each trial, so a revealed letter would mislead)."""
        return candidate if self.revealed else self.letter(candidate)

    def rate(self, rating: Rating) -> None:
        """Add one answer (its candidates must be in the test)."""
        scored = (name for name in rating.scores if name not in MUSHRA_CONTROLS)
        named = {rating.a, rating.b, rating.choice, rating.truth, *scored} - {""}
        unknown = named - set(self.candidates)
        if unknown:
            raise ValueError(f"not in this test: {', '.join(sorted(unknown))}")
        self.ratings.append(rating)

    def reveal(self) -> None:
        """Show the real labels from now on (the ratings given so far are kept)."""
        self.revealed = True

    def standings(self) -> list[Standing]:
        """Pairwise win rates with 95% Wilson intervals, best first (ties keep the user's order)."""
        wins, trials = Counter[str](), Counter[str]()
        for r in self.ratings:
            if r.kind == "pairwise":
                trials.update((r.a, r.b))
                wins[r.choice] += 1
        rows = [_standing(c, wins[c], trials[c]) for c in self.candidates]
        return sorted(rows, key=lambda s: -s.rate)

    def preference_by_line(self) -> dict[str, dict[str, int]]:
        """Per line, how often each candidate was preferred in pairwise trials."""
        out: dict[str, dict[str, int]] = {}
        for r in self.ratings:
            if r.kind == "pairwise":
                out.setdefault(r.line, {})[r.choice] = out.get(r.line, {}).get(r.choice, 0) + 1
        return out

    def abx_accuracy(self) -> tuple[int, int, tuple[float, float]]:
        """ABX answers right, of all, with the 95% Wilson interval (near 0.5: the listener hears no
        difference)."""
        trials = [r for r in self.ratings if r.kind == "abx"]
        right = sum(r.choice == r.truth for r in trials)
        return right, len(trials), wilson_interval(right, len(trials))

    def mushra_means(self) -> dict[str, tuple[float, float, int]]:
        """Per candidate (and ``MUSHRA_CONTROLS`` where rated): mean MUSHRA score, the half-width of its 95%
        normal interval, and the count."""
        scores: dict[str, list[float]] = {}
        for r in self.ratings:
            for candidate, score in r.scores.items():
                scores.setdefault(candidate, []).append(score)
        return {c: _mean_interval(v) for c, v in scores.items()}

    def reference_screening(self) -> tuple[int, int]:
        """MUSHRA post-screening (ITU-R BS.1534-3, 4.1.2): ``(trials where the hidden reference was rated below
        ``SCREEN_REFERENCE_BELOW``, MUSHRA trials that rated it)``."""
        rated = [r.scores[HIDDEN_REFERENCE] for r in self.ratings if HIDDEN_REFERENCE in r.scores]
        return sum(score < SCREEN_REFERENCE_BELOW for score in rated), len(rated)

    def reference_unreliable(self) -> bool:
        """True when the hidden reference was rated below 90 on more than 15% of MUSHRA trials (ITU-R BS.1534-3's
        post-screening: such a listener's ratings may not be reliable)."""
        below, rated = self.reference_screening()
        return rated > 0 and below > SCREEN_SHARE * rated

    # --- files -----------------------------------------------------------------------------------
    def save(self, path: Path | str) -> Path:
        """Write the test (candidates, letters' seed, revealed, ratings) as JSON, atomically."""
        data = {"version": VERSION, "candidates": self.candidates, "seed": self.seed, "revealed": self.revealed}
        data["ratings"] = [asdict(r) for r in self.ratings]
        return write_text(path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")

    @classmethod
    def load(cls, path: Path | str) -> ListeningTest:
        """Read a test saved by :meth:`save`.

        Raises:
            RatingsError: not JSON, another version, or a missing or mistyped field (named).
        """
        path = Path(path)
        data = read_json_object(path, RatingsError)
        if data.get("version") != VERSION:
            raise RatingsError(path, f"version {data.get('version')!r} is not {VERSION}", field="version")
        saved = record(_Saved, {k: v for k, v in data.items() if k != "version"}, path, "test", RatingsError)
        test = cls(saved.candidates, seed=saved.seed)
        test.revealed = saved.revealed
        for i, raw in enumerate(saved.ratings):
            test.rate(_rating(raw, path, f"ratings[{i}]"))
        return test

    def to_csv(self) -> str:
        """The ratings as CSV (``CSV_FIELDS``; ``scores`` as JSON), one row per rating, real labels."""
        out = io.StringIO()
        writer = csv.DictWriter(out, CSV_FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in self.ratings:
            writer.writerow({**asdict(r), "scores": json.dumps(r.scores) if r.scores else ""})
        return out.getvalue()

    def read_csv(self, text: str, source: Path | str = "<csv>") -> list[Rating]:
        """Ratings from :meth:`to_csv` text (not added to the test).

        Raises:
            RatingsError: a row whose fields do not make a rating (names the row).
        """
        rows = list(csv.DictReader(io.StringIO(text)))
        ratings = []
        for i, row in enumerate(rows, start=2):
            raw = {**row, "scores": json.loads(row["scores"]) if row.get("scores") else {}}
            ratings.append(_rating(raw, Path(source), f"line {i}"))
        return ratings


@dataclass(kw_only=True)
class _Saved:
    candidates: list[str]
    seed: int
    revealed: bool
    ratings: list[dict[str, Any]]


def _rating(raw: dict[str, Any], path: Path, where: str) -> Rating:
    try:
        return Rating(**raw)
    except (TypeError, ValueError) as exc:
        raise RatingsError(path, f"{where}: {exc}") from None


def _letter(i: int) -> str:
    return (
        string.ascii_uppercase[i]
        if i < 26
        else f"{string.ascii_uppercase[i // 26 - 1]}{string.ascii_uppercase[i % 26]}"
    )


def _standing(candidate: str, wins: int, trials: int) -> Standing:
    low, high = wilson_interval(wins, trials)
    return Standing(
        candidate=candidate, wins=wins, trials=trials, rate=wins / trials if trials else 0.0, low=low, high=high
    )


def _mean_interval(values: list[float]) -> tuple[float, float, int]:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, math.inf, n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    return mean, Z_95 * sd / math.sqrt(n), n


def lowpass_anchor(audio: np.ndarray, rate: int, cutoff_hz: float = ANCHOR_CUTOFF_HZ) -> np.ndarray:
    """The MUSHRA low anchor of a recording: ``audio`` low-pass filtered at ``cutoff_hz`` (ITU-R BS.1534-3),
    by a zero-phase 8th-order Butterworth filter (``scipy.signal``; the standard names the cut-off, not
    the filter).

    Args:
        audio: float mono samples ``[N]``.
        rate: sample rate, Hz; at or below ``2 * cutoff_hz`` nothing lies above the cut-off and a copy returns.

    Returns:
        float32 ``[N]``, same rate.
    """
    with importing("scipy.signal"):
        from scipy.signal import butter, sosfiltfilt

    samples = np.asarray(audio, dtype=np.float64)
    if rate <= 2 * cutoff_hz or samples.size < 60:
        return samples.astype(np.float32)
    sos = butter(8, cutoff_hz, btype="lowpass", fs=rate, output="sos")
    return sosfiltfilt(sos, samples).astype(np.float32)
