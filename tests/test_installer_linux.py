"""``packaging/install.sh`` for real on Linux: install into a temporary prefix and home from this checkout, speak
with the installed command, open the installed studio offscreen, re-run, uninstall.

Cost: with uv's cache warm (``UV_CACHE_DIR``, else ``~/.cache/uv``, shared between runs) about 30 s on 2 cores
(three uv runs, a project build, one line spoken, the window opened); the first run on a machine downloads the
ONNX-only dependencies (about 300 MB, PySide6 the most). It installs with ``--onnx-only``: no torch, which
PyTorch's index would have to provide. Skipped where bash, uv or PyPI is missing, except under ``CI=true``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile
from conftest import sh_words
from installer_fakes import ROOT
from onnx_only_install import find_uv

INSTALL_SH = ROOT / "packaging" / "install.sh"
WINDOW_CHECK = """
import sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

app = QApplication(sys.argv)

def report():
    print("VISIBLE", [w.windowTitle() for w in app.topLevelWidgets() if w.isVisible()], flush=True)
    app.quit()

QTimer.singleShot(0, report)  # runs once the event loop has started, after the window was shown
from studio.app import main
sys.exit(main())
"""


def _missing() -> str | None:
    """Why this test cannot run here, or None."""
    if not sys.platform.startswith("linux"):
        return "install.sh is tested on Linux"
    if not shutil.which("bash"):
        return "no bash"
    if not find_uv():
        return "no uv (the dev extra installs it)"
    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        return "PyPI is not reachable"
    return None


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``install.sh --onnx-only`` run into a temporary prefix and home; returns (prefix, env)."""
    reason = _missing()
    if reason:
        if os.environ.get("CI") == "true":
            pytest.fail(f"install.sh cannot be tested: {reason}")
        pytest.skip(reason)
    root = tmp_path_factory.mktemp("install")
    home = root / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "UV")}
    env.update(
        HOME=str(home),
        XDG_DATA_HOME=str(home / ".local" / "share"),
        XDG_CONFIG_HOME=str(home / ".config"),
        UV_CACHE_DIR=os.environ.get("UV_CACHE_DIR") or str(Path.home() / ".cache" / "uv"),
        PATH=str(Path(find_uv()).parent) + os.pathsep + os.environ.get("PATH", ""),
        QT_QPA_PLATFORM="offscreen",
    )
    _install_sh(env, "--onnx-only", "--prefix", str(root / "app"))
    return root / "app", env


def _install_sh(env, *args):
    """Run ``install.sh`` with ``args``; fails the test with its output when it fails."""
    done = subprocess.run(["bash", str(INSTALL_SH), *args], env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done


def test_installed_command_speaks_a_wav(installed, tmp_path):
    """The installed ``voice-studio say`` (the ~/.local/bin launcher) writes a WAV of speech."""
    prefix, env = installed
    out = tmp_path / "hello.wav"
    command = Path(env["HOME"]) / ".local" / "bin" / "voice-studio"
    done = subprocess.run(
        [str(command), "say", "The installer works.", "-o", str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    audio, rate = soundfile.read(out, dtype="float32")
    assert 0.6 < len(audio) / rate < 5.0  # four words
    rms_db = 20 * np.log10(np.sqrt(np.mean(audio**2)))
    assert -35 < rms_db < -6 and np.abs(audio).max() < 1.0


def test_onnx_only_install_says_to_rerun_the_installer_for_training(installed, tmp_path):
    """``voice-studio train`` in the ONNX-only install: exit 2 and one line naming this installer, run again
    without --onnx-only from the checkout it installed from, with its prefix (the environment has no pip)."""
    prefix, env = installed
    command = Path(env["HOME"]) / ".local" / "bin" / "voice-studio"
    args = [str(command), "train", "--dataset", str(tmp_path), "--out", str(tmp_path / "run")]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    said, _, command = done.stderr.strip().splitlines()[-1].partition("run the installer again without --onnx-only: ")
    assert said and sh_words(command) == ["bash", str(INSTALL_SH), "--prefix", str(prefix)], done.stderr


def test_installed_studio_opens_its_window_offscreen(installed):
    """The installed environment opens the studio's window (Qt offscreen) and its event loop runs."""
    prefix, env = installed
    done = subprocess.run(
        [str(prefix / "venv" / "bin" / "python"), "-c", WINDOW_CHECK],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "VISIBLE ['Voice Studio']" in done.stdout, done.stdout + done.stderr[-3000:]


def test_menu_entry_points_at_the_installed_launcher(installed):
    """The .desktop entry's Exec is the installed launcher (executable) and its Icon exists."""
    prefix, env = installed
    entry = Path(env["XDG_DATA_HOME"]) / "applications" / "voice-studio.desktop"
    keys = dict(line.split("=", 1) for line in entry.read_text().splitlines() if "=" in line)
    assert keys["Exec"] == str(prefix / "bin" / "voice-studio") and os.access(keys["Exec"], os.X_OK)
    assert Path(keys["Icon"]).read_bytes()[:4] == b"\x89PNG"


def test_rerun_then_uninstall_leaves_user_data(installed):
    """Re-running install.sh gives the same manifest; --uninstall then removes the app and leaves a voice."""
    prefix, env = installed
    manifest = (prefix / "install-manifest.json").read_text()
    _install_sh(env, "--onnx-only", "--prefix", str(prefix))
    assert (prefix / "install-manifest.json").read_text() == manifest
    voice = Path(env["XDG_DATA_HOME"]) / "voice-studio" / "voices" / "mine.onnx"
    voice.parent.mkdir(parents=True, exist_ok=True)
    voice.write_bytes(b"my voice")
    _install_sh(env, "--uninstall", "--prefix", str(prefix))
    assert not prefix.exists() and voice.read_bytes() == b"my voice"
    assert not any(Path(p).exists() for p in json.loads(manifest)["files"])
