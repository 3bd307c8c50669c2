"""The time left a run announces after each epoch (trainer.run.callbacks.epoch_estimate): the epochs of the
discriminator warm-up, which freeze the generator and take about half as long, do not shorten the estimate."""

from __future__ import annotations

import pytest

from trainer.run.callbacks import epoch_estimate


def test_the_warm_up_epochs_are_left_out_once_the_generator_trains():
    """The bench's run (2-vCPU, medium): two frozen epochs of 69 and 74 s, one 45% frozen of 121 s, then 165 and
    154 s; an epoch to come takes their mean, not the 117 s of all five (which announced 28 min for 44)."""
    history = [(69.0, 1.0), (74.0, 1.0), (121.0, 0.45), (165.0, 0.0), (154.0, 0.0)]
    assert epoch_estimate(history) == pytest.approx((165 + 154) / 2)
    assert epoch_estimate(history[:3] + [(150.0, 0.0)]) == 150.0


def test_while_every_epoch_so_far_warmed_up_they_are_all_counted():
    """Nothing but warm-up yet: the mean of those epochs (the best there is), not nothing."""
    assert epoch_estimate([(69.0, 1.0), (121.0, 0.45)]) == pytest.approx(95.0)
    with pytest.raises(ValueError, match="no epoch"):
        epoch_estimate([])
