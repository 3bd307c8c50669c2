"""How a missing extra is explained: pip's line for a pip, uv or pipx install, the installer run again for an
environment the installer made (it has no pip, and the installer picks the torch build)."""

from __future__ import annotations

import json
import sys

from engines import extras


def test_pip_line_outside_an_installer_environment(tmp_path, monkeypatch):
    """A plain virtual environment (no installer manifest beside it) is told to use pip."""
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    assert extras.install_line("train") == "pip install 'voice-studio[train]'"


def test_installer_environment_is_told_to_rerun_the_installer(tmp_path, monkeypatch):
    """Inside an app folder the installer made: the installer's own script, from the folder it installed from,
    with that app folder as --prefix; a broken manifest falls back to pip's line."""
    app, source = tmp_path / "app folder", tmp_path / "clone"
    (app / "venv").mkdir(parents=True)
    manifest = app / extras.INSTALLER_MANIFEST
    manifest.write_text(json.dumps({"schema": 1, "prefix": str(app), "source": str(source)}), encoding="utf-8")
    monkeypatch.setattr(sys, "prefix", str(app / "venv"))
    monkeypatch.setattr(extras.platform, "system", lambda: "Linux")
    line = extras.install_line("train")
    assert line == f"run the installer again without --onnx-only: bash '{source}/packaging/install.sh' --prefix '{app}'"
    monkeypatch.setattr(extras.platform, "system", lambda: "Windows")
    assert extras.install_line("compare").endswith(f'install.ps1" --prefix "{app}"')
    manifest.write_text("{not json", encoding="utf-8")
    assert extras.install_line("train").startswith("pip install")
