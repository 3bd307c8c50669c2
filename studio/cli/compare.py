"""``voice-studio compare``: the Compare page's leaderboard from the command line (no Qt).

    voice-studio compare RUN_DIR --dataset RUN_DIR --csv board.csv
    voice-studio compare joe voice.onnx best.ckpt --lines metadata.csv [--noise-off] [--limit 10]
    voice-studio compare joe other.onnx --text "The first line.
    The second line."

Every line is rendered by every candidate (cached on disk) and measured (cached too); the table is printed
on standard output, then the recommended candidate and why, where the measures disagree, and the noise band of
each measure (``trainer.evaluate.summary``), and where the recommended candidate has ties, one line offering the
Compare page's blind tie-break after the recommendation (``trainer.evaluate.tie_break``); progress on standard error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engines.extras import explain
from studio.cli.arg_types import non_negative_int, positive_float, positive_int

if TYPE_CHECKING:
    from trainer.evaluate.lines import Line
    from trainer.evaluate.render import Candidate, RenderSettings


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``compare`` to the CLI's subparsers."""
    compare = sub.add_parser(
        "compare",
        help="score voices and checkpoints on the same lines (the leaderboard)",
        description=explain("compare", "Comparing voices (the leaderboard's measures)") or None,
    )
    compare.add_argument(
        "candidates",
        nargs="+",
        metavar="CANDIDATE",
        help="a Piper .ckpt, an .onnx voice, a voice name (joe) or a run folder (its ranked checkpoints, last, "
        "export and start voice)",
    )
    lines = compare.add_mutually_exclusive_group(required=True)
    lines.add_argument(
        "--lines",
        type=Path,
        help="a text file, one line each, or an LJSpeech metadata.csv (its wavs/ are the references)",
    )
    lines.add_argument(
        "--dataset",
        type=Path,
        metavar="PROJECT_OR_RUN",
        help="a run folder or dataset project: its held-out clips, with their recordings",
    )
    lines.add_argument("--text", help="lines to speak, one per line of text (no references)")
    compare.add_argument(
        "--strengths",
        type=strengths,
        metavar="S,S,...",
        help="also score each .ckpt named at these strengths (0-1: how much of what the fine-tune changed is "
        "kept, the rest moved back towards its run's start voice; written in the run's strengths/ folder)",
    )
    compare.add_argument("--csv", type=Path, help="also write the leaderboard as CSV")
    noise = compare.add_mutually_exclusive_group()
    noise.add_argument(
        "--seed", type=non_negative_int, default=0, help="noise seed shared by every render (default: 0)"
    )
    noise.add_argument("--noise-off", action="store_true", help="noise_scale = noise_w = 0 (no noise)")
    compare.add_argument("--length-scale", type=positive_float, help="phoneme durations x this (> 1 is slower)")
    compare.add_argument(
        "--limit",
        type=positive_int,
        help="at most this many lines (default: 10 held-out clips, every line of --lines or --text)",
    )
    compare.add_argument(
        "--cache", type=Path, help="render and score cache (default: the user data folder's compare/cache)"
    )


def run(args: argparse.Namespace) -> int:
    """Score the candidates, print the table and what it adds up to, write ``--csv``.

    Raises:
        ValueError: a candidate that is no file, run folder or voice name; a bad ``--csv`` path;
            LinesError: unreadable lines. VoiceError, EngineError, RenderError: a candidate that cannot speak.
        ExtraMissing: the ``compare`` extra (the measures) is not installed, with how to add it.
    """
    import signal

    from engines.extras import require
    from engines.files import check_output_path, write_text
    from engines.onnx.session import use_shared_thread_pool
    from studio.cli.dataset import _task
    from trainer.evaluate.leaderboard import score, table, to_csv
    from trainer.evaluate.summary import summarise
    from trainer.evaluate.tie_break import offer_of
    from trainer.tasks import Cancelled

    require("compare", "Comparing voices (the leaderboard's measures)")
    if args.csv is not None:
        check_output_path(args.csv, (".csv",), "leaderboard file")  # before any work
    lines = _lines(args)
    candidates = listed(args.candidates)  # every candidate named is there before a strength is written
    if args.strengths:
        candidates = listed([*args.candidates, *at_strengths(args.candidates, args.strengths)])
    use_shared_thread_pool()
    previous = signal.getsignal(signal.SIGINT)
    try:  # the first Ctrl+C cancels (_task), the second stops at once
        state = _task("rendering", phased=True)
        rows = score(candidates, lines, _settings(args), args.cache or default_cache(), state, recordings=True)
    except Cancelled as exc:
        print(exc, file=sys.stderr)
        return 130
    finally:
        signal.signal(signal.SIGINT, previous)
    print(table(rows))
    summary, offer = summarise(rows), offer_of(rows)
    print("", *summary.lines()[:1], *([offer.line()] if offer else []), *summary.lines()[1:], sep="\n")
    if args.csv is not None:
        write_text(args.csv, to_csv(rows))
        print(f"wrote {args.csv}", file=sys.stderr)
    return 0


def default_cache() -> Path:
    """``<user data>/compare/cache``: renders and their scores, shared by the Compare page, this command and the
    canary evaluations during training (``trainer.evaluate.render.default_cache_dir``)."""
    from trainer.evaluate.render import default_cache_dir

    return default_cache_dir()


def resolve_candidate(spec: str) -> list[Candidate]:
    """The candidates ``spec`` names: a run folder's (``run_candidates``), a model file (labelled as its run
    labels it where it is one of a run's checkpoints: ``file_candidate``), or a voice by name.

    Raises:
        ValueError: nothing by that name (LinesError and RenderError are ValueErrors too).
        VoiceError: a voice name that no voice has.
    """
    from engines import registry
    from trainer.evaluate.lines import file_candidate, run_candidates
    from trainer.evaluate.render import Candidate

    path = Path(spec)
    if path.is_dir():
        return run_candidates(path, registry.user_voice_dir())
    if path.is_file():
        return [file_candidate(path)]
    if registry.is_voice_name(spec):
        return [Candidate(label=spec, model_path=registry.find_voice(spec).model_path)]
    raise ValueError(f"{spec}: no such candidate (not a .ckpt, an .onnx voice, a run folder or a voice name)")


def strengths(text: str) -> list[float]:
    """``--strengths``: ``0.6,0.8`` -> ``[0.6, 0.8]``, each in [0, 1] (``trainer.checkpoints.strength.parse_strengths``,
    as the Compare page's "At strength…" reads them).

    Raises:
        argparse.ArgumentTypeError: not numbers in [0, 1].
    """
    from trainer.checkpoints.strength import StrengthError, parse_strengths

    try:
        return parse_strengths(text)
    except StrengthError as exc:
        raise argparse.ArgumentTypeError(f"{text!r}: {exc}") from None


def at_strengths(specs: list[str], strengths: list[float]) -> list[str]:
    """The ``.ckpt`` files among ``specs``, each written at each strength (``trainer.checkpoints.strength``): the
    files' paths, for :func:`listed`.

    Raises:
        StrengthError: strengths given but no ``.ckpt`` named, or a checkpoint that cannot be taken to one.
    """
    from trainer.checkpoints.strength import StrengthError, write_at_strength

    if not strengths:
        return []
    checkpoints = [Path(spec) for spec in specs if Path(spec).is_file() and Path(spec).suffix.lower() == ".ckpt"]
    if not checkpoints:
        raise StrengthError("--strengths: name a run's .ckpt to take to them (a run folder or voice is not one)")
    return [str(write_at_strength(path, s)) for path in checkpoints for s in strengths]


def listed(specs: list[str]) -> list[Candidate]:
    """The candidates the ``specs`` name (:func:`resolve_candidate`), labelled by ``trainer.evaluate.labels``' rule
    (as the Compare page labels them): each file once, a run's own prefixed with its folder name while there
    are two or more runs, repeated labels told apart by their folder.

    Raises:
        ValueError, VoiceError: as :func:`resolve_candidate`.
    """
    from trainer.evaluate.labels import labelled
    from trainer.run.document import is_run

    def run_dir(spec: str) -> Path | None:
        path = Path(spec)
        return path if path.is_dir() and is_run(path) else None

    return labelled([(c, run_dir(spec)) for spec in specs for c in resolve_candidate(spec)])


def _lines(args: argparse.Namespace) -> list[Line]:
    from trainer.evaluate.lines import held_out_lines, read_lines_file, typed_lines

    if args.dataset is not None:
        return held_out_lines(args.dataset, args.limit or 10)
    lines = read_lines_file(args.lines) if args.lines is not None else typed_lines(args.text)
    return lines[: args.limit] if args.limit else lines


def _settings(args: argparse.Namespace) -> RenderSettings:
    from trainer.evaluate.render import RenderSettings

    if args.noise_off:
        return RenderSettings.noiseless(length_scale=args.length_scale)
    return RenderSettings(length_scale=args.length_scale, seed=args.seed)
