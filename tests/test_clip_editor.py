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


def test_an_elided_label_shows_its_whole_text_in_its_tooltip_unless_given_one(qtbot):
    """studio.widgets.elided_label.ElidedLabel: the whole text is the tooltip, following the text, until a tooltip
    of its own is set; an empty one gives it back to the text."""
    from studio.widgets.elided_label import ElidedLabel

    label = ElidedLabel(LONG)
    qtbot.addWidget(label)
    label.resize(120, 20)
    assert label.toolTip() == LONG and label.shown_text().endswith("…")
    label.setText("Short.")
    assert label.toolTip() == "Short."
    label.setToolTip("About this line.")
    label.setText(LONG)
    assert label.toolTip() == "About this line."
    label.setToolTip("")
    assert label.toolTip() == LONG
