"""Over-long sentences reach the encoder in bounded pieces: frontend, both local engines and the server."""

from __future__ import annotations

import threading

import httpx
import pytest

from engines.base import SynthesisOptions
from engines.long_sentences import MAX_PHONEME_IDS
from engines.phonemes import Phonemizer, sentence_batches, sentences
from engines.text import text_blocks

PHRASE = "the old train left the station late and rolled slowly to a cove"
UNPUNCTUATED = " ".join([PHRASE] * 45)
"""The report's input: a 63-character phrase without punctuation, 45 times (2,879 characters)."""
SHORTER = " ".join([PHRASE] * 15)
"""945 characters, about 2,100 phoneme_ids: one text block, enough pieces for the slower tests."""


def pieces(phonemizer: Phonemizer, text: str) -> list:
    return [s for batch in sentence_batches(phonemizer, text, max_phoneme_ids=MAX_PHONEME_IDS) for s in batch]


def speech_only(phonemes: list[str]) -> str:
    return "".join(p for p in phonemes if p not in " ,")


@pytest.fixture(scope="module")
def phonemizer(joe):
    return Phonemizer(joe.config)


def test_unpunctuated_text_is_cut_at_words_with_a_comma_pause(phonemizer):
    """The 2,879-character sentence: pieces of at most 400 phoneme_ids, cut between words, nothing lost."""
    assert len(UNPUNCTUATED) == 2879
    (whole,) = sentences(phonemizer, UNPUNCTUATED)  # training and dataset checks keep Piper's one sentence
    assert len(whole.phoneme_ids) > 6000
    cut = pieces(phonemizer, UNPUNCTUATED)
    assert len(cut) >= len(whole.phoneme_ids) // MAX_PHONEME_IDS
    assert max(len(s.phoneme_ids) for s in cut) <= MAX_PHONEME_IDS
    assert min(len(s.phoneme_ids) for s in cut[:-1]) > MAX_PHONEME_IDS // 2  # no needlessly small pieces
    assert [s.continues for s in cut] == [False] + [True] * (len(cut) - 1)
    assert all(s.phonemes[-1] == "," and s.phonemes[-2] != " " for s in cut[:-1])  # a comma's pause, whole words
    assert speech_only(p for s in cut for p in s.phonemes) == speech_only(whole.phonemes)


def test_text_blocks_cut_inside_a_sentence_are_marked(phonemizer):
    """A 20,000-character sentence goes to espeak-ng in blocks of at most 1,000 characters, cut at spaces."""
    text = " ".join([PHRASE] * 312)
    blocks = list(text_blocks(text, cut_long=True))
    assert all(len(b) <= 1000 for b, _ in blocks) and len(blocks) >= 20
    assert [cut for _, cut in blocks] == [True] * (len(blocks) - 1) + [False]
    assert " ".join(b for b, _ in blocks) == text
    assert list(text_blocks(text)) == [(text, False)]  # without cut_long: Piper's sentence, whole


def test_a_long_list_is_cut_at_its_commas(phonemizer):
    """Sibling: a 200-item list with commas is cut after commas only, and no comma is added."""
    text = ", ".join(["apples and pears"] * 200) + "."
    (whole,) = sentences(phonemizer, text)
    cut = pieces(phonemizer, text)
    assert len(cut) > 4 and max(len(s.phoneme_ids) for s in cut) <= MAX_PHONEME_IDS
    assert all(s.phonemes[-1] == "," for s in cut[:-1])
    assert sum(s.phonemes.count(",") for s in cut) == whole.phonemes.count(",")


def test_a_long_word_without_spaces_is_cut_at_the_bound(phonemizer):
    """Sibling: 1,200 inline phonemes with no word break are cut at the bound, exactly, with no pause added."""
    inline = "bˈæ" * 400
    cut = pieces(phonemizer, f"[[ {inline} ]]")
    assert max(len(s.phoneme_ids) for s in cut) <= MAX_PHONEME_IDS and len(cut) >= 6
    assert "".join(p for s in cut for p in s.phonemes) == inline


@pytest.mark.parametrize("engine_name", ["onnx", "torch"])
def test_engines_encode_bounded_pieces_without_sentence_silence_between(joe, engine_name):
    """Both local engines: each encoder call gets at most 400 phoneme_ids; a piece ends in a pause, no silence."""
    from engines.registry import create_engine

    engine = create_engine(engine_name, joe, **({"device": "cpu"} if engine_name == "torch" else {}))
    cancel, chunks = threading.Event(), []
    options = SynthesisOptions(sentence_silence=0.5, length_scale=0.5)
    for chunk in engine.synthesize(SHORTER, options, cancel):
        chunks.append(chunk)
        if chunk.sentence_index == 1:  # the second piece has started: enough to see the structure
            cancel.set()
    firsts = [c for c in chunks if c.chunk_index == 0 and not c.is_silence]
    assert len(firsts) == 2 and max(len(c.phoneme_ids) for c in firsts) <= MAX_PHONEME_IDS
    assert not any(c.is_silence for c in chunks)
    (final,) = [c for c in chunks if c.final and c.sentence_index == 0]
    assert final.pause_frames > 0  # the comma's frames


def test_server_speaks_the_long_sentence_in_pieces(speech_server):
    """The server synthesizes a 945-character unpunctuated sentence completely, as bounded pieces (its counter)."""
    before = speech_server.health()["sentences"]
    body = {"model": "tts-1", "input": SHORTER, "response_format": "pcm", "speed": 4.0, "stream": False}
    response = httpx.post(f"{speech_server.url}/v1/audio/speech", json=body, timeout=120)
    assert response.status_code == 200, response.text
    assert len(response.content) / 2 / 22050 > 8  # seconds of audio, at 4x speed
    assert speech_server.health()["sentences"] - before >= 2000 // MAX_PHONEME_IDS


def test_slow_speech_keeps_decoder_chunks_bounded(joe):
    """Sibling: length_scale 4 (the server's speed 0.25) makes a piece thousands of frames; no chunk exceeds
    ``max_frames`` (the server's fixed plan doubles chunk sizes, so without the cap they would reach 1,024)."""
    from engines.onnx.engine import OnnxEngine
    from engines.stream_plan import ChunkPlan

    plan = ChunkPlan(adaptive=False)
    engine = OnnxEngine(joe, plan=plan)
    cancel, frames = threading.Event(), []
    for chunk in engine.synthesize(" ".join([PHRASE] * 3), SynthesisOptions(length_scale=4.0), cancel):
        frames.append(len(chunk.audio) // joe.config.hop_length)
        if len(frames) == 8:
            cancel.set()
    assert len(frames) == 8 and frames[5] >= plan.max_frames  # the doubling reached the cap
    assert max(frames) <= plan.max_frames + plan.min_frames
