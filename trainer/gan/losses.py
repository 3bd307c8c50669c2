"""VITS's training losses, computed in float32 whatever the autocast dtype.

Sources: least-squares GAN losses and feature matching as in HiFi-GAN (Kong et al.,
NeurIPS 2020, eq. 1-3, feature-matching weight 2); the KL term between the
posterior sample and the prior (Kim et al., "VITS", ICML 2021, eq. 3 and the
reference code); the mel L1 reconstruction (VITS eq. 2, weight ``c_mel`` = 45).

Every function returns tensors only (no ``.item()``), so a training step never
waits on the GPU for logging.
"""

from __future__ import annotations

import torch


def feature_loss(real: list[list[torch.Tensor]], fake: list[list[torch.Tensor]]) -> torch.Tensor:
    """2 x sum over discriminators and layers of mean |real - fake| (real features detached)."""
    total: torch.Tensor | float = 0.0
    for real_maps, fake_maps in zip(real, fake, strict=True):
        for r, f in zip(real_maps, fake_maps, strict=True):
            total = total + torch.mean(torch.abs(r.float().detach() - f.float()))
    return _summed(total) * 2


def discriminator_loss(real: list[torch.Tensor], fake: list[torch.Tensor]) -> torch.Tensor:
    """Least squares: sum over discriminators of mean (1 - D(y))^2 + mean D(G(x))^2."""
    total: torch.Tensor | float = 0.0
    for r, f in zip(real, fake, strict=True):
        total = total + torch.mean((1 - r.float()) ** 2) + torch.mean(f.float() ** 2)
    return _summed(total)


def generator_loss(fake: list[torch.Tensor]) -> torch.Tensor:
    """Least squares: sum over discriminators of mean (1 - D(G(x)))^2."""
    total: torch.Tensor | float = 0.0
    for f in fake:
        total = total + torch.mean((1 - f.float()) ** 2)
    return _summed(total)


def kl_loss(
    z_p: torch.Tensor, logs_q: torch.Tensor, m_p: torch.Tensor, logs_p: torch.Tensor, z_mask: torch.Tensor
) -> torch.Tensor:
    """KL(q || p) per masked frame: ``z_p``, ``logs_q``, ``m_p``, ``logs_p`` ``[B, C, T]``, ``z_mask`` ``[B, 1, T]``."""
    z_p, logs_q, m_p, logs_p, z_mask = (t.float() for t in (z_p, logs_q, m_p, logs_p, z_mask))
    kl = logs_p - logs_q - 0.5 + 0.5 * (z_p - m_p) ** 2 * torch.exp(-2.0 * logs_p)
    return torch.sum(kl * z_mask) / torch.sum(z_mask)


def _summed(total: torch.Tensor | float) -> torch.Tensor:
    """A sum that started at 0.0 and added at least one term (there is always a discriminator): a tensor."""
    assert isinstance(total, torch.Tensor), "no discriminator output to sum"
    return total
