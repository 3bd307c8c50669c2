"""``torch.compile`` for the parts of training where it pays: the decoder, the discriminators and the losses.

The decoder (HiFi-GAN generator) and the multi-period discriminator are most of a
step's arithmetic and see fixed shapes (``[B, C, segment_frames]`` and
``[B, 1, segment_size]``); compiling them fuses their pointwise work (leaky ReLU,
residual sums, weight norm). The text and posterior encoders, the flow and the
duration predictor see every utterance's own length and would recompile for many
shapes, which costs minutes of startup for little gain, so they stay eager.

Modules are compiled in place (:meth:`torch.nn.Module.compile`): their parameters
and ``state_dict`` keys stay as they were, so checkpoints are the same with or
without compilation. Shapes: the first compile is static; a second batch size (a
shorter last validation batch, say) makes dynamo mark the batch dimension dynamic
(its automatic dynamic shapes), so batch sizes never recompile a third time.

The losses are compiled as functions (:func:`compiled_losses`); the system calls
whichever set it holds.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from engines.imports import importing

COMPILE_CHOICES = ("auto", "on", "off")
"""``--compile``: ``auto`` compiles on CUDA only, ``on`` everywhere, ``off`` nowhere. On the CPU the compile time
is not won back: a 1-epoch ``test``-preset run took 8 min 22 s compiled from a cold inductor cache (70 s warm)
against 61 s eager, with steady steps alike (2-core machine, 2026-12-01)."""

LOSSES = ("feature_loss", "generator_loss", "discriminator_loss")
"""The functions of :mod:`trainer.gan.losses` that are compiled: the GAN losses, on the segment's fixed shapes (the KL
term sees every utterance's own length and stays eager)."""


def wanted(choice: str, accelerator: str) -> bool:
    """Whether to compile for ``--compile choice`` on Lightning's ``accelerator`` (``gpu`` or ``cpu``).

    Raises:
        ValueError: ``choice`` is not one of :data:`COMPILE_CHOICES`.
    """
    if choice not in COMPILE_CHOICES:
        raise ValueError(f"--compile {choice!r}: use one of {', '.join(COMPILE_CHOICES)}")
    return choice == "on" or (choice == "auto" and accelerator == "gpu")


def eager_losses() -> SimpleNamespace:
    """The loss functions of :mod:`trainer.gan.losses` named in :data:`LOSSES`, as they are (what a system calls
    until :func:`compile_parts`)."""
    with importing("trainer.gan.losses"):
        from trainer.gan import losses

    return SimpleNamespace(**{name: getattr(losses, name) for name in LOSSES})


def compiled_losses(backend: str = "inductor") -> SimpleNamespace:
    """The loss functions of :mod:`trainer.gan.losses` compiled with ``backend``, by name (:data:`LOSSES`)."""
    with importing("torch"):
        import torch

    return SimpleNamespace(**{name: torch.compile(f, backend=backend) for name, f in vars(eager_losses()).items()})


def compile_parts(system: Any, backend: str = "inductor") -> list[str]:
    """Compile ``system``'s decoder and discriminators in place, and its losses; returns what was compiled.

    Args:
        system: a :class:`trainer.gan.system.VitsSystem` (``model_g.dec``, ``model_d``, and a ``losses`` attribute
            that holds the loss functions it calls).
        backend: ``torch.compile``'s backend (``inductor``; ``eager`` in tests, which checks the wiring only).
    """
    system.model_g.dec.compile(backend=backend)
    system.model_d.compile(backend=backend)
    system.losses = compiled_losses(backend)
    return ["decoder", "discriminators", "losses"]
