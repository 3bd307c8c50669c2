"""VITS (Kim et al., "Conditional Variational Autoencoder with Adversarial Learning for
End-to-End Text-to-Speech", ICML 2021) as Piper uses it: the generator side, in torch.

Parameter names and shapes are Piper's, so Piper state dicts load strictly. Importing
this package imports torch; ``import engines`` does not import it.
"""

from engines.torch.vits.config import VitsConfig
from engines.torch.vits.models import Synthesizer

__all__ = ["Synthesizer", "VitsConfig"]
