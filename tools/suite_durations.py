"""Write ``tests/durations.tsv``, each test's measured seconds, from the JUnit XML of a full ``make test`` run.

    make test PYTEST_ARGS=--junitxml=run.xml          # a full run, with its JUnit report
    python tools/suite_durations.py run.xml            # print the table
    python tools/suite_durations.py run.xml --write    # write tests/durations.tsv

``tests/conftest.py`` reads the table: a test measured at ``SLOW_S`` or more is marked ``slow`` (``make check``
leaves those out), and files run heaviest first, so no worker of ``make test`` ends on one long file.
A test's seconds include its share of fixture set-up (a module fixture counts in the first test that asks for it).
Tests the table does not name count as light until it is written again; ``tests/test_suite_durations.py`` fails on rows
naming tests that no longer exist.
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "tests" / "durations.tsv"
HEADER = "# seconds\ttest (tools/suite_durations.py: measured by a full make test run; see the tool's docstring)"


def node_id(case: ElementTree.Element) -> str:
    """pytest's node id of a JUnit ``testcase``: ``classname`` ``tests.test_x`` (or ``tests.test_x.TestClass``: a
    class by pytest's default ``Test*`` rule) and ``name`` ``test_y[p]``."""
    parts = case.get("classname", "").split(".")
    cut = next((i for i, part in enumerate(parts) if part.startswith("Test")), len(parts))
    return "::".join(["/".join(parts[:cut]) + ".py", *parts[cut:], case.get("name", "")])


def durations(report: Path) -> dict[str, float]:
    """Seconds by node id from a JUnit XML report (pytest's ``--junitxml``: set-up, call and tear-down)."""
    root = ElementTree.parse(report).getroot()
    return {node_id(case): float(case.get("time", 0)) for case in root.iter("testcase")}


def table(seconds: dict[str, float]) -> str:
    """The file's text: the header, then ``seconds<TAB>node id`` sorted by node id."""
    rows = [f"{s:.2f}\t{node}" for node, s in sorted(seconds.items())]
    return "\n".join([HEADER, *rows]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path, help="pytest's --junitxml of a full run")
    parser.add_argument("--write", action="store_true", help=f"write {OUTPUT.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    text = table(durations(args.report))
    if args.write:
        OUTPUT.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
