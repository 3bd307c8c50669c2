"""Slicing a long recording into utterances at its pauses, with draft transcripts.

Speech is found with Silero VAD (``trainer.dataset.analysis.speech_windows``, 32 ms
windows). Pauses shorter than ``min_pause_s`` are bridged; the speech span is then
cut at its longest pause, recursively, until every piece fits ``max_s`` with its
margins (at most ``max_s - 2 * margin_s`` of speech, so no clip needs its margins
squeezed to stay within the limit). Speech over that with no pause of ``min_pause_s``
is cut the same way at its shorter pauses (any silent window); only speech without
one silent window is cut at the limit. Pieces shorter than ``min_s`` join the
neighbour across the shorter pause when the result still fits. Each utterance keeps
up to ``margin_s`` of the silence around it, never more than half of a pause, so
neighbours never overlap, and never so much that the clip (margins included) grows
past ``max_s``: ``max_s`` is a hard limit on each clip's length.

Silero VAD opens its own ONNX Runtime session: run slicing in a worker process
(``trainer.dataset.jobs.find_utterances`` does), not in the studio's process.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from trainer.dataset.analysis import VAD_RATE, VAD_WINDOW, speech_windows

WINDOW_S = VAD_WINDOW / VAD_RATE


@dataclass(frozen=True)
class SliceOptions:
    """How to cut (seconds).

    Attributes:
        min_s: shortest utterance (speech span, without margins).
        max_s: longest clip, margins included (a hard limit).
        min_pause_s: shorter silences inside speech are not places to cut.
        margin_s: silence kept before and after each utterance.
    """

    min_s: float = 1.0
    max_s: float = 12.0
    min_pause_s: float = 0.25
    margin_s: float = 0.2

    def __post_init__(self) -> None:
        if not 0 < self.min_s < self.max_s:
            raise ValueError(f"need 0 < min_s < max_s, got min_s={self.min_s}, max_s={self.max_s}")


def speech_regions(speech: np.ndarray, min_pause_s: float) -> list[tuple[int, int]]:
    """``[start, end)`` window ranges of speech, with pauses under ``min_pause_s`` bridged."""
    padded = np.concatenate([[False], speech, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(padded))
    regions = [(int(s), int(e)) for s, e in zip(edges[::2], edges[1::2], strict=True)]
    bridged: list[tuple[int, int]] = []
    for start, end in regions:
        if bridged and (start - bridged[-1][1]) * WINDOW_S < min_pause_s:
            bridged[-1] = (bridged[-1][0], end)
        else:
            bridged.append((start, end))
    return bridged


def group(
    regions: list[tuple[int, int]], options: SliceOptions, speech: np.ndarray | None = None
) -> list[tuple[int, int]]:
    """Window ranges of utterances from speech regions (see the module docstring).

    Args:
        regions: ``[start, end)`` window ranges of speech, pauses under ``min_pause_s`` bridged
            (:func:`speech_regions`).
        options: how to cut.
        speech: bool ``[M]``, the VAD windows ``regions`` came from: a region too long for one clip is cut at
            its shorter pauses found there (without it, at the limit).
    """
    if not regions:
        return []
    most = int(speech_budget_s(options) / WINDOW_S + 1e-9)  # whole windows (rounding up could pass the limit)
    return _join_short(_split(regions, most, speech), round(options.min_s / WINDOW_S), most)


def speech_budget_s(options: SliceOptions) -> float:
    """The most speech one clip holds, seconds: ``max_s`` less a margin at each end, never under ``min_s``."""
    return max(options.max_s - 2 * options.margin_s, options.min_s)


def _split(regions: list[tuple[int, int]], max_windows: int, speech: np.ndarray | None) -> list[tuple[int, int]]:
    start, end = regions[0][0], regions[-1][1]
    if end - start <= max_windows:
        return [(start, end)]
    if len(regions) == 1:  # no pause of min_pause_s: its shorter pauses, else the limit
        shorter = _shorter_pauses(start, end, speech)
        if len(shorter) > 1:
            return _split(shorter, max_windows, speech)
        return [(s, min(s + max_windows, end)) for s in range(start, end, max_windows)]
    gaps = [regions[i + 1][0] - regions[i][1] for i in range(len(regions) - 1)]
    cut = int(np.argmax(gaps)) + 1
    return _split(regions[:cut], max_windows, speech) + _split(regions[cut:], max_windows, speech)


def _shorter_pauses(start: int, end: int, speech: np.ndarray | None) -> list[tuple[int, int]]:
    """The speech in windows ``[start, end)`` split at every silent window (one range when there is none)."""
    if speech is None:
        return [(start, end)]
    return [(start + s, start + e) for s, e in speech_regions(speech[start:end], 0.0)]


def _join_short(pieces: list[tuple[int, int]], min_windows: int, max_windows: int) -> list[tuple[int, int]]:
    pieces = list(pieces)
    i = 0
    while i < len(pieces):
        start, end = pieces[i]
        if end - start >= min_windows or len(pieces) == 1:
            i += 1
            continue
        before = start - pieces[i - 1][1] if i > 0 else None
        after = pieces[i + 1][0] - end if i + 1 < len(pieces) else None
        options = [(gap, j) for gap, j in ((before, i - 1), (after, i + 1)) if gap is not None]
        gap, j = min(options)
        lo, hi = min(i, j), max(i, j)
        if pieces[hi][1] - pieces[lo][0] <= max_windows:
            pieces[lo : hi + 1] = [(pieces[lo][0], pieces[hi][1])]
            i = lo
        else:
            i += 1
    return pieces


def _with_margins(
    pieces: list[tuple[int, int]], total_s: float, margin_s: float, max_s: float
) -> list[tuple[float, float]]:
    spans = []
    for k, (start, end) in enumerate(pieces):
        margin = max(0.0, min(margin_s, (max_s - (end - start) * WINDOW_S) / 2))  # the clip stays within max_s
        lo = start * WINDOW_S - margin
        hi = end * WINDOW_S + margin
        if k > 0:
            lo = max(lo, (pieces[k - 1][1] + start) / 2 * WINDOW_S)
        if k + 1 < len(pieces):
            hi = min(hi, (end + pieces[k + 1][0]) / 2 * WINDOW_S)
        spans.append((max(0.0, lo), min(total_s, hi)))
    return spans


def find_spans(
    mono: np.ndarray, sample_rate: int, options: SliceOptions | None = None, vad=None
) -> list[tuple[float, float]]:
    """Where to cut a recording (float32 ``[N]`` at ``sample_rate`` Hz): ``(start_s, end_s)`` of each utterance,
    margins included, in time order (see the module docstring)."""
    options = options or SliceOptions()
    speech = speech_windows(mono, sample_rate, vad)
    pieces = group(speech_regions(speech, options.min_pause_s), options, speech)
    return _with_margins(pieces, len(mono) / sample_rate, options.margin_s, options.max_s)
