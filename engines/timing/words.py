"""Which phonemes of a sentence say which written word.

espeak-ng gives a sentence's phonemes with a space between words, but its words are not always the text's:
it runs short words together (``for a`` -> "fɚɹə", ``of the`` -> "ʌvðə") and says some written words as
several (digits read without the front end). So the text's words are matched to the sentence's phoneme words
by their sounds: each word said is phonemized as said alone (once per distinct word), and a dynamic-programming
alignment pairs the sentence's phoneme words with the next words of the text, allowing one phoneme word for up to
:data:`MOST_JOINED` text words (their phonemes shared out by their lengths), one text word for up to
:data:`MOST_SPLIT` phoneme words, a text word not heard, and a phoneme word in no text word. A sentence takes as
many of the waiting words as match it best (its end in the text is not known beforehand: the alignment is free
at that end). Costs are edit distances of the phonemes without stress marks, over the longer length.
"""

from __future__ import annotations

import functools
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engines.long_sentences import WORD_BREAK
from engines.timing.events import PhonemeWord
from engines.timing.written import WrittenSpan, pair

CLAUSE = ","
"""What espeak-ng ends a clause with in Piper's phonemes: the words of :meth:`WordTracker._learn` are cut at it."""
STRESS = frozenset("ˈˌ")
"""Stress marks: part of a word's phonemes (and its time), not of what it is compared by."""
MOST_JOINED = 3
"""Most text words one phoneme word may say (``for a``)."""
MOST_SPLIT = 6
"""Most phoneme words one text word may take (``1234`` read without the front end: "one thousand two hundred
thirty four")."""
VOWELS = frozenset("aeiouyæɑɒɐəɛɜɞɘɪʊʌɔøœɵɤɯʏɨʉɚɝ")
"""IPA vowel letters: one said for another costs :data:`VOWEL_SWAP` (a word's weak form: "a" is "eɪ" alone and
"ɐ" in a sentence)."""
VOWEL_SWAP = 0.4
MARK_COST = 0.3
"""Adding or dropping a length mark or diacritic (``ː``, combining marks)."""
JOIN_COST = 0.25
"""Added per word joined beyond one, so that a pair of one and one is preferred where it fits as well."""
UNHEARD_COST = 0.7
"""A text word with phonemes that no phoneme word says (a phoneme word with no text word costs the same)."""
LOOK_AHEAD = 8
"""Text words beyond two per phoneme word that a sentence may reach."""
BEAM = 1.2
"""Cells of the alignment costing more than this over the best of their row are not followed."""
SLACK = 2
"""A phoneme word is tried with one more text word while theirs are shorter than it by less than this (a word's
weak form is shorter alone: "for a" is "fɔːɹeɪ" word by word and "fɚɹə" in a sentence); and the other way
round."""

Phonemize = Callable[[str], list[list[str]]]


@dataclass(frozen=True)
class _Said:
    """A word said, waiting for its sentence: its span's index and its phonemes as compared."""

    span: int
    text: str
    key: str


@dataclass(frozen=True)
class _Group:
    """A phoneme word of a sentence: its phonemes as compared, and the indices of its phonemes (stress marks
    included, punctuation not)."""

    key: str
    positions: tuple[int, ...]


class WordTracker:
    """The words of one request, matched to its sentences in order.

    Feed each piece of text as it is normalized (:meth:`add`), then ask each sentence's words (:meth:`words`)
    in the order the sentences are spoken.

    Args:
        text: the whole text synthesized (for the words' character offsets); ``None``: the words have no offsets.
        phonemize: text -> phonemes by sentence (``engines.phonemes.Phonemizer.phonemize``).
        markup: ``text`` is SSML, whose text nodes are fed without their tags: a piece is looked for outside the
            tags only, and one that holds an entity (``&amp;`` fed as ``&``) is not found (no offsets).

    Attributes:
        locating: whether the pieces fed now are written as in ``text`` (set ``False`` while feeding text as said,
            e.g. an SSML part with ``<sub>`` or ``<say-as>``: its words get no offsets).
    """

    def __init__(self, text: str | None, phonemize: Phonemize, *, markup: bool = False) -> None:
        self._text, self._cursor, self._markup = text, 0, markup
        self.locating = True
        self._phonemize = phonemize
        self.spans: list[WrittenSpan] = []
        """Every written span so far; a word's ``index`` is its position here."""
        self._waiting: list[_Said] = []
        self._keys: dict[str, str] = {}

    def add(self, written: str, said: str) -> None:
        """A piece of the text (``written``, a slice of the whole) and what it is said as (``said``)."""
        found = self._find(written)
        offset = None if found < 0 else found
        if offset is not None:
            self._cursor = offset + len(written)
        spans = pair(written, said, offset)
        self._learn([w for span in spans if not span.inline for w in span.spoken])
        for span in spans:
            index = len(self.spans)
            self.spans.append(span)
            self._waiting += [_Said(index, word, self._key(word, span.inline)) for word in span.spoken]

    def _find(self, written: str) -> int:
        """Where ``written`` is in the text from the cursor on (outside tags in markup), or -1."""
        if not written or self._text is None or not self.locating:
            return -1
        found = self._text.find(written, self._cursor)
        while self._markup and found >= 0 and self._text.rfind("<", 0, found) > self._text.rfind(">", 0, found):
            found = self._text.find(written, found + 1)  # inside a tag (an attribute's value): not the text's
        return found

    def words(self, phonemes: Sequence[str]) -> list[PhonemeWord]:
        """The written words of the next sentence (its phonemes, as synthesized), in order."""
        groups = phoneme_groups(phonemes)
        waiting = self._waiting[: 2 * len(groups) + LOOK_AHEAD]
        matches, taken = align([g.key for g in groups], [w.key for w in waiting])
        del self._waiting[:taken]
        placed: list[tuple[_Said, int, int]] = []
        for g1, g2, w1, w2 in matches:
            placed += _share(groups[g1:g2], waiting[w1:w2])
        return self._by_span(placed)

    def _by_span(self, placed: list[tuple[_Said, int, int]]) -> list[PhonemeWord]:
        """Consecutive words of one written span joined into one entry."""
        out: list[PhonemeWord] = []
        for said, first, last in placed:
            if out and out[-1].index == said.span:
                prev = out.pop()
                out.append(_word(self.spans[said.span], said.span, f"{prev.spoken} {said.text}", prev.first, last))
            else:
                out.append(_word(self.spans[said.span], said.span, said.text, first, last))
        return out

    def _key(self, word: str, inline: bool) -> str:
        """A word's phonemes as compared: as said alone (an inline phoneme word as it is)."""
        return phoneme_key(unicodedata.normalize("NFD", word)) if inline else self._keys[word]

    def _learn(self, words: list[str]) -> None:
        """Phonemize the words not seen before, each as said alone: in one espeak-ng call, the words a clause
        each (``, `` between them: no word runs into the next), else (a word that is cut at its own commas) one
        call per word."""
        new = list(dict.fromkeys(w for w in words if w not in self._keys))
        if not new:
            return
        clauses: list[list[str]] = [[]]
        for phoneme in (p for sentence in self._phonemize(", ".join(new)) for p in sentence):
            if phoneme == CLAUSE:
                clauses.append([])
            else:
                clauses[-1].append(phoneme)
        if len(clauses) != len(new):
            clauses = [[p for sentence in self._phonemize(word) for p in sentence] for word in new]
        self._keys.update((word, phoneme_key(found)) for word, found in zip(new, clauses, strict=True))


def _word(span: WrittenSpan, index: int, spoken: str, first: int, last: int) -> PhonemeWord:
    return PhonemeWord(span.text, spoken, index, first, last, span.char_start, span.char_end)


def sounds(phoneme: str) -> bool:
    """Whether a phoneme symbol is a sound (an IPA letter or diacritic), not a stress mark, space or punctuation."""
    return phoneme not in STRESS and unicodedata.category(phoneme[0])[0] in "LM"


def phoneme_key(phonemes) -> str:
    """The sounds of ``phonemes`` (an iterable of symbols) joined: what words are compared by."""
    return "".join(p for p in phonemes if sounds(p))


def phoneme_groups(phonemes: Sequence[str]) -> list[_Group]:
    """The phoneme words of a sentence (split at espeak-ng's spaces), those with sounds only."""
    groups: list[_Group] = []
    positions: list[int] = []
    for index, phoneme in enumerate([*phonemes, WORD_BREAK]):
        if phoneme == WORD_BREAK:
            key = phoneme_key(phonemes[i] for i in positions)
            if key:
                groups.append(_Group(key, tuple(positions)))
            positions = []
        elif phoneme in STRESS or sounds(phoneme):
            positions.append(index)
    return groups


def _share(groups: Sequence[_Group], words: Sequence[_Said]) -> list[tuple[_Said, int, int]]:
    """``(word, first, last)`` phoneme indices of words paired with groups: one word takes all its groups; words
    sharing one group get consecutive runs of its phonemes in proportion to their lengths (at least one each;
    words beyond the group's phonemes get none and are left out)."""
    if len(words) == 1:
        return [(words[0], groups[0].positions[0], groups[-1].positions[-1])]
    positions = groups[0].positions
    words = words[: len(positions)]
    weights = [max(1, len(w.key)) for w in words]
    cuts, total = [0], sum(weights)
    for n in range(1, len(words)):
        share = round(len(positions) * sum(weights[:n]) / total)
        cuts.append(min(max(share, cuts[-1] + 1), len(positions) - (len(words) - n)))
    cuts.append(len(positions))
    return [(word, positions[cuts[n]], positions[cuts[n + 1] - 1]) for n, word in enumerate(words)]


Cell = tuple[float, tuple[int, int]]
"""A reached cell of the alignment: its cost and the step into it ``(phoneme words, text words)``."""


def align(groups: Sequence[str], words: Sequence[str]) -> tuple[list[tuple[int, int, int, int]], int]:
    """The cheapest pairing of all ``groups`` (phoneme words) with a prefix of ``words`` (see the module
    docstring): ``([(g1, g2, w1, w2) paired ranges], words taken)``.

    A beam search over the alignment grid: row by row (phoneme words), only cells within :data:`BEAM` of the
    row's best go on, and a phoneme word is joined with more text words only while they are shorter than it (and
    the other way round, :data:`SLACK`), so a sentence costs a few edit distances per word.
    """
    n, m = len(groups), len(words)
    rows: list[dict[int, Cell]] = [{} for _ in range(n + 1)]
    rows[0][0] = (0.0, (0, 0))
    for i in range(n + 1):
        row, j = rows[i], min(rows[i], default=m + 1)
        floor = min((cost for cost, _ in row.values()), default=0.0)
        while j <= m:
            if j in row and row[j][0] <= floor + BEAM:
                for di, dj, extra in _moves(groups, words, i, j):
                    _reach(rows[i + di], j + dj, row[j][0] + extra, (di, dj))
            j += 1
    taken = min(rows[n], key=lambda j: (rows[n][j][0], -j))
    return _path(rows, n, taken), taken


def _reach(row: dict[int, Cell], j: int, cost: float, step: tuple[int, int]) -> None:
    if j not in row or cost < row[j][0]:
        row[j] = (cost, step)


def _moves(groups: Sequence[str], words: Sequence[str], i: int, j: int):
    """``(phoneme words, text words, cost)`` of each step out of cell ``(i, j)``."""
    n, m = len(groups), len(words)
    if j < m:
        yield 0, 1, UNHEARD_COST if words[j] else 0.0
    if i < n:
        yield 1, 0, UNHEARD_COST
    if i == n or j == m or not words[j]:
        return
    if groups[i] == words[j]:  # said as alone: nothing pairs better
        yield 1, 1, 0.0
        return
    heard = ""
    for k in range(1, min(MOST_JOINED, m - j) + 1):
        heard += words[j + k - 1]
        yield 1, k, distance(groups[i], heard) + JOIN_COST * (k - 1)
        if len(heard) >= len(groups[i]) + SLACK:
            break
    said = groups[i]
    for k in range(2, min(MOST_SPLIT, n - i) + 1):
        if len(said) >= len(words[j]) + SLACK:
            break
        said += groups[i + k - 1]
        yield k, 1, distance(said, words[j]) + JOIN_COST * (k - 1)


def _path(rows: list[dict[int, Cell]], i: int, j: int) -> list[tuple[int, int, int, int]]:
    """The paired ranges on the way back from cell ``(i, j)``."""
    out = []
    while i or j:
        di, dj = rows[i][j][1]
        if di and dj:
            out.append((i - di, i, j - dj, j))
        i, j = i - di, j - dj
    return out[::-1]


@functools.lru_cache(maxsize=4096)
def distance(a: str, b: str) -> float:
    """Edit distance of phoneme strings ``a`` and ``b`` over the longer length: 0 equal, about 1 nothing in
    common. Substitutions cost 1 (:data:`VOWEL_SWAP` between vowels), insertions and deletions 1
    (:data:`MARK_COST` for marks)."""
    if a == b:
        return 0.0
    previous = [0.0]
    for cb in b:
        previous.append(previous[-1] + _indel(cb))
    for ca in a:
        current = [previous[0] + _indel(ca)]
        for y, cb in enumerate(b, 1):
            swap = 0.0 if ca == cb else VOWEL_SWAP if ca in VOWELS and cb in VOWELS else 1.0
            current.append(min(previous[y] + _indel(ca), current[y - 1] + _indel(cb), previous[y - 1] + swap))
        previous = current
    return previous[-1] / max(len(a), len(b))


@functools.lru_cache(maxsize=1024)
def _indel(symbol: str) -> float:
    return 1.0 if unicodedata.category(symbol)[0] == "L" and symbol != "ː" else MARK_COST
