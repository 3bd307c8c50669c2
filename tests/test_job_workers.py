"""Where dataset jobs run (``trainer.dataset.workers.run_jobs``): a command-line process handles a few clips itself,
a window's process and a longer list use worker processes (a pool costs about a second to start)."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import os, sys
from trainer.dataset import workers
if sys.argv[1] == "here":
    workers.run_here()
small = {int(pid) for _, pid in workers.run_jobs(os.readlink, ["/proc/self"] * 3, 2)}
grouped = {int(pid) for _, pid in workers.run_jobs(os.readlink, ["/proc/self"] * 3, 2, clips=workers.HERE_AT_MOST + 1)}
print(os.getpid() in small, os.getpid() in grouped)
"""


def _where(rule: str) -> str:
    done = subprocess.run([sys.executable, "-c", PROBE, rule], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_command_line_process_runs_a_few_clips_itself_and_a_long_list_in_workers():
    """After ``run_here`` three jobs run in the calling process; three groups holding more than ``HERE_AT_MOST``
    clips run in workers; without it (the studio window) every job runs in a worker."""
    assert _where("here") == "True False"
    assert _where("window") == "False False"


CLI = """
import sys
from multiprocessing import forkserver
from studio.cli import main
sys.argv = ["voice-studio", "dataset", "import", "--project", *sys.argv[1:]]
code = main()  # as the console script calls it
print(code, forkserver._forkserver._forkserver_pid is None)  # None: no fork server, so no worker, was started
"""


def test_the_cli_as_a_program_imports_a_few_clips_in_its_own_process(tmp_path):
    """``voice-studio dataset import`` of two clips, as the console script runs it, starts no worker process."""
    from conftest import shared_path

    cards = shared_path("corpus", "real-speech", "cards")
    clips = [str(cards / "001.wav"), str(cards / "002.wav")]
    done = subprocess.run([sys.executable, "-c", CLI, str(tmp_path / "p"), *clips], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.split() == ["0", "True"], (done.stdout, done.stderr)
    assert "analysed 2 of 2 clips" in done.stderr
