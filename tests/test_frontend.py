"""Text frontend: Piper's phoneme_ids exactly, inline phonemes, missing symbols, odd input."""

from __future__ import annotations

import dataclasses
import logging

import pytest

from engines.phonemes import FrontendReport, Phonemizer, sentences
from engines.text import split_blocks

TEXTS = [
    "Hello world.",
    "Is this the right way to the station?",
    "It costs $3.50, and 1,234 people came on 12/25/2023 at 10:30 a.m.",
    "Dr. Smith and Mrs. Jones live on St. James St. near the NASA HQ.",
    "“Well,” she said, ‘that’s not what I meant.’",
    "One. Two! Three? Four; five: six.",
    "Hello [[ hɛlˈoʊ ]] world, [[ wˈɜːld ]] again.",
]


@pytest.fixture(scope="module")
def phonemizer(joe):
    return Phonemizer(joe.config)


@pytest.mark.parametrize("text", TEXTS)
def test_phoneme_ids_equal_piper(phonemizer, piper_voice, text):
    """Our sentences and phoneme_ids are piper-tts's for the text as normalized (piper-tts normalizes nothing),
    sentence for sentence."""
    ours = [s.phoneme_ids for s in sentences(phonemizer, text)]
    said = phonemizer.normalize(text).text
    theirs = [piper_voice.phonemes_to_ids(p) for p in piper_voice.phonemize(said) if p]
    assert ours == theirs
    assert len(ours) >= 1


def test_inline_phonemes_are_used_verbatim(phonemizer, joe):
    """Piper's [[ phonemes ]] reach the ids unchanged."""
    (sentence,) = sentences(phonemizer, "Say [[ bˈæ ]] now.")
    id_map = joe.config.phoneme_id_map
    expected = [id_map[p][0] for p in "bˈæ"]
    ids = sentence.phoneme_ids
    assert any(ids[i : i + 5 : 2] == expected for i in range(len(ids)))


def test_missing_phoneme_warned_once_per_symbol(joe, caplog):
    """A symbol absent from the map is skipped and warned once per request, with its count."""
    id_map = dict(joe.config.phoneme_id_map)
    del id_map["ə"]
    config = dataclasses.replace(joe.config, phoneme_id_map=id_map, raw={**joe.config.raw, "phoneme_id_map": id_map})
    report = FrontendReport()
    with caplog.at_level(logging.WARNING):
        result = list(sentences(Phonemizer(config), "A banana, a sofa, a comma. A panda and a koala.", report))
    warnings = [r for r in caplog.records if "not in the voice's phoneme_id_map" in r.getMessage()]
    assert len(warnings) == 1
    assert report.missing["ə"] >= 5
    assert len(result) == 2


@pytest.mark.parametrize("text", ["", "   \n\t ", "...", "?!,;", "— … —"])
def test_text_without_speech_gives_no_sentences(phonemizer, text):
    """Empty, blank and punctuation-only text yield nothing (and do not raise)."""
    assert list(sentences(phonemizer, text)) == []


def test_emoji_only_text_does_not_crash(phonemizer):
    """Emoji-only text gives either nothing or what espeak-ng reads for it."""
    result = list(sentences(phonemizer, "😀🎉"))
    assert all(len(s.phoneme_ids) > 3 for s in result)


def test_short_text_is_one_block():
    """Ordinary text goes to espeak-ng whole, as in Piper."""
    text = "Dr. Smith went home. He slept."
    assert list(split_blocks(text)) == [text]


def test_long_text_is_split_at_paragraphs_and_sentences():
    """A 10,000-character text is cut into blocks of bounded size with nothing lost."""
    paragraph = " ".join(f"Sentence number {i} is here." for i in range(60))
    text = "\n\n".join([paragraph] * 6)
    blocks = list(split_blocks(text, max_chars=1000))
    assert len(text) > 9000 and len(blocks) > 6
    assert all(len(b) <= 1000 for b in blocks)
    assert "".join(blocks).replace(" ", "") == text.replace("\n\n", "").replace(" ", "")


def test_long_text_is_cut_only_at_real_sentence_ends(phonemizer):
    """A long paragraph's blocks never end after "Dr.", an initial or "St.": each line stays one sentence."""
    line = "Captain James T. Kirk met Dr. Smith on Jan. 5 near St. James St. and left."
    text = " ".join([line] * 40)
    blocks = list(split_blocks(text))
    assert len(blocks) > 2 and all(block.endswith("and left.") for block in blocks)
    assert len(list(sentences(phonemizer, text))) == 40
