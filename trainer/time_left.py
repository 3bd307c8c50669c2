"""How long counted work has left: one rule for every time-left figure the studio and the trainer show, and one
wording of a span of time (:func:`duration_text`) for those figures and any other duration said to a person.

A figure is given only from a settled rate. The first item of a phase carries its warm-up (a worker pool
starting, a model loading, the first training step compiling), so the rate is counted from the end of that
item on, and no figure is given until at least ``SETTLE_ITEMS`` more items are done and ``SETTLE_S`` seconds
have passed since it: until then the words are :data:`ESTIMATING`. The rate is then taken over the later half
of the span since that first item (a mean over at least half of what was seen: steady when results come in
bursts, and items a cache handed over at once drop out of it as the phase goes on), to now, so a stall shows as
a growing figure. Under load the early items of slicing or scoring ran 5 to 10 times slower than the rest
(slicing said "1 min 07 s left" 6 s before it ended, scoring "3 min 27 s" for 45 s): this is what a figure
from the first items gets wrong.

Used by the studio's progress line (``studio.widgets.task_progress``), the trainer's steps within an epoch
(``trainer.run.callbacks``) and its recovery stage (``trainer.start.recovery_stage``). No Qt; times are
seconds of any monotonic clock the caller passes in (a test passes its own).
"""

from __future__ import annotations

SETTLE_ITEMS = 3
"""Items done after a phase's first item before a figure is given."""
SETTLE_S = 3.0
"""Seconds since a phase's first item was done before a figure is given."""
ESTIMATING = "estimating the time left…"
"""What is said in place of a figure while the rate has not settled."""


def duration_text(seconds: float) -> str:
    """``14 s``, ``3 min 05 s``, ``2 h 10 min``: a span of ``seconds`` rounded to what a person reads (the
    progress line's elapsed and time left, a recording session's accepted speech)."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


class TimeLeft:
    """Seconds left of a phase of counted work, from its settled rate (the module's rule).

    A phase starts at the first report and again when ``total`` changes, ``done`` goes back, or
    :meth:`new_phase` is called (a task that speaks, then fits; renders, then scores): an earlier phase's rate
    says nothing of this one's.
    """

    def __init__(self, settle_items: int = SETTLE_ITEMS, settle_s: float = SETTLE_S) -> None:
        self.settle_items, self.settle_s = settle_items, settle_s
        self.total = -1
        self.reports: list[tuple[int, float]] = []
        """``(done, time)`` of the current phase's reports; the first is its baseline."""

    def report(self, done: int, total: int, now: float) -> None:
        """``done`` of ``total`` items at ``now`` (seconds)."""
        if total != self.total or not self.reports or done < self.reports[-1][0]:
            self.total, self.reports = total, []
        self.reports.append((done, now))

    def new_phase(self) -> None:
        """The work moved to another kind of item: the next report is the new phase's baseline."""
        self.total, self.reports = -1, []

    def seconds(self, now: float) -> float | None:
        """Seconds left at ``now``: 0 once all are done, ``None`` while the rate has not settled (or nothing was
        reported)."""
        if not self.reports:
            return None
        done, first = self.reports[-1][0], self._first_item()
        if done >= self.total:
            return 0.0
        if first is None or done - first[0] < self.settle_items or now - first[1] < self.settle_s:
            return None
        middle = first[1] + (now - first[1]) / 2
        since = max((r for r in self.reports if first[1] <= r[1] <= middle), key=lambda r: r[1])
        items = done - since[0]
        if items <= 0:  # nothing done in the later half: the rate of the whole span since the first item
            since, items = first, done - first[0]
        return (self.total - done) * (now - since[1]) / items

    def _first_item(self) -> tuple[int, float] | None:
        """The report at which the phase's first item was done (the rate counts from there), or ``None``."""
        if not self.reports:
            return None
        base = self.reports[0][0]
        return next((r for r in self.reports if r[0] > base), None)
