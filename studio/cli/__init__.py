"""The ``voice-studio`` command: the app without arguments, the CLI with a subcommand.

    voice-studio                       # the studio window
    voice-studio say "Hello." -o hello.wav [--voice V] [--length-scale 1.2] ...
    voice-studio say "Hello."          # plays as it streams
    voice-studio say --engine remote --url http://host:5050 --model M --voice V "Hello."
    voice-studio serve [--host H --port P --api-key KEY --voice V ...]
    voice-studio voices [--json]
    voice-studio --version
    voice-studio compare CANDIDATE... (--lines FILE | --dataset PROJECT_OR_RUN | --text "...") [--csv out.csv]

One module per subcommand (``say``, ``export``, ``dataset``, ``train``, ``serve``,
``voices``, ``compare``), each with ``add_parser(subparsers)`` and ``run(args) -> int``; the
choices they offer come from the modules that own them. Errors raised on purpose
(``engines.errors.VoiceStudioError``), ``ValueError`` and ``OSError`` become one
line on stderr and exit code 2, here for every command. Nothing here imports Qt
unless the window is asked for, nor torch or onnxruntime to build the parser.
"""

from __future__ import annotations

import argparse
import sys

from engines.errors import VoiceStudioError
from studio.cli import compare, dataset, export, say, serve, train, voices

COMMANDS = {
    "say": say,
    "export": export,
    "dataset": dataset,
    "train": train,
    "serve": serve,
    "voices": voices,
    "compare": compare,
}
"""Subcommand -> its module, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    """The ``voice-studio`` parser with every subcommand's arguments."""
    from studio.version import version

    parser = argparse.ArgumentParser(prog="voice-studio", description="Make and use Piper voices.")
    parser.add_argument("--version", action="version", version=f"voice-studio {version()}")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("gui", help="open the studio window (the default)")
    for module in COMMANDS.values():
        module.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``voice-studio`` command; returns the exit status (2: an error, told in one line).

    Called as the program (``argv`` None: the console script, ``python -m studio``), ``dataset`` and ``train`` run
    small dataset job lists in their own process (``trainer.dataset.workers.run_here``); called with ``argv`` from
    another program (a test) it leaves that process's rule alone.
    """
    args = build_parser().parse_args(argv)
    if args.command in (None, "gui"):
        from studio.app import main as gui_main

        return gui_main()
    if argv is None and args.command in ("dataset", "train"):
        from trainer.dataset.workers import run_here

        run_here()
    try:
        return COMMANDS[args.command].run(args)
    except BrokenPipeError as exc:  # the reader of our output went away (`... | head`)
        _detach_stdout()
        ours = exc.errno is None  # raised with our own message (engines.audio_out)
        print(f"voice-studio: error: {exc if ours else 'standard output: the reader closed it'}", file=sys.stderr)
        return 2
    except (VoiceStudioError, ValueError, OSError) as exc:
        print(f"voice-studio: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _detach_stdout() -> None:
    """Point standard output at the null device, so the interpreter's last flush into a closed pipe is silent."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
