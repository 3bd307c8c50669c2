"""Benchmark: what the text front end (``engines.frontend.normalize``) costs, per 1,000 characters and as a share of
the time to first audio of one sentence.

Cost per 1,000 characters: ``normalize`` over three texts, median of ``--runs`` runs after a warm-up (num2words
imported): the 240 transcripts of the target-voice corpus joined (numbers, dates, units and abbreviations in a
fifth of them; read in place from ``../shared/corpus``), a dense text of the issue's lines and their kin (something
to say in every sentence), and plain prose with nothing to normalize.

Share of time to first audio (TTFA): joe (``en_US-joe-medium``) on our ONNX engine in this process, warm, noise
as the voice has it; for each sentence, runs alternate normalization on and off; TTFA is seconds from
``synthesize`` until the first chunk is in hand, "front end" the time ``normalize`` takes for the sentence alone;
the share is front end / TTFA (normalization on), each a median of ``--runs``.

Usage: ``.venv/bin/python tests/bench/frontend.py [--runs 30]``
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from engines.base import SynthesisOptions
from engines.frontend import normalize

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "target-voice" / "metadata.csv"
DENSE = (
    "It costs $49.95 and opens at 8:00. I paid $3.50 for 2 kg. Captain James T. Kirk met Dr. Smith. "
    "St. James St. is near. Fish & chips <3 cost £5. Call 555-123-4567 by Jan. 5th, 2024 at 9:30 a.m. "
    "Henry VIII ruled in 1509. Add 1/2 cup, 250 ml and 2 tbsp at 200 °C for 45 min. Write to bob@example.com. "
    "Sales rose 8.5% to $1.2 million in the 1990s. "
)
PLAIN = (
    "The storm rolled in just after midnight, rattling every window in the old farmhouse. "
    "Martha lit a candle and walked slowly down the creaking stairs. "
    "In the kitchen, the dog was already awake, ears pricked toward the door. "
)
SENTENCES = {
    "20-word sentence, nothing to normalize": (
        "The quick brown fox jumps over the lazy dog while twenty curious children "
        "watch quietly from the old wooden bridge."
    ),
    "20-word sentence, six things to normalize": (
        "Dr. Lee paid $12.75 for 3 kg of apples on Jan. 5th, 2024 at 9 a.m. and called 555-123-4567."
    ),
}


def texts() -> dict[str, str]:
    """The texts whose cost per 1,000 characters is measured, each about 20,000 characters."""
    corpus = " ".join(line.split("|", 1)[1] for line in CORPUS.read_text(encoding="utf-8").splitlines() if line)
    return {
        "target-voice corpus (240 transcripts)": corpus,
        "dense (the issue's lines and kin)": DENSE * (len(corpus) // len(DENSE)),
        "plain prose (nothing to normalize)": PLAIN * (len(corpus) // len(PLAIN)),
    }


def seconds(work, runs: int) -> float:
    """Median seconds of ``work()`` over ``runs`` runs."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cost_table(runs: int) -> None:
    """Print the cost of ``normalize`` per 1,000 characters for each text."""
    print("| text | characters | front end per 1,000 characters (ms) |")
    print("|---|---:|---:|")
    for label, text in texts().items():
        took = seconds(lambda text=text: normalize(text, "en-us"), runs)
        print(f"| {label} | {len(text):,} | {took * 1000 / len(text) * 1000:.2f} |")


def ttfa_table(runs: int) -> None:
    """Print TTFA with and without normalization, the front end's time and its share, for each sentence."""
    from engines.onnx.engine import OnnxEngine
    from engines.registry import default_voice

    engine = OnnxEngine(default_voice())
    print("| sentence | TTFA, front end on (s) | TTFA, off (s) | front end (ms) | share of TTFA |")
    print("|---|---:|---:|---:|---:|")
    for label, sentence in SENTENCES.items():
        first = {True: [], False: []}
        for _ in range(runs + 2):  # the first two of each warm the engine up
            for on in (True, False):
                start = time.perf_counter()
                next(iter(engine.synthesize(sentence, SynthesisOptions(normalize=on))))
                first[on].append(time.perf_counter() - start)
        on, off = (statistics.median(first[flag][2:]) for flag in (True, False))
        front = seconds(lambda sentence=sentence: normalize(sentence, "en-us"), runs * 10)
        print(f"| {label} | {on:.3f} | {off:.3f} | {front * 1000:.3f} | {front / on:.2%} |")


def machine() -> str:
    """The CPU's model name and core count, Python and the platform."""
    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines() if "model name" in line]
        model = names[0] if names else model
    return f"{model}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    normalize("Warm up: $5 at 9:30 a.m. on Jan. 5th, 2024.", "en-us")  # imports num2words once
    print(f"{machine()}; medians of {args.runs} runs\n")
    cost_table(args.runs)
    print()
    ttfa_table(args.runs)


if __name__ == "__main__":
    main()
