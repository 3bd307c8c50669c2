"""Training-step options, one at a time (not a test): thread waiting, bf16 autocast, padding, shapes.

Each variant trains ``--steps`` steps (after one warm-up step) on one fixed batch of the first
``--batch-size`` target-voice clips, in a fresh process (thread settings only apply before torch is
imported), through ``trainer.gan.system.VitsSystem`` and ``lightning.Trainer``; the variants alternate
(A B C A B C ...) over ``--rounds`` rounds and each prints its median step time and its ratio to the first.

Variants: ``active`` (libgomp's default: spinning waits), ``passive`` (``OMP_WAIT_POLICY=PASSIVE``, what
``voice-studio train`` sets: ``trainer.run.hardware.thread_environment``), ``1thread``, and, with passive
waits: ``bf16`` (bf16-mixed autocast), ``pad30`` (the spectrogram padded 30% past the batch's longest: what
length-bucketed batches would save), ``vary`` (one frame and one phoneme more each step: a new shape per
step, what padded lengths would save), ``varyplain`` (``vary`` with PyTorch's own CPU convolutions in place of
oneDNN's: ``torch.backends.mkldnn.enabled = False``), ``four`` (the step as Piper writes it: four discriminator forwards
where ours runs two) and ``bf16four`` (that with bf16 autocast).

Usage: ``.venv/bin/python tests/bench/train_step.py [--variants active,passive,bf16] [--quality medium]
[--batch-size 8] [--steps 3] [--rounds 2] [--device cpu] [--discriminator-width 0.0625] [--work DIR]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))
sys.path.insert(0, str(ROOT / "tests"))  # four_forwards
VARIANTS = {
    "active": {"env": {}, "precision": "32-true", "pad": 1.0},
    "passive": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "32-true", "pad": 1.0},
    "1thread": {"env": {"OMP_NUM_THREADS": "1"}, "precision": "32-true", "pad": 1.0},
    "bf16": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "bf16-mixed", "pad": 1.0},
    "pad30": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "32-true", "pad": 1.3},
    "vary": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "32-true", "pad": 0.0},
    "varyplain": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "32-true", "pad": 0.0, "mkldnn": False},
    "four": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "32-true", "pad": 1.0, "system": "four"},
    "bf16four": {"env": {"OMP_WAIT_POLICY": "PASSIVE"}, "precision": "bf16-mixed", "pad": 1.0, "system": "four"},
}
"""Per variant: its environment (over the parent's, OMP_* removed), Lightning precision, the spectrogram
padding factor (0: one frame and one phoneme more each step), and the step (``four``: the reference's four
discriminator forwards, ``tests/four_forwards.py``; by default ours)."""


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--variants", default="active,passive,1thread,bf16,pad30,vary")
    parser.add_argument("--quality", default="medium", choices=("x-low", "low", "medium", "high", "test"))
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--discriminator-width", type=float, help="the quality's, unless given (test: 1/16)")
    parser.add_argument("--work", type=Path, help="keep the clips and the cache here (reused)")
    parser.add_argument("--variant", help=argparse.SUPPRESS)  # a child process: one variant
    return parser.parse_args(argv)


def batches(cache: Path, args, pad: float):
    """``steps + 1`` batches of the same clips: padded by ``pad``, or (``pad`` 0) one frame longer each."""
    import torch.nn.functional as F

    from trainer.data.datamodule import CacheDataModule, collate
    from trainer.run.presets import preset

    data = CacheDataModule(cache, args.batch_size, preset(args.quality).segment_frames)
    data.setup()
    batch = collate([data.train_set[i] for i in range(args.batch_size)])
    frames = batch.spec.shape[2]
    if pad:
        return [replace(batch, spec=F.pad(batch.spec, (0, int(frames * pad) - frames)))] * (args.steps + 1)
    grown = [(F.pad(batch.spec, (0, k)), F.pad(batch.phoneme_ids, (0, k))) for k in range(args.steps + 1)]
    return [replace(batch, spec=spec, phoneme_ids=ids) for spec, ids in grown]


def step_times(cache: Path, args) -> list[float]:
    """Seconds per training step of this process's variant (the warm-up step left out)."""
    import torch
    from four_forwards import FourForwards

    from engines.voice import load_config
    from trainer.data.preprocess import PreprocessedCache
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    variant = VARIANTS[args.variant]
    torch.backends.mkldnn.enabled = variant.get("mkldnn", True)
    symbols = load_config(Path(PreprocessedCache(cache).voice_config)).num_symbols
    system_class = FourForwards if variant.get("system") == "four" else VitsSystem
    width = {"discriminator_width": args.discriminator_width} if args.discriminator_width else {}
    system = system_class(preset(args.quality, symbols, **width).to_dict())
    seconds = fit_steps(system, batches(cache, args, variant["pad"]), args.device, variant["precision"])
    return seconds[1:]


def fit_steps(system, batches: list, device: str = "cpu", precision: str = "32-true") -> list[float]:
    """Train ``system`` one epoch over ``batches`` (collated ``Batch``es, in order); the wall seconds of each step."""
    import lightning as L
    from torch.utils.data import DataLoader

    clock = step_clock()
    trainer = L.Trainer(
        max_epochs=1,
        accelerator="gpu" if device == "cuda" else "cpu",
        precision=precision,
        limit_val_batches=0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[clock],
    )
    trainer.fit(system, train_dataloaders=DataLoader(batches, batch_size=None, collate_fn=_same))  # type: ignore[arg-type]
    return clock.seconds


def _same(batch):
    return batch


def step_clock():
    """A Lightning callback that keeps the wall seconds of each training batch in ``seconds``."""
    import lightning as L

    class StepClock(L.Callback):
        def __init__(self) -> None:
            self.seconds: list[float] = []

        def on_train_batch_start(self, trainer, module, batch, batch_idx) -> None:
            self._start = time.perf_counter()

        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
            _sync(module.device)
            self.seconds.append(time.perf_counter() - self._start)

    return StepClock()


def _sync(device) -> None:
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


def child(args, cache: Path, variant: str) -> float:
    """The median step of ``variant`` in a fresh process."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMP_", "GOMP_"))}
    env.update(VARIANTS[variant]["env"])
    command = [sys.executable, __file__, "--variant", variant, "--work", str(args.work)]
    command += ["--quality", args.quality, "--batch-size", str(args.batch_size), "--steps", str(args.steps)]
    command += ["--device", args.device]
    command += ["--discriminator-width", str(args.discriminator_width)] if args.discriminator_width else []
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    lines = [line for line in done.stdout.splitlines() if line.startswith("median ")]
    if done.returncode or not lines:
        raise SystemExit(f"{variant} failed:\n{done.stderr[-3000:]}")
    return float(lines[-1].split()[1])


def main(argv=None) -> None:
    args = arguments(argv)
    args.work = (args.work or Path(tempfile.mkdtemp(prefix="train-step-"))).resolve()
    cache = args.work / "ours-cache"
    if args.variant:
        print(f"median {statistics.median(step_times(cache, args)):.3f}")
        return
    if not cache.exists():
        import train_speed

        train_speed._slice(args.work / "data", 2 * args.batch_size)  # a few go to validation
        train_speed._our_cache(args.work)
    names = args.variants.split(",")
    seconds: dict[str, list[float]] = {name: [] for name in names}
    for index in range(args.rounds):
        for name in names:
            seconds[name].append(child(args, cache, name))
            load = os.getloadavg()[0]
            print(f"round {index + 1} {name}: {seconds[name][-1]:.2f} s/step (load {load:.1f})", flush=True)
    first = statistics.median(seconds[names[0]])
    for name in names:
        median = statistics.median(seconds[name])
        print(f"{name}: median {median:.2f} s/step, {median / first:.2f}x {names[0]}")


if __name__ == "__main__":
    main()
