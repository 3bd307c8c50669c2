"""What a prompt makes the speaker say: its phonemes and phoneme pairs, through the voice's own phonemizer.

A line goes through ``engines.phonemes.sentences`` (the text front end first: "$6.75" is read as "six dollars and
seventy five cents", the project's lexicon applied; then Piper's phonemizer, espeak-ng for most voices), so the
units are those the voice will be trained on. Decisions, each a choice between reasonable options:

- A **phoneme** is one of the phonemizer's symbols (the code points the model has ids for) with the length marks
  and combining marks after it folded in: ``iː`` and ``ɜː`` are phonemes of their own, unlike ``i``, and so is
  a nasal ``ɑ̃``. Other modifier letters (espeak-ng's glide ``ʲ``) stay symbols of their own, as in the model.
  The stress marks ``ˈ ˌ`` are left out (they mark a syllable, not a sound), and so are punctuation and the word
  space. A diphthong such as ``aɪ`` is two symbols to the model, so it is two phonemes and one pair here.
- A **diphone** is two phonemes said one after the other, **across word boundaries too**: in connected speech
  "the kitchen" joins ``ə`` to ``k`` as a word-internal pair would be, and a voice must learn that transition.
  Punctuation (a comma, a sentence's end) is a pause, so no pair spans it.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass

from engines.phonemes import PUNCTUATION, Phonemizer, sentences

STRESS = frozenset("ˈˌ")
"""IPA primary and secondary stress marks: left out of the units."""
SPACE = " "
"""The word separator in Piper's phonemes (no pause: pairs run across it)."""
LENGTH = frozenset("ːˑ")
"""IPA long and half-long marks: folded into the phoneme before them, as are combining marks (Unicode category
``Mn``: nasal ``̃``, syllabic ``̩``)."""

Diphone = tuple[str, str]
"""Two phonemes in the order said."""


@dataclass(frozen=True, kw_only=True)
class Prompt:
    """One line of a corpus with what it makes the speaker say.

    Attributes:
        text: the line as written.
        index: its place in the corpus, from 0 (ties go to the earlier line).
        phonemes: the distinct phonemes it says.
        diphones: the distinct phoneme pairs it says.
        words: words as the front end reads the line ("$6.75" is five), for the minutes it takes.
        phoneme_ids: the length of its sentences' ``phoneme_ids`` together, as the dataset's ``too_long`` check
            counts them for a clip of this text.
    """

    text: str
    index: int
    phonemes: frozenset[str]
    diphones: frozenset[Diphone]
    words: int
    phoneme_ids: int = 0


def phrases(symbols: list[str]) -> list[list[str]]:
    """One sentence's phonemizer symbols as runs of phonemes without a pause, modifiers folded in, stress marks
    and word spaces left out; punctuation ends a run."""
    runs: list[list[str]] = [[]]
    for symbol in symbols:
        if symbol in STRESS or symbol == SPACE:
            continue
        if symbol in PUNCTUATION:
            runs.append([])
        elif runs[-1] and all(c in LENGTH or unicodedata.category(c) == "Mn" for c in symbol):
            runs[-1][-1] += symbol
        else:
            runs[-1].append(symbol)
    return [run for run in runs if run]


def prompt_units(phonemizer: Phonemizer, text: str, index: int = 0) -> Prompt:
    """The phonemes and diphones ``phonemizer`` says for ``text`` (normalized by the front end first)."""
    said = list(sentences(phonemizer, text))
    runs = [run for sentence in said for run in phrases(sentence.phonemes)]
    return Prompt(
        text=text,
        index=index,
        phonemes=frozenset(p for run in runs for p in run),
        diphones=frozenset(pair for run in runs for pair in zip(run, run[1:], strict=False)),
        words=len(phonemizer.normalize(text).text.split()),
        phoneme_ids=sum(len(sentence.phoneme_ids) for sentence in said),
    )


def corpus_units(phonemizer: Phonemizer, texts: list[str]) -> list[Prompt]:
    """:func:`prompt_units` of each line, numbered in order."""
    return [prompt_units(phonemizer, text, index) for index, text in enumerate(texts)]
