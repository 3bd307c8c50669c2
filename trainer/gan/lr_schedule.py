"""The learning-rate schedule: the generator's and the discriminators' rates anneal exponentially, once per epoch,
to ``lr_final_fraction`` (5%) of their start at the run's last planned epoch.

The rate epoch ``e`` (from 0) of an ``E``-epoch run trains with is ``start * fraction ** (e / (E - 1))``: the
start at the first epoch, ``start * fraction`` at the last. Each epoch's factor is worked out from the rate the
optimizer holds now and the epochs left (:func:`epoch_gamma`), so a run extended (or shortened) on a resume goes
from where its rate is then to the fraction of its start at its new last epoch, and a checkpoint's scheduler,
which saves its ``gamma``, never brings back the old plan's. A finished run given more epochs stays at the
fraction. Piper's old fixed factors (0.999875 and 0.9999 per epoch, from VITS) assume a run of about 20,000
epochs: 12% less over 1,000; piper1-gpl 1.8.0 (CHANGELOG) derives them from the planned epochs to the same 5%.

A run made before the schedule (its config without ``lr_final_fraction``: ``None``, ``TrainingConfig.from_dict``)
keeps its fixed factors ``lr_decay`` and ``lr_decay_d`` when resumed.

No torch import: the schedulers are stepped through their own methods (``torch.optim.lr_scheduler.ExponentialLR``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from trainer.run.presets import TrainingConfig


def epoch_gamma(rate: float, end: float, epochs_left: int) -> float:
    """The factor per epoch that takes ``rate`` to ``end`` in ``epochs_left`` epochs (1/step); 1.0 when no epoch
    is left or the rate is at or below ``end`` already (it never rises)."""
    if epochs_left <= 0 or rate <= end:
        return 1.0
    return (end / rate) ** (1.0 / epochs_left)


def end_rates(config: TrainingConfig) -> tuple[float, float]:
    """The generator's and the discriminators' rates at the last epoch (1/step), of a run with the schedule
    (``lr_final_fraction`` set)."""
    assert config.lr_final_fraction is not None  # a run made before the schedule has no planned end
    return config.learning_rate * config.lr_final_fraction, config.learning_rate_d * config.lr_final_fraction


def gammas(config: TrainingConfig, rates: Iterable[float], epoch: int) -> list[float]:
    """The factors that take the generator's and the discriminators' ``rates`` (those of epoch ``epoch - 1``) to
    epoch ``epoch``'s (from 0): from the rate now to the end rate at the last epoch (``config.epochs - 1``, so
    ``config.epochs - epoch`` factors left), or a run's fixed ``lr_decay``, ``lr_decay_d``."""
    if config.lr_final_fraction is None:
        return [config.lr_decay, config.lr_decay_d]
    return [epoch_gamma(rate, end, config.epochs - epoch) for rate, end in zip(rates, end_rates(config), strict=True)]


def step(schedulers: list[Any], config: TrainingConfig, epoch: int) -> None:
    """Set each ``ExponentialLR``'s ``gamma`` (generator's first) to the schedule's for epoch ``epoch`` (from 0,
    before its first step), then step it: the optimizers' rates become that epoch's."""
    rates = [scheduler.optimizer.param_groups[0]["lr"] for scheduler in schedulers]
    for scheduler, gamma in zip(schedulers, gammas(config, rates, epoch), strict=True):
        scheduler.gamma = gamma  # the plan's now, not the one a checkpoint's scheduler state brought back
        scheduler.step()


def steps_taken(optimizer: Any) -> int:
    """Steps ``optimizer`` (an AdamW) has taken: its first group's first parameter's ``step`` (0 before any; a step
    the GradScaler skipped is not counted). The generator's first group leads with the decoder, which every step
    trains; one state is read, so on a GPU it waits for the device once."""
    for parameter in optimizer.param_groups[0]["params"]:
        if "step" in (state := optimizer.state.get(parameter, {})):
            return int(state["step"])
    return 0


def warmup_factor(taken: int, steps: int) -> float:
    """The share of the scheduled rate the step after ``taken`` steps trains with: ``(taken + 1) / steps`` over the
    first ``steps`` steps (linear warm-up), then 1 (also where ``steps`` is 0)."""
    return min(1.0, (taken + 1) / steps) if steps > 0 else 1.0


@contextmanager
def ramped(optimizer: Any, factor: float) -> Iterator[None]:
    """Inside it, every group of ``optimizer`` trains at ``factor`` of its scheduled rate (:func:`warmup_factor`);
    outside, at the schedule's again, so the per-epoch schedulers never see the ramp."""
    if factor == 1.0:
        yield
        return
    rates = [group["lr"] for group in optimizer.param_groups]
    for group in optimizer.param_groups:
        group["lr"] *= factor
    try:
        yield
    finally:
        for group, rate in zip(optimizer.param_groups, rates, strict=True):
            group["lr"] = rate


def rate_words(rate: float, digits: int = 2) -> str:
    """A learning rate as the page and ``training.json`` write it, to ``digits`` significant digits, trailing zeros
    dropped: ``2e-4``, ``1.5e-4``, ``1e-5``; with 3, a rate on its way, ``1.99e-4``."""
    mantissa, exponent = f"{rate:.{digits - 1}e}".split("e")
    mantissa = mantissa.rstrip("0").removesuffix(".") if "." in mantissa else mantissa
    return f"{mantissa}e{int(exponent)}"


def planned(config: Mapping[str, Any]) -> TrainingConfig | None:
    """A run's config (``TrainingConfig.to_dict()``, as ``training.json`` and a ``run_start`` event hold it) read;
    ``None`` for one without its rate or epochs (a partial one) or with a setting unknown here (another version's)."""
    if "learning_rate" not in config or "epochs" not in config:
        return None
    try:
        return TrainingConfig.from_dict(dict(config))
    except TypeError:
        return None


def end_rate(config: Mapping[str, Any]) -> float | None:
    """The generator's rate at the run's last epoch (1/step); ``None`` for a run made before the schedule or a
    partial config."""
    c = planned(config)
    return None if c is None or c.lr_final_fraction is None else end_rates(c)[0]


def path_words(config: Mapping[str, Any]) -> str:
    """The generator's schedule in a few words: ``2e-4 → 1e-5``, for a run made before the schedule
    ``2e-4 × 0.999875 per epoch``; ``""`` for a partial config."""
    c, end = planned(config), end_rate(config)
    if c is None:
        return ""
    start = rate_words(c.learning_rate)
    return f"{start} → {rate_words(end)}" if end is not None else f"{start} × {c.lr_decay:g} per epoch"


def words(config: Mapping[str, Any]) -> str:
    """Both schedules in a sentence (``training.json``'s ``lr_schedule``, the Train page's tooltip): ``exponential
    per epoch to 5% of the start at the last epoch (1,000): generator 2e-4 → 1e-5, discriminators 1e-4 → 5e-6``;
    ``""`` for a partial config."""
    c = planned(config)
    if c is None:
        return ""
    g, d = rate_words(c.learning_rate), rate_words(c.learning_rate_d)
    if c.lr_final_fraction is None:
        fixed = f"fixed per epoch: generator {g} × {c.lr_decay:g}, discriminators {d} × {c.lr_decay_d:g}"
        return fixed + _warmup_words(c)
    g_end, d_end = (rate_words(rate) for rate in end_rates(c))
    fraction = f"{c.lr_final_fraction * 100:g}%"
    return (
        f"exponential per epoch to {fraction} of the start at the last epoch ({c.epochs:,}): "
        f"generator {g} → {g_end}, discriminators {d} → {d_end}" + _inference_words(c) + _warmup_words(c)
    )


def _warmup_words(c: TrainingConfig) -> str:
    """``; the generator's first 100 steps rise linearly to its rate`` where it warms up (``lr_warmup_steps``)."""
    steps = c.lr_warmup_steps
    return f"; the generator's first {steps:,} steps rise linearly to its rate" if steps else ""


def _inference_words(c: TrainingConfig) -> str:
    """``; the inference path before the decoder at 10% of the generator's rate`` where it is slowed, with the
    text encoder's own share (``text_lr_scale``), the start anchor (``inference_anchor``) and the decoder's share
    (``decoder_lr_scale``) where set."""
    text = c.text_lr_scale is not None and c.text_lr_scale != c.inference_lr_scale
    decoder = f"; the decoder at {c.decoder_lr_scale * 100:g}%" if c.decoder_lr_scale != 1.0 else ""
    if c.inference_lr_scale == 1.0 and not text and not c.inference_anchor:
        return decoder
    words = f"; the inference path before the decoder at {c.inference_lr_scale * 100:g}% of the generator's rate"
    if text and c.text_lr_scale is not None:
        words += f" (the text encoder at {c.text_lr_scale * 100:g}%)"
    if c.inference_anchor:
        words += f", held near the start's weights (anchor {c.inference_anchor:,g})"
    return words + decoder
