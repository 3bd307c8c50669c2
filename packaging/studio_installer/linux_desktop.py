"""The Linux menu entry: a ``.desktop`` file in ``$XDG_DATA_HOME/applications`` with the app icon in the
hicolor theme (``$XDG_DATA_HOME/icons/hicolor/256x256/apps``), per the freedesktop Desktop Entry spec 1.5."""

from __future__ import annotations

from pathlib import Path

DESKTOP_FILE = "voice-studio.desktop"
ESCAPED_IN_QUOTES = '"`$\\'
RESERVED = " \t\n\"'\\><~|&;$*?#()`"


def exec_quote(argument: str) -> str:
    """One ``Exec`` argument quoted as the spec asks ("Quoting" in "The Exec key"): in double quotes when it holds
    a reserved character, with ``"``, backquote, ``$`` and backslash escaped; ``%`` doubled in any case."""
    argument = argument.replace("%", "%%")
    if not any(c in RESERVED for c in argument):
        return argument
    return '"' + "".join("\\" + c if c in ESCAPED_IN_QUOTES else c for c in argument) + '"'


def desktop_entry(launcher: Path, icon: Path) -> str:
    """The ``.desktop`` file's text: ``Exec`` runs ``launcher`` (the window), ``Icon`` is the icon's absolute path."""
    return (
        "[Desktop Entry]\n"
        "Type=Application\n"
        "Version=1.5\n"
        "Name=Voice Studio\n"
        "GenericName=Text-to-speech studio\n"
        "Comment=Make and use Piper text-to-speech voices\n"
        f"Exec={exec_quote(str(launcher))}\n"
        f"Icon={icon}\n"
        "Terminal=false\n"
        "Categories=AudioVideo;Audio;\n"
        "Keywords=TTS;speech;voice;Piper;\n"
    )
