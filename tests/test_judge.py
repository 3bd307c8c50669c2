"""The judge's measures: Whisper WER on normalized text, MCD and F0 error without floors (real voice, real audio)."""

import csv

import numpy as np
import pytest
from conftest import shared_path

from trainer.dataset import recognizers
from trainer.evaluate import measures
from trainer.evaluate.wer_text import normalize

HELD_OUT = 10
"""Lines of the target-voice corpus joe speaks for the WER test (its last ten: long, with numbers and names)."""


@pytest.fixture(scope="module")
def speak(joe):
    """Speak a text with the default voice, noise 0: float32 [N] at joe.sample_rate; chunked by the sentence alone
    (not by the machine's speed), so a loaded machine gets the same samples (WORLD's F0 of a render whose decoder
    seams moved changed the semitone test's gap by 15%)."""
    from engines.base import SynthesisOptions
    from engines.registry import create_engine

    engine = create_engine("onnx", joe)

    def say(text: str) -> np.ndarray:
        options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, steady=True)
        return np.concatenate([c.audio for c in engine.synthesize(text, options)])

    return say


@pytest.fixture(scope="module")
def held_out(speak):
    """(text, joe's render) for the last HELD_OUT lines of the target-voice corpus."""
    metadata = shared_path("corpus", "target-voice", "metadata.csv")
    with open(metadata, encoding="utf-8") as handle:
        texts = [row[1] for row in csv.reader(handle, delimiter="|")][-HELD_OUT:]
    return [(text, speak(text)) for text in texts]


def _wers(pairs, rate, damage=lambda audio: audio) -> list[float]:
    return [measures.word_error_rate(damage(audio), rate, text) for text, audio in pairs]


def _mean_wer(pairs, rate, damage=lambda audio: audio) -> float:
    return float(np.mean(_wers(pairs, rate, damage)))


def test_whisper_hears_joe_and_hears_damage(held_out, joe):
    """Whisper WER of joe's renders of 10 held-out lines is at most 0.12; noisy and stretched copies score worse."""
    import librosa

    assert measures.recognizer_label(measures.wer_recognizer("en-us")) == "Whisper tiny.en"
    each = _wers(held_out, joe.sample_rate)
    clean = float(np.mean(each))
    rng = np.random.default_rng(0)

    def noisy(audio: np.ndarray) -> np.ndarray:  # white noise at 10 dB SNR... then 0 dB: clearly damaged
        power = np.mean(audio**2)
        return (audio + rng.normal(0, np.sqrt(power), audio.size)).astype(np.float32)

    def stretched(audio: np.ndarray) -> np.ndarray:
        return librosa.effects.time_stretch(audio, rate=1 / 1.3)

    damaged = _mean_wer(held_out[:5], joe.sample_rate, noisy)
    slow = _mean_wer(held_out[:5], joe.sample_rate, stretched)
    assert clean <= 0.12, clean
    assert damaged > clean + 0.1, (clean, damaged)
    assert slow > np.mean(each[:5]), (clean, slow)


@pytest.mark.parametrize(
    ("written", "spoken"),
    [
        ("It is 50 miles away.", "It is fifty miles away."),
        ("Ask Dr. Patel.", "Ask doctor Patel."),
        ("It costs $5.", "It costs five dollars."),
        ("Meet me at 3:30 p.m.", "Meet me at three thirty PM."),
        ("Only 10% of them, 5 km north.", "Only ten percent of them, five kilometers north."),
        ("On Jan. 5, 2024 we won't.", "On January fifth, twenty twenty four, we will not."),
    ],
)
def test_written_and_spoken_forms_score_the_same(speak, joe, written, spoken):
    """Digits against words, abbreviations against their words: the same audio has the same WER."""
    assert normalize(written, "en-us") == normalize(spoken, "en-us")
    audio = speak(spoken)
    assert measures.word_error_rate(audio, joe.sample_rate, written) == measures.word_error_rate(
        audio, joe.sample_rate, spoken
    )


def test_identical_audio_to_one_lsb_has_no_floor(speak, joe):
    """Audio identical to ±1 LSB: MCD below 0.05 dB, F0 RMSE below 0.5 Hz, F0 gap below 0.5 Hz."""
    rng = np.random.default_rng(1)
    audio = np.round(speak("Please fold the map along its creases, then put it back.") * 32767) / 32767
    jittered = (audio + rng.integers(-1, 2, audio.size) / 32767).astype(np.float32)
    aligned = measures.align(audio.astype(np.float32), joe.sample_rate, jittered, joe.sample_rate)
    rmse, gap = measures.f0_error_of(aligned)
    assert measures.mcd_of(aligned) < 0.05
    assert rmse < 0.5 and abs(gap) < 0.5, (rmse, gap)


def test_a_semitone_higher_gives_the_expected_f0_gap(speak, joe):
    """A copy resynthesized one semitone higher (WORLD, same timing and envelope) has a gap of 5.9% of F0 ±20%,
    over three lines. Measured with renders chunked by the sentence alone (2026-12-04): 8.4, 8.3 and 10.7 Hz
    against 9.9, 9.8 and 11.0 expected (the gap reads about 12% low: frames voiced in one copy only); the one-line
    ±10% check passed only where the machine's speed cut the decoder's chunks elsewhere."""
    import pyworld

    rate, gaps, expected = joe.sample_rate, [], []
    for line in SEMITONE_LINES:
        audio = speak(line).astype(np.float64)
        f0, times = pyworld.harvest(audio, rate)
        envelope, aperiodicity = pyworld.cheaptrick(audio, f0, times, rate), pyworld.d4c(audio, f0, times, rate)
        base = pyworld.synthesize(f0, envelope, aperiodicity, rate).astype(np.float32)
        higher = pyworld.synthesize(f0 * 2 ** (1 / 12), envelope, aperiodicity, rate).astype(np.float32)
        aligned = measures.align(base, rate, higher, rate)
        expected.append(float(np.mean(aligned.f0_ref[aligned.f0_ref > 0])) * (2 ** (1 / 12) - 1))
        gaps.append(measures.f0_error_of(aligned)[1])
    assert np.mean(gaps) == pytest.approx(np.mean(expected), rel=0.2), (gaps, expected)


SEMITONE_LINES = (
    "Thistles bloom stubbornly along the old rail yard.",
    "Please fold the map along its creases, then put it back.",
    "The ferry leaves at noon from the northern pier.",
)


def test_without_whisper_wer_falls_back_to_pocketsphinx(monkeypatch):
    """No compare extra: PocketSphinx scores WER; no recognizer at all, or another language: one line, no traceback."""
    monkeypatch.setattr(recognizers, "_installed", lambda module: module == "pocketsphinx")
    assert measures.recognizer_label(measures.wer_recognizer("en-us")) == "PocketSphinx"
    monkeypatch.setattr(recognizers, "_installed", lambda module: False)
    with pytest.raises(measures.MeasureUnavailable, match="no speech recognizer is installed") as raised:
        measures.wer_recognizer("en-us")
    assert "\n" not in str(raised.value)
    with pytest.raises(measures.MeasureUnavailable, match="no speech recognizer for 'de'"):
        measures.wer_recognizer("de")


def test_the_whisper_recognizer_is_loaded_once():
    """recognizers.shared keeps one Whisper model per process; it transcribes clip by clip alike."""
    first = recognizers.shared("whisper")
    assert recognizers.shared("whisper") is first
    silence = np.zeros(recognizers.RATE, dtype=np.float32)
    assert first.transcribe(silence) == first.transcribe(silence)


def test_the_table_and_csv_say_which_recognizer_heard_each_wer(tmp_path):
    """The WER's recognizer travels through the CSV and is named under the table, per candidate when they differ."""
    from trainer.evaluate.board import Row, read_csv, table, to_csv

    rows = [
        Row(label="joe", model_path=tmp_path / "joe.onnx", wer=0.08, recognizer="Whisper tiny.en"),
        Row(label="epoch 3", model_path=tmp_path / "e3.ckpt", wer=0.31, recognizer="PocketSphinx"),
    ]
    assert [r.recognizer for r in read_csv(to_csv(rows))] == ["Whisper tiny.en", "PocketSphinx"]
    assert "WER by Whisper tiny.en (joe); PocketSphinx (epoch 3)." in table(rows)
    assert "WER by Whisper tiny.en; reference and transcript normalized alike" in table(rows[:1])
    assert "MCD-DTW" in table(rows)


def test_every_noise_seed_of_the_onnx_engine_is_its_own(tmp_path, joe):
    """Seeds 0, 1 and 2 give three different renders (ONNX Runtime took seed 0 for seed 1)."""
    from trainer.evaluate.render import Candidate, RenderSettings, render

    candidate = Candidate(label="joe", model_path=joe.model_path)
    renders = [
        render(candidate, "Who left the garden gate open?", RenderSettings(seed=s), tmp_path).audio for s in range(3)
    ]
    for a, b in ((0, 1), (1, 2), (0, 2)):
        same_length = renders[a].size == renders[b].size
        assert not (same_length and np.array_equal(renders[a], renders[b])), (a, b)


def test_a_compound_written_apart_is_not_an_error(speak, joe):
    """'windowpane' against 'window pane' (either way round): no error where the rest is heard right; a real
    substitution still counts."""
    from trainer.evaluate.wer_text import join_compounds

    assert join_compounds("the windowpane froze", "the window pane froze") == ("the windowpane froze",) * 2
    assert join_compounds("the window froze", "the wind oh froze") == ("the window froze", "the wind oh froze")
    pairs = (("The window pane was cold.", "The windowpane was cold."), ("By the fireplace.", "By the fire place."))
    for spoken, written in pairs:  # joe speaks the first; the second is the reference written the other way
        audio = speak(spoken)
        assert measures.word_error_rate(audio, joe.sample_rate, written) == 0.0, (spoken, written)
        assert measures.word_error_rate(audio, joe.sample_rate, spoken) == 0.0, spoken


def test_whisper_hears_the_same_mumble_the_same_way_every_time(speak, joe):
    """Speech it cannot make out (joe's render played backwards) is transcribed alike three times: greedy decoding
    at temperature 0, no sampling fallback (with faster-whisper's default, three calls gave three texts)."""
    import soxr

    audio = speak("The choir rehearsed in the drafty chapel. Please fold the map.")[::-1].copy()
    heard = soxr.resample(audio, joe.sample_rate, recognizers.RATE).astype(np.float32)
    whisper = recognizers.shared("whisper")
    assert len({whisper.transcribe(heard) for _ in range(3)}) == 1


def test_a_row_saved_by_the_older_scorer_is_measured_again(tmp_path):
    """A run's saved row whose WER names no recognizer (PocketSphinx's, before the judge) is not read back, so it is
    never set beside today's measures; the same row with its recognizer is."""
    import os

    from trainer.evaluate import best_row
    from trainer.evaluate.board import Row, to_csv

    voice, saved = tmp_path / "joe.onnx", tmp_path / best_row.START_FILE
    voice.write_bytes(b"")
    os.utime(voice, (0, 0))  # written long before its row
    saved.write_text(to_csv([Row(label="start: joe", model_path=voice, wer=0.45, mcd_db=7.0)]))
    assert best_row._saved_row(saved, voice) is None
    saved.write_text(to_csv([Row(label="start: joe", model_path=voice, wer=0.06, recognizer="Whisper tiny.en")]))
    row = best_row._saved_row(saved, voice)
    assert row is not None and row.recognizer == "Whisper tiny.en"


def test_a_line_with_nothing_to_speak_is_named_before_anything_is_rendered(tmp_path):
    """A lines file with a line of punctuation alone: one error naming the file and line, not a render failure."""
    from trainer.evaluate.lines import LinesError, read_lines_file, typed_lines

    path = tmp_path / "odd.txt"
    path.write_text("12345\n?!\nHello there.\n", encoding="utf-8")
    with pytest.raises(LinesError, match=r"odd\.txt, line 2: nothing to speak in '\?!'"):
        read_lines_file(path)
    with pytest.raises(LinesError, match=r"the typed text, line 1: nothing to speak in '\.\.\.'"):
        typed_lines("...\nHi.")
    assert [line.text for line in typed_lines("12345\nHi.")] == ["12345", "Hi."]
