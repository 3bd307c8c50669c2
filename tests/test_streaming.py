"""Streaming inside a sentence: chunked decoding equals whole decoding; long text (what every engine owes the
protocol: ``tests/engine_conformance.py``)."""

from __future__ import annotations

import numpy as np
import pytest

from engines.audio import snr_db
from engines.base import SynthesisOptions
from engines.stream_plan import ChunkPlan

SENTENCE = "The quick brown fox jumps over the lazy dog while twenty curious children watch from the old bridge."

PLANS = {
    "default": ChunkPlan(),
    "tiny chunks": ChunkPlan(whole_below=0, first_min=8, first_max=8, min_frames=8),
    "odd sizes": ChunkPlan(whole_below=0, first_min=37, first_max=37, min_frames=23),
    "big first": ChunkPlan(whole_below=0, first_min=150, first_max=150, min_frames=64),
    "wide context": ChunkPlan(whole_below=0, min_frames=40, decoder_context=16, flow_context=32),
}


@pytest.fixture(scope="module")
def latent(engine):
    """One sentence's latent with the voice's default noise (a random, fixed z_p)."""
    from engines.phonemes import sentences

    (sentence,) = sentences(engine.phonemizer, SENTENCE)
    return engine.encode(sentence.phoneme_ids)


@pytest.mark.parametrize("name", list(PLANS))
def test_chunked_decoding_equals_whole(engine, latent, name):
    """Every chunk schedule rebuilds the whole-sentence audio: identical length, SNR >= 40 dB."""
    whole = engine.decode_whole(latent)
    pieces = list(engine.decode(latent, plan=PLANS[name]))
    chunked = np.concatenate([audio for audio, _ in pieces])
    assert len(chunked) == len(whole) == latent.num_frames * engine.config.hop_length
    assert [final for _, final in pieces] == [False] * (len(pieces) - 1) + [True]
    assert len(pieces) >= 3
    assert snr_db(whole, chunked) >= 40.0


def test_first_chunk_is_small_and_later_ones_grow(engine, latent):
    """The first chunk is a fraction of the sentence; with audio buffered, the next chunks are larger."""
    from engines.stream_plan import PlaybackClock

    clock = PlaybackClock()
    sizes = []
    for audio, _ in engine.decode(latent, clock=clock):
        sizes.append(len(audio) // engine.config.hop_length)
        clock.emitted(len(audio) / engine.sample_rate)
    assert sizes[0] <= ChunkPlan().first_max
    assert max(sizes[1:]) > sizes[0]
    assert sum(sizes) == latent.num_frames


def test_each_sentence_ends_with_its_pause(engine):
    """Each sentence's final chunk carries the frames the voice gave its final punctuation (shared chunk checks:
    ``tests/engine_conformance.py``)."""
    chunks = list(engine.synthesize("First sentence here. And the second one follows."))
    finals = [c for c in chunks if c.final]
    assert [c.sentence_index for c in finals] == [0, 1]
    assert all(c.pause_frames and c.pause_frames > 3 for c in finals)


def test_long_text_streams_before_it_is_all_phonemized(engine):
    """A 10,000-character text yields its first audio after only its first block is phonemized."""
    text = " ".join(f"This is sentence number {i}, spoken in a long text." for i in range(250))[:10_000]
    assert len(text) == 10_000
    stream = engine.synthesize(text)
    first = next(stream)
    assert len(first.audio) > 0
    assert engine.last_report.sentences < 30
    stream.close()


def test_unsplit_engine_gives_one_chunk_per_sentence(joe):
    """With split=False the whole graph runs: one final chunk per sentence."""
    from engines.onnx.engine import OnnxEngine

    whole = OnnxEngine(joe, split=False)
    chunks = list(whole.synthesize("One. Two. Three."))
    assert whole.mode == "whole"
    assert [c.sentence_index for c in chunks] == [0, 1, 2] and all(c.final for c in chunks)


def test_decoder_only_split_streams_the_same_audio(joe, engine):
    """Cut at the decoder only (the fallback for graphs whose flow cannot be found): same audio."""
    from engines.onnx.engine import OnnxEngine

    coarse = OnnxEngine(joe, split="decoder")
    assert coarse.mode == "decoder" and engine.mode == "flow"
    options = SynthesisOptions(noise_scale=0, noise_w=0)
    chunks = list(coarse.synthesize(SENTENCE, options))
    reference = np.concatenate([c.audio for c in engine.synthesize(SENTENCE, options)])
    assert len(chunks) >= 2
    audio = np.concatenate([c.audio for c in chunks])
    assert len(audio) == len(reference)
    assert snr_db(reference, audio) >= 40.0


def test_a_plan_that_is_not_adaptive_ignores_the_clock_and_the_speed():
    """adaptive=False: the same chunks whatever the listener has buffered and however slow decoding was."""
    from engines.stream_plan import FrameCost, PlaybackClock, stream_chunks

    z = np.random.default_rng(0).standard_normal((1, 4, 700)).astype(np.float32)

    def lengths(plan, clock, cost) -> list[int]:
        return [len(a) for a, _ in stream_chunks(z, 1, plan, clock, cost, lambda w: w[0, 0].copy())]

    busy, idle = PlaybackClock(), PlaybackClock()
    idle.emitted(30.0)  # a listener with half a minute buffered: an adaptive plan makes one big chunk
    fixed = ChunkPlan(adaptive=False)
    slow, fast = FrameCost(decoder_s=0.5), FrameCost(decoder_s=1e-6)
    assert lengths(fixed, busy, slow) == lengths(fixed, idle, fast) == [32, 32, 64, 128, 256, 188]
    assert lengths(ChunkPlan(), idle, fast) != lengths(ChunkPlan(), busy, slow)


def test_a_steady_request_gives_the_same_samples_on_a_loaded_machine(joe, monkeypatch):
    """``steady``: the same samples when each decoder call takes 60 ms more (a loaded machine) as on a quiet one;
    without it the chunks follow the measured speed and the samples move (what measurement renders avoid)."""
    import time

    from engines.registry import create_engine
    from trainer.evaluate.render import RenderSettings

    engine = create_engine("onnx", joe)

    def said(steady: bool) -> np.ndarray:
        options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, steady=steady)
        return np.concatenate([c.audio for c in engine.synthesize(SENTENCE, options)])

    quiet = {steady: said(steady) for steady in (True, False)}
    run = engine._decoder.run

    def loaded(*args, **kwargs):
        time.sleep(0.06)
        return run(*args, **kwargs)

    monkeypatch.setattr(engine._decoder, "run", loaded)
    assert np.array_equal(said(True), quiet[True])
    busy = said(False)
    assert len(busy) == len(quiet[False]) and not np.array_equal(busy, quiet[False])
    assert RenderSettings().options().steady  # Compare, the leaderboard and the canary measure steady renders
