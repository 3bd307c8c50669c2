"""The ONNX-only install the tests use: this checkout's sdist and wheel, and a fresh venv without torch from the wheel.

:func:`prepared` builds them once and keeps them between runs in ``~/.cache/voice-studio-tests/onnx-only/KEY``
(``$XDG_CACHE_HOME`` when set), ``KEY`` being a hash of ``pyproject.toml``, ``MANIFEST.in``, the package sources
(``engines``, ``studio``, ``trainer``, ``assets``), the installer (``packaging``, which the sdist carries), the
import guard and the Python version: a change to any of them builds afresh and older builds are removed. The
build uses uv and its own cache (``uv build``: the sdist, then the wheel from the sdist, as ``python -m build``
does; ``uv venv``; ``uv pip install WHEEL`` from the package registry). Cold it cost 9 s on the 2-core build
machine with uv's cache warm, 14 s with an empty one (uv then fetches about 250 MB of wheels; its cache grows by
about 700 MB); warm, nothing. The venv takes about 680 MB.
``tests/no_torch_guard.py`` goes into the venv and records every attempt to import torch (and other
training-only packages) into ``$VOICE_STUDIO_IMPORT_LOG``.
"""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "studio", "trainer", "assets", "packaging")  # what the sdist holds (packaging/: the installer)
GUARD = Path(__file__).with_name("no_torch_guard.py")


@dataclass(frozen=True)
class Install:
    """A built sdist and wheel, and a venv with the wheel installed (no extras)."""

    sdist: Path
    wheel: Path
    venv: Path

    @property
    def python(self) -> Path:
        return self.venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")

    @property
    def command(self) -> Path:
        """The installed ``voice-studio`` entry point."""
        return self.venv / ("Scripts/voice-studio.exe" if os.name == "nt" else "bin/voice-studio")

    def run(self, *args: str | Path, log: Path, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess:
        """``voice-studio ARGS`` in the venv (from ``cwd``, away from the checkout), torch attempts into ``log``."""
        return subprocess.run(
            [str(self.command), *map(str, args)], cwd=cwd, env=environment(log), capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip


def environment(log: Path) -> dict[str, str]:
    """This process's environment without what would put the checkout on the venv's path, plus the guard's log."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "VOICE_STUDIO_IMPORT_LOG": str(log), "QT_QPA_PLATFORM": "offscreen"}


def find_uv() -> str | None:
    """The uv program: the ``uv`` package of the dev extra, else one on PATH, else None."""
    try:
        from uv import find_uv_bin

        return find_uv_bin()
    except (ImportError, FileNotFoundError):
        return shutil.which("uv")


def uv() -> str:
    """:func:`find_uv`'s program; skips without it (fails in CI)."""
    found = find_uv()
    if found:
        return found
    message = "these tests build a venv with uv: pip install uv (it is in the dev extra)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def source_key() -> str:
    """A hash of what goes into the build (see the module's docstring), 16 hex digits."""
    digest = hashlib.sha256(f"{sys.version_info[:2]}".encode())
    files = [ROOT / "pyproject.toml", ROOT / "MANIFEST.in", GUARD]
    for package in PACKAGES:
        files += sorted(p for p in (ROOT / package).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for path in files:
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "voice-studio-tests" / "onnx-only"


@functools.cache
def prepared() -> Install:
    """The cached install for this checkout, built first when missing (see the module's docstring)."""
    from filelock import FileLock

    root, key = cache_root(), source_key()
    done = root / key
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(root.parent / "onnx-only.lock"):  # pytest-xdist: one worker builds, the other waits for it
        if not (done / "ready").is_file():  # built in place: a venv's scripts name its path, so it cannot move
            shutil.rmtree(done, ignore_errors=True)  # a build that died half way
            _build(uv(), done)
            for old in root.iterdir():  # other keys' builds
                if old != done:
                    shutil.rmtree(old, ignore_errors=True)
    return Install(next(done.glob("dist/*.tar.gz")), next(done.glob("dist/*.whl")), done / "venv")


def _build(uv_bin: str, folder: Path) -> None:
    """sdist and wheel into ``folder/dist``, a venv with the wheel in ``folder/venv``, the guard in it."""
    dist, venv = folder / "dist", folder / "venv"
    _uv(uv_bin, "build", "--out-dir", dist, _clean_copy(folder / "source"))
    _uv(uv_bin, "venv", "--python", sys.executable, venv)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    _uv(uv_bin, "pip", "install", "--python", python, next(dist.glob("*.whl")))
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    shutil.copy(GUARD, Path(site) / GUARD.name)
    (Path(site) / "no_torch_guard.pth").write_text("import no_torch_guard\n", encoding="utf-8")
    (folder / "ready").write_text(source_key(), encoding="utf-8")


def _clean_copy(target: Path) -> Path:
    """The checkout's files as a fresh clone would have them (tracked, and new ones git does not ignore) copied to
    ``target``: built in place, setuptools would add every file an old build's ``*.egg-info/SOURCES.txt`` lists."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True,
        check=True,
    ).stdout.decode()  # fmt: skip
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():  # a tracked file deleted in the working tree is not
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def _uv(uv_bin: str, *args: str | Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "UV_FIND_LINKS", "PYTHONPATH")}
    result = subprocess.run([uv_bin, "--quiet", *map(str, args)], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"uv {' '.join(map(str, args))} failed:\n{result.stderr[-3000:]}")
