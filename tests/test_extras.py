"""How a missing extra is explained: pip's line for a pip, uv or pipx install, the installer run again for an
environment the installer made (it has no pip, and the installer picks the torch build)."""

from __future__ import annotations

import json
import sys

from conftest import AWKWARD_FOLDER, sh_words

from engines import extras


def test_pip_line_outside_an_installer_environment(tmp_path, monkeypatch):
    """A plain virtual environment (no installer manifest beside it) is told to use pip, the extra quoted for the
    shell (zsh would glob the brackets; cmd keeps single quotes in the word)."""
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "venv"))
    monkeypatch.setattr(extras.platform, "system", lambda: "Linux")
    assert extras.install_line("train") == "pip install 'voice-studio[train]'"
    monkeypatch.setattr(extras.platform, "system", lambda: "Windows")
    assert extras.install_line("train") == 'pip install "voice-studio[train]"'


def test_installer_environment_is_told_to_rerun_the_installer(tmp_path, monkeypatch):
    """Inside an app folder the installer made: the installer's own script, from the folder it installed from,
    with that app folder as --prefix, quoted for the shell (an awkward folder: sh reads each path as one word;
    PowerShell's quotes on Windows); a broken manifest falls back to pip's line."""
    app, source = tmp_path / AWKWARD_FOLDER / "app", tmp_path / "clone $HOME"
    (app / "venv").mkdir(parents=True)
    manifest = app / extras.INSTALLER_MANIFEST
    manifest.write_text(json.dumps({"schema": 1, "prefix": str(app), "source": str(source)}), encoding="utf-8")
    monkeypatch.setattr(sys, "prefix", str(app / "venv"))
    monkeypatch.setattr(extras.platform, "system", lambda: "Linux")
    said, command = extras.install_line("train").split(": ", 1)
    assert said == "run the installer again without --onnx-only"
    assert sh_words(command) == ["bash", f"{source}/packaging/install.sh", "--prefix", str(app)]
    monkeypatch.setattr(extras.platform, "system", lambda: "Windows")
    script = source / "packaging" / "install.ps1"
    assert extras.install_line("compare").endswith(f"-File '{script}' --prefix \"{app}\"")
    assert extras.install_line("train").split(": ", 1)[1].startswith("powershell -ExecutionPolicy Bypass -File")
    manifest.write_text("{not json", encoding="utf-8")
    assert extras.install_line("train") == 'pip install "voice-studio[train]"'
