"""The learning-rate schedule (``trainer.gan.lr_schedule``) through the training system's own schedulers: both rates
anneal to 5% of their start at the last planned epoch, an extended run goes from its rate then to 5% at its new
last epoch whatever gamma its checkpoint saved, and a run made before the schedule keeps its fixed decay."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")
pytestmark = pytest.mark.filterwarnings("ignore:Detected call of `lr_scheduler.step\\(\\)`:UserWarning")  # no training

from trainer.events.run_state import load_run  # noqa: E402
from trainer.gan import lr_schedule  # noqa: E402
from trainer.run.document import RunDocument, read_run, write_run  # noqa: E402
from trainer.run.options import RunOptions  # noqa: E402
from trainer.run.presets import TrainingConfig, preset  # noqa: E402

START_G, START_D = 2e-4, 1e-4
"""The test preset's starting rates (Piper's)."""


def _schedulers(config: TrainingConfig, saved: list[dict] | None = None):
    """The training system's two optimizers and their schedulers for ``config``; ``saved``: a checkpoint's
    ``[optimizer, optimizer, scheduler, scheduler]`` states loaded into them, as a resume does."""
    from trainer.gan.system import VitsSystem

    optimizers, schedulers = VitsSystem(config.to_dict()).configure_optimizers()
    if saved is not None:
        for part, state in zip([*optimizers, *schedulers], saved, strict=True):
            part.load_state_dict(state)
    return optimizers, schedulers


def _train(config: TrainingConfig, schedulers, epochs: range) -> list[tuple[float, float]]:
    """Step the schedulers as the system does before each of ``epochs`` (from 0); each epoch's two rates."""
    rates = []
    for epoch in epochs:
        if epoch > 0:
            lr_schedule.step(schedulers, config, epoch)
        rates.append(tuple(s.optimizer.param_groups[0]["lr"] for s in schedulers))
    return rates


def test_both_rates_anneal_to_5_percent_at_the_last_planned_epoch():
    """A 10-epoch run: the first epoch trains at the start rates, the last at 5% of them, every epoch between
    on the exponential from one to the other."""
    config = preset("test", num_symbols=40, epochs=10)
    _, schedulers = _schedulers(config)
    rates = _train(config, schedulers, range(10))
    assert rates[0] == (START_G, START_D)
    assert rates[-1] == pytest.approx((0.05 * START_G, 0.05 * START_D), rel=1e-12)
    for epoch, (g, d) in enumerate(rates):
        assert g == pytest.approx(START_G * 0.05 ** (epoch / 9), rel=1e-12)
        assert d == pytest.approx(START_D * 0.05 ** (epoch / 9), rel=1e-12)


def test_an_extended_run_goes_from_its_rate_now_to_5_percent_at_its_new_last_epoch():
    """Planned for 10, resumed after epoch 5 with 20: the checkpoint's schedulers bring back the old gamma, the
    step replaces it; the rate falls from where it was to 5% at epoch 20. A finished run extended stays at 5%."""
    config = preset("test", num_symbols=40, epochs=10)
    optimizers, schedulers = _schedulers(config)
    before = _train(config, schedulers, range(5))
    saved = [part.state_dict() for part in (*optimizers, *schedulers)]
    extended = preset("test", num_symbols=40, epochs=20)
    _, resumed = _schedulers(extended, saved)
    old_gamma = 0.05 ** (1 / 9)
    assert resumed[0].gamma == pytest.approx(old_gamma)  # what a checkpoint restores
    after = _train(extended, resumed, range(5, 20))
    g4 = before[-1][0]
    assert after[0][0] == pytest.approx(g4 * (0.05 * START_G / g4) ** (1 / 15), rel=1e-12)
    assert after[-1] == pytest.approx((0.05 * START_G, 0.05 * START_D), rel=1e-12)
    assert resumed[0].gamma == pytest.approx((0.05 * START_G / g4) ** (1 / 15)) and resumed[0].gamma > old_gamma
    assert all(a[0] > b[0] for a, b in zip(after, after[1:], strict=False))

    short = preset("test", num_symbols=40, epochs=3)
    optimizers, schedulers = _schedulers(short)
    _train(short, schedulers, range(3))
    saved = [part.state_dict() for part in (*optimizers, *schedulers)]
    longer = preset("test", num_symbols=40, epochs=5)
    _, resumed = _schedulers(longer, saved)
    for rates in _train(longer, resumed, range(3, 5)):
        assert rates == pytest.approx((0.05 * START_G, 0.05 * START_D), rel=1e-12)


def test_a_run_made_before_the_schedule_keeps_its_fixed_decay(tmp_path):
    """A training.json whose config has no lr_final_fraction reads as the fixed 0.999875 / 0.9999 per epoch,
    steps so, says so on the Train page, and is written back byte for byte (no schedule added)."""
    config = preset("test", num_symbols=40, epochs=3).to_dict()
    del config["lr_final_fraction"]
    run = tmp_path / "old"
    run.mkdir()
    document = RunDocument(options=RunOptions(dataset=tmp_path, out=run, preset="test", epochs=3), cache=tmp_path,
                           config=config)  # fmt: skip
    text = json.dumps({**document.to_json(), "config": config}, indent=2)
    (run / "training.json").write_text(text, encoding="utf-8")
    old = TrainingConfig.from_dict(read_run(run).config)
    assert old.lr_final_fraction is None
    _, schedulers = _schedulers(old)
    rates = _train(old, schedulers, range(3))
    assert rates[1] == pytest.approx((START_G * 0.999875, START_D * 0.9999), rel=1e-12)
    assert rates[2] == pytest.approx((START_G * 0.999875**2, START_D * 0.9999**2), rel=1e-12)
    assert lr_schedule.path_words(load_run(run, with_events=False).config) == "2e-4 × 0.999875 per epoch"
    write_run(read_run(run))
    assert (run / "training.json").read_text(encoding="utf-8") == text and "lr_schedule" not in text


def test_training_json_states_the_schedule_and_follows_the_epochs(tmp_path):
    """A run's training.json says both schedules in words; a change of its epochs says the new last epoch."""
    config = preset("test", num_symbols=40, epochs=2).to_dict()
    options = RunOptions(dataset=tmp_path, out=tmp_path, preset="test", epochs=2)
    document = RunDocument(options=options, cache=tmp_path, config=config)
    write_run(document)
    said = json.loads((tmp_path / "training.json").read_text())["lr_schedule"]
    assert said == (
        "exponential per epoch to 5% of the start at the last epoch (2): generator 2e-4 → 1e-5, "
        "discriminators 1e-4 → 5e-6; the inference path before the decoder at 10% of the generator's rate, "
        "held near the start's weights (anchor 1,000); the generator's first 2 steps rise linearly to its rate"
    )
    assert TrainingConfig.from_dict(read_run(tmp_path).config) == TrainingConfig.from_dict(config)  # words ignored
    write_run(document.with_epochs(1500))
    assert "at the last epoch (1,500): generator" in json.loads((tmp_path / "training.json").read_text())["lr_schedule"]
    assert lr_schedule.path_words(load_run(tmp_path, with_events=False).config) == "2e-4 → 1e-5"


def test_the_schedule_words_say_the_text_encoders_share_and_the_anchor():
    """Where the text encoder has its own share and the start anchor is on, the schedule's words say both."""
    from dataclasses import replace

    config = replace(preset("test", num_symbols=40, epochs=2), text_lr_scale=0.0, inference_anchor=500.0)
    assert (
        "; the inference path before the decoder at 10% of the generator's rate (the text encoder at 0%), "
        "held near the start's weights (anchor 500);" in lr_schedule.words(config.to_dict())
    )


def test_the_schedule_words_say_the_generators_warm_up():
    """A run whose generator warms up says over how many steps; one without says nothing of it."""
    from dataclasses import replace

    config = preset("test", num_symbols=40, epochs=2)
    assert "first" not in lr_schedule.words(replace(config, lr_warmup_steps=0).to_dict())
    warmed = lr_schedule.words(replace(config, lr_warmup_steps=1200).to_dict())
    assert warmed.endswith("; the generator's first 1,200 steps rise linearly to its rate")
