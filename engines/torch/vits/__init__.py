"""VITS (Kim et al., "Conditional Variational Autoencoder with Adversarial Learning for
End-to-End Text-to-Speech", ICML 2021) as Piper uses it: the generator side, in torch.

Parameter names and shapes are Piper's, so Piper state dicts load strictly. Importing
this package (and ``config``, the hyperparameters) does not import torch, so the
trainer's presets and the CLI's choices load without it; ``Synthesizer`` and the
network modules import it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engines.imports import importing
from engines.torch.vits.config import VitsConfig

if TYPE_CHECKING:
    from engines.torch.vits.models import Synthesizer

__all__ = ["Synthesizer", "VitsConfig"]


def __getattr__(name: str) -> Any:
    """``Synthesizer`` imported (with torch) when first asked for (PEP 562)."""
    if name == "Synthesizer":
        with importing("engines.torch.vits.models"):
            from engines.torch.vits.models import Synthesizer

        return Synthesizer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
