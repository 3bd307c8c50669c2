"""The shared progress line: elapsed ticks; the time left comes from the current phase's rate only, or is hidden."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


class Clock:
    """A time source the test moves (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def progress(qtbot):
    """A TaskProgress following an idle task, on a clock the test moves."""
    from studio.widgets.task_progress import TaskProgress
    from studio.workers import Task

    widget = TaskProgress()
    qtbot.addWidget(widget)
    widget.clock = clock = Clock()
    widget.follow(Task(lambda state: None), "Working", cancellable=True)
    return widget, clock


def _at(widget, clock, t: float, done: int, total: int) -> None:
    clock.now = t
    widget.show_progress(done, total)


def test_remaining_ignores_an_earlier_phases_rate(progress):
    """A slow first phase (10 items in 100 s), then a fast one (1 item/s): the time left is the fast phase's."""
    widget, clock = progress
    for n in range(11):
        _at(widget, clock, 10.0 * n, n, 10)
    for n in range(6):  # the second phase: total 10 again, done back at 0, one item a second
        _at(widget, clock, 100.0 + n, n, 10)
    assert widget.remaining() == pytest.approx(5.0)
    assert widget.text.text() == "Working 5 / 10 · elapsed 1 min 45 s · 5 s left"


def test_remaining_ignores_items_that_came_from_a_cache(progress):
    """Ten items at once (a cache), then one every 5 s: the time left follows the slow items, not the mean."""
    widget, clock = progress
    for n in range(11):
        _at(widget, clock, 0.01 * n, n, 20)
    for n in range(1, 5):
        _at(widget, clock, 0.1 + 5.0 * n, 10 + n, 20)
    assert widget.remaining() == pytest.approx(30.0, rel=0.05)


def test_unknown_remaining_is_hidden_and_a_new_phase_starts_afresh(progress):
    """Before a rate is known (one report, or a phase just begun) the line shows no time left, only elapsed."""
    widget, clock = progress
    _at(widget, clock, 2.0, 0, 4)
    assert widget.remaining() is None and widget.text.text() == "Working 0 / 4 · elapsed 2 s"
    _at(widget, clock, 4.0, 1, 4)
    assert widget.text.text() == "Working 1 / 4 · elapsed 4 s · 6 s left"
    _at(widget, clock, 5.0, 0, 3)  # another phase: speaking done, fitting begins
    assert widget.remaining() is None and widget.text.text() == "Working 0 / 3 · elapsed 5 s"
    widget.new_phase()
    _at(widget, clock, 6.0, 1, 3)
    assert widget.remaining() is None  # the first report of a phase is its baseline


def test_elapsed_ticks_without_reports_and_a_status_line_keeps_it(progress, qtbot):
    """With no report for a while the elapsed time still moves; a status line from the task keeps the figures."""
    widget, clock = progress
    _at(widget, clock, 0.0, 0, 2)
    clock.now = 7.0
    qtbot.waitUntil(lambda: widget.text.text() == "Working 0 / 2 · elapsed 7 s", timeout=2000)
    widget.show_status("Recognising draft 1 of 2")
    clock.now = 9.0
    qtbot.waitUntil(lambda: widget.text.text() == "Recognising draft 1 of 2 · elapsed 9 s", timeout=2000)
    widget.finish()
    assert widget.isHidden()
