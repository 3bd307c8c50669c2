"""The Dataset page's clip editor (studio.widgets.clip_editor), alone, Qt offscreen."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gui

LONG = "It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of foolishness."


def test_a_long_transcript_shows_from_its_start_and_a_reload_keeps_the_cursor(qtbot):
    """A clip's text longer than the field is shown from its first word (Qt's setText leaves the cursor at the end,
    so the field showed the middle of a sentence); the same clip shown again (the page reloads after a job) keeps
    the cursor where the user put it."""
    from studio.widgets.clip_editor import ClipEditor

    editor = ClipEditor()
    qtbot.addWidget(editor)
    editor.resize(320, 480)
    editor.show()
    audio = np.zeros(22050, np.float32)
    editor.show_clip("a", audio, 22050, LONG)
    assert editor.text.text() == LONG and editor.text.cursorPosition() == 0
    editor.text.setCursorPosition(30)
    editor.show_clip("a", audio, 22050, LONG)
    assert editor.text.cursorPosition() == 30
    editor.show_clip("b", audio, 22050, LONG[::-1])
    assert editor.text.cursorPosition() == 0
