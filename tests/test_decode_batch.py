"""Concurrent decoder calls in one batch (engines.torch.decode_batch), as the torch engines on a GPU run them."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import assert_same_speech

torch = pytest.importorskip("torch")

TEXTS = ["Hello there, how are you today?", "The quick brown fox jumps over the lazy dog.", "One, two, three."]


@pytest.fixture
def tiny(make_tiny_checkpoint, tmp_path):
    from engines.torch.vits.checkpoint import load_checkpoint_voice

    return load_checkpoint_voice(make_tiny_checkpoint(tmp_path / "tiny.ckpt"))


def test_calls_that_come_while_a_batch_runs_go_together_and_each_gets_its_own_audio(tiny):
    """While one call decodes, three more arrive: the two of one length run as one batch, the third alone (a
    shorter latent is never padded), and each caller gets its own latent's audio, as a call alone gives it."""
    from engines.torch.decode_batch import DecodeBatcher
    from engines.torch.engine import TorchEngine

    model = TorchEngine(tiny, device="cpu", batch_decode=False).model
    hop = model.config.hop_length
    started, release = threading.Event(), threading.Event()

    def decode(z, g):
        if not started.is_set():  # the first batch waits until the others are queued behind it
            started.set()
            release.wait(10)
        return model.decode(z, g)

    batcher = DecodeBatcher(decode)
    generator = torch.Generator().manual_seed(3)
    latents = [torch.randn(1, model.config.inter_channels, n, generator=generator) for n in (20, 30, 30, 25)]
    results: dict[int, torch.Tensor] = {}

    def call(i: int) -> None:
        with torch.inference_mode():
            results[i] = batcher(latents[i])

    first = threading.Thread(target=call, args=(0,))
    first.start()
    started.wait(10)
    others = [threading.Thread(target=call, args=(i,)) for i in (1, 2, 3)]
    for thread in others:
        thread.start()
    while len(batcher._waiting) < 3:
        threading.Event().wait(0.001)
    release.set()
    for thread in [first, *others]:
        thread.join(10)
    assert list(batcher.batches) == [1, 2, 1]
    with torch.inference_mode():
        for i, z in enumerate(latents):
            alone = model.decode(z, None)
            assert results[i].shape == alone.shape == (1, 1, z.shape[-1] * hop)
            torch.testing.assert_close(results[i], alone, rtol=1e-4, atol=1e-5)


def test_a_failing_batch_raises_in_each_of_its_callers():
    """An error in the decoder reaches every caller whose call was in that batch, and the next call runs."""
    from engines.torch.decode_batch import DecodeBatcher

    failing = [True]

    def decode(z, g):
        if failing[0]:
            raise RuntimeError("out of memory")
        return torch.zeros(z.shape[0], 1, z.shape[-1] * 4)

    batcher = DecodeBatcher(decode)
    with pytest.raises(RuntimeError, match="out of memory"):
        batcher(torch.zeros(1, 2, 5))
    failing[0] = False
    assert batcher(torch.zeros(1, 2, 5)).shape == (1, 1, 20)


def test_engines_of_one_voice_speaking_at_once_say_what_each_says_alone(tiny):
    """Four engines sharing a voice's generator speak at once through one batcher (noise 0; three say one line, so
    their windows are of one length; the first decoder call held until the others wait behind it): the calls run
    in batches, and each line is the speech it is when spoken alone."""
    import time

    from engines.base import SynthesisOptions
    from engines.torch.engine import TorchEngine

    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
    texts = [TEXTS[0], TEXTS[0], TEXTS[0], TEXTS[1]]
    engines = [TorchEngine(tiny, device="cpu", batch_decode=True) for _ in texts]
    batcher = engines[0]._decode
    assert all(e._decode is batcher for e in engines)  # one batcher for the voice's generator
    expected = [np.concatenate([c.audio for c in engines[0].synthesize(t, options)]) for t in texts]  # one by one
    assert set(batcher.batches) == {1}
    decode, first = batcher._decode, threading.Event()

    def held_first(z, g):  # the first call waits (up to 10 s) until the three other engines' calls wait behind it
        if not first.is_set():
            first.set()
            deadline = time.monotonic() + 10
            while len(batcher._waiting) < 3 and time.monotonic() < deadline:
                time.sleep(0.001)
        return decode(z, g)

    batcher._decode = held_first
    got: dict[int, np.ndarray] = {}

    def speak(i: int) -> None:
        got[i] = np.concatenate([c.audio for c in engines[i].synthesize(texts[i], options)])

    threads = [threading.Thread(target=speak, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for i in range(len(texts)):
        assert_same_speech(got[i], expected[i])
    assert max(batcher.batches) > 1


def test_the_environment_decides_batching_where_the_caller_does_not(tiny, monkeypatch):
    """VOICE_STUDIO_DECODE_BATCH=1 batches a CPU engine's decoder calls (its default is off), 0 turns batching off,
    an explicit batch_decode wins, and any other value is one clear error naming the variable."""
    from engines.base import EngineError
    from engines.torch.decode_batch import DecodeBatcher
    from engines.torch.engine import BATCH_DECODE_VARIABLE, TorchEngine

    assert not isinstance(TorchEngine(tiny, device="cpu")._decode, DecodeBatcher)
    monkeypatch.setenv(BATCH_DECODE_VARIABLE, "1")
    assert isinstance(TorchEngine(tiny, device="cpu")._decode, DecodeBatcher)
    assert not isinstance(TorchEngine(tiny, device="cpu", batch_decode=False)._decode, DecodeBatcher)
    monkeypatch.setenv(BATCH_DECODE_VARIABLE, "0")
    assert not isinstance(TorchEngine(tiny, device="cpu")._decode, DecodeBatcher)
    monkeypatch.setenv(BATCH_DECODE_VARIABLE, "yes")
    with pytest.raises(EngineError, match=BATCH_DECODE_VARIABLE):
        TorchEngine(tiny, device="cpu")
