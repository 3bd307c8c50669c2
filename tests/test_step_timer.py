"""The training step's timer: laps given to their parts, nothing counted outside a step, CUDA marks read once."""

from __future__ import annotations

import types

import pytest

torch = pytest.importorskip("torch")

from trainer.events.schema import STEP_PARTS  # noqa: E402
from trainer.gan.step_timer import StepTimer  # noqa: E402


class Clock:
    """The timer's ``time.perf_counter``: seconds that pass only when a test says (wall-clock busy loops failed
    under a loaded machine: a preempted 1-ms stretch outgrew a 4-ms one)."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass (what a stretch of work would take)."""
        self.now += seconds


@pytest.fixture
def clock(monkeypatch) -> Clock:
    """The step timer's clock, moved by :meth:`Clock.advance`."""
    import trainer.gan.step_timer as step_timer

    clock = Clock()
    monkeypatch.setattr(step_timer, "time", types.SimpleNamespace(perf_counter=clock))
    return clock


def test_laps_go_to_their_parts_and_sum_within_the_wall_time(clock):
    """Each stretch goes to the part its lap names; the sums fit inside the wall time; between steps is data."""
    timer = StepTimer()
    started = clock()
    timer.start_epoch(torch.device("cpu"))
    for _ in range(2):
        clock.advance(0.002)  # the loader
        timer.begin_step()
        clock.advance(0.004)
        timer.lap("generator")
        clock.advance(0.001)
        timer.lap("optimizer")
        clock.advance(0.003)  # logging after the step's last lap: no part's
        timer.end_step()
    wall = clock() - started
    seconds = timer.read()
    assert seconds is not None and list(seconds) == list(STEP_PARTS)
    assert seconds["generator"] == pytest.approx(0.008) and seconds["optimizer"] == pytest.approx(0.002)
    assert seconds["data"] == pytest.approx(0.004)  # both loader waits
    assert seconds["alignment"] == seconds["backward"] == seconds["discriminator"] == 0.0
    assert sum(seconds.values()) == pytest.approx(wall - 0.006)  # the logging counts nowhere


def test_laps_outside_a_step_are_ignored_and_no_step_reads_none(clock):
    """Validation runs the same timed forward: its laps count nowhere; an epoch without a step reads None."""
    timer = StepTimer()
    timer.start_epoch(torch.device("cpu"))
    timer.lap("generator")
    assert timer.read() is None
    timer.begin_step()
    timer.lap("generator")
    timer.end_step()
    counted = timer.read()
    clock.advance(0.003)
    timer.lap("generator")  # after the step: validation
    assert timer.read() == counted
    timer.start_epoch(torch.device("cpu"))  # the next epoch starts afresh
    assert timer.read() is None


def test_timed_wraps_a_function_and_splits_the_time_around_it(clock):
    """``timed``: the call's own time goes to its part, the stretch before it to ``before``; args and result pass."""
    from trainer.align import search_indices

    timer = StepTimer()
    timer.start_epoch(torch.device("cpu"))
    timer.begin_step()
    timed = timer.timed(lambda x, y=1: (clock.advance(0.003), x + y)[1], "alignment", before="generator")
    clock.advance(0.002)
    assert timed(2, y=3) == 5
    timer.end_step()
    seconds = timer.read()
    assert seconds["alignment"] == pytest.approx(0.003) and seconds["generator"] == pytest.approx(0.002)
    assert timer.timed(search_indices, "alignment", before="generator").__name__ == "search_indices"


class FakeEvent:
    """Stands in for ``torch.cuda.Event``: its time is the host's; counts waits."""

    waits = 0
    clock: Clock  # the test's clock: the host's time

    def __init__(self, enable_timing: bool = False) -> None:
        assert enable_timing
        self.at: float | None = None

    def record(self) -> None:
        self.at = FakeEvent.clock()

    def synchronize(self) -> None:
        FakeEvent.waits += 1

    def elapsed_time(self, end: FakeEvent) -> float:
        assert self.at is not None and end.at is not None
        return (end.at - self.at) * 1000  # milliseconds, as CUDA gives them


def test_on_cuda_marks_are_events_read_with_one_wait(monkeypatch, clock):
    """On CUDA the step records events and never waits; reading the epoch waits once and gives seconds."""
    monkeypatch.setattr(torch.cuda, "Event", FakeEvent)
    monkeypatch.setattr(FakeEvent, "waits", 0)
    monkeypatch.setattr(FakeEvent, "clock", clock, raising=False)
    timer = StepTimer()
    timer.start_epoch(torch.device("cuda", 0))
    for _ in range(3):
        timer.begin_step()
        clock.advance(0.002)
        timer.lap("backward")
        timer.end_step()
    assert FakeEvent.waits == 0
    seconds = timer.read()
    assert FakeEvent.waits == 1 and seconds["backward"] == pytest.approx(0.006)
