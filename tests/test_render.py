"""Rendering candidates under identical noise, cached on disk (trainer.evaluate.render)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from engines.pool import EnginePool
from engines.registry import create_engine
from trainer.evaluate.render import Candidate, RenderError, RenderSettings, cache_key, render, render_all
from trainer.tasks import Cancelled, TaskState

LINE = "The quick brown fox."


class SpyMaker:
    """Makes real engines and counts the synthesize calls of every engine it made, and of their seeded copies."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, name, voice, **kwargs):
        return self.spy(create_engine(name, voice, **kwargs))

    def spy(self, engine):
        real = engine.synthesize
        if hasattr(engine, "reseeded"):
            reseeded = engine.reseeded
            engine.reseeded = lambda seed: self.spy(reseeded(seed))

        def synthesize(*args, **kw):
            self.calls += 1
            return real(*args, **kw)

        engine.synthesize = synthesize
        return engine


@pytest.fixture
def joe_candidate(joe) -> Candidate:
    return Candidate(label="joe", model_path=joe.model_path)


def copy_of_joe(joe, folder: Path, **config_changes) -> Path:
    """joe's model and config under ``folder`` (a new file), with ``inference`` settings changed."""
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / "copy.onnx"
    shutil.copy(joe.model_path, model)
    original = joe.model_path.with_name(joe.model_path.name + ".json")
    shutil.copy(original, model.with_name("copy.onnx.json"))
    if config_changes:
        config = json.loads(original.read_text())
        config["inference"].update(config_changes)
        model.with_name("copy.onnx.json").write_text(json.dumps(config))
    return model


def test_same_settings_give_the_same_samples_and_the_second_comes_from_the_cache(joe_candidate, tmp_path):
    spy = SpyMaker()
    pool = EnginePool(make=spy)
    first = render(joe_candidate, LINE, RenderSettings(seed=3), tmp_path, pool)
    assert not first.cached and first.path.is_file() and spy.calls == 1
    assert first.audio.dtype == np.float32 and first.audio.ndim == 1 and first.sample_rate == 22050
    second = render(joe_candidate, LINE, RenderSettings(seed=3), tmp_path, pool)
    assert second.cached and spy.calls == 1
    np.testing.assert_array_equal(first.audio, second.audio)
    first.path.unlink()  # synthesized again under the same seed: the same noise
    again = render(joe_candidate, LINE, RenderSettings(seed=3), tmp_path, pool)
    assert not again.cached and spy.calls == 2
    np.testing.assert_array_equal(first.audio, again.audio)
    first.path.write_bytes(b"not a wav")  # damaged: rendered again and replaced
    repaired = render(joe_candidate, LINE, RenderSettings(seed=3), tmp_path, pool)
    assert not repaired.cached and spy.calls == 3
    np.testing.assert_array_equal(first.audio, render(joe_candidate, LINE, RenderSettings(seed=3), tmp_path).audio)


def test_seeds_decide_the_noise_and_noise_zero_ignores_them(joe_candidate, tmp_path):
    a = render(joe_candidate, LINE, RenderSettings(seed=1), tmp_path / "a").audio
    b = render(joe_candidate, LINE, RenderSettings(seed=2), tmp_path / "b").audio
    assert a.shape != b.shape or not np.array_equal(a, b)
    quiet = [render(joe_candidate, LINE, RenderSettings.noiseless(seed=s), tmp_path / str(s)).audio for s in (1, 2)]
    np.testing.assert_array_equal(quiet[0], quiet[1])
    shared = render(joe_candidate, LINE, RenderSettings.noiseless(seed=2), tmp_path / "1")
    assert shared.cached  # without noise the seed is not part of the key


def test_seeded_onnx_engines_draw_the_same_noise(joe):
    """The engine-level hook: a new engine with the same seed speaks the same samples; another seed differs."""
    from engines.onnx.engine import OnnxEngine

    def speak(seed):
        return np.concatenate([c.audio for c in OnnxEngine(joe, seed=seed, split=False).synthesize(LINE)])

    first, same, other = speak(5), speak(5), speak(6)
    np.testing.assert_array_equal(first, same)
    assert first.shape != other.shape or not np.array_equal(first, other)


def test_a_reseeded_engine_speaks_as_a_new_engine_with_that_seed(engine, joe):
    """``reseeded(s)`` of a loaded engine speaks the samples of a new engine made with seed ``s``, each time, with
    only the encoder part made again; the engine it came from is unchanged."""
    from engines.onnx.engine import OnnxEngine

    def speak(source):
        return np.concatenate([c.audio for c in source.synthesize(LINE)])

    made = speak(OnnxEngine(joe, seed=5))
    first, again, other = engine.reseeded(5), engine.reseeded(5), engine.reseeded(6)
    np.testing.assert_array_equal(speak(first), made)
    np.testing.assert_array_equal(speak(again), made)
    different = speak(other)
    assert different.shape != made.shape or not np.array_equal(different, made)
    assert engine.mode == "flow" and first._flow is engine._flow and first._decoder is engine._decoder
    assert first._encoder is not engine._encoder and engine._encoder.model is not None and engine._decoder.model is None


def test_the_key_follows_the_text_front_end(joe_candidate, monkeypatch):
    """A render made before the text front end changed what a text says is not taken from the cache."""
    import engines.frontend

    base = cache_key(joe_candidate, LINE, RenderSettings(seed=0))
    monkeypatch.setattr(engines.frontend, "VERSION", engines.frontend.VERSION + 1)
    assert cache_key(joe_candidate, LINE, RenderSettings(seed=0)) != base


def test_the_key_follows_the_model_file_and_its_config(joe, joe_candidate, tmp_path):
    settings = RenderSettings(seed=0)
    base = cache_key(joe_candidate, LINE, settings)
    same = Candidate(label="copy", model_path=copy_of_joe(joe, tmp_path / "same"))
    assert cache_key(same, LINE, settings) == base  # the key is the content, not the path or label
    slower = Candidate(label="slow", model_path=copy_of_joe(joe, tmp_path / "slow", length_scale=1.5))
    quieter = Candidate(label="quiet", model_path=copy_of_joe(joe, tmp_path / "quiet", noise_scale=0.1))
    keys = {base, cache_key(slower, LINE, settings), cache_key(quieter, LINE, settings)}
    assert len(keys) == 3
    model = same.model_path
    model.write_bytes(model.read_bytes() + b"\0")
    assert cache_key(same, LINE, settings) != base
    assert cache_key(joe_candidate, "  The quick brown fox.", settings) == base  # cleaned text
    assert cache_key(joe_candidate, LINE, RenderSettings(seed=1)) != base


def test_a_changed_model_is_rendered_again(joe, tmp_path):
    spy = SpyMaker()
    pool = EnginePool(make=spy)
    candidate = Candidate(label="copy", model_path=copy_of_joe(joe, tmp_path / "m"))
    render(candidate, LINE, RenderSettings.noiseless(), tmp_path / "cache", pool)
    config = candidate.model_path.with_name("copy.onnx.json")
    config.write_text(config.read_text().replace('"length_scale": 1', '"length_scale": 1.5'))
    assert not render(candidate, LINE, RenderSettings.noiseless(), tmp_path / "cache", EnginePool(make=spy)).cached
    assert spy.calls == 2


def test_render_all_reports_progress_and_a_cancel_keeps_what_is_finished(joe, joe_candidate, tmp_path):
    other = Candidate(label="slow", model_path=copy_of_joe(joe, tmp_path / "slow", length_scale=1.3))
    lines = ["One.", "Two."]
    seen = []
    state = TaskState(progress=lambda done, total: seen.append((done, total)))
    done = render_all([joe_candidate, other], lines, RenderSettings.noiseless(), tmp_path / "c", state)
    assert seen[-1] == (4, 4) and set(done) == {("joe", 0), ("joe", 1), ("slow", 0), ("slow", 1)}
    assert done[("slow", 0)].audio.size > done[("joe", 0)].audio.size

    def cancel_after_two(done_count, total):
        if done_count == 2:
            stopping.cancel()

    stopping = TaskState(progress=cancel_after_two)
    with pytest.raises(Cancelled) as caught:
        render_all([joe_candidate, other], lines, RenderSettings.noiseless(), tmp_path / "d", stopping)
    assert caught.value.done == 2 and caught.value.total == 4
    assert set(caught.value.partial) == {("joe", 0), ("joe", 1)}
    assert len(list((tmp_path / "d").glob("*.wav"))) == 2


def test_bad_candidates_are_refused(joe_candidate, tmp_path):
    with pytest.raises(RenderError, match="notes.txt"):
        Candidate(label="x", model_path=tmp_path / "notes.txt")
    with pytest.raises(RenderError, match="distinct labels"):
        render_all([joe_candidate, joe_candidate], ["One."], RenderSettings(), tmp_path)


def test_checkpoints_render_on_torch_under_the_same_seed(make_tiny_checkpoint, tmp_path):
    import torch

    first = Candidate(label="a", model_path=make_tiny_checkpoint(tmp_path / "a.ckpt"))
    assert first.engine == "torch"
    torch.manual_seed(11)
    expected = torch.rand(1)
    torch.manual_seed(11)
    pool = EnginePool()
    one = render(first, LINE, RenderSettings(seed=1), tmp_path / "c1", pool).audio
    same = render(first, LINE, RenderSettings(seed=1), tmp_path / "c2", pool).audio
    other = render(first, LINE, RenderSettings(seed=2), tmp_path / "c3", pool).audio
    np.testing.assert_array_equal(one, same)
    assert one.shape != other.shape or not np.array_equal(one, other)
    assert torch.rand(1) == expected  # the caller's generator is untouched (fork_rng)
    second = make_tiny_checkpoint(tmp_path / "b.ckpt")
    state = torch.load(second, weights_only=False)
    state["state_dict"] = {k: v + 0.01 * torch.randn_like(v) for k, v in state["state_dict"].items()}
    torch.save(state, second)
    changed = render(Candidate(label="b", model_path=second), LINE, RenderSettings(seed=1), tmp_path / "c4").audio
    assert changed.shape != one.shape or not np.array_equal(changed, one)


def test_the_key_follows_the_voice_lexicon(joe, tmp_path):
    """A render made before the voice's lexicon changed what a word says is not taken from the cache; a voice
    without a lexicon keeps the key it had."""
    from engines.frontend.lexicon import Lexicon, voice_lexicon_path, write_lexicon

    settings = RenderSettings(seed=0)
    candidate = Candidate(label="copy", model_path=copy_of_joe(joe, tmp_path))
    base = cache_key(candidate, LINE, settings)
    write_lexicon(voice_lexicon_path(candidate.model_path), Lexicon({"hello": "yellow"}))
    said = cache_key(candidate, LINE, settings)
    write_lexicon(voice_lexicon_path(candidate.model_path), Lexicon({"hello": "fellow"}))
    assert len({base, said, cache_key(candidate, LINE, settings)}) == 3
    voice_lexicon_path(candidate.model_path).unlink()
    assert cache_key(candidate, LINE, settings) == base
