"""The app icon in each OS's format, built from the 256×256 PNG in ``assets/voice-studio.png``.

Windows' ``.ico`` and macOS' ``.icns`` both may hold a PNG as it is: an ICO with one 256×256 PNG entry (Windows
Vista and later; the ICONDIR/ICONDIRENTRY layout of Microsoft's "Icons" documentation), and an ICNS with one
``ic08`` (256×256 PNG, macOS 10.5 and later; Apple's icns layout: a big-endian ``icns`` header, then
``type, length`` blocks).
"""

from __future__ import annotations

import struct
from pathlib import Path

ICON_NAME = "voice-studio"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_bytes(source: Path) -> bytes:
    """The app icon's PNG from the source tree (the clone or release archive).

    Raises:
        InstallError: the icon is missing or is not a PNG.
    """
    from studio_installer.errors import InstallError

    path = source / "assets" / f"{ICON_NAME}.png"
    data = path.read_bytes() if path.is_file() else b""
    if not data.startswith(PNG_SIGNATURE):
        raise InstallError(f"{path}: the app icon is missing or not a PNG")
    return data


def ico(png: bytes) -> bytes:
    """A Windows ``.ico`` holding ``png`` (256×256) as its one image."""
    header = struct.pack("<HHH", 0, 1, 1)  # reserved, type 1 = icon, one image
    entry = struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, len(png), 6 + 16)  # 0 = 256 px; 32 bits; data offset
    return header + entry + png


def icns(png: bytes) -> bytes:
    """A macOS ``.icns`` holding ``png`` (256×256) as its ``ic08`` image."""
    block = b"ic08" + struct.pack(">I", 8 + len(png)) + png
    return b"icns" + struct.pack(">I", 8 + len(block)) + block
