"""Type checking: ``engines/`` and ``trainer/`` clean under mypy, ``studio/`` held to a shrinking baseline
(``tools/mypy_baseline.py``, run by ``make lint``)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from conftest import tool

ROOT = Path(__file__).resolve().parent.parent


def _baseline_tool():
    return tool("mypy_baseline")


UNION = 'Item "None" of "Path | None" has no attribute "name"  [union-attr]'
REDEF = 'Name "x" already defined on line 3  [no-redef]'


def _report(*extra: str) -> str:
    lines = [
        f"studio/a.py:10: error: {UNION}",
        "studio/a.py:10: note: See https://mypy.readthedocs.io/",
        f"studio\\b.py:41:5: error: {REDEF.replace('line 3', 'line 30')}",
        "trainer/run/train.py:1: error: Not studio's  [misc]",
        *extra,
        "Found 3 errors in 3 files (checked 9 source files)",
    ]
    return "\n".join(lines) + "\n"


def test_baseline_ignores_moved_lines_reports_fixed_errors_and_fails_on_new_ones(tmp_path):
    tool = _baseline_tool()
    baseline = tmp_path / "baseline.txt"
    known = [f"studio/a.py: {UNION}", "studio/b.py: " + REDEF.replace("line 3", "line N"), "studio/c.py: Gone  [misc]"]
    baseline.write_text("# header\n" + "\n".join(known) + "\n", encoding="utf-8")

    code, message = tool.check(_report(), baseline)
    assert code == 0, message  # same errors on other lines (and citing another line) are known
    assert "studio/c.py: Gone" in message and "--update" in message
    assert "trainer/run/train.py" not in message

    code, message = tool.check(_report(f"studio/a.py:12: error: {UNION}"), baseline)
    assert code == 1  # a second copy of a known error in the same file is new
    assert "studio/a.py:12:" in message and "1 new mypy errors" in message
    code, _ = tool.check(_report("studio/d.py:1: error: Fresh  [misc]"), baseline, update=True)
    assert code == 1
    assert tool.read_baseline(baseline) == Counter(known[:2])  # fixed dropped, the new one not added

    tool.check(_report("studio/d.py:1: error: Fresh  [misc]"), baseline, reset=True)
    assert tool.read_baseline(baseline) == Counter([*known[:2], "studio/d.py: Fresh  [misc]"])


@pytest.mark.mypy
def test_engines_and_trainer_type_check_clean_and_studio_stays_within_its_baseline():
    """One mypy run over the three packages (about a minute): no error in engines/ or trainer/, and none in
    studio/ beyond tools/mypy_baseline.txt."""
    pytest.importorskip("mypy")
    tool = _baseline_tool()
    status, report = tool.run_mypy(["engines", "trainer", "studio"])
    assert status in (0, 1), report
    outside = [e for e in tool.errors(report, "") if not e[0].startswith("studio/")]
    assert not outside, "\n".join(f"{p}:{n}: {m}" for p, n, m in outside)
    code, message = tool.check(report, tool.BASELINE)
    assert code == 0, message
