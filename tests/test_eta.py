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


# --- the one rule for time-left figures (trainer.time_left), on a clock the test moves ---------------------------
def _fed(reports: list[tuple[int, float]], total: int):
    """A ``TimeLeft`` given ``(done, at)`` reports of ``total`` items."""
    from trainer.time_left import TimeLeft

    left = TimeLeft()
    for done, at in reports:
        left.report(done, total, at)
    return left


def test_no_figure_until_a_few_items_after_the_first_and_a_few_seconds():
    """One item, or three within a second of the first: no figure (the rate has not settled); three more items
    over three seconds after the first: a figure."""
    assert _fed([(0, 0.0), (1, 1.0)], 10).seconds(1.0) is None
    assert _fed([(0, 0.0), (1, 1.0), (2, 1.2), (3, 1.4), (4, 1.6)], 10).seconds(1.6) is None  # 0.6 s after it
    assert _fed([(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0)], 10).seconds(3.0) is None  # two items after it
    assert _fed([(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0)], 10).seconds(4.0) == pytest.approx(6.0)


def test_a_slow_first_item_does_not_stretch_the_figure():
    """Slicing under load: the first item took 20 s (workers starting), then one a second. The figure is the
    second's rate (14 items: 14 s), not the mean since the start (58 s)."""
    reports = [(0, 0.0), *((n, 19.0 + n) for n in range(1, 7))]
    assert _fed(reports, 20).seconds(25.0) == pytest.approx(14.0)


def test_the_rate_is_the_later_half_and_a_stall_grows_the_figure():
    """Items slow from 1 s to 4 s each: the figure follows the later half; no item for a while grows it."""
    reports = [(0, 0.0), *((n, float(n)) for n in range(1, 11)), *((10 + n, 10.0 + 4 * n) for n in range(1, 6))]
    left = _fed(reports, 30)
    assert left.seconds(30.0) == pytest.approx(15 * 4.0, rel=0.1)
    assert left.seconds(50.0) > left.seconds(30.0)


def test_a_new_phase_starts_settling_afresh_and_the_end_has_no_figure():
    """Another total (speaking done, fitting begins), or done going back: no figure until the new phase settles;
    all done: nothing left."""
    left = _fed([(0, 0.0), *((n, float(n)) for n in range(1, 8))], 8)
    assert left.seconds(7.0) == pytest.approx(1.0)
    left.report(0, 4, 8.0)
    left.report(1, 4, 9.0)
    assert left.seconds(9.0) is None
    left.report(4, 4, 20.0)
    assert left.seconds(20.0) == 0.0


def test_the_recovery_stage_says_its_time_left_by_the_same_rule(tmp_path):
    """The recovery's fitting steps, the first slow (30 s: the first step warms up), then one a second: its
    stage events in the run's events file carry no figure until the rate settles, then the later steps' rate."""
    from trainer.events.log import EventLog, EventTail
    from trainer.start.recovery_stage import StageLog

    clock = [0.0]
    stage = StageLog(EventLog(tmp_path / "events.jsonl"), "recovery", "recovering", 0.0, clock=lambda: clock[0])
    for done, at in [(0, 0.0), (1, 30.0), (2, 31.0), (3, 32.0), (4, 33.0), (5, 34.0)]:
        clock[0] = at
        stage.step("fitting step", done, 20)
    said = EventTail(tmp_path / "events.jsonl").read()
    assert [e.seconds_left for e in said[:4]] == [None] * 4
    assert said[-1].message == "recovering: fitting step 6 of 20" and said[-1].seconds_left == pytest.approx(15.0)


def test_from_the_third_epoch_the_first_is_left_out_and_the_later_half_counts():
    """A first epoch that compiled (300 s) then 100 s epochs: the estimate is 100 s from the third epoch on, not
    the 167 s of the mean of all; a run that slowed (other work on the machine) is estimated at its recent pace."""
    assert epoch_estimate([(300.0, 0.0), (100.0, 0.0)]) == pytest.approx(200.0)  # too few to leave one out
    assert epoch_estimate([(300.0, 0.0), (100.0, 0.0), (100.0, 0.0)]) == pytest.approx(100.0)
    slowed = [(300.0, 0.0), (100.0, 0.0), (100.0, 0.0), (150.0, 0.0), (150.0, 0.0)]
    assert epoch_estimate(slowed) == pytest.approx(150.0)
