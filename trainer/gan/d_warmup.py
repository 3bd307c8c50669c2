"""The discriminator warm-up: fresh discriminators train alone, the generator frozen, until they are ready.

A start with a trained generator and fresh discriminators (an ONNX voice, a ``.ckpt`` without
discriminator weights) would otherwise feed the generator feature-matching and adversarial
gradients from discriminators that cannot yet tell real from generated audio. The warm-up trains
the discriminators alone (``trainer.gan.system``) until their loss says they can.

The criterion, from the least-squares GAN loss the discriminators minimise (``trainer.gan.losses``:
the sum over the 6 discriminators of mean ``(1 - D(y))^2`` + mean ``D(G(x))^2``): a fresh
discriminator scores everything near 0, about 1 per discriminator (6 in all); one that cannot tell
the two apart does best by scoring everything 0.5, giving 0.5 per discriminator (3 in all, the
*undecided* level). Only a discriminator that separates real from generated audio goes below it.
So the warm-up ends once the smoothed loss (``SMOOTHING``; bias-corrected, so the first step's loss
is its first value) is below ``TrainingConfig.d_warmup_ready_loss`` (a margin under 3) after at least
``d_warmup_min_steps``, or at its cap whatever the loss: ``d_warmup_max_steps``, or
``d_warmup_max_share`` of the run's planned steps where that is fewer (:meth:`DiscriminatorWarmup.begin_fit`).
A start with trained discriminators has no warm-up.

State, kept in checkpoints (so a resume goes on where it was): buffers ``d_warmup.left`` (steps the
warm-up may still take, its cap left; 0: none or over), ``d_warmup.done`` (steps taken) and
``d_warmup.loss`` (the smoothed loss). Older checkpoints hold ``d_warmup_left`` alone
(:func:`upgrade_state`). The step never waits for the device to decide whether it warms up: the
buffers are read once per fit (:meth:`DiscriminatorWarmup.begin_fit`) and counted beside host
copies. The criterion must read the loss: on the CPU it does after every step (nothing waits), on an
accelerator every ``CHECK_EVERY`` steps (each read waits for the queued kernels once; see there).
Under DDP the ranks' smoothed losses are averaged before deciding, so every rank decides alike.

:class:`WarmupEvents` says it all as ``Stage`` events named ``d_warmup`` (``trainer.events.schema``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import lightning as L
import torch

from engines.words import count
from trainer.events.schema import WARMUP_STAGE, Stage
from trainer.gan import losses
from trainer.gan.discriminators import discriminator_count
from trainer.run.presets import TrainingConfig

SMOOTHING = 0.9
"""The smoothed loss's exponential decay per step: a time constant of about 10 steps, long enough to even out
the step-to-step noise of small batches, short against a warm-up of ``d_warmup_min_steps`` or more."""
CHECK_EVERY = 10
"""Steps between two reads of the smoothed loss on an accelerator. A read makes the host wait until the queued
kernels are done (the queue then runs dry once while the host queues the next step): once in 10 steps that is
at most a tenth of one step's host time, and the decision comes at most 9 steps late, less than the smoothing's
own time constant."""
PIPER_COUNT = discriminator_count(resolutions=False)
"""Piper's discriminators (its scale discriminator and one per period): 6. ``d_warmup_ready_loss`` is stated for
six fresh ones."""
UNDECIDED_LOSS = 0.5 * PIPER_COUNT
"""The least-squares loss of discriminators that score real and generated audio alike (both 0.5): 0.5 for each
of the ``MultiPeriodDiscriminator``'s (its scale discriminator and one per period), 3 in all."""

Reduce = Callable[[torch.Tensor], torch.Tensor]
"""The mean of a tensor over the DDP ranks (the identity in one process)."""


@dataclass(frozen=True, kw_only=True)
class WarmupNews:
    """What the warm-up has to say: ``done`` steps of at most ``cap``, the smoothed ``loss`` (``None`` before
    the first step), ``ready_loss`` and ``min_steps`` (the criterion); ``ended`` ``ready``/``cap`` when it is over,
    ``resumed`` for a fit that goes on with a warm-up begun before; ``undecided``: the discriminators' undecided
    loss (``UNDECIDED_LOSS``, scaled as the ready loss); ``judged`` of ``count`` discriminators are judged (the
    fresh ones)."""

    done: int
    cap: int
    loss: float | None
    ready_loss: float
    min_steps: int
    ended: str | None = None
    resumed: bool = False
    undecided: float = UNDECIDED_LOSS
    judged: int = PIPER_COUNT
    count: int = PIPER_COUNT


class DiscriminatorWarmup(torch.nn.Module):
    """The warm-up's state (buffers, see the module docstring) and its criterion; ``news`` collects what
    :class:`WarmupEvents` says.

    Only the fresh discriminators are judged (``fresh``, a mask over ``MultiPeriodDiscriminator.discriminators``;
    all of them from an ONNX voice): a ``.ckpt`` with Piper's six trained ones and a run with the resolution
    discriminators (``TrainingConfig.resolution_discriminator``) warms up the three fresh ones, whose loss alone
    must come below ``d_warmup_ready_loss`` scaled by their share of six (the trained six would otherwise carry
    the sum below it from the first steps). All of them still train.
    """

    left: torch.Tensor  # buffers (register_buffer below), declared for the type checker
    done: torch.Tensor
    loss: torch.Tensor
    fresh: torch.Tensor

    def __init__(self, config: TrainingConfig) -> None:
        super().__init__()
        self.min_steps, self.max_steps = config.d_warmup_min_steps, config.d_warmup_max_steps
        self.max_share = config.d_warmup_max_share
        self.piper_ready_loss = config.d_warmup_ready_loss
        self.register_buffer("left", torch.tensor(0))
        self.register_buffer("done", torch.tensor(0))
        self.register_buffer("loss", torch.tensor(0.0))
        number = discriminator_count(config.resolution_discriminator)
        self.register_buffer("fresh", torch.ones(number, dtype=torch.bool))
        self._judge()
        self.every = 1
        self.began_on = False
        """Whether this fit began with the warm-up on (``begin_fit``)."""
        self.news: list[WarmupNews] = []
        self._left: int | None = None  # host copies, read by begin_fit
        self._done = 0

    def arm(self, max_steps: int | None = None, fresh: Sequence[int] | None = None) -> None:
        """A new warm-up of at most ``max_steps`` (``None``: ``d_warmup_max_steps``; 0: none), judging the
        discriminators numbered ``fresh`` (``None``: all).

        Raises:
            ValueError: ``fresh`` names no discriminator, or one the run does not have.
        """
        mask = torch.ones_like(self.fresh)
        if fresh is not None:
            if not fresh or not all(0 <= i < len(mask) for i in fresh):
                raise ValueError(f"fresh discriminators {list(fresh)}: expected some of 0..{len(mask) - 1}")
            mask = torch.zeros_like(self.fresh)
            mask[list(fresh)] = True
        self.fresh.copy_(mask)
        self.left.fill_(self.max_steps if max_steps is None else max_steps)
        self.done.zero_()
        self.loss.zero_()
        self._left = None
        self._judge()

    def _judge(self) -> None:
        """Host copies of the judged discriminators (``judged``: their numbers) and of the criterion for them."""
        self.judged = [i for i, on in enumerate(self.fresh.tolist()) if on]
        share = len(self.judged) / PIPER_COUNT
        self.ready_loss, self.undecided = self.piper_ready_loss * share, UNDECIDED_LOSS * share

    def judged_loss(self, loss_d: torch.Tensor, real: list, fake: list) -> torch.Tensor:
        """The least-squares loss of the judged discriminators alone (``loss_d`` itself where all are judged);
        ``real``, ``fake``: every discriminator's scores (``trainer.gan.discriminators.Scores``), detached here."""
        if len(self.judged) == len(real):
            return loss_d
        pick = lambda scores: [scores[i][0].detach() for i in self.judged]  # noqa: E731
        return losses.discriminator_loss(pick(real), pick(fake))

    def begin_fit(self, device: torch.device, run_steps: int | None = None) -> None:
        """Read the buffers (once per fit: they may have been armed, or restored by a resume) and say where the
        warm-up stands. On ``device`` of type ``cpu`` the loss is read after every step, else every ``CHECK_EVERY``.

        ``run_steps``: the steps this fit plans (batches per epoch x epochs left); a warm-up not begun yet is cut
        to ``ceil(max_share * run_steps)`` where that is below its cap (a begun one keeps its cap on a resume).
        """
        self.every = 1 if device.type == "cpu" else CHECK_EVERY
        if run_steps is not None and int(self.done) == 0 and int(self.left) > 0:
            self.left.clamp_(max=max(1, math.ceil(self.max_share * run_steps)))
        self._left, self._done = int(self.left), int(self.done)
        self._judge()  # a resume restored the mask
        self.began_on = self._left > 0
        if self._left > 0:
            loss = float(self.loss) if self._done else None
            self.news.append(self._news(loss, resumed=self._done > 0))

    @property
    def on(self) -> bool:
        """Whether this step trains the discriminators alone (from the host copy: no wait for the device)."""
        if self._left is None:
            self._left, self._done = int(self.left), int(self.done)
        return self._left > 0

    def count(self, loss_d: torch.Tensor, reduce: Reduce) -> None:
        """One warm-up step done with discriminator loss ``loss_d`` (a scalar on the buffers' device): counted,
        smoothed (on the device, no wait) and, when due, checked against the criterion."""
        assert self._left is not None  # `on` read it
        self._left, self._done = self._left - 1, self._done + 1
        self.left -= 1
        self.done += 1
        weight = (1 - SMOOTHING) / (1 - SMOOTHING**self._done)  # bias-corrected: the first step's weight is 1
        self.loss.lerp_(loss_d.detach().float(), weight)
        if self._left == 0 or self._done % self.every == 0:
            self._check(reduce)

    def _check(self, reduce: Reduce) -> None:
        """Read the smoothed loss (the ranks' mean) and end the warm-up when it is ready (or at its cap)."""
        loss = float(reduce(self.loss.clone()))
        self.loss.fill_(loss)  # every rank keeps the same
        ended = "ready" if self._done >= self.min_steps and loss < self.ready_loss else None
        if ended:
            self._left = 0
            self.left.zero_()
        self.news.append(self._news(loss, ended=ended or ("cap" if self._left == 0 else None)))

    def _news(self, loss: float | None, *, ended: str | None = None, resumed: bool = False) -> WarmupNews:
        assert self._left is not None
        return WarmupNews(
            done=self._done,
            cap=self._done + self._left,
            loss=loss,
            ready_loss=self.ready_loss,
            min_steps=self.min_steps,
            undecided=self.undecided,
            judged=len(self.judged),
            count=len(self.fresh),
            ended=ended,
            resumed=resumed,
        )


def upgrade_state(module, state_dict: dict, prefix: str, *args) -> None:
    """A state-dict pre-hook for the module holding the warm-up as ``d_warmup``: an older checkpoint's one
    count ``d_warmup_left`` (steps left of a fixed warm-up) becomes ``d_warmup.left``, with no steps done and
    no smoothed loss yet; a checkpoint from before the fresh mask (``d_warmup.fresh``) judged every
    discriminator."""
    if f"{prefix}d_warmup.left" in state_dict or f"{prefix}d_warmup_left" in state_dict:
        state_dict.setdefault(f"{prefix}d_warmup.fresh", torch.ones_like(module.d_warmup.fresh))
    old = state_dict.pop(f"{prefix}d_warmup_left", None)
    if old is None:
        return
    state_dict.setdefault(f"{prefix}d_warmup.left", old)
    state_dict.setdefault(f"{prefix}d_warmup.done", torch.zeros_like(old))
    state_dict.setdefault(f"{prefix}d_warmup.loss", torch.tensor(0.0))


def warmup_message(news: WarmupNews) -> str:
    """The ``d_warmup`` stage's message for ``news``: how it begins, goes on, or ended and why."""
    loss = "no loss yet" if news.loss is None else f"smoothed loss {news.loss:.2f}"
    ready = f"{news.ready_loss:.2f}"
    if news.ended == "ready":
        return (
            f"discriminator warm-up over after {count(news.done, 'step')}: the discriminators tell real from"
            f" generated audio ({loss}, below {ready}); the generator trains from now on"
        )
    if news.ended == "cap":
        return (
            f"discriminator warm-up over at its cap of {count(news.done, 'step')}: {loss}, not below {ready};"
            " the generator trains from now on against the discriminators as they are"
        )
    if news.resumed:
        done = count(news.done, "step")
        return f"discriminator warm-up resumed after {done}: {loss}, ready below {ready}, at most {news.cap} steps"
    if news.loss is None:
        between = (
            f"after at least {count(news.min_steps, 'step')} and at most {count(news.cap, 'step')}"
            if news.min_steps < news.cap
            else f"for {count(news.cap, 'step')} (its cap, at or below the minimum of {news.min_steps})"
        )
        judged = f" (the {news.judged} fresh ones of {news.count} judged)" if news.judged < news.count else ""
        return (
            "discriminator warm-up: the discriminators train alone (the generator frozen) until they tell real from"
            f" generated audio{judged}: smoothed loss below {ready} ({news.undecided:.2f}: undecided), {between}"
        )
    early = f" from step {news.min_steps}" if news.done < news.min_steps else ""
    return f"discriminator warm-up: step {news.done} of at most {news.cap}, {loss} (ready below {ready}{early})"


class WarmupEvents(L.Callback):
    """Says the warm-up's news (``DiscriminatorWarmup.news``) as ``Stage`` events named ``d_warmup``: how it
    begins (``step`` 0 of ``steps``, the cap) or resumes, its progress after a step at most every ``interval_s``
    (``step`` done of ``steps``), and its end (``step`` equal to ``steps``: done, with the reason). Only global
    rank 0 speaks; the news is taken on every rank."""

    def __init__(self, log, interval_s: float = 1.0) -> None:
        self.events, self.interval_s = log, interval_s  # not `log`: Lightning sets a callback's `log`
        self._started = self._last = -math.inf

    def on_train_batch_start(self, trainer, module, batch, batch_idx) -> None:
        self._say(trainer, module)

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
        self._say(trainer, module)

    def _say(self, trainer, module) -> None:
        warmup = getattr(module, "d_warmup", None)
        if not isinstance(warmup, DiscriminatorWarmup) or not warmup.news:
            return
        news, warmup.news = warmup.news, []
        if trainer.is_global_zero:
            for item in news:
                self._emit(item)

    def _emit(self, news: WarmupNews) -> None:
        """``news`` as a ``Stage``; a progress report only when ``interval_s`` have passed since the last one."""
        now = time.monotonic()
        first = news.loss is None or news.resumed
        if first:
            self._started = now
        elif news.ended is None and now - self._last < self.interval_s:
            return
        self._last = now
        step = None if news.resumed else news.done
        elapsed = now - self._started if math.isfinite(self._started) else None
        self.events.emit(
            Stage(name=WARMUP_STAGE, message=warmup_message(news), step=step, steps=news.cap, elapsed_s=elapsed)
        )
