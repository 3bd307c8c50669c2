"""``voice-studio train``: start or resume a training run (no Qt; the Train page runs this as a subprocess)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engines.extras import explain
from trainer.options import add_arguments


def add_parser(sub) -> None:
    """Add ``train`` to the CLI's subparsers: a flag per ``trainer.options.RunOptions`` field, and ``--resume``."""
    train = sub.add_parser(
        "train",
        help="fine-tune or train a Piper voice (events in RUN/events.jsonl)",
        description=explain("train", "Training") or None,  # an ONNX-only install: said before the options
    )
    add_arguments(train)
    train.add_argument(
        "--resume",
        type=Path,
        metavar="RUN_DIR",
        help="continue a run exactly where it stopped, with its own settings (only --epochs, --device, "
        "--workers, --compile, --eval-every and --eval-lines may change; other options are refused)",
    )


def run(args: argparse.Namespace) -> int:
    """Create and fit a run, or resume one; prints the best checkpoint's path.

    Raises:
        RunError: a new run without --dataset/--out, or a resume given options it cannot apply.
        ExtraMissing: torch, lightning or numba is not installed (an ONNX-only install), with how to add them.
    """
    from engines.extras import require
    from trainer.hardware import thread_environment

    require("train", "Training")
    from trainer.options import RunOptions, device_environment, given

    os.environ.update(thread_environment())  # before torch is imported: how its CPU threads wait
    if args.device and args.device.startswith("cuda:"):  # as the Train page does: GPU N becomes the only one
        os.environ.update(device_environment(args.device))  # before torch is imported
        print(
            f"training on GPU {args.device[5:]} only (CUDA_VISIBLE_DEVICES); the run records --device cuda",
            file=sys.stderr,
        )
        args.device = "cuda"
    from trainer.ranks import rank_zero
    from trainer.resume import REFUSED, resume_plan
    from trainer.run import create_run, fit
    from trainer.run_file import write_run

    if args.resume:
        refused = {key: value for key, value in given(args).items() if key in REFUSED}
        changes = {k: getattr(args, k) for k in ("epochs", "device", "workers", "compile", "eval_every", "eval_lines")}
        document, applied = resume_plan(args.resume, refused, **changes)
        if applied and rank_zero():  # the other ranks of a DDP resume train from the same plan, unwritten
            write_run(document)
        for message in applied if rank_zero() else []:
            print(message, file=sys.stderr)
        _stop_gently_on_ctrl_c(args.resume)
        best = fit(args.resume, resume=True, document=document)
    else:
        run = create_run(RunOptions.from_args(args))
        _stop_gently_on_ctrl_c(run)
        best = fit(run)
    if rank_zero():  # the others of a DDP run do not keep the ranking of the best checkpoints
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
