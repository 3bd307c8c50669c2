"""The Synthesize page's Pronunciations… dialog: a voice's lexicon edited as a table (Qt offscreen, joe)."""

from __future__ import annotations

import pytest
from conftest import synthesize_page

from engines.frontend.lexicon import HEADER, read_lexicon, voice_lexicon_path

pytestmark = pytest.mark.gui


@pytest.fixture
def model(joe, tmp_path):
    """joe's model and config linked into a folder of the test's own, so its lexicon file is the test's."""
    path = tmp_path / joe.model_path.name
    path.symlink_to(joe.model_path)
    (tmp_path / (path.name + ".json")).symlink_to(joe.config.path)
    return path


def dialog_for(qtbot, model):
    from studio.widgets.pronunciations import PronunciationsDialog

    dialog = PronunciationsDialog(model)
    qtbot.addWidget(dialog)
    return dialog


def test_an_entry_added_and_saved_is_in_the_file_and_shown_again(qtbot, model):
    """Add a row, Save: the voice's lexicon file holds it (header first); a dialog opened again shows it; a row
    removed and saved is gone from the file."""
    dialog = dialog_for(qtbot, model)
    assert dialog.table.rowCount() == 0
    dialog.add_row("Nguyen", "win")
    dialog.add_row("Siobhan", "[[ ʃɪvˈɔːn ]]")
    assert dialog.save()
    path = voice_lexicon_path(model)
    assert path.read_text(encoding="utf-8").startswith(HEADER)
    assert read_lexicon(path).entries == {"Nguyen": "win", "Siobhan": "[[ ʃɪvˈɔːn ]]"}
    again = dialog_for(qtbot, model)
    rows = [(again.table.item(r, 0).text(), again.table.item(r, 1).text()) for r in range(again.table.rowCount())]
    assert rows == [("Nguyen", "win"), ("Siobhan", "[[ ʃɪvˈɔːn ]]")]
    again.table.setCurrentCell(0, 0)
    again.remove_row()
    assert again.save() and read_lexicon(path).entries == {"Siobhan": "[[ ʃɪvˈɔːn ]]"}


def test_a_bad_row_is_not_saved_and_a_bad_file_is_not_overwritten(qtbot, model):
    """A row with a word but nothing to say is named and the file kept; a file with a bad line is said, with
    Save off."""
    path = voice_lexicon_path(model)
    dialog = dialog_for(qtbot, model)
    dialog.add_row("Nguyen", "")
    assert not dialog.save() and not path.exists()
    assert "the table, line 1: what it says is empty" in dialog.status.text()
    path.write_text("Nguyen win\n", encoding="utf-8")
    broken = dialog_for(qtbot, model)
    assert "line 1: no tab" in broken.status.text() and not broken.save_button.isEnabled()
    assert path.read_text(encoding="utf-8") == "Nguyen win\n"


def test_hear_speaks_the_entry_on_the_page_and_reads_shows_it(qtbot, model):
    """On the page, Hear speaks the chosen row's "says as" (a line in History), and once saved and closed the
    "Reads:" line says the word as the entry does."""
    page = synthesize_page(qtbot)
    assert page.add_voice_files([model]) and page.voice.model_path == model
    dialog = page.edit_pronunciations()
    dialog.add_row("Nguyen", "win")
    with qtbot.waitSignal(page.line_finished, timeout=60_000) as spoken:
        dialog.hear_button.click()
    assert spoken.args[0].text == "win"
    assert dialog.save()
    dialog.reject()
    page.text_edit.setPlainText("Nguyen paid $5.")
    qtbot.waitUntil(lambda: page.reads.text() == "Reads: win paid five dollars.", timeout=5_000)
    page.stop()
