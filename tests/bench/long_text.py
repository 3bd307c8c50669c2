"""Benchmark: peak memory and time to first audio for long texts with and without punctuation.

Texts: one 63-character phrase repeated to about 3,000 and 20,000 characters
(20,000 is the server's ``--max-chars``), joined by spaces (unpunctuated: one
sentence to espeak-ng) or each ending with a full stop (punctuated). Each
(engine, text) pair runs in a fresh process that loads the default voice,
synthesizes the whole text and reports its time to first audio (TTFA, seconds
from the call until the first audio chunk is in hand), total time, the longest
``phoneme_ids`` of one encoder call and its peak RSS (``resource.getrusage``,
``ru_maxrss``, in the child). Children run the code of the current directory,
so the same script measures another checkout:
``cd OTHER && python /path/to/long_text.py``. A child is stopped past
``--timeout`` seconds or ``--memory-gb`` of address space. A child stops after
``--audio-limit`` seconds of audio (default 300: the 3k texts are whole, the 20k
ones are cut after some 40 bounded pieces, when memory is long at its steady state).

Usage: ``.venv/bin/python tests/bench/long_text.py [--only onnx|torch] [--texts 3k|20k] [--punctuation with|without]``
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time

PHRASE = "the old train left the station late and rolled slowly to a cove"
"""63 characters without punctuation; joined by spaces, 45 of them make the 2,879 characters of the report."""
REPEATS = {"3k": 45, "20k": 312}


def text_for(size: str, punctuated: bool) -> str:
    """The benchmark text: ``REPEATS[size]`` phrases, each a sentence when ``punctuated``."""
    n = REPEATS[size]
    return " ".join([f"{PHRASE.capitalize()}." if punctuated else PHRASE] * n)


def child(engine_name: str, size: str, punctuated: bool, audio_limit_s: float) -> None:
    """Synthesize one text (its first ``audio_limit_s`` seconds of audio at most) here; print a JSON line."""
    import resource

    from engines import registry

    kwargs = {"device": "cpu"} if engine_name == "torch" else {}
    if engine_name == "onnx":
        from engines.onnx.engine import use_shared_thread_pool

        use_shared_thread_pool()
    engine = registry.create_engine(engine_name, registry.find_voice(None), **kwargs)
    text = text_for(size, punctuated)
    start, first, samples, max_ids, cancel = time.perf_counter(), None, 0, 0, threading.Event()
    for chunk in engine.synthesize(text, None, cancel):
        first = first if first is not None else time.perf_counter() - start
        samples += len(chunk.audio)
        max_ids = max(max_ids, len(chunk.phoneme_ids or []))
        if samples >= audio_limit_s * engine.sample_rate:
            cancel.set()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    result = {"ttfa": first, "total": time.perf_counter() - start, "audio_s": samples / engine.sample_rate}
    print(json.dumps({**result, "peak_mb": peak, "max_ids": max_ids, "chars": len(text)}))


def run_child(engine_name: str, size: str, punctuated: bool, options: argparse.Namespace) -> dict:
    """One measurement in a fresh process; ``{"error": ...}`` when it failed or ran too long."""
    timeout, memory_gb = options.timeout, options.memory_gb
    kind = "punct" if punctuated else "plain"
    command = [sys.executable, __file__, "--child", engine_name, size, kind, str(options.audio_limit)]
    env = {**os.environ, "PYTHONPATH": os.getcwd()}

    def limit() -> None:
        import resource

        cap = int(memory_gb * 2**30)
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, preexec_fn=limit)
    except subprocess.TimeoutExpired:
        return {"error": f"over {timeout:.0f} s"}
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1][:60] if done.stderr.strip() else f"exit {done.returncode}"
        return {"error": f"failed ({last})"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=["onnx", "torch"], help="one engine (default: both)")
    parser.add_argument("--texts", choices=list(REPEATS), help="one text size (default: both)")
    parser.add_argument("--punctuation", choices=["both", "with", "without"], default="both", help="which texts")
    parser.add_argument("--audio-limit", type=float, default=300, help="stop after this many seconds of audio")
    parser.add_argument("--timeout", type=float, default=600, help="seconds allowed per child")
    parser.add_argument("--memory-gb", type=float, default=12, help="address space allowed per child")
    args = parser.parse_args()
    if args.child:
        engine_name, size, kind, limit = args.child
        child(engine_name, size, kind == "punct", float(limit))
        return
    print(f"code: {os.getcwd()}")
    print("| engine | text | chars | max phoneme_ids | TTFA (s) | total (s) | audio (s) | peak RSS (MB) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for engine_name in [args.only] if args.only else ["onnx", "torch"]:
        for size in [args.texts] if args.texts else list(REPEATS):
            for punctuated in {"both": (True, False), "with": (True,), "without": (False,)}[args.punctuation]:
                r = run_child(engine_name, size, punctuated, args)
                label = f"{size} {'punctuated' if punctuated else 'unpunctuated'}"
                if "error" in r:
                    print(f"| {engine_name} | {label} | | | {r['error']} | | | |", flush=True)
                    continue
                cells = f"{r['chars']} | {r['max_ids']} | {r['ttfa']:.2f} | {r['total']:.1f} | {r['audio_s']:.0f}"
                print(f"| {engine_name} | {label} | {cells} | {r['peak_mb']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
