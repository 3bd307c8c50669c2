"""The optional parts of an install (pip extras): whether each is here, and the one line that says how to add it.

``pip install voice-studio`` (no extras) speaks ONNX voices, curates datasets and serves speech without torch;
training, checkpoints (``.ckpt``) and the leaderboard's measures need extras. Whether an extra is installed is
answered by :func:`importlib.util.find_spec` on its top-level modules, which finds a package without importing
it, so asking never loads torch (``tests/test_onnx_only.py`` checks that no path of an ONNX-only install even
tries to import it).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import platform
import re
import sys
from pathlib import Path

from engines.errors import VoiceStudioError
from engines.shell_command import shell_command

MODULES: dict[str, tuple[str, ...]] = {
    "torch": ("torch",),
    "train": ("torch", "lightning", "numba"),
    "compare": ("pyworld", "pysptk", "librosa", "jiwer", "speechmos", "resemblyzer"),
    "zeroconf": ("zeroconf",),
}
"""Extra (as pyproject.toml names it) -> the modules of it that our code imports."""

NOT_ON_WINDOWS = {"resemblyzer"}
"""Modules an extra leaves out on Windows (resemblyzer needs webrtcvad, which has no Windows wheels)."""


class ExtraMissing(VoiceStudioError, RuntimeError):
    """A feature needs an extra that is not installed; the message is the one line :func:`explain` gives."""


def missing(extra: str) -> list[str]:
    """The modules of ``extra`` (a key of :data:`MODULES`) not installed here, found without importing them.

    Raises:
        KeyError: an unknown extra.
    """
    wanted = [m for m in MODULES[extra] if not (m in NOT_ON_WINDOWS and platform.system() == "Windows")]
    return [m for m in wanted if importlib.util.find_spec(m) is None]


INSTALLER_MANIFEST = "install-manifest.json"
"""What ``packaging/studio_installer`` writes in its app folder, beside the environment (``venv``) it made."""


def install_line(extra: str) -> str:
    """The command that adds ``extra``: ``pip install 'voice-studio[train]'``, or, in an environment our
    installer made (an ``--onnx-only`` install: no pip in it, and its torch build chosen for the machine), the
    installer run again without ``--onnx-only``, from the folder it installed from."""
    command = _installer_command()
    if command is None:
        return shell_command("pip", "install", f"voice-studio[{extra}]")
    return f"run the installer again without --onnx-only: {command}"


def repair_line(package: str) -> str:
    """The command that puts a damaged package back as it was installed: in an environment our installer made,
    the installer run again from the folder it installed from; else ``pip install --force-reinstall --no-deps
    PACKAGE==VERSION`` (the version installed now, so nothing else changes)."""
    command = _installer_command()
    if command is not None:
        return f"run the installer again: {command}"
    try:
        pinned = f"{package}=={importlib.metadata.version(package)}"
    except importlib.metadata.PackageNotFoundError:
        pinned = package
    return shell_command("pip", "install", "--force-reinstall", "--no-deps", pinned)


def _installer_command() -> str | None:
    """The command that runs our installer again into this environment's app folder, or None where our installer
    did not make this environment."""
    installed = _installer_source()
    if installed is None:
        return None
    source, prefix = installed
    if platform.system() == "Windows":
        script = source / "packaging" / "install.ps1"
        return shell_command("powershell", "-ExecutionPolicy", "Bypass", "-File", script, "--prefix", prefix)
    return shell_command("bash", source / "packaging" / "install.sh", "--prefix", prefix)


def _installer_source(environment: Path | None = None) -> tuple[Path, Path] | None:
    """``(folder installed from, app folder)`` when ``environment`` (default: this interpreter's, ``sys.prefix``)
    was made by our installer, else None (a pip, uv or pipx install, or a checkout)."""
    folder = Path(environment or sys.prefix).parent
    try:
        manifest = json.loads((folder / INSTALLER_MANIFEST).read_text(encoding="utf-8"))
        source = Path(manifest["source"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return source, folder


def explain(extra: str, what: str) -> str:
    """One line saying that ``what`` (e.g. ``"Training"``) needs ``extra`` and how to add it, or ``""`` when
    ``extra`` is installed: ``Training needs torch, lightning, numba (not installed): pip install
    'voice-studio[train]'``."""
    absent = missing(extra)
    return f"{what} needs {', '.join(absent)} (not installed): {install_line(extra)}" if absent else ""


def require(extra: str, what: str) -> None:
    """Return when ``extra`` is installed.

    Raises:
        ExtraMissing: it is not; the message is :func:`explain`'s line.
    """
    line = explain(extra, what)
    if line:
        raise ExtraMissing(line)


GPU_DRIVER_FILES = ("/proc/driver/nvidia/version", "/dev/nvidiactl")
"""Files an NVIDIA driver makes on Linux (a CUDA build of torch needs one to see a GPU)."""


def torch_device() -> str | None:
    """The device the torch engine will run on, guessed without importing torch: ``"cuda"`` (a CUDA build of
    torch and an NVIDIA driver), ``"cpu"``, or ``None`` (torch is not installed).

    A guess for the engine picker at app start (importing torch takes seconds); the engine itself asks torch
    (``engines.torch.engine.pick_device``). Reads torch's ``version.py`` (``cuda = '12.4'`` or ``None``), the
    driver's files (:data:`GPU_DRIVER_FILES`, ``nvcuda.dll`` on Windows) and ``CUDA_VISIBLE_DEVICES``.
    """
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        return None
    try:
        version = (Path(next(iter(spec.submodule_search_locations))) / "version.py").read_text(encoding="utf-8")
    except OSError:
        version = ""
    return expected_torch_device(version, driver=_gpu_driver(), visible=os.environ.get("CUDA_VISIBLE_DEVICES"))


def expected_torch_device(version: str, *, driver: bool, visible: str | None) -> str:
    """``"cuda"`` when torch's ``version.py`` text ``version`` names a CUDA build, an NVIDIA ``driver`` is present
    and ``visible`` (``CUDA_VISIBLE_DEVICES``; ``None``: unset) does not hide every GPU; else ``"cpu"``."""
    built = re.search(r"^cuda\s*(?::[^=]*)?=\s*['\"]\d", version, re.MULTILINE) is not None
    hidden = visible is not None and visible.strip() in ("", "-1")
    return "cuda" if built and driver and not hidden else "cpu"


def _gpu_driver() -> bool:
    """Whether an NVIDIA driver is installed (its files on Linux, ``nvcuda.dll`` on Windows; macOS has none)."""
    if platform.system() == "Windows":
        return (Path(os.environ.get("SystemRoot", r"C:\Windows")) / "System32" / "nvcuda.dll").is_file()
    return any(Path(f).exists() for f in GPU_DRIVER_FILES)
