"""Where the suite's CPU time goes: each test's CPU seconds, its own and its finished child processes', by test and
by file.

The suite is CPU-bound on 2 cores (three workers keep both busy), so its wall time follows its CPU time; this
tool says which tests and files hold it. As a pytest plugin it appends one row per test to
``$SUITE_CPU_DIR/cpu-<worker>.tsv``; as a script it prints the tables:

    SUITE_CPU_DIR=/tmp/cpu PYTHONPATH=tools make test PYTEST_ARGS="-p suite_cpu"   # a full run, measured
    python tools/suite_cpu.py /tmp/cpu [--top 40]                                  # the tables

A row holds the test's wall seconds (set-up, call and tear-down: a module fixture counts in the first test that
asks for it), the worker process's CPU seconds over it (``RUSAGE_SELF``: user + system) and its children's
(``RUSAGE_CHILDREN``: only children waited for during the test; a process pool's workers are counted when the pool
is, often in a later test).
"""

from __future__ import annotations

import argparse
import os
import resource
import time
from collections import defaultdict
from pathlib import Path

import pytest


def _cpu() -> tuple[float, float]:
    """CPU seconds (user + system) of this process and of its waited-for children."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Measure one test (set-up, call, tear-down) and append its row."""
    started, (own, children) = time.monotonic(), _cpu()
    yield
    own_after, children_after = _cpu()
    folder = Path(os.environ.get("SUITE_CPU_DIR", "suite-cpu"))
    folder.mkdir(parents=True, exist_ok=True)
    row = (time.monotonic() - started, own_after - own, children_after - children)
    with open(folder / f"cpu-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.tsv", "a", encoding="utf-8") as out:
        out.write("\t".join(f"{x:.2f}" for x in row) + f"\t{item.nodeid}\n")


def read_rows(folder: Path) -> list[tuple[float, float, float, str]]:
    """``(wall s, own CPU s, children's CPU s, node id)`` of every test measured in ``folder``."""
    rows = []
    for path in sorted(folder.glob("cpu-*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            wall, own, children, node = line.split("\t")
            rows.append((float(wall), float(own), float(children), node))
    return rows


def report(rows: list[tuple[float, float, float, str]], top: int) -> str:
    """The totals, then the ``top`` tests and files by CPU seconds (own + children)."""
    files: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for wall, own, children, node in rows:
        files[node.split("::")[0]][0] += own + children
        files[node.split("::")[0]][1] += wall
    own_total, children_total = sum(r[1] for r in rows), sum(r[2] for r in rows)
    lines = [f"{len(rows)} tests: {own_total:.0f} CPU-s in the workers, {children_total:.0f} in their children"]
    lines += ["", "CPU s   own  children  test"]
    for _, own, children, node in sorted(rows, key=lambda r: -(r[1] + r[2]))[:top]:
        lines.append(f"{own + children:6.1f} {own:6.1f} {children:6.1f}  {node}")
    lines += ["", "CPU s  wall s  file"]
    for name, (cpu, wall) in sorted(files.items(), key=lambda kv: -kv[1][0])[:top]:
        lines.append(f"{cpu:6.1f} {wall:6.1f}  {name}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="the SUITE_CPU_DIR of a measured run")
    parser.add_argument("--top", type=int, default=40, help="tests and files listed (default 40)")
    args = parser.parse_args(argv)
    rows = read_rows(args.folder)
    if not rows:
        raise SystemExit(f"{args.folder}: no cpu-*.tsv rows (run the suite with -p suite_cpu first)")
    print(report(rows, args.top))


if __name__ == "__main__":
    main()
