"""Benchmark: the server's streams on one engine and device, and whether batching decoder calls pays (not a test).

``voice-studio serve`` runs in its own process with ``--engine ENGINE --device DEVICE`` (the torch engine on CUDA
by default) and as many workers as the most streams asked for; 1, 4 and 16 clients (``--streams``) each speak
the lines one after another over 127.0.0.1 (``pcm`` streaming, our ``RemoteEngine``), at the same time. Per
request: time to first audio (TTFA, call to first chunk in hand), RTF (request seconds / audio seconds) and the
longest gap a listener would hear (playback starting at the first chunk: the longest wait for a chunk past the
moment the audio before it has played out). The table gives the median TTFA and RTF and the worst gap of each
stream count, and the audio seconds delivered per wall second, all streams together.

``--batch-probe`` also times one decoder call (the voice's HiFi-GAN, where most of a render's time goes) on the
device for batches of 1, 4 and 16 one-second latents: where 16 cost about what 1 costs, batching concurrent
requests into one call would pay; where the cost grows with the batch, it would not.

``--batch-decode on,off`` runs the server once with the torch engines' decoder batching on and once off
(``engines.torch.engine.BATCH_DECODE_VARIABLE``; ``auto``, the default, leaves the engine's choice: on with
CUDA), a table each.

Usage: ``python tests/bench/gpu_streams.py [--engine torch] [--device cuda] [--streams 1,4,16] [--rounds 2]
[--batch-decode auto|on|off,...] [--batch-probe] [--voice NAME.onnx]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

LINES = [
    "Hello, world.",
    "The quick brown fox jumps over the lazy dog while the children watch from the bridge.",
    "She sells seashells by the seashore. The shells she sells are surely seashells.",
    "Welcome to Voice Studio, where you make and use your own voices.",
]


@dataclass(frozen=True, kw_only=True)
class Request:
    """One request as a client heard it: seconds to first audio, seconds in all, audio seconds, longest gap (s)."""

    ttfa_s: float
    total_s: float
    audio_s: float
    gap_s: float


def hear(engine, text: str) -> Request:
    """Speak ``text`` through ``engine`` and time it as a listener would (playback from the first chunk)."""
    start = time.perf_counter()
    first, played, gap = None, 0.0, 0.0
    for chunk in engine.synthesize(text):
        now = time.perf_counter() - start
        if first is None:
            first = now
        gap = max(gap, now - (first + played))
        played += chunk.duration_s
    total = time.perf_counter() - start
    return Request(ttfa_s=first or total, total_s=total, audio_s=played, gap_s=gap)


def run_streams(make_engine, streams: int, rounds: int) -> tuple[list[Request], float]:
    """``streams`` threads each speak ``rounds`` x ``LINES``; returns every request and audio s per wall s."""
    engines = [make_engine() for _ in range(streams)]
    heard: list[Request] = []
    lock = threading.Lock()

    def stream(index: int) -> None:
        for _ in range(rounds):
            for line in LINES:
                request = hear(engines[index], line)
                with lock:
                    heard.append(request)

    threads = [threading.Thread(target=stream, args=(i,)) for i in range(streams)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return heard, sum(r.audio_s for r in heard) / (time.perf_counter() - started)


def start_server(
    workers: int, engine: str = "onnx", device: str = "auto", voice: str | None = None, batch_decode: str = "auto"
) -> tuple[subprocess.Popen, str]:
    """``voice-studio serve`` on a free port with ``workers`` workers (a queue of twice as many), the engine,
    device and voice asked for, decoder batching ``auto``, ``on`` or ``off``; returns it and its URL."""
    from engines.torch.engine import BATCH_DECODE_VARIABLE

    command = [sys.executable, "-m", "studio", "serve", "--port", "0", "--workers", str(workers)]
    command += ["--queue", str(2 * workers), "--engine", engine, "--device", device]
    command += ["--voice", voice] if voice else []
    env = {k: v for k, v in os.environ.items() if k != BATCH_DECODE_VARIABLE}
    env |= {"on": {BATCH_DECODE_VARIABLE: "1"}, "off": {BATCH_DECODE_VARIABLE: "0"}}.get(batch_decode, {})
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, text=True, env=env)
    line = process.stdout.readline()
    if " on http" not in line:
        process.kill()
        sys.exit(f"the server did not start: {line}")
    return process, line.split(" on ")[1].split()[0]


def batch_probe(voice, device: str, repeat: int = 20) -> list[str]:
    """Median seconds of one decoder call for batches of 1, 4 and 16 one-second latents on ``device``."""
    import torch

    from engines.torch.engine import TorchEngine

    engine = TorchEngine(voice, device=device)
    channels = engine.model.dec.conv_pre.in_channels
    frames = voice.config.sample_rate // voice.config.hop_length
    lines = ["| batch | one decoder call | per item | against batch 1 |", "|---:|---:|---:|---:|"]
    base = None
    for batch in (1, 4, 16):
        z = torch.randn(batch, channels, frames, device=engine.device)
        times = []
        with torch.inference_mode():
            for _ in range(repeat + 3):
                if engine.device.startswith("cuda"):
                    torch.cuda.synchronize()
                started = time.perf_counter()
                engine.model.dec(z)
                if engine.device.startswith("cuda"):
                    torch.cuda.synchronize()
                times.append(time.perf_counter() - started)
        seconds = statistics.median(times[3:])
        base = base or seconds
        lines.append(f"| {batch} | {seconds * 1000:.2f} ms | {seconds / batch * 1000:.2f} ms | {seconds / base:.2f}x |")
    return lines


def report(results: dict[int, tuple[list[Request], float]], args, batch_decode: str) -> list[str]:
    """The Markdown table of the streams."""
    lines = [
        f"{args.engine} engine on {args.device}, pcm over 127.0.0.1, {os.cpu_count()} cores, {args.rounds} rounds, "
        f"decoder batching {batch_decode}",
        "| streams | TTFA median | TTFA worst | RTF median | longest gap | audio s per wall s |",
        "|---:|---:|---:|---:|---:|---:|",
    ]
    for streams, (heard, rate) in results.items():
        ttfa = [r.ttfa_s for r in heard]
        rtf = statistics.median(r.total_s / r.audio_s for r in heard if r.audio_s > 0)
        lines.append(
            f"| {streams} | {statistics.median(ttfa) * 1000:.0f} ms | {max(ttfa) * 1000:.0f} ms | {rtf:.3f} "
            f"| {max(r.gap_s for r in heard) * 1000:.0f} ms | {rate:.1f} |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="torch", choices=("onnx", "torch"))
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--streams", default="1,4,16")
    parser.add_argument("--rounds", type=int, default=2, help="times each stream speaks the lines")
    parser.add_argument("--voice", help="a voice file (default: the default voice)")
    parser.add_argument("--batch-decode", default="auto", help="auto, on or off, or several: on,off")
    parser.add_argument("--batch-probe", action="store_true")
    args = parser.parse_args()

    from engines.registry import default_voice
    from engines.remote.engine import RemoteEngine
    from engines.remote.settings import RemoteSettings
    from engines.voice import load_voice

    voice = load_voice(Path(args.voice)) if args.voice else default_voice()
    counts = [int(n) for n in args.streams.split(",")]
    for batch_decode in args.batch_decode.split(","):
        process, url = start_server(max(counts), args.engine, args.device, args.voice, batch_decode)
        settings = RemoteSettings(url=url, model=voice.name, voice="default", extra={"sample_rate": "native"})
        make = partial(RemoteEngine, settings)
        try:
            run_streams(make, 1, 1)  # warm up: the first connection and shapes
            results = {n: run_streams(make, n, args.rounds) for n in counts}
        finally:
            process.terminate()
            process.wait(10)
        print(*report(results, args, batch_decode), "", sep="\n", flush=True)
    if args.batch_probe:
        print(f"\none decoder call on {args.device}, {voice.name}, one-second latents:")
        print(*batch_probe(voice, args.device), sep="\n")


if __name__ == "__main__":
    main()
