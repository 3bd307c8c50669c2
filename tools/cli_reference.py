"""Write the ``voice-studio`` CLI reference (``docs/cli.md``) from the argparse definitions in ``studio/cli/``.

    python tools/cli_reference.py            # print the Markdown
    python tools/cli_reference.py --write    # write docs/cli.md

The output depends on the parser alone: usage lines are formatted at a fixed width (no terminal size is read),
and the parser is built as on a full install (the notes an ONNX-only install adds to a description are left
out), so the file is the same on every machine. ``tests/test_docs.py`` fails when docs/cli.md is stale.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "docs" / "cli.md"
WIDTH = 100
"""Columns of a usage line; fixed, so the output never depends on the terminal."""
REGENERATE = "python tools/cli_reference.py --write"


def build_parser() -> argparse.ArgumentParser:
    """The ``voice-studio`` parser as a full install builds it (every extra counted as installed)."""
    from studio.cli import build_parser as studio_parser

    with mock.patch("engines.extras.missing", return_value=[]):
        return studio_parser()


def subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[argparse.ArgumentParser, str]]:
    """Every subcommand below ``parser``, depth first in ``--help`` order, with the help its parent gives it."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                yield sub, helps.get(name, "")
                yield from subcommands(sub)


def formatter(parser: argparse.ArgumentParser) -> argparse.HelpFormatter:
    """The parser's own formatter class at the fixed width."""
    return parser.formatter_class(prog=parser.prog, width=WIDTH)


def usage(parser: argparse.ArgumentParser) -> str:
    """The usage lines, wrapped at ``WIDTH``, without the ``usage:`` prefix."""
    form = formatter(parser)
    form.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return form.format_help().strip("\n")


def one_line(text: str) -> str:
    """``text`` with its runs of white space made single spaces (Markdown wraps it, not us)."""
    return " ".join(text.split())


def argument(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    """One Markdown list item: the argument as typed, then its help with defaults and choices filled in."""
    form = formatter(parser)
    if action.option_strings:
        takes = "" if action.nargs == 0 else " " + form._format_args(action, action.dest.upper())
        name = ", ".join(action.option_strings) + takes
    else:
        name = form._format_args(action, action.dest)
    text = one_line(form._expand_help(action)) if action.help else ""
    return f"- `{name}`" + (f": {text}" if text else "")


def arguments(parser: argparse.ArgumentParser) -> list[str]:
    """The list items of the parser's own arguments (help and subcommand lists left out)."""
    return [
        argument(parser, action)
        for action in parser._actions
        if action.help != argparse.SUPPRESS
        and not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
    ]


def section(parser: argparse.ArgumentParser, summary: str, level: int) -> list[str]:
    """A subcommand's heading, description, usage and arguments."""
    lines = ["#" * level + f" {parser.prog}", ""]
    for text in dict.fromkeys(t for t in (summary, parser.description or "") if t):
        lines += [one_line(text), ""]
    lines += ["```text", usage(parser), "```", ""]
    items = arguments(parser)
    return lines + (items + [""] if items else [])


def reference(parser: argparse.ArgumentParser | None = None) -> str:
    """The whole reference as Markdown."""
    parser = parser or build_parser()
    lines = [
        "# CLI reference",
        "",
        "Every `voice-studio` subcommand with its usage and arguments, generated from the argparse definitions in "
        f"`studio/cli/` by `{REGENERATE}` (do not edit by hand). The same text is in "
        "`voice-studio SUBCOMMAND --help`; [the command line by example](command-line.md) shows them in use. "
        "[Back to the README](../README.md)",
        "",
    ]
    lines += section(parser, "", 2)
    for sub, summary in subcommands(parser):
        lines += section(sub, summary, 2 + sub.prog.count(" ") - 1)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Print the reference, or write it to docs/cli.md with ``--write``."""
    options = _options().parse_args(argv)
    text = reference()
    if options.write:
        OUTPUT.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


def _options() -> argparse.ArgumentParser:
    """This tool's own command line."""
    parser = argparse.ArgumentParser(description="Print the voice-studio CLI reference as Markdown.")
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT.relative_to(ROOT)} instead")
    return parser


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
