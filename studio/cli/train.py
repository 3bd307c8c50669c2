"""``voice-studio train``: start or resume a training run (no Qt; the Train page runs this as a subprocess)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from engines.extras import explain
from engines.shell_command import shell_command
from trainer.run.options import add_arguments


def add_parser(sub) -> None:
    """Add ``train`` to the CLI's subparsers: a flag per ``trainer.run.options.RunOptions`` field, and ``--resume``."""
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
    train.add_argument(
        "--from-best",
        type=Path,
        metavar="RUN_DIR",
        help="go on from RUN_DIR's best intact checkpoint in a new run beside it (RUN_DIR-from-epoch-N, or --out), "
        "with the run's dataset and settings (other options given change them): the way on when its last.ckpt is "
        "damaged. Trains the epochs the run had left after that checkpoint, or --epochs",
    )
    train.add_argument(
        "--check",
        action="store_true",
        help="check the run the other options describe, as the Train page's Check does, and say how long its "
        "epochs will take here (timing a training step when no earlier run or timing knows); trains nothing",
    )
    train.add_argument(
        "--preview-now",
        type=Path,
        metavar="RUN_DIR",
        help="ask the trainer of the run in RUN_DIR (training now, e.g. in another terminal) to speak its preview "
        "lines after its current training step, then return (they land in RUN_DIR/previews/)",
    )


def run(args: argparse.Namespace) -> int:
    """Create and fit a run, or resume one; prints the best checkpoint's path.

    Raises:
        RunError: a new run without --dataset/--out, or a resume given options it cannot apply.
        ExtraMissing: torch, lightning or numba is not installed (an ONNX-only install), with how to add them.
    """
    from engines.extras import require
    from trainer.run.hardware import thread_environment

    if args.preview_now:
        return _ask_for_previews(args)
    require("train", "Training")
    from trainer.run.options import RunOptions, device_environment, given

    os.environ.update(thread_environment())  # before torch is imported: how its CPU threads wait
    if args.device and args.device.startswith("cuda:"):  # as the Train page does: GPU N becomes the only one
        os.environ.update(device_environment(args.device))  # before torch is imported
        print(
            f"training on GPU {args.device[5:]} only (CUDA_VISIBLE_DEVICES); the run records --device cuda",
            file=sys.stderr,
        )
        args.device = "cuda"
    from trainer.run.document import read_run, write_run
    from trainer.run.errors import RunError
    from trainer.run.ranks import rank_zero
    from trainer.run.resume import REFUSED, resume_plan
    from trainer.run.train import create_run, fit

    if args.resume and args.from_best:
        raise RunError("--resume continues RUN_DIR itself, --from-best starts a new run from it: give one of them")
    if args.resume:
        if args.settings:
            raise RunError("--set chooses a new run's settings; a resume trains on with its own (training.json)")
        refused = {key: value for key, value in given(args).items() if key in REFUSED}
        changes = {k: getattr(args, k) for k in ("epochs", "device", "workers", "compile", "eval_every", "eval_lines")}
        document, applied = resume_plan(args.resume, refused, **changes)
        if applied and rank_zero():  # the other ranks of a DDP resume train from the same plan, unwritten
            write_run(document)
        for message in applied if rank_zero() else []:
            print(message, file=sys.stderr)
        if args.check:
            raise RunError("--check checks a new run; a resume checks itself as it starts")
        if rank_zero():
            _say_what_comes(document, resumed=True)
        _stop_gently_on_ctrl_c(args.resume)
        run = Path(args.resume)
        best = fit(args.resume, resume=True, document=document)
    elif args.check:
        if args.from_best:
            raise RunError("--check checks a new run from --dataset and --out; --from-best checks itself as it starts")
        return _check(RunOptions.from_args(args))
    else:
        run = create_run(_new_run(args))
        if rank_zero():
            _say_what_comes(read_run(run), resumed=False)
        _stop_gently_on_ctrl_c(run)
        best = fit(run)
    if rank_zero():  # the others of a DDP run do not keep the ranking of the best checkpoints
        print(best)
        _say_the_verdict(run)
        _say_how_to_export(run, best)
    return 0


def _say_how_to_export(run: Path, best) -> None:
    """The command that exports ``run``'s recommended checkpoint, and which is the lowest val_mel (``best``), on
    stderr."""
    command = shell_command("voice-studio", "export", run, "-o", "NAME.onnx")
    print(
        f"export the recommended checkpoint with: {command} (--take val_mel: the lowest val_mel, {best})",
        file=sys.stderr,
    )


def _new_run(args: argparse.Namespace):
    """The options of a new run: the flags given, or with ``--from-best RUN_DIR`` the run's own with those flags
    changed and its best intact checkpoint as the start (``trainer.run.from_best``), said on stderr."""
    from trainer.run.from_best import from_best
    from trainer.run.options import RunOptions, given

    if not args.from_best:
        return RunOptions.from_args(args)
    chosen = from_best(args.from_best, given(args))
    print(chosen.line(), file=sys.stderr)
    return chosen.options


def _say_the_verdict(run: Path) -> None:
    """The verdict over the run's canary evaluations, on stderr, where it has any."""
    from trainer.evaluate.run_measures import run_verdict
    from trainer.events.run_state import load_run

    said = run_verdict(load_run(run))
    if said is not None:
        print(said.sentence, file=sys.stderr)


def _stop_gently_on_ctrl_c(run_dir: Path) -> None:
    """The first Ctrl+C asks the trainer to stop after this epoch (writing the resume checkpoint); a second
    one stops at once."""
    import signal

    from trainer.events.run_state import request_stop

    def first(signum, frame) -> None:
        request_stop(run_dir)
        print("stopping after this epoch (writing the resume checkpoint); Ctrl+C again to stop now", file=sys.stderr)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    signal.signal(signal.SIGINT, first)


def _ask_for_previews(args: argparse.Namespace) -> int:
    """``--preview-now RUN_DIR``: leave the request for the run's trainer
    (``trainer.events.run_state.request_preview``).

    Raises:
        RunError: other options given, not a run folder, or no trainer writing it now.
    """
    from trainer.events.live import trainer_alive
    from trainer.events.run_state import request_preview
    from trainer.run.document import is_run
    from trainer.run.errors import RunError
    from trainer.run.options import given

    folder = args.preview_now
    if given(args) or args.resume or args.check or args.from_best:
        raise RunError("--preview-now RUN_DIR takes no other option")
    if not is_run(folder):
        raise RunError(f"{folder}: not a run folder (no training.json)")
    if not trainer_alive(folder):
        raise RunError(f"{folder}: no trainer is training this run now; previews are asked of a running one")
    request_preview(folder)
    print(f"asked for previews: they come after the trainer's current training step, in {folder / 'previews'}")
    return 0


def _say_what_comes(document, resumed: bool) -> None:
    """Before training: how long the epochs will take here (``trainer.run.step_timing.estimate_run``, from what is
    known without timing a step) and when previews come, with how to ask for one now; on stderr."""
    from dataclasses import replace

    from engines.errors import VoiceStudioError
    from trainer.events.preview_schedule import schedule_words
    from trainer.events.run_state import load_run
    from trainer.run.epoch_time import estimate_basis, estimate_sentence
    from trainer.run.preflight import summarize
    from trainer.run.presets import TrainingConfig
    from trainer.run.step_timing import estimate_run

    options, config = document.options, document.config
    left = config["epochs"] - (load_run(options.out).epochs_done if resumed else 0)
    try:
        clips = summarize(document.cache).clips
        estimate = estimate_run(replace(options, epochs=left), clips, more=resumed) if left > 0 else None
    except (VoiceStudioError, OSError, ValueError):  # only words: training goes on without them
        estimate = None
    if estimate is not None:
        print(f"{estimate_sentence(estimate, flag=True)} {estimate_basis(estimate)}", file=sys.stderr)
    schedule = schedule_words(config["epochs"], TrainingConfig.from_dict(config).preview_every)
    command = shell_command("voice-studio", "train", "--preview-now", options.out)
    print(f"previews {schedule}; for one now: {command}", file=sys.stderr)


def _command_for(finding, dataset) -> str:
    """The command that does what a finding offers (the Train page offers it as a button): for ``resample`` on a
    dataset project, ``" With: voice-studio dataset fix PROJECT --resample --rate N"``; else ``""``."""
    if finding.fix != "resample" or not (Path(dataset) / "manifest.json").is_file():
        return ""
    rate = str(finding.fix_rate)
    return f" With: {shell_command('voice-studio', 'dataset', 'fix', Path(dataset), '--resample', '--rate', rate)}"


def _check(options) -> int:
    """``--check``: the pre-flight findings and the time the epochs will take (a step timed when nothing is
    known), as the Train page's Check says them.

    Raises:
        RunError: a finding that blocks the start (all are printed first).
    """
    from trainer.run.epoch_time import estimate_basis, estimate_sentence
    from trainer.run.errors import RunError
    from trainer.run.preflight import preflight, summarize
    from trainer.run.step_timing import estimate_run

    findings = preflight(options)
    for finding in findings:
        print(f"{finding.level}: {finding.message}{_command_for(finding, options.dataset)}")
    errors = sum(f.blocking for f in findings)
    if errors:
        raise RunError(f"{errors} {'error' if errors == 1 else 'errors'} to fix before training")

    def timing(key) -> None:
        where = "CPU" if key.cpu else key.device
        print(f"timing a training step on this {where} (once: it is remembered)…", file=sys.stderr, flush=True)

    estimate = estimate_run(options, summarize(options.dataset).clips, time_now=True, timing=timing)
    print(f"{estimate_sentence(estimate, flag=True)} {estimate_basis(estimate)}" if estimate else "no time estimate")
    return 0
