"""Length-bucketed against shuffled training batches (not a test): padding, and training time per epoch.

Padding is counted on the lengths of all 240 target-voice clips (spec frames, hop 256) and on the cached
slice; the time is that of whole epochs over the slice (``--clips`` utterances, batches of ``--batch-size``)
trained through ``trainer.gan.system.VitsSystem`` and ``lightning.Trainer``, the two batchings alternating
(shuffled, bucketed, shuffled, ...) over ``--rounds`` rounds in one process after one warm-up epoch.
Both epochs hold the same utterances; only how they are grouped differs.

Usage: ``.venv/bin/python tests/bench/bucketing.py [--quality x-low] [--clips 32] [--batch-size 8]
[--rounds 2] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quality", default="x-low", choices=("x-low", "low", "medium", "high", "test"))
    parser.add_argument("--clips", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, help="keep the clips and the cache here (reused)")
    return parser.parse_args(argv)


def shuffled(count: int, batch_size: int, seed: int) -> list[list[int]]:
    """What ``DataLoader(shuffle=True)`` gives: a random order cut into batches."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    return [order[i : i + batch_size] for i in range(0, count, batch_size)]


def bucketed(lengths: list[int], batch_size: int, seed: int) -> list[list[int]]:
    from trainer.data.batching import BucketBatchSampler

    sampler = BucketBatchSampler(lengths, batch_size, seed=0)
    sampler.set_epoch(seed)
    return list(sampler)


def corpus_padding(batch_size: int) -> tuple[float, float]:
    """Padding fraction of shuffled and bucketed batches over the whole target voice (mean of 5 epochs)."""
    import soundfile

    from trainer.data.batching import padding_fraction

    wavs = ROOT.parent / "shared" / "corpus" / "target-voice" / "wavs"
    lengths = [soundfile.info(str(p)).frames // 256 for p in sorted(wavs.glob("*.flac"))]
    plain = [padding_fraction(shuffled(len(lengths), batch_size, e), lengths) for e in range(5)]
    sorted_ = [padding_fraction(bucketed(lengths, batch_size, e), lengths) for e in range(5)]
    return statistics.mean(plain), statistics.mean(sorted_)


def epoch_seconds(system, batches) -> float:
    """Wall seconds of the training steps of one epoch over ``batches`` (collated)."""
    from train_step import fit_steps

    return sum(fit_steps(system, batches))


def main(argv=None) -> None:
    args = arguments(argv)
    plain, sorted_ = corpus_padding(args.batch_size)
    print(
        f"target voice (240 clips), batches of {args.batch_size}: padding {plain:.1%} shuffled, {sorted_:.1%} bucketed"
    )
    work = (args.work or Path(tempfile.mkdtemp(prefix="bucketing-"))).resolve()
    if not (work / "ours-cache").exists():
        import train_speed

        train_speed._slice(work / "data", args.clips + 2)  # two go to validation
        train_speed._our_cache(work)
    timings(work / "ours-cache", args)


def timings(cache: Path, args) -> None:
    """Alternate a shuffled and a bucketed epoch over the cached slice; print each and the medians."""
    from engines.voice import load_config
    from trainer.data.batching import padding_fraction
    from trainer.data.datamodule import CacheDataModule, collate
    from trainer.data.preprocess import PreprocessedCache
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    data = CacheDataModule(cache, args.batch_size, preset(args.quality).segment_frames, max_val=2)
    data.setup()
    lengths = data.train_set.lengths()
    symbols = load_config(Path(PreprocessedCache(cache).voice_config)).num_symbols
    system = VitsSystem(preset(args.quality, symbols).to_dict())
    plans = {
        "shuffled": lambda e: shuffled(len(lengths), args.batch_size, e),
        "bucketed": lambda e: bucketed(lengths, args.batch_size, e),
    }

    def epoch(batches) -> float:
        return epoch_seconds(system, [collate([data.train_set[i] for i in b]) for b in batches])

    epoch(plans["shuffled"](99))  # warm-up
    seconds: dict[str, list[float]] = {name: [] for name in plans}
    padding: dict[str, list[float]] = {name: [] for name in plans}
    for number in range(args.rounds):
        for name, plan in plans.items():
            padding[name].append(padding_fraction(plan(number), lengths))
            seconds[name].append(epoch(plan(number)))
            print(f"round {number + 1} {name}: {seconds[name][-1]:.1f} s of training steps", flush=True)
    first = statistics.median(seconds["shuffled"])
    for name in plans:
        median = statistics.median(seconds[name])
        ratio = f"{median / first:.2f}x shuffled"
        print(f"{name}: padding {statistics.mean(padding[name]):.1%}, median epoch {median:.1f} s, {ratio}")


if __name__ == "__main__":
    main()
