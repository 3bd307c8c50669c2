"""The macOS launcher: a minimal ``Voice Studio.app`` bundle in ``~/Applications``.

``Contents/Info.plist`` (Apple's bundle keys), ``Contents/MacOS/voice-studio`` (the shell launcher, run by
Finder and the Dock) and ``Contents/Resources/voice-studio.icns``.
"""

from __future__ import annotations

import plistlib

from studio_installer.icons import ICON_NAME

BUNDLE_NAME = "Voice Studio.app"
BUNDLE_ID = "org.voice-studio.VoiceStudio"


def info_plist(version: str) -> bytes:
    """The bundle's ``Info.plist`` for project ``version``."""
    return plistlib.dumps(
        {
            "CFBundleName": "Voice Studio",
            "CFBundleDisplayName": "Voice Studio",
            "CFBundleIdentifier": BUNDLE_ID,
            "CFBundleExecutable": "voice-studio",
            "CFBundleIconFile": ICON_NAME,
            "CFBundlePackageType": "APPL",
            "CFBundleShortVersionString": version,
            "CFBundleVersion": version,
            "LSMinimumSystemVersion": "11.0",
            "NSHighResolutionCapable": True,
        }
    )
