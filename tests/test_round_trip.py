"""One recognizer round trip (``trainer.evaluate.round_trip``) for the booth and distil's judge: the real installed
recognizer on a real recording of the target voice, one normalization for both sides, and both callers hearing the
same take alike."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import shared_path

from trainer.evaluate.measures import transcript_wer
from trainer.evaluate.round_trip import MISREAD_WER, RoundTrip, round_trip


@pytest.fixture(scope="module")
def read():
    """A correct read: ``slt_0002`` of the target voice (32 kHz), its text and another line's."""
    import soundfile

    folder = shared_path("corpus", "target-voice")
    texts = dict(line.split("|", 1) for line in (folder / "metadata.csv").read_text().splitlines())
    audio, rate = soundfile.read(folder / "wavs" / "slt_0002.flac", dtype="float32")
    return audio, rate, texts["slt_0002"], texts["slt_0003"]


@pytest.fixture(scope="module")
def heard(read):
    """The round trip of the correct read."""
    audio, rate, text, _ = read
    return round_trip(audio, rate, text, language="en-us")


def test_a_correct_read_is_heard_and_not_a_misread(heard):
    """'Who left the garden gate open?' comes back close to its words, named by its recognizer."""
    assert heard.heard and heard.wer is not None and heard.wer <= MISREAD_WER and not heard.misread
    assert heard.recognizer in ("Whisper tiny.en", "PocketSphinx") and heard.note == ""


def test_the_same_take_scored_against_another_line_is_a_misread(read, heard):
    """Against the next line's text the transcript is a misread; scoring the transcript alone agrees."""
    audio, rate, _, other = read
    wrong = round_trip(audio, rate, other, language="en-us")
    assert wrong.misread and wrong.wer == transcript_wer(other, heard.heard, "en-us")


def test_numbers_units_and_case_are_normalized_alike_on_both_sides():
    """The prompt's digits and symbols and the recognizer's words are one text after normalization."""
    assert transcript_wer("It costs $5 at 10 a.m.!", "it costs five dollars at ten am") == 0.0
    assert transcript_wer("Dr. Smith, 3 km away.", "doctor smith three kilometers away") == 0.0
    assert transcript_wer("Who left the gate open?", "") == 1.0


def test_a_prompts_aside_in_parentheses_is_read_not_dropped():
    """Whisper's normalizer drops words in parentheses; a prompt's are read aloud, so a verbatim read scores 0 (it
    scored 1.67 while they were dropped) and a read that leaves the aside out does not."""
    prompt = "Rosalind practiced the cello every evening (much to the neighbors' mixed delight)."
    assert (
        transcript_wer(prompt, "Rosalind practiced the cello every evening, much to the neighbors' mixed delight.") == 0
    )
    assert transcript_wer(prompt, "Rosalind practiced the cello every evening.") == 6 / 12


def test_what_cannot_be_measured_is_said_not_raised(read):
    """Silence, a prompt with no words and a language with no recognizer give a note and no WER."""
    audio, rate, text, _ = read
    silent = round_trip(np.zeros(rate, np.float32), rate, text)
    wordless = round_trip(audio, rate, "!?")
    german = round_trip(audio, rate, text, language="de")
    assert (silent.wer, wordless.wer, german.wer) == (None, None, None)
    assert "silent" in silent.note and "no words" in wordless.note and not silent.unavailable
    assert german.unavailable and "de" in german.note and not german.misread


def test_the_booth_and_distils_judge_hear_a_take_as_the_round_trip_does(read, heard, joe):
    """The booth's take check and distil's judge report the round trip's WER for the same take and prompt; the booth
    flags it as the round trip calls it, the judge refuses over its own stricter ``MAX_WER``."""
    from trainer.dataset.distil.judge import MAX_WER, Judge
    from trainer.dataset.recording.takes import check_take

    audio, rate, text, other = read
    config = str(joe.config.path)
    for prompt, trip in ((text, heard), (other, round_trip(audio, rate, other))):
        take = check_take(audio, rate, prompt, config)
        verdict = Judge(config).judge(audio, rate, prompt)
        assert take.wer == verdict.wer == trip.wer and take.heard == trip.heard
        assert ("misread" in take.kinds) == trip.misread and (verdict.rejected is not None) == (trip.wer > MAX_WER)
    assert not heard.misread and trip.misread  # one of each


def test_a_round_trip_not_measured_is_not_a_misread():
    """No WER is never a misread, whatever else the record says."""
    assert not RoundTrip(note="no recognizer").misread and RoundTrip(wer=MISREAD_WER + 0.01).misread
