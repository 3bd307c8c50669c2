"""The generator's inference path learns at a fraction of the rate in a fine-tune, the full rate from scratch."""

from __future__ import annotations

import pytest
from conftest import target_voice_slice

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def piper_folder(tmp_path_factory):
    """The first 8 target-voice clips in Piper's layout."""
    return target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", 8)


def _groups(config):
    from trainer.gan.system import VitsSystem

    system = VitsSystem(config.to_dict())
    (opt_g, _), _ = system.configure_optimizers()
    names = {id(p): n for n, p in system.model_g.named_parameters()}
    return [({names[id(p)] for p in group["params"]}, group["lr"]) for group in opt_g.param_groups]


def test_the_inference_path_learns_at_its_scale_and_everything_else_at_the_rate():
    """Two groups partition the generator: enc_p, flow, the duration predictor's inference part and emb_g at
    ``inference_lr_scale`` of the rate (the second group); the decoder, enc_q and the duration predictor's
    training-only part at the rate (the first, which the schedule and the events read)."""
    from dataclasses import replace

    from trainer.run.presets import preset

    config = replace(preset("test", num_speakers=2), learning_rate=3e-4, inference_lr_scale=0.25)
    (fast, fast_lr), (slow, slow_lr) = _groups(config)
    assert fast_lr == 3e-4 and slow_lr == pytest.approx(7.5e-5)
    assert {n.split(".")[0] for n in slow} == {"enc_p", "flow", "dp", "emb_g"}
    assert {n.split(".")[0] for n in fast} == {"dec", "enc_q", "dp"}
    assert all(n.startswith(("dp.post_", "dp.flows.1.")) for n in fast if n.startswith("dp."))
    assert not fast & slow


def test_the_text_encoder_can_learn_at_its_own_scale():
    """``text_lr_scale`` sets enc_p apart in a third group; the flow, the duration predictor and emb_g keep
    ``inference_lr_scale``."""
    from dataclasses import replace

    from trainer.run.presets import preset

    config = replace(preset("test", num_speakers=2), learning_rate=2e-4, inference_lr_scale=0.5, text_lr_scale=0.0)
    (_, fast_lr), (rest, rest_lr), (text, text_lr) = _groups(config)
    assert (fast_lr, rest_lr, text_lr) == (2e-4, 1e-4, 0.0)
    assert {n.split(".")[0] for n in text} == {"enc_p"}
    assert {n.split(".")[0] for n in rest} == {"flow", "dp", "emb_g"}


def test_the_decoder_can_learn_at_its_own_scale_and_is_not_anchored(tmp_path):
    """``decoder_lr_scale`` puts the decoder in a last group at its share; the anchor pulls only the inference
    path's group, so a held decoder (scale 0) stays at the start's weights through a step and the words say so."""
    from dataclasses import replace

    import torch

    from trainer.gan.lr_schedule import words
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    config = replace(preset("test"), learning_rate=2e-4, inference_lr_scale=0.5, decoder_lr_scale=0.0)
    (fast, fast_lr), (slow, slow_lr), (decoder, decoder_lr) = _groups(config)
    assert (fast_lr, slow_lr, decoder_lr) == (2e-4, 1e-4, 0.0)
    assert {n.split(".")[0] for n in decoder} == {"dec"} and not decoder & (fast | slow)
    assert "the decoder at 0%" in words(config.to_dict())
    system = VitsSystem(replace(config, inference_anchor=1000.0).to_dict())
    (opt_g, _), _ = system.configure_optimizers()
    before = {n: p.detach().clone() for n, p in system.model_g.named_parameters()}
    system.anchor.capture(dict(system.model_g.named_parameters()))
    for p in system.model_g.parameters():
        p.grad = torch.ones_like(p)
    system._generator_step(opt_g)
    after = dict(system.model_g.named_parameters())
    assert all(torch.equal(after[n], before[n]) for n in decoder)
    assert any(not torch.equal(after[n], before[n]) for n in fast)


def test_a_config_written_before_the_scale_keeps_the_full_rate():
    """training.json configs without the field ran with the whole generator at the full rate, and resume so."""
    from trainer.run.presets import TrainingConfig

    values = TrainingConfig().to_dict()
    assert values.pop("inference_lr_scale") == 0.1
    old = TrainingConfig.from_dict(values)
    assert old.inference_lr_scale == 1.0
    assert {lr for _, lr in _groups(old)} == {old.learning_rate}


def test_a_run_from_scratch_trains_the_inference_path_at_the_full_rate(piper_folder, tmp_path):
    """A run from joe keeps the preset's scale in its training.json; a run from scratch has nothing to keep."""
    from trainer.run.document import read_run
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    scales = {}
    for start in ("joe", "scratch"):
        run = create_run(RunOptions(dataset=piper_folder, out=tmp_path / start, start=start, preset="test", epochs=1))
        scales[start] = read_run(run).config["inference_lr_scale"]
    assert scales == {"joe": 0.1, "scratch": 1.0}
