"""The studio's version: ``pyproject.toml``'s in a source checkout, else the installed package's metadata.

A checkout (``python -m studio`` from the repository, installed editable or not) answers from the
``pyproject.toml`` beside the packages, so an editable install whose metadata is older than the file still says
what the code is; an installed wheel (no ``pyproject.toml`` there) answers from ``importlib.metadata``.
"""

from __future__ import annotations

import re
from pathlib import Path

DISTRIBUTION = "voice-studio"
"""The name the package is published and installed under."""
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
"""Where a source checkout keeps the version: the repository root, above ``studio/``."""


def version() -> str:
    """The version, e.g. ``0.1.0``; ``0.1.0 (source checkout)`` from a checkout's ``pyproject.toml``;
    ``unknown`` when neither the file nor the package's metadata is found."""
    from_source = source_version(PYPROJECT)
    if from_source:
        return f"{from_source} (source checkout)"
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as installed

    try:
        return installed(DISTRIBUTION)
    except PackageNotFoundError:
        return "unknown"


def source_version(pyproject: Path) -> str | None:
    """The ``version`` of ``[project]`` in ``pyproject`` when that file is ours (``name = "voice-studio"``);
    ``None`` when it is missing, unreadable or another project's."""
    try:
        text = pyproject.read_text(encoding="utf-8")
    except OSError:
        return None
    project = re.search(r"^\[project\]\s*$(.*?)(?=^\[|\Z)", text, re.MULTILINE | re.DOTALL)
    if project is None or not re.search(rf'^name\s*=\s*"{DISTRIBUTION}"', project.group(1), re.MULTILINE):
        return None
    found = re.search(r'^version\s*=\s*"([^"]+)"', project.group(1), re.MULTILINE)
    return found.group(1) if found else None
