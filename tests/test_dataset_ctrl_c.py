"""Ctrl+C on ``voice-studio dataset import|fix``, as a terminal sends it (SIGINT to the process group): the first
one cancels through the task's ``TaskState`` (the work stops at its next item, keeps what it finished and says so,
exit 130), a second one stops at once."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time

from conftest import shared_path


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "studio", "dataset", *args],
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
        env=os.environ.copy(),
        start_new_session=True,  # its own process group, which Ctrl+C reaches as a whole
    )


def _wait_for(process: subprocess.Popen, pattern: str) -> list[str]:
    """The stderr lines read until one matches ``pattern``."""
    lines = []
    for line in process.stderr:
        lines.append(line)
        if re.fullmatch(pattern, line.strip()):
            return lines
    raise AssertionError(f"no line like {pattern!r}: {lines}")


def _ctrl_c(process: subprocess.Popen) -> None:
    os.killpg(process.pid, signal.SIGINT)


def _clips(project) -> list[dict]:
    return json.loads((project / "manifest.json").read_text(encoding="utf-8"))["clips"]


def test_first_ctrl_c_cancels_the_import_and_says_what_was_kept(tmp_path):
    project = tmp_path / "project"
    process = _start("import", "--project", str(project), str(shared_path("corpus", "target-voice")))
    _wait_for(process, r"analysed [1-9]\d* of 240 clips")
    _ctrl_c(process)
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 130, rest
    said = re.search(r"^Import cancelled: (\d+) of 240 clips kept; import again to go on$", rest, re.MULTILINE)
    assert said and "Traceback" not in rest, rest
    kept = _clips(project)
    assert 0 < int(said[1]) == len(kept) < 240 and all(c["status"] == "ok" for c in kept)


def test_first_ctrl_c_cancels_a_fix(tmp_path):
    """The sibling: ``dataset fix --all`` stops at its next clip, the clips fixed so far recorded."""
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path / "project")
    project.import_sources([shared_path("corpus", "target-voice")])
    process = _start("fix", str(project.folder), "--all")
    _wait_for(process, r"fixed [1-9]\d* of 240 clips")
    _ctrl_c(process)
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 130, rest
    said = re.search(r"^Fixes cancelled: (\d+) of 240 clips fixed$", rest, re.MULTILINE)
    assert said and "Traceback" not in rest, rest
    edited = [c for c in _clips(project.folder) if c.get("edits")]
    assert int(said[1]) == len(edited) < 240


def test_second_ctrl_c_stops_at_once(tmp_path):
    project = tmp_path / "project"
    process = _start("import", "--project", str(project), str(shared_path("corpus", "target-voice")))
    _wait_for(process, r"analysed [1-9]\d* of 240 clips")
    _ctrl_c(process)
    time.sleep(0.05)
    _ctrl_c(process)
    started = time.monotonic()
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 130, rest
    assert time.monotonic() - started < 5.0  # at once: not after the groups in flight (a loaded CI machine gets slack)
    assert "Ctrl+C again to stop now" in rest and len(_clips(project)) < 240
