"""The VITS training system: how the generator and the discriminators train together (manual GAN steps).

Per batch (VITS, Kim et al. 2021, sec. 2.5; HiFi-GAN losses):

1. Generator step. ``trainer.gan.generator_forward`` gives a decoded segment; the
   target audio and the target spectrogram are cut to the same segment (the
   spectrogram before the mel projection, so only the segment is projected); mel
   L1 and KL run in float32. The adversarial losses (feature matching, generator
   loss) score the generated audio; their gradient reaches the generator only.
2. Discriminator step on the same generated audio: no second generator forward.

Both steps score the audio with the same discriminator parameters (the generator step
leaves them as they are), so each discriminator forward runs once per step, not twice
as in Piper's and HiFi-GAN's code: the real audio's scores are the discriminator loss's,
and, detached, the feature-matching targets. In one process the generated audio's scores
serve both losses too: the generator's backward asks for the generator's gradients only
(``inputs=``; autograd then computes no discriminator weight gradient), the
discriminator's for the discriminators' only (so none flows into the generator, as if
the audio were detached). Under DDP each backward must reach every parameter it finds in
its graph, so there the generated audio is scored twice, as before: once with the
discriminators frozen (``requires_grad_(False)``: gradients flow through their input
only) and once detached. Every way gives the same gradients as four forwards
(``tests/test_system_step.py``). Where the discriminators run twice with the same parameters (one
process, and the warm-up) each layer's weight norm is computed once for both forwards
(``engines.torch.vits.weight_norm.weights_once``).

While the discriminator warm-up is on (``trainer.gan.d_warmup``: fresh discriminators against a trained
generator, until they tell real from generated audio) only the discriminator step runs; the generator's losses
are still computed, without gradients, and logged (its adversarial ones as the discriminators score its audio),
with ``train_d_warmup``, the share of the epoch's utterances that warmed up (its steps weighted by their
batch's size, as every epoch loss is; logged in every epoch of a fit that began warming up). Its state is saved
in checkpoints; the step decides from host copies of it (read once per fit), so it never waits for the device.
Each optimizer clears its gradients right after its step (only its own backward writes them).

The step is timed by parts (``trainer.gan.step_timer``: data wait, generator, alignment, discriminator,
backward, optimizer); the events callback reads the sums once per epoch.

The generator's optimizer has two groups: everything at ``learning_rate``, and the inference path before the
decoder (``inference_named``: text encoder, flow, the duration predictor's inference part, speaker
embedding) at ``inference_lr_scale`` of it, so a fine-tune adapts the decoder and the posterior first and keeps
the path that makes the decoder's input near the voice it started from; ``text_lr_scale`` can set the text encoder
apart in a third group. After each generator step the start anchor (``trainer.gan.anchor``: decoupled L2-SP,
``inference_anchor``) pulls those slowed groups back towards the start's weights, each at its group's rate. Over
the generator's first ``lr_warmup_steps`` steps its rate rises linearly to the schedule's (``lr_schedule.ramped``;
counted by the optimizer's own steps, so a resume ramps on and a step the 16-mixed GradScaler skipped does not
count; read before each step of the warm-up only, a host copy after it).

The learning-rate schedulers are stepped once per epoch, at the start of every
epoch after the first (manual optimization does not step them by itself; stepping
before the epoch rather than after it means a checkpoint written at an epoch's end
resumes with the right rate), each with the factor ``trainer.gan.lr_schedule`` works out for that epoch from the
rate now and the epochs left (not the one a resumed checkpoint saved). Validation computes the generator's
losses (``val_mel``, ``val_kl``, ``val_dur``) and no discriminator loss. State dict keys are Piper's:
``model_g.*`` (the generator) and ``model_d.*`` (the discriminators).
"""

from __future__ import annotations

import inspect
import math
import re
import warnings
from typing import Any

import lightning as L
import torch

from engines.torch.vits.models import Synthesizer
from engines.torch.vits.weight_norm import weights_once
from trainer.data.datamodule import Batch
from trainer.gan import losses, lr_schedule
from trainer.gan.anchor import CHECKPOINT_KEY, StartAnchor
from trainer.gan.compile import eager_losses
from trainer.gan.d_warmup import DiscriminatorWarmup, upgrade_state
from trainer.gan.discriminators import MultiPeriodDiscriminator
from trainer.gan.generator_forward import generator_forward
from trainer.gan.generator_losses import generator_losses
from trainer.gan.step_timer import StepTimer
from trainer.run.presets import TrainingConfig
from trainer.start.recovery import TRAINING_ONLY

SEARCH = inspect.signature(generator_forward).parameters["search"].default
"""``generator_forward``'s own MAS back-end, whichever it is: the step passes it on, timed as the alignment."""


class VitsSystem(L.LightningModule):
    """Generator (``model_g``) and multi-period discriminator (``model_d``) trained as a GAN.

    Args:
        config: a :class:`trainer.run.presets.TrainingConfig` as a dict (so that the
            checkpoint's ``hyper_parameters`` hold plain values).
    """

    def __init__(self, config: dict) -> None:
        super().__init__()
        self.save_hyperparameters(_piper_hparams(config))
        self.config = TrainingConfig.from_dict(config)
        self.model_g = Synthesizer(self.config.model)
        self.model_d = MultiPeriodDiscriminator(self.config.discriminator_width, self.config.resolution_discriminator)
        self.d_warmup = DiscriminatorWarmup(self.config)  # armed by the run for fresh discriminators
        self.anchor = StartAnchor(self.config.inference_anchor)
        self.register_load_state_dict_pre_hook(upgrade_state)  # an older checkpoint's warm-up state
        self.automatic_optimization = False
        self.step_timer = StepTimer()
        self._generator_steps = 0  # the generator optimizer's steps taken, read from it until the warm-up is over
        self.losses = eager_losses()  # the GAN losses it calls; trainer.gan.compile swaps in compiled ones

    # --- steps ------------------------------------------------------------------
    def training_step(self, batch: Batch, batch_idx: int) -> None:
        optimizers = self.optimizers()
        assert isinstance(optimizers, list)  # configure_optimizers gives two
        opt_g, opt_d = optimizers
        warming_up = self.d_warmup.on
        if warming_up:  # discriminators alone, against the generator as it is
            metrics, loss_d = self._warmup_step(batch, opt_d)
        else:
            out, y, y_hat, metrics = self._generator_losses(batch)
            loss_d = self._adversarial_steps(y, y_hat, metrics, opt_g, opt_d)
        metrics.pop("loss_g")
        metrics["disc"] = loss_d.detach()
        if self.d_warmup.began_on:  # this fit began warming up: the share of each epoch's utterances that did
            metrics["d_warmup"] = float(warming_up)
        self.log_dict(
            {f"train_{k}": v for k, v in metrics.items()}, on_step=False, on_epoch=True, batch_size=len(batch)
        )

    def _adversarial_steps(self, y, y_hat, metrics: dict, opt_g, opt_d) -> torch.Tensor:
        """The generator's step with its adversarial losses, then the discriminators' step; gives ``loss_d``.

        One forward of the real audio ``y`` serves both steps; one of the generated ``y_hat`` too, except
        under DDP (see the module docstring).
        """
        self.model_d.requires_grad_(True)
        if self._one_fake_forward():
            return self._steps_scoring_once(y, y_hat, metrics, opt_g, opt_d)
        return self._steps_scoring_fake_twice(y, y_hat, metrics, opt_g, opt_d)

    def _steps_scoring_once(self, y, y_hat, metrics: dict, opt_g, opt_d) -> torch.Tensor:
        """Both steps on one forward of each audio; each backward asks for its own network's gradients."""
        with weights_once(self.model_d):
            real, fake = self.model_d(y), self.model_d(y_hat)
        loss_g = metrics["loss_g"] + self._adversarial_losses(real, fake, metrics)
        loss_d = self._discriminator_loss(real, fake)
        self._learn(self.model_g, opt_g, loss_g, retain_graph=True, inputs=_trained(self.model_g))
        self._learn(self.model_d, opt_d, loss_d, inputs=_trained(self.model_d))
        return loss_d

    def _steps_scoring_fake_twice(self, y, y_hat, metrics: dict, opt_g, opt_d) -> torch.Tensor:
        """The DDP way: the generated audio scored with the discriminators frozen, then again detached."""
        real = self.model_d(y)
        self.model_d.requires_grad_(False)  # gradients through the discriminators' input only
        loss_g = metrics["loss_g"] + self._adversarial_losses(real, self.model_d(y_hat), metrics)
        self._learn(self.model_g, opt_g, loss_g)
        self.model_d.requires_grad_(True)
        loss_d = self._discriminator_loss(real, self.model_d(y_hat.detach()))
        self._learn(self.model_d, opt_d, loss_d)
        return loss_d

    def _one_fake_forward(self) -> bool:
        """Whether one forward of the generated audio serves both steps: one process, eager discriminators.

        Under DDP see the module docstring; a compiled discriminator's backward is one fused kernel graph
        that computes every gradient its forward allowed, so ``inputs=`` would save nothing there and
        each of the two backwards would run it whole.
        """
        compiled = getattr(self.model_d, "_compiled_call_impl", None) is not None  # nn.Module.compile()
        return self.trainer.world_size == 1 and not compiled

    def _adversarial_losses(self, real, fake, metrics: dict) -> torch.Tensor:
        """Feature matching against the real audio's detached maps plus the generator loss (into ``metrics``)."""
        targets = [[m.detach() for m in maps] for _, maps in real]
        fm = self.losses.feature_loss(targets, [maps for _, maps in fake])
        gen = self.losses.generator_loss([logits for logits, _ in fake])
        metrics.update(fm=fm.detach(), gen=gen.detach())
        self.step_timer.lap("discriminator")
        return fm + gen

    def _discriminator_loss(self, real, fake) -> torch.Tensor:
        loss_d = self.losses.discriminator_loss([logits for logits, _ in real], [logits for logits, _ in fake])
        self.step_timer.lap("discriminator")
        return loss_d

    def validation_step(self, batch: Batch, batch_idx: int) -> None:
        _, _, _, metrics = self._generator_losses(batch)
        metrics.pop("loss_g")
        self.log_dict({f"val_{k}": v for k, v in metrics.items()}, batch_size=len(batch), sync_dist=True)

    def on_train_start(self) -> None:
        # it may have been armed (the run) or restored (a resume) since; a short run caps it to its share
        batches = self.trainer.num_training_batches
        left = max(0, (self.trainer.max_epochs or self.config.epochs) - self.current_epoch)
        run_steps = int(batches * left) if math.isfinite(batches) else None
        self.d_warmup.begin_fit(self.device, run_steps)
        self.anchor.capture(inference_named(self.model_g))

    def on_save_checkpoint(self, checkpoint: dict) -> None:
        if (start := self.anchor.state()) is not None:
            checkpoint[CHECKPOINT_KEY] = start

    def on_load_checkpoint(self, checkpoint: dict) -> None:
        self.anchor.restore(checkpoint.get(CHECKPOINT_KEY))

    def on_train_batch_start(self, batch: Batch, batch_idx: int) -> None:
        self.step_timer.begin_step()

    def on_train_batch_end(self, outputs, batch: Batch, batch_idx: int) -> None:
        self.step_timer.end_step()

    def on_train_epoch_start(self) -> None:
        self.step_timer.start_epoch(self.device)
        if self.current_epoch > 0:  # one decay per finished epoch, before this epoch's first step (also on resume)
            with warnings.catch_warnings():
                # after a resume no optimizer has stepped in this process yet; the order is intended
                warnings.filterwarnings("ignore", re.escape("Detected call of `lr_scheduler.step()`"), UserWarning)
                schedulers = self.lr_schedulers()
                assert isinstance(schedulers, list)  # configure_optimizers gives two
                assert all(isinstance(s, torch.optim.lr_scheduler.ExponentialLR) for s in schedulers)
                lr_schedule.step(schedulers, self.config, self.current_epoch)

    def _generator_losses(self, batch: Batch):
        got = generator_losses(
            self.model_g, batch, self.config, search=self.step_timer.timed(SEARCH, "alignment", before="generator")
        )
        metrics = got.metrics()
        self.step_timer.lap("generator")
        metrics["loss_g"] = got.total(self.config)
        return got.out, got.y, got.y_hat, metrics

    def _warmup_step(self, batch: Batch, opt_d) -> tuple[dict, torch.Tensor]:
        """The discriminators' step alone against the generator as it is; gives the metrics and ``loss_d``.

        The generator's losses are computed without gradients, its adversarial ones (``fm``, ``gen``) from the
        discriminators' scores before their step: what the generator would have met, logged, not learned.
        """
        with torch.no_grad():
            _, y, y_hat, metrics = self._generator_losses(batch)
        self.model_d.requires_grad_(True)
        with weights_once(self.model_d):
            real, fake = self.model_d(y), self.model_d(y_hat)
        loss_d = self._discriminator_loss(real, fake)
        self._learn(self.model_d, opt_d, loss_d)
        with torch.no_grad():
            targets = [[m.detach() for m in maps] for _, maps in real]
            fm = losses.feature_loss(targets, [[m.detach() for m in maps] for _, maps in fake])
            metrics.update(fm=fm, gen=losses.generator_loss([logits.detach() for logits, _ in fake]))
        self.step_timer.lap("discriminator")
        self.d_warmup.count(self.d_warmup.judged_loss(loss_d, real, fake), reduce=self._mean_over_ranks)
        return metrics, loss_d

    def _mean_over_ranks(self, value: torch.Tensor) -> torch.Tensor:
        """``value``'s mean over the DDP ranks (itself in one process)."""
        return self.trainer.strategy.reduce(value, reduce_op="mean")

    def _learn(self, module: torch.nn.Module, optimizer, loss: torch.Tensor, **backward) -> None:
        """Backward, clip, step, then clear the gradients for the next step (timed: backward, optimizer).

        ``backward`` goes to ``Tensor.backward`` (``inputs``, ``retain_graph``).
        """
        self.manual_backward(loss, **backward)
        self.step_timer.lap("backward")
        self._clip(module)
        if module is self.model_g:
            self._generator_step(optimizer)
        else:
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        self.step_timer.lap("optimizer")

    def _generator_step(self, optimizer) -> None:
        """The generator's optimizer step at its warm-up's share of the rate, then the start anchor's pull."""
        if self._generator_steps < self.config.lr_warmup_steps:  # read while ramping: a skipped step does not count
            self._generator_steps = lr_schedule.steps_taken(optimizer)
        factor = lr_schedule.warmup_factor(self._generator_steps, self.config.lr_warmup_steps)
        with lr_schedule.ramped(optimizer, factor):
            optimizer.step()
            if self.anchor.on:  # the inference path back to the start, each group at its rate
                anchored = optimizer.param_groups[1 : 1 + len(self._slow_parts)]  # the decoder's group is not
                for named, group in zip(self._slow_parts, anchored, strict=True):
                    self.anchor.pull(named, group["lr"])

    def _clip(self, module: torch.nn.Module) -> None:
        if self.config.grad_clip is not None:
            torch.nn.utils.clip_grad_norm_(module.parameters(), self.config.grad_clip)

    # --- optimizers -------------------------------------------------------------
    def configure_optimizers(self):
        c = self.config
        fused = self.device.type in ("cuda", "cpu")  # torch has fused AdamW kernels for both
        groups = generator_groups(self.model_g, c)
        self._slow_parts = slow_parts(self.model_g, c)  # what the anchor pulls, in the groups' order
        opt_g = torch.optim.AdamW(groups, c.learning_rate, c.betas, c.eps, fused=fused)
        opt_d = torch.optim.AdamW(self.model_d.parameters(), c.learning_rate_d, c.betas_d, c.eps, fused=fused)
        gamma_g, gamma_d = lr_schedule.gammas(c, (c.learning_rate, c.learning_rate_d), 1)  # reset each epoch
        schedulers = [
            torch.optim.lr_scheduler.ExponentialLR(opt_g, gamma=gamma_g),
            torch.optim.lr_scheduler.ExponentialLR(opt_d, gamma=gamma_d),
        ]
        return [opt_g, opt_d], schedulers


INFERENCE_PATH = ("enc_p.", "flow.", "dp.", "emb_g.")
"""Parameter name prefixes of the generator's inference path other than the decoder (less the duration predictor's
training-only part, ``trainer.start.recovery.TRAINING_ONLY``): what turns text into the decoder's input."""


TEXT_ENCODER = "enc_p."
"""The text encoder's parameter name prefix: the part of the inference path ``text_lr_scale`` sets apart."""


def inference_named(model_g: torch.nn.Module) -> dict[str, torch.nn.Parameter]:
    """The generator's inference path before the decoder (``INFERENCE_PATH``) by name: what learns at
    ``inference_lr_scale`` of the rate and what ``inference_anchor`` holds near the start."""
    named = model_g.named_parameters()
    return {n: p for n, p in named if n.startswith(INFERENCE_PATH) and not n.startswith(TRAINING_ONLY)}


def slow_parts(model_g: torch.nn.Module, config: TrainingConfig) -> list[dict[str, torch.nn.Parameter]]:
    """The generator's slowed groups by name, in the optimizer's order after the first: the inference path
    (:func:`inference_named`) at ``inference_lr_scale``, or, where ``text_lr_scale`` is set, the text encoder
    (``enc_p``) apart from the rest of it."""
    named = inference_named(model_g)
    if config.text_lr_scale is None:
        return [named]
    text = {n: p for n, p in named.items() if n.startswith(TEXT_ENCODER)}
    return [{n: p for n, p in named.items() if n not in text}, text]


DECODER = "dec."
"""The decoder's parameter name prefix: what ``decoder_lr_scale`` sets apart."""


def generator_groups(model_g: torch.nn.Module, config: TrainingConfig) -> list[dict[str, Any]]:
    """The generator's optimizer groups: everything else at ``learning_rate`` (the first: the rate the schedule
    and the events read), then :func:`slow_parts` at ``inference_lr_scale`` (and ``text_lr_scale``) of it, then,
    where ``decoder_lr_scale`` is not 1, the decoder at that share."""
    slow = slow_parts(model_g, config)
    scales = [config.inference_lr_scale, config.text_lr_scale or 0.0][: len(slow)]
    if config.decoder_lr_scale != 1.0:
        slow.append({n: p for n, p in model_g.named_parameters() if n.startswith(DECODER)})
        scales.append(config.decoder_lr_scale)
    slow_ids = {id(p) for named in slow for p in named.values()}
    fast = [p for p in model_g.parameters() if id(p) not in slow_ids]
    groups: list[dict[str, Any]] = [{"params": fast}]
    for named, scale in zip(slow, scales, strict=True):
        groups.append({"params": list(named.values()), "lr": config.learning_rate * scale})
    return groups


def _trained(module: torch.nn.Module) -> list[torch.nn.Parameter]:
    """``module``'s parameters that train (``requires_grad``): a backward's ``inputs``."""
    return [p for p in module.parameters() if p.requires_grad]


def _piper_hparams(config: dict) -> dict:
    """Hyperparameters under Piper's names (readable by Piper tools and ``engines.torch.vits.checkpoint``),
    plus our whole training config under ``voice_studio``."""
    model = dict(config["model"])
    return {
        **model,
        "sample_rate": config["sample_rate"],
        "filter_length": config["n_fft"],
        "hop_length": config["hop_length"],
        "win_length": config["win_length"],
        "mel_channels": config["n_mels"],
        "learning_rate": config["learning_rate"],
        "voice_studio": config,
    }
