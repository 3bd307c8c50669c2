"""What the installer needs to know about the machine: OS, CPU architecture, NVIDIA driver and its CUDA version.

Commands are run through an injectable ``run(argv) -> stdout or None`` so tests describe any machine.
"""

from __future__ import annotations

import platform
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass

Runner = Callable[[list[str]], "str | None"]
"""Runs a command; returns its standard output, or None when it is missing or fails."""

OS_NAMES = {"Windows": "windows", "Linux": "linux", "Darwin": "macos"}
ARCH_NAMES = {"x86_64": "x86_64", "amd64": "x86_64", "arm64": "arm64", "aarch64": "arm64"}


@dataclass(frozen=True, kw_only=True)
class Machine:
    """The machine the studio is installed on.

    ``os`` is ``"windows"``, ``"linux"`` or ``"macos"``; ``arch`` is ``"x86_64"`` or ``"arm64"`` (aarch64 too);
    ``cuda`` is the newest CUDA version the NVIDIA driver supports, as ``nvidia-smi`` reports it in its header
    ("CUDA Version: 12.4" -> ``(12, 4)``), or None without an NVIDIA driver; ``driver`` is its version string.
    """

    os: str
    arch: str
    cuda: tuple[int, int] | None = None
    driver: str | None = None

    @property
    def apple_silicon(self) -> bool:
        """True on a Mac with an Apple M-series chip (where torch uses MPS)."""
        return self.os == "macos" and self.arch == "arm64"


def run_command(argv: list[str]) -> str | None:
    """Standard output of ``argv``, or None when the program is missing, fails or takes over 20 s."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def parse_nvidia_smi(text: str) -> tuple[tuple[int, int] | None, str | None]:
    """``(cuda, driver)`` from ``nvidia-smi``'s header ("Driver Version: 550.54.14  CUDA Version: 12.4")."""
    cuda = re.search(r"CUDA Version\s*:\s*(\d+)\.(\d+)", text)
    driver = re.search(r"Driver Version\s*:\s*([\d.]+)", text)
    return (
        (int(cuda.group(1)), int(cuda.group(2))) if cuda else None,
        driver.group(1) if driver else None,
    )


def detect(run: Runner = run_command, system: str | None = None, machine: str | None = None) -> Machine:
    """The machine this runs on (or the one ``system``/``machine``/``run`` describe, for tests).

    Raises:
        InstallError: an OS the studio has no installer for.
    """
    from studio_installer.errors import InstallError

    system = system or platform.system()
    if system not in OS_NAMES:
        raise InstallError(f"no installer for {system}: install with pip (see docs/install.md)")
    os_name = OS_NAMES[system]
    arch = (machine or platform.machine()).lower()
    arch = ARCH_NAMES.get(arch, arch)
    if os_name == "macos" and arch == "x86_64" and _translated(run):
        arch = "arm64"  # an x86_64 Python under Rosetta on Apple silicon
    smi = run(["nvidia-smi"]) if os_name != "macos" else None
    cuda, driver = parse_nvidia_smi(smi) if smi else (None, None)
    return Machine(os=os_name, arch=arch, cuda=cuda, driver=driver)


def _translated(run: Runner) -> bool:
    """True when this process runs under Rosetta (``sysctl.proc_translated`` is 1)."""
    return (run(["sysctl", "-n", "sysctl.proc_translated"]) or "").strip() == "1"
