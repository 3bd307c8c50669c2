"""``python -m studio_installer``: install, upgrade in place (run it again) or ``--uninstall`` Voice Studio.

The wrappers ``packaging/install.sh`` and ``packaging/install.ps1`` run this with uv at hand and pass their
arguments through. Errors raised on purpose (:class:`InstallError`) become one line and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from studio_installer.environment import PYTHON_REQUEST, find_uv
from studio_installer.errors import InstallError
from studio_installer.install import SOURCE, Options, Report, install
from studio_installer.layout import layout_for
from studio_installer.machine import detect
from studio_installer.uninstall import uninstall


def build_parser() -> argparse.ArgumentParser:
    """The installer's arguments."""
    parser = argparse.ArgumentParser(prog="install", description="Install, upgrade or uninstall Voice Studio.")
    parser.add_argument("--prefix", type=Path, help="the app folder (default: see the README's Install section)")
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
        summarize(install(options, env=env, machine=machine, uv=find_uv(args.uv, env)))
        return 0
    except InstallError as exc:
        print(f"install: error: {exc}", file=sys.stderr)
        return 2


def summarize(report: Report) -> None:
    """Tell the user what was installed where."""
    layout, plan = report.layout, report.plan
    print(f"torch: {plan.torch.reason}" + (f" ({plan.torch.requirement})" if plan.torch.requirement else ""))
    print(f"Voice Studio installed in {layout.prefix} (extras: {', '.join(plan.extras) or 'none'}).")
    for path in report.skipped:
        print(f"note: left {path} alone: it is not the installer's")
    launchers = [name for name in report.manifest.files if name.endswith((".lnk", ".desktop", "Info.plist"))]
    for name in launchers:
        print(f"launcher: {name}")
    if layout.bin_dir:
        print(f"command: {layout.bin_dir / 'voice-studio'}")
    print(f"User data stays in {layout.user_data}. Undo with the same installer and --uninstall.")
