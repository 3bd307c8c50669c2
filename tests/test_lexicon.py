"""Pronunciation lexicons: the file format, their effect on phonemes, and ``say`` picking up a voice's lexicon."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest
import soundfile

from engines.frontend import frontend_id
from engines.frontend.lexicon import (
    HEADER,
    Lexicon,
    LexiconError,
    parse_lexicon,
    read_lexicon,
    voice_lexicon_path,
    write_lexicon,
)
from engines.phonemes import Phonemizer, sentences

GOOD = "# names\n\nNguyen\twin\nSiobhan\t[[ ʃɪvˈɔːn ]]\nNew York\tnoo york\n"


@pytest.fixture(scope="module")
def plain(joe):
    return Phonemizer(joe.config)


def said(phonemizer: Phonemizer, text: str, *, normalize: bool = True) -> list[list[str]]:
    """The phonemes of ``text``'s sentences."""
    return [s.phonemes for s in sentences(phonemizer, text, normalize=normalize)]


def test_a_lexicon_file_is_read_entry_by_entry(tmp_path):
    """Comments and blank lines are skipped; each entry keeps its word and what it says, IPA or respelling."""
    path = tmp_path / "names.lexicon.txt"
    path.write_text(GOOD, encoding="utf-8")
    assert read_lexicon(path).entries == {"Nguyen": "win", "Siobhan": "[[ ʃɪvˈɔːn ]]", "New York": "noo york"}


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("Nguyen win", "line 3: no tab between the word and what it says"),
        ("Nguyen\t", "line 3: what it says is empty"),
        ("Siobhan\t[[ ʃɪvˈɔːn", "line 3: phonemes go between [[ and ]]"),
        ("nguyen\twen", "line 3: 'nguyen' is already on line 2: keep one"),
    ],
)
def test_a_bad_line_is_named_with_its_file_and_line(tmp_path, line, says):
    """A bad entry is a LexiconError naming the file and the line, never a half-read lexicon."""
    path = tmp_path / "bad.txt"
    path.write_text(f"# header\nNguyen\twin\n{line}\n", encoding="utf-8")
    with pytest.raises(LexiconError, match=f"^{re.escape(f'{path}, {says}')}"):
        read_lexicon(path)


def test_a_missing_or_non_utf8_file_is_one_clear_error(tmp_path):
    """A lexicon named but missing, or not UTF-8, names the file; a voice without one has an empty lexicon."""
    with pytest.raises(LexiconError, match="lexicon file not found"):
        read_lexicon(tmp_path / "none.txt")
    assert not read_lexicon(tmp_path / "none.txt", missing_ok=True)
    (tmp_path / "latin1.txt").write_bytes("café\tcafay\n".encode("latin-1"))
    with pytest.raises(LexiconError, match="latin1.txt: not UTF-8"):
        read_lexicon(tmp_path / "latin1.txt")


def test_respelling_and_ipa_change_that_word_only(joe, plain):
    """A respelling is said as its plain text and an IPA entry as its inline phonemes; the other words are
    said as without the lexicon."""
    phonemizer = Phonemizer(joe.config, parse_lexicon(GOOD, "GOOD"))
    assert said(phonemizer, "I met Nguyen and Siobhan today.") == said(plain, "I met win and [[ ʃɪvˈɔːn ]] today.")
    assert said(phonemizer, "I met Nguyen.") != said(plain, "I met Nguyen.")
    assert said(phonemizer, "I met them today.") == said(plain, "I met them today.")


def test_matching_ignores_case_and_takes_whole_words_longest_first(joe, plain):
    """``NGUYEN`` matches, ``Nguyens`` does not, ``Nguyen's`` is "win's"; "New York" wins over a "New" entry."""
    lexicon = parse_lexicon(GOOD + "new\tgnu\n", "GOOD")
    phonemizer = Phonemizer(joe.config, lexicon)
    assert said(phonemizer, "NGUYEN called.") == said(plain, "win called.")
    assert said(phonemizer, "The Nguyens called.") == said(plain, "The Nguyens called.")
    assert said(phonemizer, "Nguyen's car.") == said(plain, "win's car.")
    assert said(phonemizer, "A new car in New York.") == said(plain, "A gnu car in noo york.")


def test_an_entry_wins_over_normalization_and_is_not_normalized_again(joe, plain):
    """``Dr.`` said as its entry, not "doctor"; a respelling holding a number is said as written there."""
    phonemizer = Phonemizer(joe.config, Lexicon({"Dr.": "drive", "R2": "R two"}))
    assert phonemizer.normalize("Dr. Smith met R2 at 5.").text == "drive Smith met R two at five."
    assert said(phonemizer, "Dr. Smith left.") == said(plain, "drive Smith left.")


def test_normalization_off_reads_as_written_and_spans_take_the_lexicon(joe, plain):
    """``normalize=False`` reads the text as written, the lexicon left out too (Piper's literal reading); spans
    given to the front end (as SSML hands them over) take the lexicon in their ``normalize`` pieces only, also
    in a language without rules."""
    from engines.frontend import Span, normalize_spans

    lexicon = Lexicon({"Nguyen": "win"})
    phonemizer = Phonemizer(joe.config, lexicon)
    assert said(phonemizer, "Nguyen paid $5.", normalize=False) == said(plain, "Nguyen paid $5.", normalize=False)
    spans = [Span("Nguyen paid $5 "), Span("Nguyen", "characters"), Span(" Nguyen", "verbatim")]
    assert normalize_spans(spans, "en-us", lexicon).text == "win paid five dollars N G U Y E N Nguyen"
    assert normalize_spans([Span("Nguyen kam.")], "de", lexicon).text == "win kam."


def test_the_front_end_id_follows_the_lexicon_content():
    """The id a training cache records changes with an entry, not with comments or the order of entries."""
    first = parse_lexicon("a\tb\nc\td\n", "x")
    assert frontend_id("en-us", first) == f"{frontend_id('en-us')}+lexicon:{first.digest[:12]}"
    assert frontend_id("en-us", parse_lexicon("# note\nc\td\na\tb\n", "x")) == frontend_id("en-us", first)
    assert frontend_id("en-us", parse_lexicon("a\tb\nc\te\n", "x")) != frontend_id("en-us", first)
    assert frontend_id("en-us", Lexicon()) == frontend_id("en-us")


def test_write_lexicon_round_trips(tmp_path):
    """What is written reads back the same, header first."""
    lexicon = parse_lexicon(GOOD, "GOOD")
    path = write_lexicon(tmp_path / "v.onnx.lexicon.txt", lexicon)
    assert path.read_text(encoding="utf-8").startswith(HEADER)
    assert read_lexicon(path) == lexicon


def say_seconds(text: str, *args: str) -> float:
    """Seconds of audio ``voice-studio say`` makes of ``text`` (deterministic: noise 0)."""
    command = [sys.executable, "-m", "studio", "say", text, "-o", "-", "--noise-scale", "0", "--noise-w", "0", *args]
    done = subprocess.run(command, capture_output=True, timeout=120, env=os.environ.copy(), check=False)
    assert done.returncode == 0, done.stderr.decode()
    audio, rate = soundfile.read(io.BytesIO(done.stdout), dtype="float32")
    return len(audio) / rate


def test_say_uses_the_voice_lexicon_and_one_added(joe, tmp_path):
    """``say`` applies the lexicon beside the voice (``VOICE.onnx.lexicon.txt``) and one given with
    ``--lexicon``: "Hi." said as a long respelling is much longer than without it."""
    model = tmp_path / joe.model_path.name
    model.symlink_to(joe.model_path)
    (tmp_path / (model.name + ".json")).symlink_to(joe.config.path)
    long = Lexicon({"Hi": "hello there my dear old friend"})
    plain = say_seconds("Hi.", "--voice", str(model))
    write_lexicon(voice_lexicon_path(model), long)
    beside = say_seconds("Hi.", "--voice", str(model))
    added = say_seconds("Hi.", "--lexicon", str(write_lexicon(tmp_path / "extra.txt", long)))
    assert beside > 2 * plain and np.isclose(added, beside, rtol=0.01)


def test_say_names_a_bad_lexicon_line_in_one_line(tmp_path):
    """A bad ``--lexicon`` line is one line naming the file and line, exit code 2, no traceback."""
    path = tmp_path / "bad.txt"
    path.write_text("Nguyen win\n", encoding="utf-8")
    command = [sys.executable, "-m", "studio", "say", "Hi.", "-o", str(tmp_path / "x.wav"), "--lexicon", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert f"{path}, line 1: no tab" in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_an_engine_applies_its_voice_lexicon_as_edited_since_it_loaded(joe, tmp_path):
    """An engine that lives long (the studio's, the server's) says a word as the voice's lexicon file says it
    now: written after the load it applies to the next text; edited into a bad line it is one clear error."""
    from engines.base import SynthesisOptions
    from engines.onnx.engine import OnnxEngine
    from engines.voice import load_voice

    model = tmp_path / joe.model_path.name
    model.symlink_to(joe.model_path)
    (tmp_path / (model.name + ".json")).symlink_to(joe.config.path)
    engine = OnnxEngine(load_voice(model))
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0)

    def seconds() -> float:
        return sum(len(c.audio) for c in engine.synthesize("Hi.", options)) / engine.sample_rate

    plain = seconds()
    write_lexicon(voice_lexicon_path(model), Lexicon({"hi": "hello there my dear old friend"}))
    assert seconds() > 2 * plain
    voice_lexicon_path(model).write_text("hi hello\n", encoding="utf-8")
    with pytest.raises(LexiconError, match="line 1: no tab"):
        seconds()


def test_serve_says_words_as_the_served_voice_lexicon_says_them_now(joe, tmp_path):
    """The speech server applies the served voice's lexicon, and an edit to it from the next request on."""
    import httpx
    from conftest import SpeechServer

    model = tmp_path / joe.model_path.name
    model.symlink_to(joe.model_path)
    (tmp_path / (model.name + ".json")).symlink_to(joe.config.path)
    server = SpeechServer("--voice", str(model), "--workers", "1")

    def seconds() -> float:
        body = {"input": "Hi.", "response_format": "pcm", "noise_scale": 0, "noise_w": 0}
        reply = httpx.post(f"{server.url}/v1/audio/speech", json=body, timeout=60)
        assert reply.status_code == 200, reply.text
        return len(reply.content) / 2 / joe.config.sample_rate

    try:
        plain = seconds()
        write_lexicon(voice_lexicon_path(model), Lexicon({"hi": "hello there my dear old friend"}))
        assert seconds() > 2 * plain
    finally:
        server.stop()


def test_say_refuses_a_lexicon_for_a_remote_engine(capsys, tmp_path):
    """``--lexicon`` with ``--engine remote`` is one line saying the server applies its own voice's lexicon."""
    from studio.cli import main

    args = ["say", "Hi.", "--engine", "remote", "--url", "http://127.0.0.1:9", "--lexicon", str(tmp_path / "x.txt")]
    assert main(args) == 2
    assert "--lexicon is for local engines" in capsys.readouterr().err


def test_a_lexicon_saved_with_a_byte_order_mark_keeps_its_first_word(tmp_path):
    """A file that starts with a UTF-8 byte order mark and has CRLF line ends (Notepad's) reads its first entry."""
    from engines.frontend.lexicon import read_lexicon

    path = tmp_path / "bom.lexicon.txt"
    path.write_bytes("\ufeffNguyen\twin\r\nDr.\tdrive\r\n".encode())
    assert read_lexicon(path).entries == {"Nguyen": "win", "Dr.": "drive"}
