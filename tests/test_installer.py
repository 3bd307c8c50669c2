"""The installer's choices: the torch build for a machine, the machine read from nvidia-smi, the app folder kept
apart from the user's data."""

from __future__ import annotations

import pytest
from installer_fakes import LINUX, MAC, home_env
from studio_installer.errors import InstallError
from studio_installer.layout import check_prefix, layout_for
from studio_installer.machine import Machine, detect, parse_nvidia_smi
from studio_installer.torch_choice import CUDA_BUILDS, INDEX_ROOT, TRITON_WINDOWS_REQUIREMENT, choose

NVIDIA_SMI = """Mon Dec  1 10:00:00 2025
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.14              Driver Version: 550.54.14      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
"""


def _gpu(cuda: tuple[int, int], os_name: str = "linux") -> Machine:
    """A machine with an NVIDIA driver that supports CUDA ``cuda``."""
    return Machine(os=os_name, arch="x86_64", cuda=cuda, driver="999.1")


def test_no_gpu_gets_the_cpu_index():
    """Without an NVIDIA driver torch comes from PyTorch's CPU index."""
    choice = choose(LINUX)
    assert (choice.kind, choice.index_url, choice.extra) == ("cpu", INDEX_ROOT + "cpu", ())
    assert choice.requirement.startswith("torch")


@pytest.mark.parametrize(
    ("driver_cuda", "tag"),
    [((12, 4), "cu126"), ((12, 6), "cu126"), ((12, 8), "cu126"), ((13, 0), "cu130"), ((13, 2), "cu130")],
)
def test_cuda_build_is_one_the_driver_runs(driver_cuda, tag):
    """A driver gets the newest build no newer than its CUDA version, or its major version's oldest build."""
    choice = choose(_gpu(driver_cuda))
    assert (choice.kind, choice.index_url) == ("cuda", INDEX_ROOT + tag)
    assert choice.cuda in CUDA_BUILDS and (choice.cuda <= driver_cuda or choice.cuda[0] == driver_cuda[0])


@pytest.mark.parametrize("driver_cuda", [(11, 8), (10, 2)])
def test_driver_too_old_falls_back_to_cpu_and_says_why(driver_cuda):
    """A CUDA 11 driver runs none of torch 2.13's builds: the CPU build, with a line asking for a newer driver."""
    choice = choose(_gpu(driver_cuda))
    assert choice.kind == "cpu" and "update the driver" in choice.reason
    assert "{}.{}".format(*driver_cuda) in choice.reason


def test_cpu_flag_wins_over_the_gpu():
    """``--cpu`` takes the CPU build on a machine with a working driver."""
    assert choose(_gpu((12, 8)), force_cpu=True).kind == "cpu"


def test_apple_silicon_gets_the_default_wheel_with_mps():
    """macOS arm64: the default PyPI torch (its MPS build), no other index; Intel Macs get no torch at all."""
    assert (choose(MAC).kind, choose(MAC).index_url) == ("mps", None)
    intel = choose(Machine(os="macos", arch="x86_64"))
    assert (intel.kind, intel.requirement) == ("none", None)


def test_windows_with_cuda_adds_triton_windows():
    """Windows with CUDA gets triton-windows with the CUDA build; Linux with CUDA and Windows without do not."""
    assert choose(_gpu((12, 8), "windows")).extra == (TRITON_WINDOWS_REQUIREMENT,)
    assert choose(_gpu((12, 8), "linux")).extra == ()
    assert choose(Machine(os="windows", arch="x86_64")).extra == ()


def test_nvidia_smi_header_is_parsed():
    """The driver and CUDA versions come from nvidia-smi's header; no nvidia-smi means no GPU."""
    assert parse_nvidia_smi(NVIDIA_SMI) == ((12, 4), "550.54.14")
    assert detect(lambda argv: NVIDIA_SMI if argv == ["nvidia-smi"] else None, "Linux", "x86_64").cuda == (12, 4)
    assert detect(lambda argv: None, "Windows", "AMD64") == Machine(os="windows", arch="x86_64")


def test_rosetta_python_on_apple_silicon_is_seen_as_arm64():
    """An x86_64 Python under Rosetta still installs for Apple silicon (sysctl.proc_translated = 1)."""
    machine = detect(lambda argv: "1\n" if argv[0] == "sysctl" else None, "Darwin", "x86_64")
    assert machine.apple_silicon


@pytest.mark.parametrize("os_name", ["linux", "macos", "windows"])
def test_default_app_folder_is_apart_from_user_data(tmp_path, os_name):
    """On each OS the default app folder passes the check, and neither holds the other."""
    layout = layout_for(os_name, home_env(tmp_path, os_name))
    check_prefix(layout)
    for mine in (layout.user_data, layout.user_config):
        assert mine not in (layout.prefix, *layout.prefix.parents) and layout.prefix not in mine.parents


def test_app_folder_inside_user_data_or_foreign_folder_is_refused(tmp_path):
    """An app folder in the user's data, or a non-empty folder that is not an installation, is refused."""
    env = home_env(tmp_path, "linux")
    user_data = layout_for("linux", env).user_data
    with pytest.raises(InstallError, match="overlaps"):
        check_prefix(layout_for("linux", env, prefix=user_data / "app"))
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(InstallError, match="not empty"):
        check_prefix(layout_for("linux", env, prefix=foreign))


def test_xdg_data_home_moves_the_user_data_and_menu_entry(tmp_path):
    """``XDG_DATA_HOME`` moves the studio's data and the menu entry, as platformdirs and the XDG spec do."""
    layout = layout_for("linux", {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")})
    assert layout.user_data == tmp_path / "data" / "voice-studio"
    assert layout.applications == tmp_path / "data" / "applications"


def test_user_folders_match_platformdirs(tmp_path, monkeypatch):
    """The user data and settings folders the installer keeps clear of are the ones the studio uses."""
    import platformdirs

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "conf"))
    layout = layout_for(
        "linux",
        {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "share"), "XDG_CONFIG_HOME": str(tmp_path / "conf")},
    )
    assert layout.user_data == platformdirs.user_data_path("voice-studio", appauthor=False)
    assert layout.user_config == platformdirs.user_config_path("voice-studio", appauthor=False)


@pytest.mark.parametrize("os_name", ["linux", "macos", "windows"])
def test_prefix_help_names_the_default_app_folder(tmp_path, os_name):
    """``--help`` names the app folder an install without ``--prefix`` uses, for this user on this OS."""
    from studio_installer.cli import build_parser

    def prefix_help(parser):
        return next(action.help for action in parser._actions if "--prefix" in action.option_strings)

    expected = layout_for(os_name, home_env(tmp_path, os_name)).prefix
    assert prefix_help(build_parser(os_name, home_env(tmp_path, os_name))) == f"the app folder (default: {expected})"
    assert "%LOCALAPPDATA%" in prefix_help(build_parser("windows", {}))


def test_summary_says_how_to_put_the_command_on_the_path(tmp_path, capsys):
    """The summary adds one line telling how to put ``~/.local/bin`` on the PATH only where it is missing; on
    Windows it names the command-line program in the environment. The command is quoted for the OS's shell: a
    home with spaces and an apostrophe pastes into sh as one word; Windows' default app folder (Programs\\Voice
    Studio) is in PowerShell's quotes, with its call operator."""
    from conftest import AWKWARD_FOLDER, sh_words
    from installer_fakes import WINDOWS_CUDA, FakeTools
    from studio_installer.cli import summarize
    from studio_installer.install import Options, install

    home = tmp_path / AWKWARD_FOLDER
    reports = {
        machine.os: install(Options(), env=home_env(home / machine.os, machine.os), machine=machine, uv="uv",
                            run=FakeTools())
        for machine in (LINUX, WINDOWS_CUDA)
    }  # fmt: skip
    for os_name, path in (("linux", "/usr/bin:/bin"), ("linux", f"/bin:{home}/linux/.local/bin/"), ("windows", "")):
        summarize(reports[os_name], {"PATH": path})
    linux_missing, linux_found, windows, _ = capsys.readouterr().out.split("User data stays")
    hint = [line for line in linux_missing.splitlines() if "not on your PATH" in line]
    assert len(hint) == 1 and "export PATH=" in hint[0] and "~/.profile" in hint[0]
    assert "not on your PATH" not in linux_found + windows
    command = next(line for line in linux_found.splitlines() if line.startswith("command: "))
    assert sh_words(command.removeprefix("command: ")) == [str(home / "linux" / ".local" / "bin" / "voice-studio")]
    assert f'command: & "{reports["windows"].layout.venv_bin / "voice-studio.exe"}"' in windows
