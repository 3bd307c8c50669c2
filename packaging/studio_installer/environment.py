"""The app's own environment: a uv virtual environment in the app folder with torch and the project installed.

Two ``uv pip install`` steps: torch alone from its own index (as PyTorch's install instructions do, so torch
and its CUDA libraries come from one place), then the project from the clone or release archive the installer
sits in, with its extras, from PyPI; torch, already there, satisfies the project's ``torch>=2.3``. A re-run
reinstalls the project (``--reinstall-package voice-studio``) and upgrades torch within the pinned release; when
the extras or the torch build changed since the last run, the environment is made anew.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from studio_installer.errors import InstallError
from studio_installer.layout import Layout
from studio_installer.manifest import Manifest
from studio_installer.torch_choice import TorchChoice

PYTHON_REQUEST = ">=3.10,<3.14"
"""The Pythons the app's environment may use (uv takes an installed one, else downloads one)."""
DEFAULT_EXTRAS = ("train", "compare")
PROJECT = "voice-studio"

Execute = Callable[[list[str]], None]
"""Runs one command to completion; raises InstallError when it fails."""


@dataclass(frozen=True, kw_only=True)
class Plan:
    """What goes into the environment: the project at ``source`` with ``extras``, and ``torch`` (whose
    ``requirement`` is None for no torch)."""

    source: Path
    extras: tuple[str, ...]
    torch: TorchChoice
    python: str = PYTHON_REQUEST

    def record(self) -> dict[str, str | None]:
        """The torch part of the manifest: what decides whether a re-run can keep the environment."""
        return {"kind": self.torch.kind, "requirement": self.torch.requirement, "index_url": self.torch.index_url}


def execute(argv: list[str]) -> None:
    """Run ``argv``, its output shown to the user.

    Raises:
        InstallError: the command is missing or exits with a non-zero status.
    """
    print("+ " + " ".join(argv), flush=True)
    try:
        status = subprocess.run(argv, check=False).returncode
    except OSError as exc:
        raise InstallError(f"cannot run {argv[0]}: {exc}") from None
    if status != 0:
        raise InstallError(f"{Path(argv[0]).name} {argv[1]} {argv[2]} failed with exit status {status} (see above)")


def find_uv(given: str | None, env: Mapping[str, str]) -> str:
    """The uv executable: ``--uv``, else ``$UV`` (set by ``uv run``), else ``uv`` on the PATH.

    Raises:
        InstallError: no uv is found (the wrappers install it first).
    """
    uv = given or env.get("UV") or shutil.which("uv")
    if not uv:
        raise InstallError("uv not found: run packaging/install.sh or install.ps1, which install it")
    return uv


def needs_fresh_venv(layout: Layout, plan: Plan, previous: Manifest | None) -> bool:
    """True when the environment must be made anew: none yet, or other extras or another torch build."""
    if not layout.python.exists() or previous is None:
        return True
    return list(plan.extras) != previous.extras or plan.record() != previous.torch


def commands(uv: str, layout: Layout, plan: Plan, *, fresh: bool) -> list[list[str]]:
    """The uv commands that build (``fresh``) or upgrade the environment, in order."""
    target = ["--python", str(layout.python)]
    steps = [[uv, "venv", "--python", plan.python, str(layout.venv)]] if fresh else []
    if plan.torch.requirement:
        index = ["--index-url", plan.torch.index_url] if plan.torch.index_url else []
        steps.append([uv, "pip", "install", *target, *index, "--upgrade-package", "torch", plan.torch.requirement])
    project = str(plan.source) + (f"[{','.join(plan.extras)}]" if plan.extras else "")
    steps.append([uv, "pip", "install", *target, "--reinstall-package", PROJECT, project, *plan.torch.extra])
    return steps


def build(uv: str, layout: Layout, plan: Plan, previous: Manifest | None, run: Execute = execute) -> None:
    """Build or upgrade the environment in ``layout.venv`` (made anew when :func:`needs_fresh_venv`)."""
    fresh = needs_fresh_venv(layout, plan, previous)
    if fresh and layout.venv.exists():
        shutil.rmtree(layout.venv)
    for argv in commands(uv, layout, plan, fresh=fresh):
        run(argv)


def project_version(source: Path) -> str:
    """The project's version from ``pyproject.toml`` (``version = "0.1.0"``), or ``"0"`` when not found."""
    text = (source / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r'^version\s*=\s*"([^"]+)"', text, flags=re.MULTILINE)
    return found.group(1) if found else "0"
