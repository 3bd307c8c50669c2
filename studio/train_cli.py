"""``voice-studio train``: start or resume a training run (no Qt; the Train page runs this as a subprocess)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_train_parser(sub) -> None:
    """Add ``train`` to the CLI's subparsers."""
    train = sub.add_parser("train", help="fine-tune or train a Piper voice (events in RUN/events.jsonl)")
    train.add_argument("--dataset", type=Path, help="a training cache, a dataset project, or metadata.csv + wavs/")
    train.add_argument(
        "--from",
        dest="start",
        default="scratch",
        help="start point: scratch, joe (the embedded voice), a Piper VOICE.onnx, or a Piper .ckpt",
    )
    train.add_argument("--preset", default="medium", help="test, x-low, low, medium or high")
    train.add_argument(
        "--epochs", type=int, help="epochs to train (default: the preset's); with --resume: train on to N"
    )
    train.add_argument("--batch-size", type=int, help="utterances per step (default: from free memory)")
    train.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    train.add_argument("--workers", type=int, default=0, help="data-loading worker processes")
    train.add_argument("--devices", type=int, default=1, help="DDP processes: GPUs, or CPU processes (gloo)")
    train.add_argument(
        "--precision",
        default="auto",
        choices=("auto", "32-true", "bf16-mixed", "16-mixed"),
        help="auto: bf16 autocast on CUDA (fp16 where bf16 is missing), float32 on the CPU",
    )
    train.add_argument("--out", type=Path, help="the run folder to create")
    train.add_argument("--resume", type=Path, metavar="RUN_DIR", help="continue a run exactly where it stopped")


def cmd_train(args: argparse.Namespace) -> int:
    """Create and fit a run, or resume one; prints the best checkpoint's path."""
    from trainer.run import RunOptions, create_run, extend_run, fit

    if args.resume:
        if args.epochs:
            extend_run(args.resume, args.epochs)
        _stop_gently_on_ctrl_c(args.resume)
        best = fit(args.resume, resume=True)
    else:
        if not args.dataset or not args.out:
            raise ValueError("train needs --dataset and --out (or --resume RUN_DIR)")
        options = RunOptions(
            args.dataset,
            args.out,
            args.start,
            args.preset,
            args.epochs,
            args.batch_size,
            args.device,
            args.workers,
            args.devices,
            args.precision,
        )
        run = create_run(options)
        _stop_gently_on_ctrl_c(run)
        best = fit(run)
    print(best)
    print(f"export it with: voice-studio export {best} -o NAME.onnx", file=sys.stderr)
    return 0


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
