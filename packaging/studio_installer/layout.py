"""Where an installation puts things, derived from the OS and an environment mapping (HOME, XDG_*, APPDATA ...).

Nothing here reads ``os.environ`` or the real home: the caller passes the mapping, so tests lay out a whole
installation under a temporary home. The app folder (``prefix``) is kept apart from the studio's user data
(voices, runs, datasets: ``platformdirs.user_data_path("voice-studio")``, see ``engines/registry.py``) and its
settings (``platformdirs.user_config_path``, ``studio/settings.py``); their paths are computed here with
platformdirs' rules (the installer runs before platformdirs is installed) so that the installer can refuse to
put the app inside them, or them inside the app.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from studio_installer.errors import InstallError

APP = "voice-studio"
MANIFEST_NAME = "install-manifest.json"


@dataclass(frozen=True, kw_only=True)
class Layout:
    """The paths of one installation.

    ``prefix`` is the app folder (environment, launcher, icons, compiler caches, manifest); ``bin_dir`` holds the
    ``voice-studio`` command (Linux, macOS); ``applications`` the ``.desktop`` entry (Linux) or the ``.app``
    bundle (macOS); ``icons`` the XDG icon theme folder (Linux); ``start_menu`` and ``desktop`` the shortcuts'
    folders (Windows). ``user_data`` and ``user_config`` are the studio's own folders, never written.
    """

    os: str
    home: Path
    prefix: Path
    user_data: Path
    user_config: Path
    bin_dir: Path | None = None
    applications: Path | None = None
    icons: Path | None = None
    start_menu: Path | None = None
    desktop: Path | None = None

    @property
    def venv(self) -> Path:
        """The app's own virtual environment."""
        return self.prefix / "venv"

    @property
    def venv_bin(self) -> Path:
        """The environment's scripts folder (``Scripts`` on Windows, ``bin`` elsewhere)."""
        return self.venv / ("Scripts" if self.os == "windows" else "bin")

    @property
    def python(self) -> Path:
        """The environment's interpreter."""
        return self.venv_bin / ("python.exe" if self.os == "windows" else "python")

    @property
    def manifest(self) -> Path:
        """The record of everything this installation added."""
        return self.prefix / MANIFEST_NAME

    @property
    def caches(self) -> Path:
        """Compiler caches (Triton, TorchInductor) on Windows with CUDA."""
        return self.prefix / "cache"


def layout_for(
    os_name: str,
    env: Mapping[str, str],
    *,
    prefix: Path | None = None,
    desktop: Path | None = None,
    start_menu: Path | None = None,
) -> Layout:
    """The layout on ``os_name`` for the user whose environment is ``env``; ``prefix`` overrides the app folder,
    ``desktop`` and ``start_menu`` the shortcut folders (the Windows wrapper passes the shell's own).

    Raises:
        InstallError: a variable the layout needs (HOME, or LOCALAPPDATA and APPDATA on Windows) is not set.
    """
    if os_name == "windows":
        return _windows(env, prefix, desktop, start_menu)
    home = Path(_need(env, "HOME"))
    if os_name == "macos":
        support = home / "Library" / "Application Support" / APP
        return Layout(
            os=os_name,
            home=home,
            prefix=prefix or home / ".local" / "opt" / APP,
            user_data=support,
            user_config=support,
            bin_dir=home / ".local" / "bin",
            applications=home / "Applications",
        )
    data_home = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return Layout(
        os=os_name,
        home=home,
        prefix=prefix or home / ".local" / "opt" / APP,
        user_data=data_home / APP,
        user_config=config_home / APP,
        bin_dir=home / ".local" / "bin",
        applications=data_home / "applications",
        icons=data_home / "icons" / "hicolor" / "256x256" / "apps",
    )


def _windows(env: Mapping[str, str], prefix: Path | None, desktop: Path | None, start_menu: Path | None) -> Layout:
    """The Windows layout: the app in %LOCALAPPDATA%\\Programs, shortcuts in the Start menu and on the desktop."""
    local = Path(_need(env, "LOCALAPPDATA"))
    home = Path(env.get("USERPROFILE") or local.parent.parent)
    programs = Path(_need(env, "APPDATA")) / "Microsoft" / "Windows" / "Start Menu" / "Programs"
    return Layout(
        os="windows",
        home=home,
        prefix=prefix or local / "Programs" / "Voice Studio",
        user_data=local / APP,
        user_config=local / APP,
        start_menu=start_menu or programs,
        desktop=desktop or home / "Desktop",
    )


def _need(env: Mapping[str, str], name: str) -> str:
    """``env[name]``, or an InstallError naming the variable."""
    if not env.get(name):
        raise InstallError(f"the environment variable {name} is not set: the installer needs it to find your folders")
    return env[name]


def check_prefix(layout: Layout) -> None:
    """Refuse an app folder that would mix with user data, or that holds something other than an installation.

    Raises:
        InstallError: ``prefix`` is the home folder, lies inside or around the user data or settings folder,
            or is a non-empty folder without this installer's manifest.
    """
    prefix = layout.prefix.resolve()
    if prefix == layout.home.resolve():
        raise InstallError(f"{prefix} is your home folder: choose an app folder of its own (--prefix)")
    for name, mine in (("user data", layout.user_data), ("settings", layout.user_config)):
        mine = mine.resolve()
        if prefix == mine or mine in prefix.parents or prefix in mine.parents:
            raise InstallError(f"{prefix} overlaps the studio's {name} folder {mine}: choose another --prefix")
    if prefix.is_dir() and any(prefix.iterdir()) and not layout.manifest.exists():
        raise InstallError(f"{prefix} is not empty and holds no Voice Studio installation: choose another --prefix")
