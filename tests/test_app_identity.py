"""The studio's name, icon and desktop-entry name, as the window system sees them."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def test_the_app_carries_its_icon_and_desktop_entry_name(qapp):
    """Every window shows the studio's icon (not Qt's), and Wayland can match it to voice-studio.desktop."""
    from PySide6.QtWidgets import QWidget

    from studio.app import identify

    identify(qapp)
    window = QWidget()
    assert not window.windowIcon().isNull() and 256 in {size.width() for size in qapp.windowIcon().availableSizes()}
    assert qapp.desktopFileName() == "voice-studio" and qapp.applicationName() == "Voice Studio"
    window.deleteLater()
