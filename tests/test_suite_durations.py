"""The suite's table of measured seconds (``tests/durations.tsv``, ``tools/suite_durations.py``): it names only
tests that exist, and the tool reads pytest's JUnit report into node ids the way pytest names them; and the CPU
measure of each test (``tools/suite_cpu.py``)."""

from __future__ import annotations

import re

from conftest import DURATIONS, ROOT, measured_seconds, tool

suite_durations = tool("suite_durations")


def test_every_row_names_a_test_that_exists():
    """Each node id's file exists and the test function (parameters stripped) is defined in the tests (in the
    file, or in a shared base class such as ``engine_conformance.py``): a renamed or deleted test is written
    again with ``tools/suite_durations.py``, never left to mark nothing."""
    sources = "\n".join(path.read_text(encoding="utf-8") for path in (ROOT / "tests").glob("*.py"))
    defined = set(re.findall(r"^\s*(?:async )?def (test_\w+)\(", sources, re.M))
    missing = []
    for node in measured_seconds():
        path, *_, name = node.split("::")
        if not (ROOT / path).is_file() or name.split("[", 1)[0] not in defined:
            missing.append(node)
    assert measured_seconds() and not missing, f"stale rows in {DURATIONS.name}: {missing[:5]}"


def test_the_tool_writes_pytests_node_ids_from_a_junit_report(tmp_path):
    """A JUnit report's cases come back as ``tests/file.py::name[param]`` with their seconds, sorted, and the
    table reads back as it was written."""
    report = tmp_path / "run.xml"
    report.write_text(
        '<testsuites><testsuite name="pytest">'
        '<testcase classname="tests.test_b" name="test_two[x-1]" time="2.5"/>'
        '<testcase classname="tests.test_a" name="test_one" time="0.125"/>'
        '<testcase classname="tests.test_a.TestOnnx" name="test_three" time="1"/>'
        "</testsuite></testsuites>"
    )
    seconds = suite_durations.durations(report)
    assert seconds == {
        "tests/test_b.py::test_two[x-1]": 2.5,
        "tests/test_a.py::test_one": 0.125,
        "tests/test_a.py::TestOnnx::test_three": 1.0,
    }
    rows = suite_durations.table(seconds).splitlines()[1:]
    assert rows == [
        "1.00\ttests/test_a.py::TestOnnx::test_three",
        "0.12\ttests/test_a.py::test_one",
        "2.50\ttests/test_b.py::test_two[x-1]",
    ]


def test_the_cpu_plugin_gives_each_test_its_own_and_its_childrens_cpu(tmp_path):
    """``tools/suite_cpu.py`` as a pytest plugin: a test that computes shows its CPU as the worker's own, one that
    waits for a computing child process as its children's; the report ranks them by CPU."""
    import os
    import subprocess
    import sys

    (tmp_path / "test_work.py").write_text(
        "import subprocess, sys, time\n"
        "def _spin():\n"
        "    end = time.process_time() + 0.5\n"
        "    while time.process_time() < end:\n"
        "        pass\n"
        "def test_computes():\n"
        "    _spin()\n"
        "def test_waits_for_a_child():\n"
        "    code = 'import time\\nend = time.process_time() + 0.5\\nwhile time.process_time() < end: pass'\n"
        "    subprocess.run([sys.executable, '-c', code], check=True)\n",
        encoding="utf-8",
    )
    folder = tmp_path / "cpu"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tools"), "SUITE_CPU_DIR": str(folder)}
    command = [sys.executable, "-m", "pytest", "-q", "-p", "suite_cpu", "-p", "no:cacheprovider", "test_work.py"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    suite_cpu = tool("suite_cpu")
    rows = {node: (own, children) for _, own, children, node in suite_cpu.read_rows(folder)}
    assert set(rows) == {"test_work.py::test_computes", "test_work.py::test_waits_for_a_child"}
    assert rows["test_work.py::test_computes"][0] >= 0.5 > rows["test_work.py::test_computes"][1]
    assert rows["test_work.py::test_waits_for_a_child"][1] >= 0.5 > rows["test_work.py::test_waits_for_a_child"][0]
    lines = suite_cpu.report(suite_cpu.read_rows(folder), top=5).splitlines()
    assert lines[0].startswith("2 tests:") and "test_work.py" in lines[-1]
