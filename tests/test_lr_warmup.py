"""The generator's learning-rate warm-up: a fine-tune's first steps train at a rising share of the rate, and a
resume ramps on from where it stopped."""

from __future__ import annotations

from dataclasses import replace

import pytest

torch = pytest.importorskip("torch")

from test_system_step import fit_steps  # noqa: E402

from trainer.gan import lr_schedule  # noqa: E402
from trainer.gan.system import VitsSystem  # noqa: E402
from trainer.run.presets import preset  # noqa: E402


def _system(warmup: int) -> VitsSystem:
    torch.manual_seed(0)
    return VitsSystem(replace(preset("test", num_symbols=40), lr_warmup_steps=warmup, inference_anchor=0.0).to_dict())


def _decoder_move(warmup: int) -> tuple[float, VitsSystem]:
    """The decoder's mean absolute weight change over one real generator step, and the system after it."""
    system = _system(warmup)
    start = {n: p.detach().clone() for n, p in system.model_g.dec.named_parameters()}
    fit_steps(system, 1)
    moved = [(p.detach() - start[n]).abs().mean() for n, p in system.model_g.dec.named_parameters()]
    return float(torch.stack(moved).mean()), system


def _recording_factors(monkeypatch) -> list[float]:
    """The shares of the rate the generator's steps will train with (``lr_schedule.ramped``'s factors), in order."""
    factors: list[float] = []
    ramped = lr_schedule.ramped

    def recording(optimizer, factor):
        factors.append(factor)
        return ramped(optimizer, factor)

    monkeypatch.setattr(lr_schedule, "ramped", recording)
    return factors


def test_the_first_step_of_a_four_step_warm_up_moves_the_weights_a_quarter_as_far():
    """AdamW's first step moves each weight by about its rate, so a quarter of the rate moves them a quarter as
    far; afterwards the optimizer holds the schedule's rate again (the ramp is not baked into it)."""
    ramped, system = _decoder_move(4)
    full, _ = _decoder_move(0)
    assert ramped / full == pytest.approx(0.25, rel=0.02)
    opt_g = system.optimizers()[0]
    assert opt_g.param_groups[0]["lr"] == pytest.approx(system.config.learning_rate)


def test_a_resumed_fit_ramps_on_from_the_steps_its_optimizer_took(tmp_path, monkeypatch):
    """Two steps of a four-step warm-up, a checkpoint, and a resumed fit: its steps train at 3/4, then all of the
    rate (the count comes back with the optimizer's state, not from zero)."""
    first = _system(4)
    trainer = fit_steps(first, 2).trainer
    trainer.save_checkpoint(tmp_path / "last.ckpt")
    factors = _recording_factors(monkeypatch)
    fit_steps(_system(4), 2, epochs=2, resume=tmp_path / "last.ckpt")
    assert factors == [0.75, 1.0]


def test_a_step_the_optimizer_did_not_take_does_not_count(monkeypatch):
    """A generator step skipped (as the 16-mixed GradScaler skips one whose gradients overflowed) leaves the ramp
    where it was: the next step trains at the same share of the rate, not the next one."""
    factors = _recording_factors(monkeypatch)
    calls = []
    step = torch.optim.AdamW.step

    def skipping_the_first(self, *args, **kwargs):
        calls.append(self)
        return None if len(calls) == 1 else step(self, *args, **kwargs)  # the first is the generator's

    monkeypatch.setattr(torch.optim.AdamW, "step", skipping_the_first)
    fit_steps(_system(4), 2)
    assert factors == [0.25, 0.25]


def test_no_warm_up_in_a_config_written_before_it():
    """training.json configs without the field ran without a warm-up, and resume so."""
    from trainer.run.presets import TrainingConfig

    values = TrainingConfig().to_dict()
    values.pop("lr_warmup_steps")
    assert TrainingConfig.from_dict(values).lr_warmup_steps == 0
