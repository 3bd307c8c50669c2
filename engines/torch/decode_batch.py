"""Decoder calls of concurrent requests in one batch, for the torch engines that share a generator on a GPU.

Why: one decoder call (HiFi-GAN, most of a render's time) on an H200 took 1.54 ms for one second of latent,
1.56 ms for four and 3.05 ms for sixteen (docs/benchmarks.md "On a GPU"), while the server's 16 streams took
turns, one call each, and delivered no more audio per second than one stream. On the CPU a batch costs what
its items cost one by one, so the engines batch on CUDA only.

How: no timer and no thread of its own (a lone request waits for nothing). A caller that finds no batch
running takes every call waiting (up to ``max_batch``) and runs them as one; calls that arrive meanwhile wait
for it to finish, and the next caller among them runs those. Only latents of one length go in one decoder
call (a streamed sentence's windows are mostly of the plan's few sizes): padding a shorter one would let its
last samples hear zeros past its end, so a call batched gives the samples it gives alone.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engines.imports import importing

MAX_BATCH = 16
"""Most calls in one batch (the H200 probe's largest: 16 cost 2x one)."""


@dataclass(eq=False)
class _Call:
    z: Any
    g: Any
    audio: Any = None
    error: BaseException | None = None
    done: bool = False


class DecodeBatcher:
    """``batcher(z, g)`` decodes ``z`` ``[1, C, T]`` (speaker ``g`` ``[1, G, 1]`` or ``None``) into audio
    ``[1, 1, T * hop]``, in one ``decode`` call with the calls of other threads of the same ``T`` waiting at the
    same time.

    Args:
        decode: ``(z [B, C, T], g [B, G, 1] | None) -> audio [B, 1, T * hop]`` (``Synthesizer.decode``).
        max_batch: most calls per batch.

    Raises:
        Whatever ``decode`` raises, in every caller of the batch it raised in.
    """

    def __init__(self, decode: Callable[..., Any], max_batch: int = MAX_BATCH) -> None:
        self._decode, self._max = decode, max_batch
        self._changed = threading.Condition()
        self._waiting: list[_Call] = []
        self._running = False
        self.batches: deque[int] = deque(maxlen=1000)
        """The size of each decoder call run (the last 1,000): how much the calls overlapped."""

    def __call__(self, z, g=None):
        call = _Call(z, g)
        with self._changed:
            self._waiting.append(call)
            while self._running and not call.done:
                self._changed.wait()
            if call.done:
                return _result(call)
            self._running = True
            batch, self._waiting = self._waiting[: self._max], self._waiting[self._max :]
        try:
            self._run(batch)
        finally:
            with self._changed:
                self._running = False
                self._changed.notify_all()
        return _result(call)

    def _run(self, batch: list[_Call]) -> None:
        """Decode ``batch``, one call per latent length, in the order the lengths first came."""
        groups: dict[int, list[_Call]] = {}
        for call in batch:
            groups.setdefault(call.z.shape[-1], []).append(call)
        for group in groups.values():
            self._run_group(group)
            self.batches.append(len(group))

    def _run_group(self, group: list[_Call]) -> None:
        with importing("torch"):
            import torch

        try:
            g = None if group[0].g is None else torch.cat([c.g for c in group])
            audio = self._decode(torch.cat([c.z for c in group]), g)
            for row, call in enumerate(group):
                call.audio = audio[row : row + 1]
        except BaseException as exc:  # each caller raises it
            for call in group:
                call.error = exc
        for call in group:
            call.done = True


def _result(call: _Call):
    if call.error is not None:
        raise call.error
    return call.audio
