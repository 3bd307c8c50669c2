"""Benchmark: monotonic alignment search (MAS) alone at Piper-like sizes, our back-ends against stock Piper's way.

A batch of 16 items with 200-400 phonemes and 4x as many frames (random float32 scores, padded to the
longest item), searched by:

- the stock stand-in: what piper.train does around its Cython ``maximum_path_c`` (which is not in the
  piper-tts wheel): copy the scores to the CPU, search there, build the dense int32 path ``[B, T_y, T_x]``
  and copy it back to the scores' device as float. The search itself is our numba kernel, the same
  algorithm as the Cython code with the same parallel loop over the batch (``prange``);
- ours, numba: ``search_indices(backend="numba")``, text indices ``[B, T_y]`` (on CUDA: scores copied to the
  host, indices back);
- ours, reference: the vectorized NumPy back-end (CPU only; for scale);
- ours, Triton: ``search_indices(backend="triton")``, all on the GPU (CUDA only).

Every time includes the transfers and, on CUDA, ends with a synchronize. Rounds alternate between the
back-ends (one call each per round, after one untimed warm-up call that compiles); the table gives the
median milliseconds and the median of each round's ratio to the stand-in. It also checks that every
back-end found the same path.

Usage: ``.venv/bin/python tests/bench/mas.py [--repeat 20] [--device cpu|cuda] [--seed 0]``
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from trainer.align import search_indices
from trainer.align.numba_mas import search_numba

BATCH = 16
FRAMES_PER_PHONEME = 4


def piper_like_batch(device: str, seed: int):
    """(scores ``[16, T_y, T_x]`` float32, frames ``[16]``, phonemes ``[16]``) on ``device``."""
    rng = np.random.default_rng(seed)
    t_xs = rng.integers(200, 401, BATCH)
    t_ys = t_xs * FRAMES_PER_PHONEME
    scores = rng.normal(size=(BATCH, int(t_ys.max()), int(t_xs.max()))).astype(np.float32)
    return tuple(torch.from_numpy(a).to(device) for a in (scores, t_ys, t_xs))


def stock_stand_in(value, y_lengths, x_lengths):
    """Piper's data path: scores to the CPU, search (numba for Cython), dense path back as float ``[B, T_y, T_x]``."""
    scores = value.detach().cpu().numpy().astype(np.float32)
    t_ys = y_lengths.cpu().numpy().astype(np.int64)
    t_xs = x_lengths.cpu().numpy().astype(np.int64)
    indices = search_numba(np.ascontiguousarray(scores), t_ys, t_xs)
    path = np.zeros(scores.shape, np.int32)
    frames = np.arange(scores.shape[1])
    for b in range(scores.shape[0]):
        path[b, frames[: t_ys[b]], indices[b, : t_ys[b]]] = 1
    return torch.from_numpy(path).to(device=value.device, dtype=value.dtype)


def candidates(device: str) -> dict:
    """Name -> function(value, y_lengths, x_lengths) returning something the path can be read from."""
    chosen = {"stock stand-in (to CPU, numba, dense path back)": stock_stand_in}
    chosen["ours: numba" + (" (scores to CPU, indices back)" if device == "cuda" else "")] = lambda v, y, x: (
        search_indices(v, y, x, backend="numba")
    )
    if device == "cuda":
        chosen["ours: Triton (on the GPU)"] = lambda v, y, x: search_indices(v, y, x, backend="triton")
    else:
        chosen["ours: NumPy reference"] = lambda v, y, x: search_indices(v, y, x, backend="reference")
    return chosen


def timed(function, args, device: str) -> tuple[float, torch.Tensor]:
    """(seconds, result) of one call, synchronized on CUDA."""
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    result = function(*args)
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, result


def as_indices(result: torch.Tensor) -> np.ndarray:
    return (result.argmax(-1) if result.dim() == 3 else result).cpu().numpy()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20, help="timed rounds (one call per back-end each)")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    if args.device == "cuda" and not torch.cuda.is_available():
        parser.error("--device cuda: torch sees no CUDA GPU here (use --device cpu)")
    batch = piper_like_batch(args.device, args.seed)
    chosen = candidates(args.device)
    reference = None
    for name, function in chosen.items():  # warm-up: compiles numba / Triton; all must agree
        found = as_indices(timed(function, batch, args.device)[1])
        reference = found if reference is None else reference
        if not np.array_equal(found, reference):
            raise SystemExit(f"{name} found a different path than the stand-in")
    seconds: dict[str, list[float]] = {name: [] for name in chosen}
    for _ in range(args.repeat):
        for name, function in chosen.items():
            seconds[name].append(timed(function, batch, args.device)[0])
    report(seconds, batch, args)


def cpu_name() -> str:
    """The CPU's model name (Linux), with the number of cores."""
    try:
        lines = Path("/proc/cpuinfo").read_text(encoding="utf-8").splitlines()
        name = next(line.split(":", 1)[1].strip() for line in lines if line.startswith("model name"))
    except (OSError, StopIteration):
        name = platform.processor() or platform.machine()
    return f"{name}, {os.cpu_count()} cores"


def report(seconds: dict[str, list[float]], batch, args) -> None:
    """Print the Markdown table: median ms and the median per-round ratio against the stand-in."""
    value, phonemes = batch[0], batch[2]
    where = torch.cuda.get_device_name() if args.device == "cuda" else cpu_name()
    print(
        f"MAS alone: batch {BATCH}, {int(phonemes.min())}-{int(phonemes.max())} phonemes, {FRAMES_PER_PHONEME}x frames"
    )
    print(f"scores {tuple(value.shape)} float32 on {args.device} ({where}; torch {torch.get_num_threads()} threads)")
    print(f"{args.repeat} rounds; every back-end found the same path\n")
    stand_in = next(iter(seconds.values()))
    print("| back-end | median ms | ratio to stand-in |")
    print("|---|---:|---:|")
    for name, times in seconds.items():
        ratio = statistics.median(t / s for t, s in zip(times, stand_in, strict=True))
        print(f"| {name} | {1000 * statistics.median(times):.1f} | {ratio:.2f}x |")
    if args.device == "cpu":
        print("\nTriton needs CUDA: run with a GPU (--device cuda, the default where torch sees one) for its row.")


if __name__ == "__main__":
    main()
