"""The shell side of the installer: ``install.sh`` getting uv (curl, else wget, else PyPI's uv in a venv of its
own, else one clear error), ``--help`` without side effects, ``linux-deps.sh`` finding ldconfig outside the PATH.

Programs the scripts call are stood in for by small shell scripts in a folder that is the whole PATH (with links
to the few real tools the scripts need), so nothing is fetched or installed; each test runs in well under 1 s.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from installer_fakes import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or not shutil.which("bash"), reason="bash")
INSTALL_SH = ROOT / "packaging" / "install.sh"
REAL_TOOLS = ("bash", "sh", "dirname", "rm", "mkdir", "chmod", "uname", "sed", "cp", "cat")
RECORDING_UV = 'echo "uv $*" >> "$LOG"'


def _script(path, text: str):
    """``path`` made an executable shell script running ``text``; returns ``path``."""
    path.write_text(f"#!/bin/sh\n{text}\n")
    path.chmod(0o755)
    return path


def _tools(tmp_path, **stubs: str):
    """A PATH folder with the real tools and ``stubs`` (name -> shell script text); returns (env, log)."""
    folder, home = tmp_path / "bin", tmp_path / "home"
    folder.mkdir()
    home.mkdir()
    for name in REAL_TOOLS:
        (folder / name).symlink_to(shutil.which(name))
    for name, text in stubs.items():
        _script(folder / name, text)
    log = tmp_path / "log"
    log.write_text("")
    return {"PATH": str(folder), "HOME": str(home), "LOG": str(log)}, log


def _install_sh(env, *args):
    return subprocess.run(["bash", str(INSTALL_SH), *args], env=env, capture_output=True, text=True, timeout=60)


def test_wget_serves_astrals_script_when_curl_fails(tmp_path):
    """curl failing, uv comes from astral's script fetched with wget; the installer runs under that uv."""
    uv = tmp_path / "home" / ".local" / "bin" / "uv"
    astral = _script(tmp_path / "astral.sh", f"mkdir -p {uv.parent}; cp {_script(tmp_path / 'uv', RECORDING_UV)} {uv}")
    env, log = _tools(tmp_path, curl='echo curl >> "$LOG"; exit 6', wget=f'echo wget >> "$LOG"; cat {astral}')
    done = _install_sh(env, "--onnx-only")
    assert done.returncode == 0, done.stderr
    lines = log.read_text().splitlines()
    assert lines[:2] == ["curl", "wget"] and f"-m studio_installer --uv {uv} --onnx-only" in lines[2]


def test_uv_from_pypi_goes_into_a_venv_of_its_own(tmp_path):
    """Neither curl nor wget working, uv is pip-installed into a venv under ~/.cache (never ``pip --user``)."""
    uv = _script(tmp_path / "uv", RECORDING_UV)
    venv_python = _script(tmp_path / "python", f'echo "venv-python $*" >> "$LOG"; cp {uv} "$(dirname "$0")"')
    python3 = f'echo "python3 $*" >> "$LOG"; [ "$2" = venv ] || exit 1; mkdir -p "$3/bin"; cp {venv_python} "$3/bin/"'
    env, log = _tools(tmp_path, curl="exit 6", wget="exit 4", python3=python3)
    done = _install_sh(env, "--cpu")
    assert done.returncode == 0, done.stderr
    bootstrap = tmp_path / "home" / ".cache" / "voice-studio-installer" / "uv"
    lines = log.read_text().splitlines()
    assert lines[0] == f"python3 -m venv {bootstrap}" and lines[1].startswith("venv-python -m pip install")
    assert f"--uv {bootstrap / 'bin' / 'uv'} --cpu" in lines[2] and "--user" not in log.read_text()


def test_no_way_to_get_uv_is_one_line_and_status_2(tmp_path):
    """No curl, wget or venv, and pip refusing (PEP 668): one error line saying how to install uv, status 2."""
    refusing = 'echo "error: externally-managed-environment" >&2; exit 1'
    env, log = _tools(tmp_path, python3=refusing)
    done = _install_sh(env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("install: error: could not install uv") and "docs.astral.sh/uv" in last


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_runs_nothing_and_installs_nothing(tmp_path, flag):
    """``install.sh --help`` lists the options and runs no uv, fetcher, apt-get, sudo or ldconfig."""
    calls = {name: f'echo {name} >> "$LOG"' for name in ("uv", "curl", "wget", "apt-get", "sudo", "ldconfig")}
    env, log = _tools(tmp_path, **calls)
    env["PATH"] += os.pathsep + os.path.dirname(sys.executable)  # a Python 3.10+ to print the options with
    done = _install_sh(env, "--onnx-only", flag)
    assert done.returncode == 0, done.stderr
    assert "--onnx-only" in done.stdout and "apt-get install" in done.stdout and "--prefix PREFIX" in done.stdout
    assert log.read_text() == "" and not any((tmp_path / "home").iterdir())


def test_linux_deps_finds_ldconfig_outside_the_path():
    """``linux-deps.sh --check`` reports the same missing packages whether /sbin and /usr/sbin (where ldconfig
    lives) are on the PATH or not, as for a normal Debian user."""
    if not shutil.which("apt-get") or not any(os.path.exists(p) for p in ("/sbin/ldconfig", "/usr/sbin/ldconfig")):
        pytest.skip("a Debian-like system with ldconfig in /sbin")
    script = str(ROOT / "packaging" / "linux-deps.sh")

    def check(path):
        done = subprocess.run(["bash", script, "--check"], env={"PATH": path}, capture_output=True, text=True)
        assert done.returncode == 0
        return done.stdout

    assert check("/usr/bin:/bin") == check("/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin")
