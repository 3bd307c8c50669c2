"""The preview schedule: early epochs, then thinning out, and the last (``trainer.events.preview_schedule``)."""

from __future__ import annotations

import pytest

from trainer.events.preview_schedule import due_epochs, epochs_to_next, preview_due, schedule_words


def test_a_thousand_epochs_preview_early_then_every_25th():
    """1,000 epochs at every 25: after epochs 1, 2, 4, 8, 16, then 25, 50, ... 1,000 (counted from 1)."""
    done = [epoch + 1 for epoch in due_epochs(1000, 25)]
    assert done == [1, 2, 4, 8, 16, *range(25, 1001, 25)]


@pytest.mark.parametrize(("total", "every"), [(10, 25), (30, 25), (7, 4), (5, 1), (1, 25), (100, 3)])
def test_the_first_and_last_epochs_always_preview_and_powers_of_two_below_every(total, every):
    """Whatever the run: the first and last epoch preview; an early epoch previews when a power of two below
    ``every``; a later one when a multiple of ``every``."""
    due = set(due_epochs(total, every))
    assert 0 in due and total - 1 in due
    for epoch in range(total - 1):
        n = epoch + 1
        expected = n % every == 0 or (n < every and n & (n - 1) == 0)
        assert (epoch in due) == expected, (epoch, total, every)


def test_epochs_to_next_counts_to_the_next_due_epoch():
    """From every epoch of a run, the count of epochs to the next due one agrees with the schedule; 0 after
    the last."""
    total, every = 60, 25
    due = due_epochs(total, every)
    for epoch in range(total):
        later = [d for d in due if d > epoch]
        assert epochs_to_next(epoch, total, every) == (later[0] - epoch if later else 0)
    assert epochs_to_next(total - 1, total, every) == 0


def test_a_resume_keeps_the_schedule():
    """The schedule is a function of the epoch's number: asking from a resumed session's epochs gives the
    same answers as a fresh run's (unless the epoch count changed, which moves only the last one)."""
    fresh = [preview_due(epoch, 200, 25) for epoch in range(200)]
    resumed = [preview_due(epoch, 200, 25) for epoch in range(37, 200)]
    assert resumed == fresh[37:]
    longer = due_epochs(210, 25)
    assert [e for e in longer if e < 199] == [e for e in due_epochs(200, 25) if e < 199] and 209 in longer


def test_schedule_in_words():
    """The schedule said as the terminal says it before training."""
    assert schedule_words(1000, 25) == "after epochs 1, 2, 4, 8 and 16, then every 25th"
    assert schedule_words(1010, 25) == "after epochs 1, 2, 4, 8 and 16, then every 25th, and the last (1,010)"
    assert schedule_words(10, 25) == "after epochs 1, 2, 4 and 8, and the last (10)"
    assert schedule_words(16, 25) == "after epochs 1, 2, 4, 8 and 16"
    assert schedule_words(2, 1) == "after every epoch"
    assert schedule_words(9, 3) == "after epochs 1 and 2, then every 3rd"


def test_a_preview_says_when_it_was_spoken_and_whether_it_was_asked_for():
    """The list's label and the log's sentence: the epoch (from 1), and the step for one spoken within the
    epoch (its folder ``epoch=EEEE-batch=BBBB``), "asked for" when requested."""
    from trainer.events.preview_lines import preview_moment
    from trainer.events.schema import Preview
    from trainer.events.words import sentence

    within = "/runs/a/previews/epoch=0002-batch=0004/1.wav"
    assert preview_moment(2, within) == "Epoch 3, step 4"
    assert preview_moment(2, "/runs/a/previews/epoch=0002/1.wav") == "Epoch 3"
    asked = Preview(epoch=2, path=within, text="Hello there.", step=48, requested=True)
    assert sentence(asked) == "Preview of epoch 3 after step 4 (asked for) written: “Hello there.”"
    plain = Preview(epoch=2, path="/runs/a/previews/epoch=0002/1.wav", text="Hello there.", step=1300)
    assert sentence(plain) == "Preview of epoch 3 written: “Hello there.”"
