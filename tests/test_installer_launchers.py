"""What an installation writes, per OS, into a temporary home (uv and PowerShell stood in for): the launchers
and their contents, the same manifest on a re-run, and an uninstall that leaves the user's voices alone."""

from __future__ import annotations

import json
import os
import plistlib
import re
import shlex
import struct
import sys
import types

import pytest
from installer_fakes import LINUX, MAC, ROOT, WINDOWS_CUDA, FakeTools, home_env
from studio_installer.errors import InstallError
from studio_installer.install import Options, install
from studio_installer.layout import layout_for
from studio_installer.uninstall import uninstall
from studio_installer.windows_shortcuts import SHORTCUT_NAME

PNG = (ROOT / "assets" / "voice-studio.png").read_bytes()


def _install(home, machine, **options):
    """Install for ``machine`` into ``home`` with the stand-in tools; returns (report, tools)."""
    tools = FakeTools()
    report = install(Options(**options), env=home_env(home, machine.os), machine=machine, uv="uv", run=tools)
    return report, tools


def _desktop_keys(path):
    """The ``key=value`` lines of a ``.desktop`` file."""
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def test_linux_menu_entry_runs_the_launcher_with_the_icon(tmp_path):
    """Linux: a .desktop entry whose Exec runs the launcher script and whose Icon is the app's PNG."""
    report, tools = _install(tmp_path, LINUX)
    layout = report.layout
    keys = _desktop_keys(layout.applications / "voice-studio.desktop")
    launcher = layout.prefix / "bin" / "voice-studio"
    assert keys["Exec"] == str(launcher) and keys["Type"] == "Application" and keys["Terminal"] == "false"
    assert open(keys["Icon"], "rb").read() == PNG
    assert shlex.split(launcher.read_text().splitlines()[-1]) == ["exec", str(layout.venv_bin / "voice-studio"), "$@"]
    assert (layout.bin_dir / "voice-studio").read_text() == launcher.read_text()
    assert (layout.bin_dir / "voice-studio").stat().st_mode & 0o111


def test_linux_install_runs_uv_for_venv_torch_and_project(tmp_path):
    """The environment: a venv, torch from the CPU index, then this checkout with train and compare."""
    _, tools = _install(tmp_path, LINUX)
    venv, torch, project = tools.uv_commands("venv") + tools.uv_commands("pip")
    assert venv[:2] == ["uv", "venv"]
    assert torch[torch.index("--index-url") + 1] == "https://download.pytorch.org/whl/cpu"
    assert project[-1] == f"{ROOT}[train,compare]"


def test_exec_with_spaces_is_quoted_as_the_spec_asks(tmp_path):
    """An app folder with a space gives an Exec line that splits back into that one path."""
    report, _ = _install(tmp_path, LINUX, prefix=tmp_path / "My Apps" / "voice studio")
    keys = _desktop_keys(report.layout.applications / "voice-studio.desktop")
    assert shlex.split(keys["Exec"]) == [str(report.layout.prefix / "bin" / "voice-studio")]


def test_macos_app_bundle(tmp_path):
    """macOS: ~/Applications/Voice Studio.app with an Info.plist naming its launcher and its icon."""
    report, _ = _install(tmp_path, MAC)
    contents = tmp_path / "Applications" / "Voice Studio.app" / "Contents"
    info = plistlib.loads((contents / "Info.plist").read_bytes())
    executable = contents / "MacOS" / info["CFBundleExecutable"]
    assert executable.stat().st_mode & 0o111 and str(report.layout.venv_bin / "voice-studio") in executable.read_text()
    icns = (contents / "Resources" / (info["CFBundleIconFile"] + ".icns")).read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns) and icns.endswith(PNG)


def test_windows_shortcuts_script_and_compiler_caches(tmp_path):
    """Windows with CUDA: a PowerShell script writes Start-menu and desktop shortcuts to pythonw on launch.pyw,
    which puts the Triton and Inductor caches in the app folder; triton-windows is installed."""
    report, tools = _install(tmp_path, WINDOWS_CUDA)
    layout = report.layout
    script = (layout.prefix / "shortcuts.ps1").read_text()
    links = [layout.start_menu / SHORTCUT_NAME, layout.desktop / SHORTCUT_NAME]
    assert f"@('{links[0]}', '{links[1]}')" in script and "New-Object -ComObject WScript.Shell" in script
    assert f"$link.TargetPath = '{layout.venv_bin / 'pythonw.exe'}'" in script
    assert f"$link.Arguments = '\"{layout.prefix / 'launch.pyw'}\"'" in script
    assert f"$link.IconLocation = '{layout.prefix / 'voice-studio.ico'},0'" in script and "$link.Save()" in script
    assert tools.commands[-1][0] == "powershell.exe" and all(str(link) in report.manifest.files for link in links)
    launch = (layout.prefix / "launch.pyw").read_text()
    for name, folder in (("TRITON_CACHE_DIR", "triton"), ("TORCHINDUCTOR_CACHE_DIR", "inductor")):
        assert f"os.environ.setdefault({name!r}, {str(layout.caches / folder)!r})" in launch
        assert (layout.caches / folder).is_dir()
    compile(launch, "launch.pyw", "exec")
    assert tools.uv_commands("pip")[-1][-1].startswith("triton-windows")


def test_windows_icon_is_an_ico_holding_the_png(tmp_path):
    """The shortcut's .ico has one 256×256 entry whose data is the app's PNG."""
    report, _ = _install(tmp_path, WINDOWS_CUDA)
    data = (report.layout.prefix / "voice-studio.ico").read_bytes()
    _, kind, count, width, height, _, _, _, bits, size, offset = struct.unpack("<HHHBBBBHHII", data[:22])
    assert (kind, count, width, height, bits) == (1, 1, 0, 0, 32) and data[offset : offset + size] == PNG


def test_powershell_quotes_are_doubled(tmp_path):
    """A home folder with an apostrophe stays one PowerShell string."""
    report, _ = _install(tmp_path / "O'Brien", WINDOWS_CUDA)
    assert "O''Brien" in (report.layout.prefix / "shortcuts.ps1").read_text()


def test_shortcuts_script_is_utf8_with_a_bom_for_windows_powershell(tmp_path):
    """``shortcuts.ps1`` starts with UTF-8's byte-order mark (PowerShell 5.1 reads a script without one in the
    ANSI code page) and holds a non-ASCII home folder as UTF-8; ``install.ps1``, without a mark, is ASCII."""
    report, _ = _install(tmp_path / "José", WINDOWS_CUDA)
    data = (report.layout.prefix / "shortcuts.ps1").read_bytes()
    assert data.startswith(b"\xef\xbb\xbf") and "José".encode() in data
    assert f"'{report.layout.desktop / SHORTCUT_NAME}'" in data.decode("utf-8-sig")
    assert (ROOT / "packaging" / "install.ps1").read_bytes().isascii()


@pytest.mark.parametrize("machine", [LINUX, MAC, WINDOWS_CUDA], ids=["linux", "macos", "windows"])
def test_rerun_upgrades_in_place_with_the_same_manifest(tmp_path, machine):
    """Installing twice gives the same manifest, without duplicates, and reuses the environment."""
    first, _ = _install(tmp_path, machine)
    manifest = first.layout.manifest.read_text()
    second, tools = _install(tmp_path, machine)
    assert second.layout.manifest.read_text() == manifest and not second.removed and not second.skipped
    saved = json.loads(manifest)
    assert all(len(saved[key]) == len(set(saved[key])) for key in ("files", "trees", "folders"))
    project = tools.uv_commands("pip")[-1]
    assert not tools.uv_commands("venv") and project[project.index("--reinstall-package") + 1] == "voice-studio"


def test_switching_to_onnx_only_remakes_the_environment(tmp_path):
    """A re-run with --onnx-only makes a fresh environment without torch and extras."""
    _install(tmp_path, LINUX)
    report, tools = _install(tmp_path, LINUX, onnx_only=True)
    assert len(tools.uv_commands("venv")) == 1 and len(tools.uv_commands("pip")) == 1
    assert report.manifest.extras == [] and report.manifest.torch["kind"] == "none"


@pytest.mark.parametrize("machine", [LINUX, MAC, WINDOWS_CUDA], ids=["linux", "macos", "windows"])
def test_uninstall_removes_what_was_added_and_leaves_user_data(tmp_path, machine):
    """Uninstall removes every file, tree and created folder, and leaves the user's voices and settings."""
    layout = layout_for(machine.os, home_env(tmp_path, machine.os))
    voice = layout.user_data / "voices" / "mine.onnx"
    voice.parent.mkdir(parents=True)
    voice.write_bytes(b"my voice")
    (layout.user_config / "settings.json").parent.mkdir(parents=True, exist_ok=True)
    (layout.user_config / "settings.json").write_text("{}")
    before = {p for p in tmp_path.rglob("*")}
    report, _ = _install(tmp_path, machine)
    uninstall(report.layout)
    assert {p for p in tmp_path.rglob("*")} == before
    assert voice.read_bytes() == b"my voice"


def test_files_not_of_ours_are_left_alone(tmp_path):
    """A ``voice-studio`` command some other install put in ~/.local/bin is neither overwritten nor removed."""
    other = tmp_path / ".local" / "bin" / "voice-studio"
    other.parent.mkdir(parents=True)
    other.write_text("#!/bin/sh\necho pipx\n")
    report, _ = _install(tmp_path, LINUX)
    assert report.skipped == [other] and str(other) not in report.manifest.files
    uninstall(report.layout)
    assert other.read_text() == "#!/bin/sh\necho pipx\n"


@pytest.mark.parametrize("wrapper", ["install.sh", "install.ps1"])
def test_wrappers_pass_only_options_the_installer_knows(wrapper):
    """Every ``--option`` a wrapper passes to ``python -m studio_installer`` is one its parser accepts."""
    from studio_installer.cli import build_parser

    text = (ROOT / "packaging" / wrapper).read_text()
    calls = re.findall(r"-m studio_installer((?:[^\n]*`\n)*[^\n]*)", text)  # to the line's end (or `-continued)
    passed = {option for call in calls for option in re.findall(r"(?<![\w-])--[a-z][a-z-]+", call)}
    known = {option for action in build_parser()._actions for option in action.option_strings}
    assert "--help" in passed and "--uv" in passed and passed <= known


def test_uninstall_without_an_installation_is_one_line_and_status_2(tmp_path, capsys, monkeypatch):
    """``--uninstall`` where nothing is installed says so in one line, exit status 2, and removes nothing."""
    from studio_installer.cli import main

    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "keep.txt").write_text("x")
    assert main(["--uninstall", "--prefix", str(tmp_path / "app")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no Voice Studio installation" in err and (tmp_path / "keep.txt").exists()


def test_failed_first_install_can_be_run_again_or_uninstalled(tmp_path):
    """A first install whose uv step fails leaves a manifest: a re-run completes it, an uninstall removes it."""

    def failing(argv):
        FakeTools()(argv)
        if argv[1:2] == ["pip"]:
            raise InstallError("uv pip install failed")

    env = home_env(tmp_path, "linux")
    with pytest.raises(InstallError):
        install(Options(), env=env, machine=LINUX, uv="uv", run=failing)
    report, _ = _install(tmp_path, LINUX)
    assert (report.layout.applications / "voice-studio.desktop").exists()
    uninstall(report.layout)
    assert not report.layout.prefix.exists()


def test_launch_script_sets_the_caches_then_runs_the_studio(tmp_path, monkeypatch):
    """``launch.pyw`` run as pythonw runs it (no standard streams) sets the cache variables, keeps one the user
    set, and hands over to ``studio.cli.main``, whose status it exits with."""
    report, _ = _install(tmp_path, WINDOWS_CUDA)
    seen = {}

    def fake_main():
        seen.update(os.environ, stdout=sys.stdout)
        return 7

    monkeypatch.setitem(sys.modules, "studio.cli", types.SimpleNamespace(main=fake_main))
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", "mine")
    monkeypatch.delenv("TRITON_CACHE_DIR", raising=False)
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(SystemExit) as exit_info:
        exec((report.layout.prefix / "launch.pyw").read_text(), {"__name__": "__main__"})
    assert exit_info.value.code == 7 and seen["stdout"] is not None
    assert seen["TRITON_CACHE_DIR"] == str(report.layout.caches / "triton")
    assert seen["TORCHINDUCTOR_CACHE_DIR"] == "mine"
