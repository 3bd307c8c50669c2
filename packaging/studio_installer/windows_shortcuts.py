"""The Windows launchers: ``launch.pyw`` in the app folder, and Start-menu and desktop shortcuts to it.

The shortcuts run the environment's ``pythonw.exe`` (no console window) on ``launch.pyw``, which sets the launch
environment (the compiler caches) and opens the studio. ``.lnk`` files are written by PowerShell through the
``WScript.Shell`` COM object (``CreateShortcut``, then ``Save``), from a small generated ``shortcuts.ps1``.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from studio_installer.layout import Layout

SHORTCUT_NAME = "Voice Studio.lnk"
LAUNCH_SCRIPT = "launch.pyw"
POWERSHELL_SCRIPT = "shortcuts.ps1"


def launch_script(env: dict[str, str]) -> str:
    """``launch.pyw``'s text: standard streams where ``pythonw.exe`` gives none, ``env`` set (unless the user set
    a variable already), then the studio."""
    sets = "".join(f"os.environ.setdefault({name!r}, {value!r})\n" for name, value in sorted(env.items()))
    return (
        '"""Voice Studio\'s launcher, written by the installer: the launch environment, then the studio."""\n'
        "import os\nimport sys\n\n"
        "for stream in ('stdout', 'stderr'):  # pythonw.exe has none; writes to them must not fail\n"
        "    if getattr(sys, stream) is None:\n"
        "        setattr(sys, stream, open(os.devnull, 'w'))\n"
        f"{sets}"
        "from studio.cli import main\n\n"
        "sys.exit(main())\n"
    )


def ps_quote(text: str) -> str:
    """``text`` as a PowerShell single-quoted string (a quote inside is doubled)."""
    return "'" + text.replace("'", "''") + "'"


def shortcuts_script(layout: Layout, shortcuts: list[Path], icon: Path) -> str:
    """``shortcuts.ps1``: one ``.lnk`` per path in ``shortcuts``, each opening the studio through ``launch.pyw``."""
    paths = ", ".join(ps_quote(str(path)) for path in shortcuts)
    fields = {
        "TargetPath": str(layout.venv_bin / "pythonw.exe"),
        "Arguments": f'"{layout.prefix / LAUNCH_SCRIPT}"',
        "WorkingDirectory": str(layout.home),
        "IconLocation": f"{icon},0",
        "Description": "Make and use Piper text-to-speech voices",
    }
    sets = "".join(f"    $link.{name} = {ps_quote(value)}\n" for name, value in fields.items())
    return (
        "# Voice Studio's shortcuts, written by the installer (install-manifest.json lists them).\n"
        "$ErrorActionPreference = 'Stop'\n"
        "$shell = New-Object -ComObject WScript.Shell\n"
        f"foreach ($path in @({paths})) {{\n"
        "    New-Item -ItemType Directory -Force -Path (Split-Path -Parent $path) | Out-Null\n"
        "    $link = $shell.CreateShortcut($path)\n"
        f"{sets}"
        "    $link.Save()\n"
        "}\n"
    )


def powershell_file(text: str) -> bytes:
    """``text`` encoded as Windows PowerShell 5.1 reads a ``-File`` script right: UTF-8 with a byte-order mark
    (without one it decodes the script in the ANSI code page, garbling a path such as ``C:\\Users\\José``)."""
    return codecs.BOM_UTF8 + text.encode("utf-8")


def powershell_command(script: Path) -> list[str]:
    """The command that runs ``script`` under Windows PowerShell 5.1, whatever the execution policy."""
    return ["powershell.exe", "-NoProfile", "-NonInteractive", "-ExecutionPolicy", "Bypass", "-File", str(script)]
