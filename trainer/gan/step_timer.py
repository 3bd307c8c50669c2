"""Where the training step's time goes: lightweight laps inside the step, summed once per epoch.

The timer keeps one chain of marks per epoch; each :meth:`StepTimer.lap` ends the stretch since the
previous mark and gives it to a part (``trainer.events.schema.STEP_PARTS``):

- ``data``: from the end of one step (or the epoch's start) to the start of the next: the loader's wait,
  the host-to-device copy of the batch and the loop's own work between steps;
- ``generator``: the generator's forward and its mel and KL losses, the alignment left out;
- ``alignment``: the monotonic alignment search itself (the scores it searches are the generator's);
- ``discriminator``: the discriminators' forwards and losses, of the discriminator step and of the
  generator step's adversarial part (feature matching, generator loss);
- ``backward``: both ``manual_backward`` calls;
- ``optimizer``: gradient clipping, ``step`` and ``zero_grad`` of both optimizers.

What falls between a step's last lap and its end (logging, the callbacks' per-batch work) belongs to no
part, so the parts sum to at most the epoch's ``train_s``. Laps outside a training step (validation
runs the same generator forward) are ignored.

On the CPU a mark is ``time.perf_counter()``. On CUDA it is a ``torch.cuda.Event(enable_timing=True)``
recorded on the current stream, so the step never waits for the device; :meth:`StepTimer.read` waits
once, for the epoch's last mark, and then sums the intervals (GPU time between marks: a part's kernels,
or the device idling while the host prepares them). About ten laps run per step; on a busy 2-core CPU
a lap took about 1 µs (10 µs a step, against seconds for a test-preset step); on CUDA each records an event
(a few µs of host time, no wait).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

import torch

from trainer.events.schema import STEP_PARTS


class StepTimer:
    """Laps of the training step's parts, summed per epoch (see the module docstring)."""

    def __init__(self) -> None:
        self._marks: list[tuple[str | None, Any]] = []
        self._cuda = False
        self._active = False

    def start_epoch(self, device: torch.device) -> None:
        """Forget the last epoch's marks and start the chain now (CUDA events when ``device`` is CUDA)."""
        self._cuda = device.type == "cuda"
        self._active = False
        self._marks = [(None, self._now())]

    def begin_step(self) -> None:
        """A training step begins: the stretch since the previous step ended (or the epoch began) is ``data``."""
        self._active = True
        self.lap("data")

    def end_step(self) -> None:
        """The step is over: the stretch since its last lap belongs to no part."""
        if self._active:
            self._marks.append((None, self._now()))
        self._active = False

    def lap(self, part: str) -> None:
        """Give the stretch since the previous mark to ``part`` (one of ``STEP_PARTS``); ignored outside a step."""
        if self._active:
            self._marks.append((part, self._now()))

    def timed(self, function: Callable, part: str, before: str) -> Callable:
        """``function`` timed as ``part``; the stretch before each call goes to ``before``."""

        @functools.wraps(function)
        def timed_call(*args, **kwargs):
            self.lap(before)
            result = function(*args, **kwargs)
            self.lap(part)
            return result

        return timed_call

    def read(self) -> dict[str, float] | None:
        """Seconds per part (``STEP_PARTS`` order) summed over the epoch so far; ``None`` before any step.

        On CUDA this waits for the device to reach the last mark (once per epoch).
        """
        if not any(part is not None for part, _ in self._marks):
            return None
        if self._cuda:
            self._marks[-1][1].synchronize()
        seconds = dict.fromkeys(STEP_PARTS, 0.0)
        for (_, start), (part, end) in zip(self._marks, self._marks[1:], strict=False):
            if part is not None:
                seconds[part] += self._elapsed(start, end)
        return seconds

    def _now(self) -> Any:
        if not self._cuda:
            return time.perf_counter()
        event = torch.cuda.Event(enable_timing=True)
        event.record()
        return event

    def _elapsed(self, start: Any, end: Any) -> float:
        """Seconds from mark ``start`` to mark ``end``."""
        return start.elapsed_time(end) / 1000 if self._cuda else end - start
