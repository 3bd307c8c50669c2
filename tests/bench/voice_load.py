"""Benchmark: loading an ONNX voice in a fresh process, its graph prepared there or taken from the cache.

Each round runs two fresh processes side by side in time (alternating which goes first): one with an empty
data folder (the graph is analyzed and cut: ``engines.onnx.prepared``, importing ``onnx``) and one whose data
folder holds the prepared graph (a hit). Each process imports the engine, loads the voice
(``OnnxEngine.from_path``), speaks one short line and reports its CPU seconds (``time.process_time``) and wall
seconds for the load and for the whole process up to the first audio. Prints the medians and their ratios;
children run the code of the current directory, so ``cd OTHER && python /path/to/voice_load.py`` measures
another checkout.

Usage: ``.venv/bin/python tests/bench/voice_load.py [--rounds 5] [--voice PATH.onnx]``
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHILD = """
import json, sys, time
started = time.perf_counter()
from engines.base import SynthesisOptions
from engines.onnx.engine import OnnxEngine
cpu, wall = time.process_time(), time.perf_counter()
engine = OnnxEngine.from_path(sys.argv[1])
load_cpu, load_wall = time.process_time() - cpu, time.perf_counter() - wall
next(iter(engine.synthesize("The first line.", SynthesisOptions())))
print(json.dumps({"load_cpu": load_cpu, "load_wall": load_wall, "first_audio": time.perf_counter() - started,
                  "process_cpu": time.process_time(), "onnx_imported": "onnx" in sys.modules}))
"""


def run_child(voice: Path, data: Path) -> dict:
    """One fresh process loading ``voice`` with ``data`` as its XDG data folder; its measures."""
    env = {**os.environ, "XDG_DATA_HOME": str(data), "OMP_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", CHILD, str(voice)], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    from engines.registry import default_voice

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--voice", type=Path, default=None, help="an .onnx voice (default: the embedded joe)")
    args = parser.parse_args()
    voice = args.voice or default_voice().model_path
    results: dict[str, list[dict]] = {"prepared here": [], "from the cache": []}
    with tempfile.TemporaryDirectory() as folder:
        warm = Path(folder, "warm")
        run_child(voice, warm)  # fills the warm cache
        for round_ in range(args.rounds):
            order = ["prepared here", "from the cache"][:: 1 if round_ % 2 == 0 else -1]
            for name in order:
                data = warm if name == "from the cache" else Path(folder, f"cold-{round_}")
                results[name].append(run_child(voice, data))
    print(f"{voice.name}, {args.rounds} rounds, {time.strftime('%Y-%m-%d')}; medians")
    header = f"{'load CPU s':>10} {'load wall s':>11} {'to first audio s':>16} {'process CPU s':>13}"
    print(f"{'':16} {header}  onnx imported")
    keys = ["load_cpu", "load_wall", "first_audio", "process_cpu"]
    medians = {name: [statistics.median(r[k] for r in rows) for k in keys] for name, rows in results.items()}
    for name, rows in results.items():
        m = medians[name]
        print(f"{name:16} {m[0]:10.2f} {m[1]:11.2f} {m[2]:16.2f} {m[3]:13.2f}  {rows[0]['onnx_imported']}")
    ratios = [c / p for c, p in zip(medians["from the cache"], medians["prepared here"], strict=True)]
    print(f"{'ratio':16} {ratios[0]:10.2f} {ratios[1]:11.2f} {ratios[2]:16.2f} {ratios[3]:13.2f}")


if __name__ == "__main__":
    main()
