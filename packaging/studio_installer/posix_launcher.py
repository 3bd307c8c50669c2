"""The ``voice-studio`` command on Linux and macOS: a shell script that sets the launch environment and runs the
environment's ``voice-studio`` (the window without arguments, the CLI with a subcommand)."""

from __future__ import annotations

import shlex

from studio_installer.layout import Layout


def script(layout: Layout, env: dict[str, str]) -> str:
    """The launcher script's text."""
    exports = "".join(f"export {name}={shlex.quote(value)}\n" for name, value in sorted(env.items()))
    target = shlex.quote(str(layout.venv_bin / "voice-studio"))
    return (
        "#!/bin/sh\n"
        f"# Voice Studio, installed in {layout.prefix} (its install-manifest.json lists this file).\n"
        f'{exports}exec {target} "$@"\n'
    )
