"""Helpers for the installer tests: ``packaging/`` on ``sys.path``, machines, a temporary home, and a stand-in
for uv and PowerShell that records each command and leaves the files the real ones would."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "packaging"))

from studio_installer.machine import Machine  # noqa: E402

LINUX = Machine(os="linux", arch="x86_64")
MAC = Machine(os="macos", arch="arm64")
WINDOWS_CUDA = Machine(os="windows", arch="x86_64", cuda=(12, 8), driver="572.16")


def home_env(home: Path, os_name: str) -> dict[str, str]:
    """The environment variables of a user whose home is ``home`` on ``os_name``."""
    if os_name == "windows":
        return {
            "USERPROFILE": str(home),
            "LOCALAPPDATA": str(home / "AppData" / "Local"),
            "APPDATA": str(home / "AppData" / "Roaming"),
        }
    return {"HOME": str(home)}


class FakeTools:
    """Runs nothing: records each command, makes the environment's executables on ``uv venv`` and the ``.lnk``
    files a ``shortcuts.ps1`` names on ``powershell.exe``."""

    def __init__(self) -> None:
        self.commands: list[list[str]] = []

    def __call__(self, argv: list[str]) -> None:
        self.commands.append(argv)
        if argv[1:2] == ["venv"]:
            venv = Path(argv[-1])
            for name in ("bin/python", "bin/voice-studio", "Scripts/python.exe", "Scripts/pythonw.exe"):
                (venv / name).parent.mkdir(parents=True, exist_ok=True)
                (venv / name).write_text("")
        if argv[0] == "powershell.exe":
            script = Path(argv[-1]).read_text(encoding="utf-8-sig")
            listed = re.search(r"foreach \(\$path in @\((.*)\)\)", script).group(1)
            for path in re.findall(r"'((?:[^']|'')*)'", listed):
                Path(path.replace("''", "'")).write_bytes(b"L\0\0\0")

    def uv_commands(self, verb: str) -> list[list[str]]:
        """The uv commands run whose subcommand is ``verb`` (``"venv"``, ``"pip"``)."""
        return [argv for argv in self.commands if argv[0] == "uv" and argv[1] == verb]
