"""The start anchor: a fine-tune's inference path pulled back towards the weights it started from (L2-SP).

L2-SP (Li, Grandvalet and Davoine 2018, "Explicit Inductive Bias for Transfer Learning with Convolutional
Networks") penalises ``alpha / 2 * ||w - w0||^2``, the distance to the start's weights ``w0`` rather than to
zero. Added to the loss, Adam would divide that gradient by the gradients' running size like every other and
its strength would depend on the losses' scale, so it is applied decoupled, as AdamW applies weight decay
(Loshchilov and Hutter 2019): after each generator step every anchored weight moves
``lr * strength`` of the way back to its start, ``w <- w + lr * strength * (w0 - w)``, with ``lr`` its group's
rate now (the inference path's, ``inference_lr_scale`` of the generator's, annealed with it).

Against a steady pull of ``v`` per step (Adam moves a weight by about its rate per step whatever the gradient's
size) the distance settles at ``v / (lr * strength)``: about ``1 / strength`` in absolute units per weight, so
the anchor bounds how far the inference path (text encoder, flow, duration predictor) can drift from the
voice's articulation, while the decoder and the posterior adapt freely.

The start's weights are taken when the fit first starts and kept in resume checkpoints
(``voice_studio_anchor``: name -> tensor), so a resumed run is pulled to the same start. Weights the start left
fresh (``trainer.start.points.kept_fresh``: a new speaker embedding and its conditioning layers) are not held.
"""

from __future__ import annotations

from collections.abc import Iterable

import torch

CHECKPOINT_KEY = "voice_studio_anchor"
"""Where a resume checkpoint keeps the start's weights of the anchored parameters."""


class StartAnchor:
    """Decoupled L2-SP towards the start's weights for one optimizer group's parameters.

    Args:
        strength: the pull per unit of learning rate (``TrainingConfig.inference_anchor``); 0 turns it off.
    """

    def __init__(self, strength: float) -> None:
        self.strength = strength
        self.start: dict[str, torch.Tensor] | None = None
        self.fresh: set[str] = set()

    def leave_out(self, names: Iterable[str]) -> None:
        """Hold none of ``names``: weights a start left at their fresh initialisation (a speaker embedding and
        its conditioning layers in a single- to multi-speaker fine-tune), which have nothing to be held to."""
        self.fresh |= set(names)

    @property
    def on(self) -> bool:
        return self.strength > 0

    def capture(self, named: dict[str, torch.nn.Parameter]) -> None:
        """Take ``named``'s weights now as the start, unless a resumed checkpoint gave them (then moved to
        each weight's device)."""
        if not self.on:
            return
        if self.start is None:
            self.start = {name: p.detach().clone() for name, p in named.items() if name not in self.fresh}
        else:
            self.start = {name: t.to(named[name].device, named[name].dtype) for name, t in self.start.items()}

    @torch.no_grad()
    def pull(self, named: dict[str, torch.nn.Parameter], lr: float) -> None:
        """Move every weight ``lr * strength`` of the way back to its start (in place; call after the step).

        Raises:
            RuntimeError: no start captured.
        """
        if not self.on or lr <= 0:
            return
        if self.start is None:
            raise RuntimeError("the start anchor has no start weights: capture them before the first step")
        held = [n for n in named if n in self.start]
        params: list[torch.Tensor] = [named[n] for n in held]
        torch._foreach_lerp_(params, [self.start[n] for n in held], min(1.0, lr * self.strength))

    def state(self) -> dict[str, torch.Tensor] | None:
        """The start's weights for a checkpoint (``None``: off or not yet captured)."""
        return self.start if self.on else None

    def restore(self, state: dict[str, torch.Tensor] | None) -> None:
        """The start's weights from a checkpoint (``None`` leaves them to :meth:`capture`, which also moves
        them to the weights' device)."""
        if self.on and state:
            self.start = dict(state)

    def distance(self, named: dict[str, torch.nn.Parameter]) -> float:
        """Relative L2 distance of the held weights of ``named`` to the start: ``||w - w0|| / ||w0||`` over all
        of them (0: none held)."""
        if self.start is None:
            return 0.0
        diff = sum(float((named[n].detach() - t).float().pow(2).sum()) for n, t in self.start.items())
        base = sum(float(t.float().pow(2).sum()) for t in self.start.values())
        return (diff / base) ** 0.5 if base else 0.0
