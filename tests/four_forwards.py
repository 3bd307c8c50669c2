"""The training step as Piper and HiFi-GAN write it, for comparison with ours (``trainer.gan.system``).

The generator step scores the real audio (no graph) and the generated audio with the discriminators frozen;
the discriminator step then scores both again, the generated audio detached: four discriminator forwards a
step. Ours runs two (one in each direction under DDP: three) and must train the same.
"""

from __future__ import annotations

import torch

from trainer.gan.system import VitsSystem


class FourForwards(VitsSystem):
    """``VitsSystem`` with the reference adversarial steps (the generator step first, as ours)."""

    def _adversarial_steps(self, y, y_hat, metrics, opt_g, opt_d):
        self.model_d.requires_grad_(False)
        with torch.no_grad():
            real = self.model_d(y)
        fake = self.model_d(y_hat)
        fm = self.losses.feature_loss([m for _, m in real], [m for _, m in fake])
        gen = self.losses.generator_loss([logits for logits, _ in fake])
        metrics.update(fm=fm.detach(), gen=gen.detach())
        self._learn(self.model_g, opt_g, metrics["loss_g"] + fm + gen)
        self.model_d.requires_grad_(True)
        real, fake = self.model_d(y), self.model_d(y_hat.detach())
        loss_d = self.losses.discriminator_loss([r for r, _ in real], [f for f, _ in fake])
        self._learn(self.model_d, opt_d, loss_d)
        return loss_d


class TwoFakeForwards(VitsSystem):
    """Ours as it runs under DDP: the real audio scored once, the generated twice (frozen, then detached)."""

    def _one_fake_forward(self) -> bool:
        return False
