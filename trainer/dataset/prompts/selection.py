"""The next prompts to record, chosen greedily for the phonemes and diphones not yet covered.

Each step takes the corpus line that adds the most of what is missing, judged in this order (``_rank``):

1. phonemes not yet heard at all (a voice cannot learn a sound it never hears), however long the line;
2. diphones not yet heard (``trainer.dataset.prompts.units`` says what a diphone is here) per word to read,
3. diphones heard only once per word to read (so, once every pair is in, second takes of each come next);

then, on a tie, the line with fewer words, then the earlier line. "Per word" is per minute of recording: a line
costs its words (as the front end reads them) plus one, a word's time (0.4 s) for the take's start and end, so a
two-word line is not nearly free. Per line instead, the longest lines come first and cover less a minute: on the
shipped set, after 3.8 minutes of speech (600 words), 737 diphones per line against 802 per word. Lines already
recorded count as covered before the first step and are never offered again. The keys are exact (integers and
fractions) and every tie is broken by the corpus order, so the same corpus, voice and recorded lines give the same
prompts. A line too long for one training clip (more ``phoneme_ids`` than the dataset's ``too_long`` limit,
``engines.long_sentences.MAX_PHONEME_IDS``) is never offered: its take would be kept out of training; nor is a
line with nothing to say (no phoneme: "...", a dash).

Greedy choice is the classic way to cover a set (Chvátal 1979, "A greedy heuristic for the set-covering problem",
Math. Oper. Res. 4(3)) and how recording scripts are built for coverage (Kominek and Black 2003, "CMU ARCTIC
databases for speech synthesis", CMU-LTI-03-177: greedy selection for diphone coverage). Since what a line adds
only shrinks as others are chosen, the search is lazy (Minoux 1978): a line's old gain is an upper bound, so it
is recomputed only when it reaches the top of the queue.
"""

from __future__ import annotations

import heapq
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from engines.long_sentences import MAX_PHONEME_IDS
from trainer.dataset.prompts.corpus import text_key
from trainer.dataset.prompts.units import Prompt


@dataclass(frozen=True, kw_only=True)
class Coverage:
    """How many of the units seen in the corpus (and the recorded lines) some chosen or recorded line says."""

    phonemes: int
    phonemes_seen: int
    diphones: int
    diphones_seen: int

    def describe(self) -> str:
        """``covered 512 of 1,014 diphones and 44 of 46 phonemes seen in the corpus``."""
        return (
            f"covered {self.diphones:,} of {self.diphones_seen:,} diphones and {self.phonemes} of "
            f"{self.phonemes_seen} phonemes seen in the corpus"
        )


@dataclass(frozen=True, kw_only=True)
class Selection:
    """The prompts chosen, in the order to record them, and the coverage before and after them.

    Attributes:
        chosen: the prompts, best first.
        recorded: the lines counted as recorded (the corpus lines among them were not offered).
        before: the coverage of the recorded lines alone.
        after: the coverage of the recorded and the chosen lines.
        too_long: the corpus lines left out as too long for one training clip (over ``MAX_PHONEME_IDS``).
        unspoken: the corpus lines left out as having nothing to say (no phoneme).
    """

    chosen: list[Prompt]
    recorded: list[Prompt]
    before: Coverage
    after: Coverage
    too_long: list[Prompt]
    unspoken: list[Prompt]


def coverage(said: list[Prompt], seen: list[Prompt]) -> Coverage:
    """The units of ``said`` among those of ``seen`` (which should include ``said``)."""
    phonemes = set().union(*(p.phonemes for p in seen))
    diphones = set().union(*(p.diphones for p in seen))
    return Coverage(
        phonemes=len(set().union(*(p.phonemes for p in said))),
        phonemes_seen=len(phonemes),
        diphones=len(set().union(*(p.diphones for p in said))),
        diphones_seen=len(diphones),
    )


class _Heard:
    """How many times each phoneme and diphone has been heard in the lines counted so far."""

    def __init__(self, lines: list[Prompt]) -> None:
        self.phonemes: Counter[str] = Counter()
        self.diphones: Counter[tuple[str, str]] = Counter()
        for line in lines:
            self.add(line)

    def add(self, line: Prompt) -> None:
        self.phonemes.update(line.phonemes)
        self.diphones.update(line.diphones)

    def gain(self, line: Prompt) -> tuple[int, int, int]:
        """(phonemes never heard, diphones never heard, diphones heard once) that ``line`` says."""
        return (
            sum(1 for p in line.phonemes if not self.phonemes[p]),
            sum(1 for d in line.diphones if not self.diphones[d]),
            sum(1 for d in line.diphones if self.diphones[d] == 1),
        )


TAKE_WORDS = 1
"""Words' time a take costs beyond its own words (its start and end); see the module's docstring."""


def _rank(heard: _Heard, line: Prompt) -> tuple[int, Fraction, Fraction, int, int]:
    """The heap key of ``line``: smallest is best (new phonemes, then new and once-heard diphones per word,
    negated; then fewer words, then the earlier line)."""
    phonemes, diphones, once = heard.gain(line)
    cost = line.words + TAKE_WORDS
    return (-phonemes, Fraction(-diphones, cost), Fraction(-once, cost), line.words, line.index)


def choose(candidates: list[Prompt], recorded: list[Prompt], count: int) -> Selection:
    """The next ``count`` prompts (fewer where the corpus runs out) of ``candidates`` given the ``recorded`` lines
    (candidates with a recorded line's text, or too long for one clip, are left out); see the module's docstring
    for the rule."""
    done = {text_key(line.text) for line in recorded}
    heard = _Heard(recorded)
    queue = [(_rank(heard, line), line) for line in fitting(candidates) if text_key(line.text) not in done]
    heapq.heapify(queue)
    chosen: list[Prompt] = []
    while queue and len(chosen) < count:
        _, line = heapq.heappop(queue)
        fresh = _rank(heard, line)
        if queue and fresh > queue[0][0]:  # another line's bound beats what this one adds now
            heapq.heappush(queue, (fresh, line))
            continue
        chosen.append(line)
        heard.add(line)
    return _selection(candidates, recorded, chosen)


def in_order(candidates: list[Prompt], recorded: list[Prompt], count: int) -> Selection:
    """The first ``count`` of ``candidates`` in their own order, those with a recorded line's text or too long for
    one clip left out (a person's own list, recorded as written)."""
    done = {text_key(line.text) for line in recorded}
    return _selection(candidates, recorded, [p for p in fitting(candidates) if text_key(p.text) not in done][:count])


def fitting(candidates: list[Prompt]) -> list[Prompt]:
    """The lines with something to say and short enough for one training clip (``MAX_PHONEME_IDS`` or fewer
    ``phoneme_ids``)."""
    return [line for line in candidates if line.phonemes and line.phoneme_ids <= MAX_PHONEME_IDS]


def _selection(candidates: list[Prompt], recorded: list[Prompt], chosen: list[Prompt]) -> Selection:
    seen = fitting(candidates) + recorded
    return Selection(
        chosen=chosen,
        recorded=recorded,
        before=coverage(recorded, seen),
        after=coverage(recorded + chosen, seen),
        too_long=[line for line in candidates if line.phoneme_ids > MAX_PHONEME_IDS],
        unspoken=[line for line in candidates if not line.phonemes],
    )
