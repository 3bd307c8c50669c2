"""The start anchor pulls a fine-tune's inference path back to the start's weights, and a resume keeps the start."""

from __future__ import annotations

from dataclasses import replace

import pytest

torch = pytest.importorskip("torch")


def _system(anchor: float, speakers: int = 1):
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    return VitsSystem(replace(preset("test", num_speakers=speakers), inference_anchor=anchor).to_dict())


def _nudge(named: dict, by: float) -> None:
    with torch.no_grad():
        for p in named.values():
            p.add_(by)


def test_a_pull_moves_the_inference_path_back_by_its_share_and_nothing_else():
    """After a pull at rate 1e-4 and strength 2,000 every anchored weight's distance to the start shrinks by 20%;
    the decoder, which the anchor does not hold, stays where it was."""
    from trainer.gan.system import inference_named

    system = _system(2000.0)
    named = inference_named(system.model_g)
    system.anchor.capture(named)
    _nudge(named, 0.01)
    moved = system.anchor.distance(named)
    decoder = [p.detach().clone() for p in system.model_g.dec.parameters()]
    system.anchor.pull(named, 1e-4)
    assert system.anchor.distance(named) == pytest.approx(0.8 * moved, rel=1e-4)
    assert all(torch.equal(a, b) for a, b in zip(decoder, system.model_g.dec.parameters(), strict=True))


def test_layers_a_start_left_fresh_are_not_held():
    """A single- to multi-speaker start leaves the speaker embedding and its conditioning layers fresh
    (``trainer.start.points.copy_matching``): they learn freely, while the weights copied from the voice are held."""
    from trainer.gan.system import inference_named
    from trainer.start.points import copy_generator, kept_fresh

    voice, system = _system(1000.0), _system(1000.0, speakers=3)
    weights = voice.model_g.state_dict()
    copy_generator(system, weights, "voice")  # what both start loaders call
    fresh = kept_fresh(system.model_g, weights)
    assert "emb_g.weight" in fresh and any(n.startswith("flow.") for n in fresh)
    named = inference_named(system.model_g)
    system.anchor.capture(named)
    before = {n: p.detach().clone() for n, p in named.items()}
    _nudge(named, 0.01)
    system.anchor.pull(named, 1e-3)  # a whole pull: held weights back at the start
    assert all(torch.equal(p, before[n] + 0.01) for n, p in named.items() if n in fresh)
    assert all(torch.allclose(p, before[n]) for n, p in named.items() if n not in fresh)


def test_the_anchor_is_off_at_strength_zero():
    """Strength 0 (the default and every run from scratch): no start kept, no pull, nothing in checkpoints."""
    from trainer.gan.system import inference_named

    system = _system(0.0)
    named = inference_named(system.model_g)
    system.anchor.capture(named)
    _nudge(named, 0.01)
    before = [p.detach().clone() for p in named.values()]
    system.anchor.pull(named, 1e-4)
    checkpoint: dict = {}
    system.on_save_checkpoint(checkpoint)
    assert all(torch.equal(a, b) for a, b in zip(before, named.values(), strict=True))
    assert checkpoint == {}


def test_a_resumed_run_is_pulled_to_the_start_it_began_from():
    """The start's weights travel in the resume checkpoint: a resumed system takes them rather than its
    own (moved) weights as the start."""
    from trainer.gan.system import inference_named

    first = _system(1000.0)
    first.anchor.capture(inference_named(first.model_g))
    checkpoint: dict = {}
    first.on_save_checkpoint(checkpoint)
    resumed = _system(1000.0)
    resumed.load_state_dict(first.state_dict())
    named = inference_named(resumed.model_g)
    _nudge(named, 0.01)  # trained since the start
    resumed.on_load_checkpoint(checkpoint)
    resumed.anchor.capture(named)
    assert resumed.anchor.distance(named) > 0
    fresh = _system(1000.0)
    fresh.load_state_dict(resumed.state_dict())
    fresh.anchor.capture(inference_named(fresh.model_g))
    assert fresh.anchor.distance(inference_named(fresh.model_g)) == 0


def test_a_config_written_before_the_anchor_has_none():
    """training.json configs without the field ran unanchored, and resume so (no start kept, none pulled)."""
    from trainer.run.presets import TrainingConfig

    values = TrainingConfig().to_dict()
    assert values.pop("inference_anchor") == 1000.0
    assert TrainingConfig.from_dict(values).inference_anchor == 0.0


def test_a_run_from_scratch_has_no_anchor_no_warm_up_no_decoder_losses_and_speaks_as_its_start(tmp_path):
    """A run from joe keeps the preset's anchor, rate warm-up and the decoder's own losses
    (``trainer.gan.decoder_losses``) in its training.json, and its config.json (what its checkpoints and exports
    are spoken with) says the fine-tune's noise_scale; a run from scratch has nothing to hold, fresh weights to
    warm up from and a prior that means nothing yet (none of them), and speaks with its start's inference settings."""
    from conftest import target_voice_slice

    from engines.voice import load_config
    from trainer.run.document import read_run
    from trainer.run.options import RunOptions
    from trainer.run.presets import TrainingConfig
    from trainer.run.train import create_run

    data = target_voice_slice(tmp_path / "piper-data", 8)
    held, spoken = {}, {}
    for start in ("joe", "scratch"):
        run = create_run(RunOptions(dataset=data, out=tmp_path / start, start=start, preset="test", epochs=1))
        config = read_run(run).config
        held[start] = config["inference_anchor"], config["lr_warmup_steps"], config["stft_loss"], config["prior_mel"]
        spoken[start] = load_config(run / "config.json")
    assert held == {"joe": (TrainingConfig().inference_anchor, 2, 0.5, 0.5), "scratch": (0.0, 0, 0.0, 0.0)}
    assert {start: (c.noise_scale, c.noise_w, c.length_scale) for start, c in spoken.items()} == {
        "joe": (0.333, 0.8, 1.0),  # joe's own noise_w and length_scale kept
        "scratch": (0.667, 0.8, 1.0),
    }


def _fit(anchor: float):
    """A seeded test-preset system after two real generator steps (no warm-up) with ``anchor``, and its start."""
    from test_system_step import fit_steps

    from trainer.gan.system import inference_named

    torch.manual_seed(0)
    system = _system(anchor)
    start = {n: p.detach().clone() for n, p in system.model_g.named_parameters()}
    fit_steps(system, 2)
    moved = {n for n, p in system.model_g.named_parameters() if not torch.equal(p.detach(), start[n])}
    return moved, set(inference_named(system.model_g))


def test_the_training_step_pulls_the_inference_path_and_only_it():
    """In a real fit an anchor whose pull is whole (lr x strength >= 1) leaves the inference path exactly at the
    start while the decoder learns; without the anchor the same steps move the inference path."""
    held, path = _fit(1e9)
    free, _ = _fit(0.0)
    assert not held & path
    assert any(n.startswith("dec.") for n in held)
    assert free & path
