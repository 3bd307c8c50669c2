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


def test_unknown_remaining_is_said_and_a_new_phase_starts_afresh(progress):
    """Before the rate settles (a phase begun, one item done) the line says it is estimating, with elapsed; a
    new phase estimates afresh; all done: no time left at all."""
    widget, clock = progress
    estimating = "estimating the time left…"
    _at(widget, clock, 2.0, 0, 8)
    assert widget.remaining() is None and widget.text.text() == f"Working 0 / 8 · elapsed 2 s · {estimating}"
    _at(widget, clock, 4.0, 1, 8)
    assert widget.text.text() == f"Working 1 / 8 · elapsed 4 s · {estimating}"
    for n in range(2, 5):
        _at(widget, clock, 3.0 + n, n, 8)
    assert widget.text.text() == "Working 4 / 8 · elapsed 7 s · 4 s left"
    _at(widget, clock, 8.0, 0, 3)  # another phase: speaking done, fitting begins
    assert widget.remaining() is None and widget.text.text() == f"Working 0 / 3 · elapsed 8 s · {estimating}"
    widget.new_phase()
    _at(widget, clock, 9.0, 3, 3)
    assert widget.text.text() == "Working 3 / 3 · elapsed 9 s"


def test_elapsed_ticks_without_reports_and_a_status_line_keeps_it(progress, qtbot):
    """With no report for a while the elapsed time still moves; a status line from the task keeps the figures."""
    widget, clock = progress
    _at(widget, clock, 0.0, 0, 2)
    clock.now = 7.0
    said = "elapsed 7 s · estimating the time left…"
    # a 0.5 s tick: a loaded machine gets slack (the timeout is waited only on failure)
    qtbot.waitUntil(lambda: widget.text.text() == f"Working 0 / 2 · {said}", timeout=10_000)
    widget.show_status("Recognising draft 1 of 2")
    clock.now = 9.0
    said = "elapsed 9 s · estimating the time left…"
    qtbot.waitUntil(lambda: widget.text.text() == f"Recognising draft 1 of 2 · {said}", timeout=10_000)
    widget.finish()
    assert widget.isHidden()


def test_a_slow_first_item_says_estimating_then_the_settled_figure(progress):
    """Slicing under load: the first item took 20 s, then one a second. While the rate settles the line says it
    is estimating (no "3 min" figure from the first item); then the figure is the later items' rate."""
    widget, clock = progress
    _at(widget, clock, 0.0, 0, 20)
    _at(widget, clock, 20.0, 1, 20)
    _at(widget, clock, 21.0, 2, 20)
    said = "Working 2 / 20 · elapsed 21 s · estimating the time left…"
    assert widget.remaining() is None and widget.text.text() == said
    for n in range(3, 7):
        _at(widget, clock, 19.0 + n, n, 20)
    assert widget.text.text() == "Working 6 / 20 · elapsed 25 s · 14 s left"
