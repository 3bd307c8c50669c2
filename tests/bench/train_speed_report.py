"""The report of ``train_speed.py``: the machine, per-side medians and peaks, and the table of ratios."""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

SIDES = {
    "stock": "stock",
    "stock-passive": "stock (passive)",
    "ours-fp32": "ours (float32)",
    "ours-eager": "ours (no compile)",
    "ours": "ours",
}
"""Each side's column title. ``stock-passive`` is stock run with ``OMP_WAIT_POLICY=PASSIVE`` (what
``voice-studio train`` sets, ``trainer.run.hardware.thread_environment``): the code's speed apart from that.
``ours-fp32`` is ours with ``--precision 32-true``, where ``auto`` chose bf16 (a CPU with AVX512-BF16
or AMX, or CUDA). ``ours-eager`` is ours with ``--compile off`` (on CUDA ``auto`` compiles the decoder,
discriminators and losses: minutes of compiling in the first epoch on a machine with no compile cache)."""
PARTS = (("train_s", "train"), ("val_s", "validation"), ("preview_s", "previews"), ("checkpoint_s", "checkpoints"))


def machine() -> dict:
    """CPU model, cores, native bf16, torch version and the CUDA device."""
    import platform

    import torch

    cpuinfo = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    model = next((line.split(":", 1)[1].strip() for line in cpuinfo.splitlines() if "model name" in line), "")
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo.splitlines() if line.startswith("flags")), [])
    cuda = torch.cuda.get_device_name() if torch.cuda.is_available() else None
    return {
        "cpu": model or platform.processor(),
        "cores": os.cpu_count(),
        "cpu_bf16": [f for f in ("avx512_bf16", "amx_bf16") if f in flags],
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "cuda": cuda,
        "date": time.strftime("%Y-%m-%d"),
    }


def summary(runs: list[dict]) -> dict:
    """Medians over every epoch of every round (seconds, parts, it/s), peaks over rounds, the median last val_mel."""
    epochs = [e for run in runs for e in run["epochs"]]
    row = {key: statistics.median(e[key] for e in epochs) for key in ("seconds", *(k for k, _ in PARTS))}
    row["no_preview_s"] = statistics.median(e["seconds"] - e["preview_s"] for e in epochs)
    row["it_s"] = statistics.median(e["batches"] / e["train_s"] for e in epochs if e["train_s"] > 0)
    row["rss_gib"] = max(r["rss_gib"] for r in runs)
    row["worker_rss_gib"] = max(r["worker_rss_gib"] for r in runs)
    vram = [r["vram_gib"] for r in runs if r["vram_gib"] is not None]
    row["vram_gib"] = max(vram) if vram else None
    last = [r["epochs"][-1]["val_mel"] for r in runs if r["epochs"] and r["epochs"][-1]["val_mel"] is not None]
    row["val_mel"] = statistics.median(last) if last else None
    return row


ROWS = (
    ("seconds", "s/epoch (median)", "{:.1f}"),
    ("no_preview_s", "s/epoch without previews", "{:.1f}"),
    *((key, f"  {name} s", "{:.1f}") for key, name in PARTS),  # stock makes no previews
    ("it_s", "it/s (training batches)", "{:.3f}"),
    ("rss_gib", "peak RSS, main (GiB)", "{:.2f}"),
    ("worker_rss_gib", "peak RSS, data worker (GiB)", "{:.2f}"),
    ("vram_gib", "peak VRAM (GiB)", "{:.2f}"),
    ("val_mel", "val_mel after the last epoch", "{:.3f}"),
)


def table(summaries: dict[str, dict]) -> str:
    """The Markdown table: one column per side, then ours / each other side per measure."""
    others = [side for side in summaries if side != "ours"]
    head = [SIDES[side] for side in summaries] + [f"ours / {SIDES[side]}" for side in others]
    lines = ["| measure | " + " | ".join(head) + " |", "| --- |" + " ---: |" * len(head)]
    for key, name, form in ROWS:
        values = {side: row.get(key) for side, row in summaries.items()}
        if all(v is None for v in values.values()):
            continue
        ours = values["ours"]
        ratios = [f"{ours / values[s]:.2f}x" if values[s] and ours else "—" for s in others]
        lines.append(f"| {name} | " + " | ".join([*(_cell(v, form) for v in values.values()), *ratios]) + " |")
    return "\n".join(lines)


def _cell(value, form: str) -> str:
    return "—" if value is None else form.format(value)


def report(args, info: dict, prepared: dict, runs: dict) -> dict:
    """Print the machine, the setting, how each side ran, the notes and the table; returns everything."""
    summaries = {side: summary(side_runs) for side, side_runs in runs.items()}
    device = f"CUDA {info['cuda']}" if info["cuda"] and args.device == "cuda" else "CPU"
    bf16 = ", ".join(info["cpu_bf16"]) or "none"
    print(f"\nmachine: {info['cpu']}, {info['cores']} cores (native bf16: {bf16}), torch {info['torch']}, {device}")
    train, val = prepared["train"], prepared["val"]
    print(
        f"setting: {prepared['clips']} clips ({train} train, {val} val), {args.quality}, batch {args.batch_size}, ",
        end="",
    )
    print(f"{args.epochs} epochs x {args.rounds} rounds ({', '.join(runs)} alternated), {info['date']}")
    for side, side_runs in runs.items():
        print(f"{side}: {_how(side, side_runs[0])}")
    for note in dict.fromkeys(n for side_runs in runs.values() for run in side_runs for n in run["notes"]):
        print(note)
    print("stock callbacks: its val_mel ModelCheckpoint only (its val_mos one raises with the MOS predictor off)")
    stock_s, ours_s = prepared["stock_preprocess_s"], prepared["ours_preprocess_s"]
    print(
        f"preprocessing (once): stock {stock_s:.0f} s, ours {ours_s:.0f} s (import + cache); spectrogram frames: ",
        end="",
    )
    print(f"stock {prepared['stock_frames']} (silence trimmed by its VAD, its default), ours {prepared['ours_frames']}")
    loads = [f"{side} {run['load'][0]:.1f}" for side, side_runs in runs.items() for run in side_runs]
    print(f"1-min load average at each run's start: {', '.join(loads)}\n")
    print(table(summaries))
    return {"machine": info, "setting": vars(args), "prepared": prepared, "runs": runs, "summaries": summaries}


def _how(side: str, run: dict) -> str:
    """A side's precision, data workers and OpenMP wait policy."""
    policy = os.environ.get("OMP_WAIT_POLICY")
    ours = side.startswith("ours")
    if side == "stock-passive" or (ours and policy is None):
        policy = "PASSIVE" + (" (set by voice-studio train)" if ours else "")
    return f"precision {run['precision']}, {run['workers']} data workers, OMP_WAIT_POLICY {policy or 'unset'}"
