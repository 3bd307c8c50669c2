"""``python -m studio_installer``: install, upgrade in place (run it again) or ``--uninstall`` Voice Studio.

The wrappers ``packaging/install.sh`` and ``packaging/install.ps1`` run this with uv at hand and pass their
arguments through. Errors raised on purpose (:class:`InstallError`) become one line and exit status 2.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import platform
import sys
from collections.abc import Mapping
from pathlib import Path

from studio_installer.environment import PYTHON_REQUEST, find_uv
from studio_installer.errors import InstallError
from studio_installer.install import SOURCE, Options, Report, install
from studio_installer.layout import Layout, layout_for
from studio_installer.machine import OS_NAMES, detect
from studio_installer.uninstall import uninstall


def default_prefix(os_name: str, env: Mapping[str, str]) -> str:
    """The app folder an install without ``--prefix`` uses on ``os_name`` for ``env``'s user, as a path (or as
    docs/install.md writes it when ``env`` lacks the variables it comes from)."""
    try:
        return str(layout_for(os_name, env).prefix)
    except InstallError:
        return r"%LOCALAPPDATA%\Programs\Voice Studio" if os_name == "windows" else "~/.local/opt/voice-studio"


def build_parser(os_name: str | None = None, env: Mapping[str, str] | None = None) -> argparse.ArgumentParser:
    """The installer's arguments; ``--prefix``'s help names the default app folder on ``os_name`` (default: this
    OS) for ``env`` (default: this process's environment)."""
    os_name = os_name or OS_NAMES.get(platform.system(), "linux")
    prefix = default_prefix(os_name, os.environ if env is None else env)
    parser = argparse.ArgumentParser(prog="install", description="Install, upgrade or uninstall Voice Studio.")
    parser.add_argument("--prefix", type=Path, help=f"the app folder (default: {prefix})")
    parser.add_argument("--onnx-only", action="store_true", help="no torch: synthesis, datasets, serve")
    parser.add_argument("--cpu", action="store_true", help="the CPU build of torch even where a GPU is found")
    parser.add_argument("--uninstall", action="store_true", help="remove what the installer added, nothing else")
    parser.add_argument("--torch", metavar="REQ", help="torch requirement instead of the pinned release")
    parser.add_argument(
        "--torch-index", metavar="URL", help="torch's package index instead of PyTorch's ('none': the default index)"
    )
    parser.add_argument("--python", default=PYTHON_REQUEST, help=f"Python for the app (default {PYTHON_REQUEST})")
    parser.add_argument("--uv", help="the uv executable (default: $UV, then uv on the PATH)")
    parser.add_argument("--source", type=Path, default=SOURCE, help="the project to install (default: this tree)")
    parser.add_argument("--desktop-dir", type=Path, help=argparse.SUPPRESS)  # the Windows wrapper passes the
    parser.add_argument("--start-menu-dir", type=Path, help=argparse.SUPPRESS)  # shell's own folders
    return parser


def options_from(args: argparse.Namespace) -> Options:
    """The :class:`Options` the parsed ``args`` give, paths made absolute."""
    return Options(
        prefix=args.prefix.expanduser().resolve() if args.prefix else None,
        onnx_only=args.onnx_only,
        cpu=args.cpu,
        torch=args.torch,
        torch_index=args.torch_index,
        python=args.python,
        source=args.source.resolve(),
        desktop=args.desktop_dir,
        start_menu=args.start_menu_dir,
    )


def main(argv: list[str] | None = None) -> int:
    """Run the installer; returns the exit status (2: an error, told in one line)."""
    args = build_parser().parse_args(argv)
    options = options_from(args)
    env = dict(os.environ)
    try:
        machine = detect()
        if args.uninstall:
            layout = layout_for(
                machine.os, env, prefix=options.prefix, desktop=options.desktop, start_menu=options.start_menu
            )
            removed = uninstall(layout)
            print(
                f"Removed Voice Studio from {layout.prefix} ({len(removed)} items); your voices, runs, datasets "
                f"and settings were left as they are."
            )
            return 0
        summarize(install(options, env=env, machine=machine, uv=find_uv(args.uv, env)), env)
        return 0
    except InstallError as exc:
        print(f"install: error: {exc}", file=sys.stderr)
        return 2


def summarize(report: Report, env: Mapping[str, str]) -> None:
    """Tell the user what was installed where, and how to put the command on the PATH (``env``'s) if it is not."""
    layout, plan = report.layout, report.plan
    print(f"torch: {plan.torch.reason}" + (f" ({plan.torch.requirement})" if plan.torch.requirement else ""))
    print(f"Voice Studio installed in {layout.prefix} (extras: {', '.join(plan.extras) or 'none'}).")
    for path in report.skipped:
        print(f"note: left {path} alone: it is not the installer's")
    launchers = [name for name in report.manifest.files if name.endswith((".lnk", ".desktop", "Info.plist"))]
    for name in launchers:
        print(f"launcher: {name}")
    if layout.bin_dir:
        print(f"command: {shell_command(layout.os, layout.bin_dir / 'voice-studio')}")
    else:
        program = shell_command(layout.os, layout.venv_bin / "voice-studio.exe")
        print(f"command: {program} (the command-line program; not put on the PATH)")
    hint = path_hint(layout, env)
    if hint:
        print(hint)
    print(f"User data stays in {layout.user_data}. Undo with the same installer and --uninstall.")


def shell_command(os_name: str, *words: str | os.PathLike[str]) -> str:
    """``words`` (a program and its arguments) quoted for ``os_name``'s shell by the studio's own rule,
    ``engines/shell_command.py`` of the tree the installer sits in, loaded by its path: the installer runs before
    ``engines`` is installed, and ``import engines`` needs numpy."""
    spec = importlib.util.spec_from_file_location("shell_command", SOURCE / "engines" / "shell_command.py")
    assert spec is not None and spec.loader is not None  # the file is part of the tree
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.windows_command(list(words)) if os_name == "windows" else module.posix_command(list(words))


def path_hint(layout: Layout, env: Mapping[str, str]) -> str | None:
    """One line telling how to put ``layout.bin_dir`` on the PATH, or None where ``env``'s PATH has it already
    (or the OS has no such folder: Windows)."""
    if not layout.bin_dir:
        return None
    entries = [Path(entry).expanduser() for entry in env.get("PATH", "").split(os.pathsep) if entry]
    if layout.bin_dir in entries:
        return None
    profile = "~/.zprofile" if layout.os == "macos" else "~/.profile"
    return (
        f"note: {layout.bin_dir} is not on your PATH, so `voice-studio` alone is not found: add the line "
        f"'export PATH=\"$HOME/.local/bin:$PATH\"' to {profile} (or your shell's startup file), then log in again"
    )
