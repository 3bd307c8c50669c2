"""Markdown's marks are not read (engines.markdown_marks through engines.cleaning.clean_text)."""

from __future__ import annotations

import pytest

from engines.cleaning import clean_text


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("**Note:** the *garage* door is `open`.\n\n## Summary", "Note: the garage door is open. Summary."),
        ("__Bold__ and _italic_ words", "Bold and italic words"),
        ("- Item one\n- Item two\n* Item three!", "Item one. Item two. Item three!"),
        ("# Title #\nText here.", "Title. Text here."),
        ("1. First step\n2) Second step.", "1: First step. 2: Second step."),
        ("> Quoted line\nAfter.", "Quoted line. After."),
        ("See [the docs](https://example.com/a) or ![a cat](cat.png).", "See the docs or a cat."),
        ("```python\nprint(1)\n```\nDone.", "print(1) Done."),
        # not marks: arithmetic, identifiers, negative numbers, inline tags, phonemes, a heart
        ("5 * 3 = 15 and snake_case and a*b*c", "5 * 3 = 15 and snake_case and a*b*c"),
        ("-5°C at 8:00.", "-5°C at 8:00."),
        ("Wait [pause:1s] now [[ hɛloʊ ]] <3", "Wait [pause:1s] now [[ hɛloʊ ]] <3"),
    ],
)
def test_marks_are_taken_away_and_text_that_only_looks_like_them_stays(typed, said):
    """Each typed text is cleaned to what its reader sees."""
    assert clean_text(typed) == said


def test_ssml_keeps_its_text_as_sent():
    """SSML is not unmarked (its parser reads it; an asterisk inside is its text)."""
    ssml = "<speak>**Not** Markdown here</speak>"
    assert clean_text(ssml) == ssml


def test_the_letter_a_spelled_is_said_by_its_name(joe):
    """A dotted acronym and say-as characters say "A" as its name (eɪ), not the article (ɐ)."""
    from engines.phonemes import Phonemizer

    phonemizer = Phonemizer(joe.config)
    said = phonemizer.normalize("the U.S.A. now").text
    assert "ˈeɪ" in "".join(phonemizer.phonemize(said)[0]) and "ɐ" not in "".join(phonemizer.phonemize(said)[0])
