"""Benchmark: the speech server over loopback against the same engine in-process, side by side.

At 1, 4 and 8 concurrent streams, each stream speaks the same lines one after
another with the default voice (en_US-joe-medium):

- in-process: one ``OnnxEngine`` per stream, on the shared ONNX Runtime pool, as the server runs them;
- server: ``voice-studio serve --workers 8`` in its own process, read by our ``RemoteEngine`` with
  ``pcm`` streaming over 127.0.0.1 (HTTP, encoding and decoding included).

Time to first audio (TTFA) is the median over requests of the seconds from the
call to the first chunk in hand; throughput is seconds of audio delivered per
wall-clock second, all streams together. The two sides alternate, ``--runs``
times; the table gives medians and the server/in-process ratios (overhead:
TTFA ratio above 1, throughput ratio below 1).

Usage: ``.venv/bin/python tests/bench/server.py [--runs 3] [--rounds 4]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "bench")]

import gpu_streams  # noqa: E402 (after the path)

STREAMS = (1, 4, 8)


def run_streams(make_engine, streams: int, rounds: int) -> tuple[list[float], float]:
    """``streams`` threads each speak ``rounds`` x the lines; returns (TTFA per request, audio s / wall s)."""
    heard, rate = gpu_streams.run_streams(make_engine, streams, rounds)
    return [r.ttfa_s for r in heard], rate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=4, help="times each stream speaks the lines per run")
    args = parser.parse_args()

    from engines.onnx.engine import OnnxEngine, use_shared_thread_pool
    from engines.registry import default_voice
    from engines.remote.engine import RemoteEngine
    from engines.remote.settings import RemoteSettings

    use_shared_thread_pool()
    voice = default_voice()
    process, url = gpu_streams.start_server(8)
    try:
        sides = {
            "in-process": lambda: OnnxEngine(voice),
            "server": lambda: RemoteEngine(
                RemoteSettings(url=url, model=voice.name, voice="default", extra={"sample_rate": "native"})
            ),
        }
        for make in sides.values():  # warm up: first loads and connections
            run_streams(make, 1, 1)
        results = {(side, n): [] for side in sides for n in STREAMS}
        for _ in range(args.runs):
            for n in STREAMS:
                for side, make in sides.items():
                    results[(side, n)].append(run_streams(make, n, args.rounds))
    finally:
        process.terminate()
        process.wait(10)
    report(results, args)


def report(results: dict, args) -> None:
    """Print the Markdown table."""
    print(f"en_US-joe-medium, pcm over 127.0.0.1, {os.cpu_count()} cores, {args.runs} runs x {args.rounds} rounds")
    print("| streams | TTFA in-process | TTFA server | TTFA ratio | audio s/s in-process | audio s/s server | ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in STREAMS:
        row = []
        for side in ("in-process", "server"):
            runs = results[(side, n)]
            row.append((statistics.median(t for ttfa, _ in runs for t in ttfa), statistics.median(r for _, r in runs)))
        (ttfa_local, rate_local), (ttfa_server, rate_server) = row
        print(
            f"| {n} | {ttfa_local * 1000:.0f} ms | {ttfa_server * 1000:.0f} ms | {ttfa_server / ttfa_local:.2f}x "
            f"| {rate_local:.1f} | {rate_server:.1f} | {rate_server / rate_local:.2f}x |"
        )


if __name__ == "__main__":
    main()
