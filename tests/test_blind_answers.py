"""The blind test marks the answer given (Qt offscreen): the chosen pairwise/ABX button checked in the palette's
highlight with a ✓, a MUSHRA slider's set value in the highlight, and the status saying "Trial n: you chose A",
also when going back to a rated trial."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from test_blind_test import Harness, _panel, recordings  # noqa: F401 - fixture

pytestmark = pytest.mark.gui


def _fill(button):
    """The colour a button is filled with, a few pixels in from its left edge (off its text)."""
    image = button.grab().toImage()
    return image.pixelColor(4, image.height() // 2)


def _text_colour(label):
    """The colour a label's text is drawn in, as its style sheet leaves it."""
    label.ensurePolished()
    return label.palette().color(label.foregroundRole())


def test_pairwise_answer_by_key_is_checked_in_the_highlight_and_said(qtbot, tmp_path, recordings):  # noqa: F811
    """A then 1: "1 · A is better" is checked, marked ✓, filled with the highlight; the status names the
    choice; after Next and Previous it still is and the status says it again."""
    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    qtbot.keyClick(panel, Qt.Key.Key_A)
    qtbot.keyClick(panel, Qt.Key.Key_1)
    first, second = panel.pair.answers.button(1), panel.pair.answers.button(2)
    assert first.isChecked() and not second.isChecked()
    assert first.text() == "✓ 1 · A is better" and second.text() == "2 · B is better"
    assert panel.status.text() == "Trial 1: you chose A · saved (ratings.json)"
    highlight = panel.palette().color(QPalette.ColorRole.Highlight)
    assert _fill(first) == highlight and _fill(second) != highlight
    qtbot.keyClick(panel, Qt.Key.Key_Return)
    assert panel.status.text() == "" and not first.isChecked() and not second.isChecked()
    panel.buttons["previous"].click()
    assert first.isChecked() and first.text().startswith("✓ ") and _fill(first) == highlight
    assert panel.status.text() == "Trial 1: you chose A."


def test_abx_and_mushra_answers_are_marked_and_said(qtbot, tmp_path, recordings):  # noqa: F811
    """ABX: 2 checks "X is B" and says so; MUSHRA: set sliders show their values in the highlight, the status
    gives each letter's score, again after going back to the trial."""
    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    panel.mode.setCurrentIndex(1)
    qtbot.keyClick(panel, Qt.Key.Key_X)  # heard: the status says nothing of "without hearing it"
    qtbot.keyClick(panel, Qt.Key.Key_2)
    assert panel.pair.answers.button(2).text() == "✓ 2 · X is B"
    assert panel.status.text() == "Trial 1: you chose X is B · saved (ratings.json)"
    panel.mode.setCurrentIndex(2)
    box = panel.mushra
    qtbot.keyClick(panel, Qt.Key.Key_A)
    values = [70, 30, 50, 90, 10, 60][: len(box.sliders)]
    for value, slider in zip(values, box.sliders, strict=True):
        slider.setValue(value)
    assert box.unrated() == 0
    highlight = panel.palette().color(QPalette.ColorRole.Highlight)
    assert all(_text_colour(label) == highlight for label in box.values)
    expected = " · ".join(f"{chr(65 + i)} {v}" for i, v in enumerate(values))
    assert panel.status.text() == f"Trial 1: you gave {expected} · saved (ratings.json)"
    panel.step(1)
    panel.step(-1)
    assert panel.status.text() == f"Trial 1: you gave {expected}."
    assert all(_text_colour(label) == highlight for label in panel.mushra.values)
