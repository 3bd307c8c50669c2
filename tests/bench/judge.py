"""Benchmark: the judge's recognizers and the noise bands of the leaderboard's measures.

Part 1, PocketSphinx against Whisper tiny.en (the WER recognizers), side by side in one run on:
(a) the target speaker's own recordings (``../shared/corpus/target-voice``, the first ``--lines`` clips),
(b) joe's renders of the same lines (noise 0), (c) the same renders damaged (white noise at 10 dB SNR).
Each recognizer runs in its own worker process (loading included in neither time); the table gives the mean WER
(text normalized alike: ``trainer.evaluate.wer_text``), seconds per line and the worker's peak RSS.

Part 2, noise bands: joe speaks ``--band-lines`` lines of the corpus under ``--seeds`` noise seeds (its default
noise settings), scored by the leaderboard against the speaker's recordings; a measure's band is half the spread of
its per-seed means (``trainer.evaluate.bands.measured``): what ``DEFAULT_BANDS`` holds.

Usage: ``.venv/bin/python tests/bench/judge.py [--lines 20] [--band-lines 5] [--seeds 4]``
"""

from __future__ import annotations

import argparse
import csv
import multiprocessing
import os
import platform
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "target-voice"
BAND_MEASURES = ("wer", "mcd_db", "f0_rmse_hz", "f0_gap_hz", "similarity", "dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak")


def corpus_lines(count: int) -> list[tuple[str, Path]]:
    """(text, recording) of the corpus's first ``count`` clips."""
    with open(CORPUS / "metadata.csv", encoding="utf-8") as handle:
        rows = list(csv.reader(handle, delimiter="|"))[:count]
    return [(text, CORPUS / "wavs" / f"{clip}.flac") for clip, text in rows]


def sets(lines: list[tuple[str, Path]]) -> dict[str, list[tuple[str, np.ndarray, int]]]:
    """The three sets of (text, float32 audio [N], rate Hz): recordings, joe's renders, damaged renders."""
    import soundfile

    from engines.base import SynthesisOptions
    from engines.registry import create_engine, default_voice

    joe = default_voice()
    engine = create_engine("onnx", joe)
    recorded, rendered, damaged = [], [], []
    rng = np.random.default_rng(0)
    for text, path in lines:
        audio, rate = soundfile.read(path, dtype="float32")
        recorded.append((text, audio, rate))
        chunks = engine.synthesize(text, SynthesisOptions(noise_scale=0.0, noise_w=0.0))
        spoken = np.concatenate([c.audio for c in chunks]).astype(np.float32)
        rendered.append((text, spoken, joe.sample_rate))
        noise = rng.normal(0.0, np.sqrt(np.mean(spoken**2) / 10), spoken.size).astype(np.float32)
        damaged.append((text, spoken + noise, joe.sample_rate))
    return {"target speaker's recordings": recorded, "joe's renders": rendered, "joe's renders, 10 dB SNR": damaged}


def _recognize(name: str, clips, queue) -> None:
    """Worker: WER and seconds per line of each set by recognizer ``name``, and the process's peak RSS (MiB)."""
    from trainer.dataset import recognizers
    from trainer.evaluate import measures

    recognizer = recognizers.create(name)
    results = {}
    for title, items in clips.items():
        started = time.perf_counter()
        wers = [measures.word_error_rate(audio, rate, text, recognizer) for text, audio, rate in items]
        results[title] = (float(np.mean(wers)), (time.perf_counter() - started) / len(items))
    queue.put((results, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024))


def recognizer_table(clips) -> list[str]:
    """Markdown rows: per set, each recognizer's WER and s/line, and the ratio Whisper / PocketSphinx."""
    context = multiprocessing.get_context("fork")
    found = {}
    for name in ("pocketsphinx", "whisper"):
        queue = context.Queue()
        worker = context.Process(target=_recognize, args=(name, clips, queue))
        worker.start()
        found[name] = queue.get()
        worker.join()
    rows = ["| set | PocketSphinx WER | Whisper tiny.en WER | PocketSphinx s/line | Whisper s/line | time ratio |"]
    rows.append("|---|---|---|---|---|---|")
    for title in clips:
        (ps_wer, ps_s), (wh_wer, wh_s) = found["pocketsphinx"][0][title], found["whisper"][0][title]
        rows.append(f"| {title} | {ps_wer:.3f} | {wh_wer:.3f} | {ps_s:.2f} | {wh_s:.2f} | {wh_s / ps_s:.2f}x |")
    rss = ", ".join(f"{n} {found[n][1]:.0f} MiB" for n in found)
    return [*rows, "", f"Peak RSS of each worker (the voice, the renders and the recognizer): {rss}."]


def band_table(count: int, seeds: int) -> list[str]:
    """Markdown rows: each measure's per-seed means and its band (half their spread)."""
    from engines.registry import default_voice
    from trainer.evaluate.bands import measured
    from trainer.evaluate.leaderboard import score
    from trainer.evaluate.lines import Line
    from trainer.evaluate.render import Candidate, RenderSettings

    lines = [Line(name=f"line {i}", text=t, reference=p) for i, (t, p) in enumerate(corpus_lines(count))]
    joe = Candidate(label="joe", model_path=default_voice().model_path)
    spreads: dict[str, list[float]] = {name: [] for name in BAND_MEASURES}
    with tempfile.TemporaryDirectory() as cache:
        for seed in range(seeds):
            (row,) = score([joe], lines, RenderSettings(seed=seed), Path(cache))
            for name in BAND_MEASURES:
                spreads[name].append(getattr(row, name))
    bands = measured(spreads, f"joe, {count} lines, {seeds} seeds")
    rows = ["| measure | per-seed means | band (half the spread) |", "|---|---|---|"]
    for name in BAND_MEASURES:
        means = ", ".join(f"{v:.3f}" for v in spreads[name])
        rows.append(f"| {name} | {means} | {bands.of(name):.3f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=20, help="lines per set for the recognizers (default 20)")
    parser.add_argument("--band-lines", type=int, default=5, help="lines for the noise bands (default 5)")
    parser.add_argument("--seeds", type=int, default=4, help="noise seeds for the bands (default 4)")
    args = parser.parse_args()
    if not CORPUS.is_dir():
        sys.exit(f"the target-voice corpus is not at {CORPUS}")
    machine = platform.processor() or platform.machine()
    print(f"Machine: {machine}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    print("\n".join(["", *recognizer_table(sets(corpus_lines(args.lines)))]))
    print("\n".join(["", *band_table(args.band_lines, args.seeds)]))


if __name__ == "__main__":
    main()
