"""Hold ``studio/`` to a baseline of known mypy errors that may only shrink (``make lint`` runs it).

``engines/`` and ``trainer/`` type-check clean (``mypy engines trainer``); ``studio/`` still has
errors. Their list is committed in ``tools/mypy_baseline.txt``, one error a line,
``path: message  [code]``, sorted, repeated when a file has the same error more than once. Lines
are not numbers in it, so an edit that moves code does not break the check; ``on line N`` inside
a message is normalised the same way.

Usage (from the repository root)::

    python tools/mypy_baseline.py            # run mypy on studio/, compare with the baseline
    python tools/mypy_baseline.py --update   # also drop the fixed errors from the baseline file
    python tools/mypy_baseline.py --reset    # write the current errors as the baseline (new file, or a
                                             # deliberate reset after a refactor renamed what they cite)

Exit status: 0 when mypy found no error that the baseline lacks (errors that were fixed are listed,
with the hint to run ``--update``); 1 when it found new ones (listed with their line numbers); 2
when mypy itself failed without a readable report. Errors mypy reports in other folders (modules
studio imports) are left to ``mypy engines trainer``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BASELINE = ROOT / "tools" / "mypy_baseline.txt"
SCOPE = "studio/"
"""Errors under this folder are held to the baseline."""

_ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?:\d+:)? error: (?P<message>.*)$")
_ON_LINE = re.compile(r"\bon line \d+")


def run_mypy(paths: list[str]) -> tuple[int, str]:
    """mypy's exit status and plain report (one error a line) for ``paths``, with the pyproject settings."""
    command = [sys.executable, "-m", "mypy", "--no-pretty", "--no-color-output", "--show-error-codes"]
    done = subprocess.run([*command, *paths], cwd=ROOT, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout + done.stderr


def errors(report: str, scope: str = SCOPE) -> list[tuple[str, int, str]]:
    """``(path, line, message)`` of each error in a mypy ``report`` under ``scope`` (paths with ``/``);
    notes and summary lines are skipped."""
    found = []
    for raw in report.splitlines():
        match = _ERROR.match(raw.strip())
        if match is None:
            continue
        path = match["path"].replace("\\", "/")
        if path.startswith(scope):
            found.append((path, int(match["line"]), match["message"].strip()))
    return found


def key(path: str, message: str) -> str:
    """The baseline line of an error: ``path: message`` with ``on line N`` for any line number it cites."""
    return f"{path}: {_ON_LINE.sub('on line N', message)}"


def compare(current: Counter[str], baseline: Counter[str]) -> tuple[Counter[str], Counter[str]]:
    """``(new, fixed)``: errors found but not in the baseline, and baseline errors no longer found
    (both counted, so a second copy of a known error in the same file is new)."""
    return current - baseline, baseline - current


def read_baseline(path: Path) -> Counter[str]:
    """The baseline's lines as a multiset (blank lines and ``#`` comments skipped; a missing file is empty)."""
    if not path.is_file():
        return Counter()
    lines = path.read_text(encoding="utf-8").splitlines()
    return Counter(line for line in lines if line.strip() and not line.startswith("#"))


def write_baseline(path: Path, entries: Counter[str]) -> None:
    """Write ``entries`` sorted, one a line, under a header saying how to update it."""
    header = "# studio/ mypy errors not fixed yet: may only shrink (python tools/mypy_baseline.py --update)\n"
    path.write_text(header + "".join(f"{line}\n" for line in sorted(entries.elements())), encoding="utf-8")


def check(report: str, baseline_path: Path, *, update: bool = False, reset: bool = False) -> tuple[int, str]:
    """Compare a mypy ``report`` with the baseline file: ``(exit status, what to tell the user)``.

    ``update`` drops the fixed errors from the file (never adds any); ``reset`` writes every current error.
    """
    found = errors(report)
    current = Counter(key(path, message) for path, _, message in found)
    if reset:
        write_baseline(baseline_path, current)
        return 0, f"{baseline_path.name}: {sum(current.values())} errors written"
    new, fixed = compare(current, read_baseline(baseline_path))
    lines = []
    if fixed:
        lines.append(f"{sum(fixed.values())} baseline errors are fixed:")
        lines += [f"  {entry}" for entry in sorted(fixed.elements())]
        if update:
            write_baseline(baseline_path, read_baseline(baseline_path) - fixed)
            lines.append(f"{baseline_path.name} updated")
        else:
            lines.append("shrink the baseline: python tools/mypy_baseline.py --update")
    if new:
        lines.append(f"{sum(new.values())} new mypy errors in {SCOPE} (not in {baseline_path.name}):")
        lines += [f"  {p}:{n}: {m}" for p, n, m in found if new[key(p, m)] > 0]
        return 1, "\n".join(lines)
    lines.append(f"mypy {SCOPE}: no error beyond the {sum(current.values())} in the baseline")
    return 0, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run the check; returns the exit status (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--update", action="store_true", help="drop the fixed errors from the baseline file")
    group.add_argument("--reset", action="store_true", help="write every current error as the baseline")
    parser.add_argument("--baseline", type=Path, default=BASELINE, help="the baseline file (default: %(default)s)")
    args = parser.parse_args(argv)
    status, report = run_mypy([SCOPE.rstrip("/")])
    if status not in (0, 1) or (status == 1 and not errors(report, "")):
        print(report, file=sys.stderr)
        print("mypy failed without a readable report", file=sys.stderr)
        return 2
    code, message = check(report, args.baseline, update=args.update, reset=args.reset)
    print(message, file=sys.stderr if code else sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
