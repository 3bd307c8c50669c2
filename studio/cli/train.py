"""``voice-studio train``: start or resume a training run (no Qt; the Train page runs this as a subprocess)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_parser(sub) -> None:
    """Add ``train`` to the CLI's subparsers; presets, devices and precisions are ``trainer``'s."""
    from trainer.presets import PRESETS
    from trainer.run import DEVICES, PRECISIONS

    train = sub.add_parser("train", help="fine-tune or train a Piper voice (events in RUN/events.jsonl)")
    train.add_argument("--dataset", type=Path, help="a training cache, a dataset project, or metadata.csv + wavs/")
    train.add_argument(
        "--from",
        dest="start",
        help="start point: scratch (default), joe (the embedded voice), a Piper VOICE.onnx, or a Piper .ckpt",
    )
    train.add_argument("--preset", choices=PRESETS, help="default: medium")
    train.add_argument(
        "--epochs", type=int, help="epochs to train (default: the preset's); with --resume: train on to N"
    )
    train.add_argument("--batch-size", type=int, help="utterances per step (default: from free memory)")
    train.add_argument("--device", choices=DEVICES, help="default: auto; also applies on --resume")
    train.add_argument("--workers", type=int, help="data-loading worker processes (default: 0); applies on --resume")
    train.add_argument("--devices", type=int, help="DDP processes: GPUs, or CPU processes (gloo); default: 1")
    train.add_argument(
        "--precision",
        choices=("auto", *PRECISIONS),
        help="auto (default): bf16 autocast on CUDA (fp16 where bf16 is missing), float32 on the CPU",
    )
    train.add_argument("--out", type=Path, help="the run folder to create")
    train.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue a run exactly where it stopped, with its own settings (only --epochs, --device and "
        "--workers may change; other options are refused)",
    )


DEFAULTS = {"start": "scratch", "preset": "medium", "device": "auto", "workers": 0, "devices": 1, "precision": "auto"}
"""What ``train`` uses for an option not given (the parser keeps ``None``, so a resume sees what was given)."""


def run(args: argparse.Namespace) -> int:
    """Create and fit a run, or resume one; prints the best checkpoint's path.

    Raises:
        RunError: a new run without --dataset/--out, or a resume given options it cannot apply.
    """
    from trainer.resume import resume_settings
    from trainer.run import RunError, RunOptions, create_run, fit

    if args.resume:
        given = {key: getattr(args, key) for key in RESUME_REFUSED if getattr(args, key) is not None}
        applied = resume_settings(args.resume, given, epochs=args.epochs, device=args.device, workers=args.workers)
        for message in applied:
            print(message, file=sys.stderr)
        _stop_gently_on_ctrl_c(args.resume)
        best = fit(args.resume, resume=True)
    else:
        if not args.dataset or not args.out:
            raise RunError("train needs --dataset and --out (or --resume RUN_DIR)")
        chosen = {key: _given(args, key, default) for key, default in DEFAULTS.items()}
        options = RunOptions(args.dataset, args.out, epochs=args.epochs, batch_size=args.batch_size, **chosen)
        run = create_run(options)
        _stop_gently_on_ctrl_c(run)
        best = fit(run)
    print(best)
    print(f"export it with: voice-studio export {best} -o NAME.onnx", file=sys.stderr)
    return 0


RESUME_REFUSED = ("dataset", "out", "start", "preset", "batch_size", "devices", "precision")
"""Options a resume cannot change (``trainer.run.resume_settings`` refuses them unless they equal the run's)."""


def _given(args: argparse.Namespace, key: str, default):
    value = getattr(args, key)
    return default if value is None else value


def _stop_gently_on_ctrl_c(run_dir: Path) -> None:
    """The first Ctrl+C asks the trainer to stop after this epoch (writing the resume checkpoint); a second
    one stops at once."""
    import signal

    from trainer.run_state import request_stop

    def first(signum, frame) -> None:
        request_stop(run_dir)
        print("stopping after this epoch (writing the resume checkpoint); Ctrl+C again to stop now", file=sys.stderr)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    signal.signal(signal.SIGINT, first)
