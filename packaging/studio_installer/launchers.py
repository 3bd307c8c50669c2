"""Writing the launchers each OS gets, every file recorded in the manifest.

Linux: the ``voice-studio`` command (in the app folder and ``~/.local/bin``), a ``.desktop`` entry and its icon.
macOS: the same command and a ``Voice Studio.app`` bundle in ``~/Applications``. Windows: ``launch.pyw``, the
icon and Start-menu and desktop shortcuts.
"""

from __future__ import annotations

from pathlib import Path

from studio_installer import icons, linux_desktop, macos_app, posix_launcher, windows_shortcuts
from studio_installer.environment import Execute
from studio_installer.layout import Layout
from studio_installer.manifest import Recorder


def write_launchers(
    layout: Layout, recorder: Recorder, env: dict[str, str], *, source: Path, version: str, run: Execute
) -> None:
    """Write the launchers for ``layout.os`` that start the studio with ``env`` set; ``run`` runs PowerShell."""
    png = icons.png_bytes(source)
    if layout.os == "windows":
        _windows(layout, recorder, env, png, run)
        return
    script = posix_launcher.script(layout, env)
    launcher = layout.prefix / "bin" / "voice-studio"
    recorder.write(launcher, script, executable=True)
    if layout.bin_dir:
        recorder.write(layout.bin_dir / "voice-studio", script, executable=True)
    if layout.os == "macos" and layout.applications:
        _macos_bundle(layout.applications / macos_app.BUNDLE_NAME / "Contents", recorder, script, png, version)
    elif layout.icons and layout.applications:
        icon = layout.icons / f"{icons.ICON_NAME}.png"
        recorder.write(icon, png)
        recorder.write(layout.applications / linux_desktop.DESKTOP_FILE, linux_desktop.desktop_entry(launcher, icon))


def _macos_bundle(contents: Path, recorder: Recorder, script: str, png: bytes, version: str) -> None:
    """The ``.app`` bundle's three files under ``contents``."""
    recorder.write(contents / "Info.plist", macos_app.info_plist(version))
    recorder.write(contents / "MacOS" / "voice-studio", script, executable=True)
    recorder.write(contents / "Resources" / f"{icons.ICON_NAME}.icns", icons.icns(png))


def _windows(layout: Layout, recorder: Recorder, env: dict[str, str], png: bytes, run: Execute) -> None:
    """The icon, ``launch.pyw``, and the shortcuts written by the generated PowerShell script."""
    icon = layout.prefix / f"{icons.ICON_NAME}.ico"
    recorder.write(icon, icons.ico(png))
    recorder.write(layout.prefix / windows_shortcuts.LAUNCH_SCRIPT, windows_shortcuts.launch_script(env))
    folders = [folder for folder in (layout.start_menu, layout.desktop) if folder]
    links = [path for path in (f / windows_shortcuts.SHORTCUT_NAME for f in folders) if recorder.claim(path)]
    powershell = layout.prefix / windows_shortcuts.POWERSHELL_SCRIPT
    script = windows_shortcuts.shortcuts_script(layout, links, icon)
    recorder.write(powershell, windows_shortcuts.powershell_file(script))
    if links:
        run(windows_shortcuts.powershell_command(powershell))
