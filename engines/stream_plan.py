"""Streaming inside a sentence: which frames to decode next, and with how much context.

Engine-agnostic: the ONNX engine uses it now, the torch engine later. A sentence
of ``T`` frames is cut into chunks ``[a, b)``. Each chunk is decoded from a
window that reaches ``context`` real neighbouring frames beyond it on each side
(never zero padding) and keeps only its own ``(b - a) * hop_length`` samples,
so seams are sample-exact up to the convolutions' receptive field.

The first chunk is small (time to first audio); every later chunk is as large
as the audio already handed out allows, assuming the listener plays it in real
time: fewer, larger chunks cost less context overhead (throughput), and the
measured cost per frame keeps the next chunk ready before the last one ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class ChunkPlan:
    """Chunk sizes in frames (one frame = ``hop_length`` samples).

    Attributes:
        whole_below: sentences shorter than this go in one piece.
        first_min, first_max: bounds of the first chunk; it is a quarter of the sentence in between.
        min_frames: no later chunk is smaller than this (nor leaves less behind).
        max_frames: no chunk is larger than this (by more than ``min_frames``), so the decoder's
            working memory is bounded whatever the sentence's length or ``length_scale`` (512 frames
            at 22,050 Hz and hop 256 are about 6 s of audio: ordinary sentences stay one or two chunks).
        decoder_context: real frames on each side of a decoder window. The
            HiFi-GAN decoder of Piper's medium voices reaches about 8 frames each
            side (measured: chunked vs whole decoding > 60 dB SNR at 8).
        flow_context: real frames on each side of a flow window: 4 coupling
            layers of 4 WaveNet layers with kernel 5 reach 4 * 4 * 2 = 32 frames;
            24 already gives > 100 dB SNR on z.
        safety: fraction of the buffered audio a chunk's compute may use.
        margin_s: seconds kept back from that budget for scheduling jitter.
        adaptive: size chunks by the listener's buffered audio and the measured speed. False: by the
            sentence and the frames already decoded alone (each chunk as long as those), so a request
            gives the same samples however busy the machine is; a ``steady`` request
            (``SynthesisOptions.steady``: the speech server's, which cannot see its clients' clocks, and
            measurement renders) is cut by :meth:`steady`, this plan with it off.
    """

    whole_below: int = 128
    first_min: int = 16
    first_max: int = 32
    min_frames: int = 32
    max_frames: int = 512
    decoder_context: int = 8
    flow_context: int = 24
    safety: float = 0.8
    margin_s: float = 0.04
    adaptive: bool = True

    def steady(self) -> ChunkPlan:
        """This plan sized by the sentence alone (``adaptive`` off): the same chunks, so the same samples, on a
        quiet or a loaded machine."""
        return replace(self, adaptive=False)

    def first(self, total: int, ahead_s: float, cost: FrameCost) -> int:
        """Frames of a sentence's first chunk, given ``ahead_s`` seconds already buffered."""
        if total < self.whole_below:
            return total
        frames = min(self.first_max, max(self.first_min, total // 4))
        return self._fit(total, max(frames, self._budget_frames(ahead_s, cost)) if self.adaptive else frames)

    def following(self, remaining: int, ahead_s: float, cost: FrameCost, done: int = 0) -> int:
        """Frames of the next chunk: what fits in the buffered audio (or, not adaptive, the ``done`` frames
        of the sentence so far), within bounds."""
        budget = self._budget_frames(ahead_s, cost) if self.adaptive else done
        return self._fit(remaining, max(self.min_frames, budget))

    def _budget_frames(self, ahead_s: float, cost: FrameCost) -> int:
        return cost.frames_within(ahead_s * self.safety - self.margin_s, self.decoder_context)

    def _fit(self, remaining: int, frames: int) -> int:
        """``frames`` (at most ``max_frames``), or all of ``remaining`` when less than ``min_frames`` would be
        left."""
        frames = min(frames, self.max_frames)
        return remaining if remaining - frames < self.min_frames else frames


class FrameCost:
    """Running estimate of seconds per decoded frame (and per flow frame)."""

    def __init__(self, decoder_s: float = 1e-3, flow_s: float = 0.0) -> None:
        self.decoder_s = decoder_s
        self.flow_s = flow_s

    def observe(self, part: str, seconds: float, frames: int, weight: float = 0.5) -> None:
        """Blend a new measurement of ``part`` (``decoder`` or ``flow``) into the estimate."""
        if frames <= 0:
            return
        attr = f"{part}_s"
        setattr(self, attr, (1 - weight) * getattr(self, attr) + weight * seconds / frames)

    def frames_within(self, budget_s: float, context: int) -> int:
        """How many frames can be decoded (with ``context`` on each side) in ``budget_s``."""
        if budget_s <= 0:
            return 0
        return max(0, int(budget_s / (self.decoder_s + self.flow_s)) - 2 * context)


class PlaybackClock:
    """Audio handed out against wall time: how far a real-time listener is behind.

    ``steady``: the request wants the same samples however busy the machine is, so its chunks are sized by the
    sentence alone (:meth:`ChunkPlan.steady`), never by the buffered audio and the measured speed.
    """

    def __init__(self, steady: bool = False) -> None:
        self._start: float | None = None
        self._emitted_s = 0.0
        self.steady = steady

    def emitted(self, seconds: float) -> None:
        """Record ``seconds`` of audio handed to the listener now."""
        if self._start is None:
            self._start = time.perf_counter()
        self._emitted_s += seconds

    def ahead_s(self) -> float:
        """Seconds of audio handed out but not yet played (0 before the first chunk)."""
        if self._start is None:
            return 0.0
        return max(0.0, self._emitted_s - (time.perf_counter() - self._start))


def windows(start: int, end: int, total: int, context: int) -> tuple[int, int]:
    """The window ``[lo, hi)`` that decodes chunk ``[start, end)`` with real context, clipped to ``[0, total)``."""
    return max(0, start - context), min(total, end + context)


class FlowWindows:
    """The reverse flow run window by window, just ahead of the decoder.

    ``z`` frames ``[0, done)`` are exact: each flow window reaches ``context``
    real frames past what it keeps. The first window covers only what the
    first chunk needs; the next one covers the whole rest of the sentence (the
    flow is cheap next to the decoder, so one more window is not worth it).

    Args:
        z_p: prior ``[B, C, T]`` (numpy array or torch tensor).
        y_mask: ``[B, 1, T]``.
        run_flow: ``(z_p window, mask window) -> z window``, same layout.
        z: preallocated output like ``z_p``.
        context: frames of flow context (``ChunkPlan.flow_context``).
    """

    def __init__(self, z_p, y_mask, run_flow, z, context: int, cost: FrameCost) -> None:
        self.z_p, self.y_mask, self.z = z_p, y_mask, z
        self._run, self._context, self._cost = run_flow, context, cost
        self.total = z_p.shape[2]
        self.done = 0

    def ensure(self, end: int) -> None:
        """Make frames ``[0, end)`` of ``z`` exact."""
        if end <= self.done:
            return
        total, cf, done = self.total, self._context, self.done
        lo, hi = max(0, done - cf), (min(total, end + cf) if done == 0 else total)
        start = time.perf_counter()
        out = self._run(self.z_p[:, :, lo:hi], self.y_mask[:, :, lo:hi])
        self._cost.observe("flow", time.perf_counter() - start, hi - lo)
        keep = hi if hi == total else hi - cf
        self.z[:, :, done:keep] = out[:, :, done - lo : keep - lo]
        self.done = keep


def stream_chunks(z, hop_length: int, plan: ChunkPlan, clock: PlaybackClock, cost: FrameCost, run_decoder, ensure=None):
    """Decode ``z`` ``[B, C, T]`` chunk by chunk: yields ``(audio [N], final)``.

    ``run_decoder(z window) -> audio [(hi - lo) * hop_length]`` (flat, CPU numpy);
    ``ensure(end)`` is called before each window so the frames it reads are ready
    (see :class:`FlowWindows`). Each chunk keeps only its own samples. A ``steady`` clock's request is cut by
    ``plan.steady()``.
    """
    plan = plan.steady() if clock.steady else plan
    total, context = z.shape[2], plan.decoder_context
    start = 0
    while start < total:
        if start == 0:
            frames = plan.first(total, clock.ahead_s(), cost)
        else:
            frames = plan.following(total - start, clock.ahead_s(), cost, start)
        end = min(total, start + frames)
        lo, hi = windows(start, end, total, context)
        if ensure is not None:
            ensure(hi)
        began = time.perf_counter()
        audio = run_decoder(z[:, :, lo:hi])
        cost.observe("decoder", time.perf_counter() - began, hi - lo)
        yield audio[(start - lo) * hop_length : (end - lo) * hop_length], end == total
        start = end
