"""Benchmark: dataset preparation, ours against piper-tts's own preprocessing, side by side in one run.

On ``../shared/corpus/target-voice`` (240 clips, 32 kHz FLAC):

- piper-tts: its training data module's cache build (``VitsDataModule.prepare_data``:
  phonemes, phoneme_ids, audio resampled to 22,050 Hz and trimmed with Silero VAD,
  linear spectrograms), one process, as its trainer runs it;
- ours: import into a dataset project (curated copies; per-clip analysis: loudness,
  Silero VAD speech span, SNR, clipping, phoneme_ids, speaking rate) in worker
  processes, then the trainer's preprocessed cache (phoneme_ids, audio at 22,050 Hz,
  spectrograms).

Both start from nothing (fresh folders, fresh processes) and alternate runs. The
table gives clips per second (median) and the median of paired ratios; it also
checks that both produced the same phoneme_ids for every clip they both kept.

Usage: ``.venv/bin/python tests/bench/dataset.py [--runs 3] [--workers N]``
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

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "target-voice"


def run_piper(work: Path) -> dict:
    """piper-tts's prepare_data on a copy of the csv whose ids name the FLAC files (its loader needs that)."""
    from piper.train.vits.dataset import VitsDataModule

    rows = (CORPUS / "metadata.csv").read_text(encoding="utf-8").splitlines()
    csv = work / "metadata.csv"
    csv.write_text("\n".join(f"{r.split('|', 1)[0]}.flac|{r.split('|', 1)[1]}" for r in rows) + "\n", encoding="utf-8")
    module = VitsDataModule(
        csv_path=csv,
        cache_dir=work / "cache",
        espeak_voice="en-us",
        config_path=work / "config.json",
        voice_name="bench",
        audio_dir=CORPUS / "wavs",
    )
    start = time.perf_counter()
    module.prepare_data()
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "clips": len(rows), "phoneme_ids": _piper_ids(work / "cache", rows)}


def _piper_ids(cache: Path, rows: list[str]) -> dict[str, list[int]]:
    import torch
    from piper.train.vits.utils import get_cache_id

    ids = {}
    for number, row in enumerate(rows, start=1):
        clip_id, text = row.split("|", 1)
        path = cache / f"{get_cache_id(number, text)}.phonemes.pt"
        if path.exists():
            ids[clip_id] = torch.load(path).tolist()
    return ids


def run_ours(work: Path, workers: int | None) -> dict:
    """Import with analysis, then the preprocessed cache."""
    from trainer.data.preprocess import PreprocessedCache, build_cache
    from trainer.dataset.project import DatasetProject

    start = time.perf_counter()
    project = DatasetProject.create(work / "project")
    result = project.import_sources([CORPUS], workers=workers)
    build_cache(project, work / "cache", workers=workers)
    seconds = time.perf_counter() - start
    cache = PreprocessedCache(work / "cache")
    ids = {u.id: cache.phoneme_ids(i).tolist() for i, u in enumerate(cache.utterances)}
    return {"seconds": seconds, "clips": len(result.added), "phoneme_ids": ids}


def measure(which: str, workers: int | None) -> dict:
    """Run one side in a fresh interpreter (nothing warm, as a user's first run)."""
    with tempfile.TemporaryDirectory() as tmp:
        args = [sys.executable, __file__, "--serve", which, "--work", tmp]
        if workers:
            args += ["--workers", str(workers)]
        output = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(output.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workers", type=int, default=None, help="our worker processes (default: one per core)")
    parser.add_argument("--serve", choices=("piper", "ours"), help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        result = run_piper(args.work) if args.serve == "piper" else run_ours(args.work, args.workers)
        print(json.dumps(result))
        return
    if not CORPUS.exists():
        sys.exit(f"corpus not found: {CORPUS}")
    runs = []
    for _ in range(args.runs):
        runs.append({side: measure(side, args.workers) for side in ("piper", "ours")})
    report(runs)


def report(runs: list[dict]) -> None:
    """Print the Markdown table and the phoneme_ids comparison."""
    piper, ours = runs[-1]["piper"], runs[-1]["ours"]
    rate = {side: statistics.median(r[side]["clips"] / r[side]["seconds"] for r in runs) for side in ("piper", "ours")}
    speedup = statistics.median(r["piper"]["seconds"] / r["ours"]["seconds"] for r in runs)
    common = sorted(set(piper["phoneme_ids"]) & set(ours["phoneme_ids"]))
    same = sum(piper["phoneme_ids"][c] == ours["phoneme_ids"][c] for c in common)
    print(f"target-voice corpus ({piper['clips']} clips, 32 kHz FLAC), {os.cpu_count()} cores, {len(runs)} runs")
    print("| pipeline | clips/s | speed-up |")
    print("|---|---:|---:|")
    print(f"| piper-tts prepare_data | {rate['piper']:.1f} | 1.00x |")
    print(f"| ours: import + analysis + cache | {rate['ours']:.1f} | {speedup:.2f}x |")
    print(f"\nphoneme_ids identical for {same} of {len(common)} clips both kept", end="")
    print(f" (piper kept {len(piper['phoneme_ids'])}, ours {len(ours['phoneme_ids'])})")


if __name__ == "__main__":
    main()
