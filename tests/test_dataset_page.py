"""The Dataset page driven as a user drives it: select clips, fix, edit a text, split, listen, report, export."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile
from conftest import save_dialog, shared_path
from PySide6.QtCore import Qt

from engines.playback import BLOCK

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot, tmp_path):
    """A Dataset page on a new project holding the five 'cards' recordings."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    widget = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(widget)
    widget.import_paths([shared_path("corpus", "real-speech", "cards")])
    qtbot.waitUntil(lambda: not widget.is_busy(), timeout=120_000)
    assert widget.model.rowCount() == 5
    return widget


def _wait(qtbot, page) -> None:
    assert page.is_busy()
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)


def test_fix_exclude_and_export(page, qtbot, tmp_path):
    """Normalize on two selected clips rewrites only them; an excluded clip stays out of the export."""

    def audio(clip_id):
        return soundfile.read(str(page.project().clip_path(clip_id)), dtype="float32")[0]

    before = {i: audio(i) for i in ("001", "002", "003")}
    page.select(["001", "002"])
    assert page.selected_ids() == ["001", "002"] and page.buttons["normalize"].isEnabled()
    qtbot.mouseClick(page.buttons["normalize"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    project = page.project()
    assert project.clips["001"].edits[0].startswith("normalize") and project.clips["003"].edits == []
    assert project.clips["001"].analysis["loudness_lufs"] == pytest.approx(-23, abs=0.5)
    assert not np.array_equal(audio("001"), before["001"]) and np.array_equal(audio("003"), before["003"])
    assert page.hint.text().startswith("Fixed 2 clips: 2 normalized (gain ")

    page.select(["004"])
    qtbot.mouseClick(page.buttons["exclude"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    page.export_to(tmp_path / "out")
    _wait(qtbot, page)
    ids = [line.split("|")[0] for line in (tmp_path / "out" / "metadata.csv").read_text().splitlines()]
    assert ids == ["001", "002", "003", "005"]
    page.build_cache(tmp_path / "cache")
    _wait(qtbot, page)
    from trainer.data.preprocess import PreprocessedCache

    assert [u.id for u in PreprocessedCache(tmp_path / "cache").utterances] == ids


def test_the_preview_follows_the_project_lexicon_as_it_is_edited(page, qtbot):
    """An edit of the project's lexicon.txt shows in the next phoneme preview, with the page left open; a bad line
    is named there instead of a preview."""
    from engines.frontend.lexicon import PROJECT_LEXICON

    page.select(["003"])
    editor, lexicon = page.editor, page.project().folder / PROJECT_LEXICON

    def preview(text: str) -> str:
        editor.text.setText(text)
        editor.update_preview()
        return editor.phonemes.text()

    assert "kwˈiːn" in preview("queen of hearts")  # the phonemizer is made now, with no lexicon
    try:
        lexicon.write_text("queen\tking\n", encoding="utf-8")
        said = preview("queen of hearts")
        assert said.startswith('Reads "king of hearts":') and "kwˈiːn" not in said
        lexicon.write_text("queen\n", encoding="utf-8")
        assert "No phoneme preview" in preview("queen of hearts") and PROJECT_LEXICON in editor.phonemes.text()
    finally:
        lexicon.unlink(missing_ok=True)
    assert "kwˈiːn" in preview("queen of hearts") and "Reads" not in editor.phonemes.text()


def test_text_edit_preview_and_split(page, qtbot):
    """Typing shows the phonemes live; saving measures the text; Split at cursor makes two clips."""
    page.select(["003"])
    editor = page.editor
    assert editor.clip_id == "003" and editor.duration_s > 0.5
    old = editor.phonemes.text()
    assert "phoneme_ids" in old
    editor.text.clear()
    qtbot.keyClicks(editor.text, "queen of hearts")
    # a 150 ms debounce, then the phonemizer: a loaded machine gets slack (the timeout is waited only on failure)
    qtbot.waitUntil(lambda: editor.phonemes.text() != old and "phoneme_ids" in editor.phonemes.text(), timeout=10_000)
    assert "kwˈiːn" in editor.phonemes.text() and "Reads" not in editor.phonemes.text()
    qtbot.keyClicks(editor.text, " x 2")  # the text as spoken comes first where the front end reads it otherwise
    qtbot.waitUntil(lambda: editor.phonemes.text().startswith('Reads "queen of hearts x two":'), timeout=10_000)
    for _ in range(4):
        qtbot.keyClick(editor.text, Qt.Key.Key_Backspace)
    qtbot.waitUntil(lambda: "Reads" not in editor.phonemes.text(), timeout=10_000)
    qtbot.keyClick(editor.text, Qt.Key.Key_Return)
    _wait(qtbot, page)
    assert page.project().clips["003"].text == "queen of hearts"
    assert page.editor.clip_id == "003"  # still the current clip after the reload

    page.editor.cursor.setValue(page.editor.duration_s / 2)
    qtbot.mouseClick(page.editor.buttons["split"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    project = page.project()
    assert project.clips["003"].status == "excluded" and {"003_a", "003_b"} <= set(project.clips)
    assert page.model.rowCount() == 7


def test_space_plays_the_current_clip(page, qtbot, capture):
    """The space bar plays the selected clip's curated copy through the sound device."""
    page.select(["002"])
    page.show()
    page.activateWindow()
    page.table.setFocus()
    qtbot.waitUntil(page.table.hasFocus, timeout=2000)
    audio, _ = soundfile.read(str(page.project().clip_path("002")), dtype="float32")
    qtbot.keyClick(page.table, Qt.Key.Key_Space)
    assert page._playing is not None
    qtbot.waitUntil(lambda: page._playing.ended, timeout=20_000)
    played = capture.samples()
    assert abs(len(played) - len(audio)) <= BLOCK
    n = min(len(played), len(audio))
    assert np.allclose(played[:n], audio[:n], atol=1e-6)


def test_report_tab_histograms_and_html(page, tmp_path, monkeypatch, qtbot):
    """The report tab draws a histogram per measurement; the report saves as HTML; the next Save report… proposes
    the project's name in the folder the last report went to."""
    from studio.pages import dataset_actions

    assert set(page.histograms.bars) == {"duration_s", "phonemes_per_second", "loudness_lufs"}
    assert "Phoneme coverage" in page.report.toMarkdown()
    (tmp_path / "reports").mkdir()
    page.save_report(tmp_path / "reports" / "report.html")
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    assert (tmp_path / "reports" / "report.html").read_text(encoding="utf-8").startswith("<!doctype html>")
    asked = save_dialog(monkeypatch, dataset_actions)  # cancelled: only where it started is looked at
    page._on_save_report_clicked()
    assert asked == [str(tmp_path / "reports" / "project-report.html")]
    page.project_dir = tmp_path / "empty"  # a folder with no project: no charts of the one shown before
    page.refresh()
    assert page.model.rowCount() == 0 and page.histograms.bars == {} and not page.histograms.ci.items


def _draft(page, clip_id: str, text: str) -> None:
    """Make a clip a recognizer's draft (unreviewed), as slicing leaves it, and show the page again."""
    project = page.project()
    project.clips[clip_id].text, project.clips[clip_id].reviewed = text, False
    project.save()
    page.refresh()


def _type(qtbot, editor, text: str) -> None:
    editor.text.selectAll()
    qtbot.keyClicks(editor.text, text)


def test_confirm_draft_confirms_the_text_on_screen(page, qtbot):
    """The reported case: edit a draft, press Confirm draft: the edited text is saved and reviewed."""
    _draft(page, "002", "jack of harts")
    page.select(["002"])
    editor = page.editor
    assert editor.buttons["confirm"].isEnabled()
    _type(qtbot, editor, "jack of hearts")
    qtbot.mouseClick(editor.buttons["confirm"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    clip = page.project().clips["002"]
    assert (clip.text, clip.reviewed) == ("jack of hearts", True)
    assert page.hint.text() == "Confirmed the text of 002" and editor.text.text() == "jack of hearts"
    assert not editor.buttons["confirm"].isEnabled()


def test_unsaved_edit_is_saved_when_another_clip_is_selected(page, qtbot):
    """The reported case: type a text, select another clip: the text is saved (save on leave); the trim region
    set on a clip survives the page's reload after a job."""
    page.select(["003"])
    _type(qtbot, page.editor, "queen of spades")
    page.editor.region.setRegion((0.1, 0.4))
    page.select(["004"])
    assert page.editor.clip_id == "004"
    qtbot.waitUntil(lambda: page.project().clips["003"].text == "queen of spades", timeout=30_000)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    assert "Saved the text of 003" in page.hint.text() and page.project().clips["003"].edits == ["text"]
    page.editor.region.setRegion((0.1, 0.4))
    _type(qtbot, page.editor, "king of clubs")
    qtbot.keyClick(page.editor.text, Qt.Key.Key_Return)
    _wait(qtbot, page)
    assert page.project().clips["004"].text == "king of clubs"
    assert page.editor.clip_id == "004" and page.editor.region.getRegion() == pytest.approx((0.1, 0.4))


def test_unsaved_edit_is_used_by_export_and_saved_when_the_page_is_left(page, qtbot, tmp_path):
    """Siblings: Export for Piper with an edit not saved writes the text on screen; hiding the page (another
    page shown) saves an edit."""
    page.select(["001"])
    _type(qtbot, page.editor, "ace of diamonds")
    page.export_to(tmp_path / "out")
    _wait(qtbot, page)
    rows = dict(line.split("|")[:2] for line in (tmp_path / "out" / "metadata.csv").read_text().splitlines())
    assert rows["001"] == "ace of diamonds" and page.project().clips["001"].text == "ace of diamonds"
    page.show()
    _type(qtbot, page.editor, "ace of spades")
    page.hide()
    qtbot.waitUntil(lambda: page.project().clips["001"].text == "ace of spades", timeout=30_000)
    _type(qtbot, page.editor, "ace of hearts")  # the window closes: saved before it goes
    assert page.save_edits_now() == ["001"] and page.project().clips["001"].text == "ace of hearts"


def _cell(page, clip_id: str, column: int, role=Qt.ItemDataRole.DisplayRole):
    row = next(r for r in range(page.model.rowCount()) if page.model.row_id(r) == clip_id)
    return page.model.data(page.model.index(row, column), role)


def test_table_marks_drafts_and_blocked_clips(page, qtbot, tmp_path):
    """Draft texts are yellow in the table (as docs/dataset.md says, and as in the editor); a clip kept out of
    training by a blocking finding (a 1e30 sample, a draft) says "blocked", not "ok"; the histograms leave both
    out and say so; the spike clip is drawn and played without its spike."""
    from PySide6.QtGui import QColor

    from studio.widgets.clip_table import DRAFT_COLOR

    cards = shared_path("corpus", "real-speech", "cards")
    audio, rate = soundfile.read(str(cards / "001.wav"), dtype="float32")
    audio[len(audio) // 2] = 1e30
    soundfile.write(str(tmp_path / "spike.wav"), audio, rate, subtype="FLOAT")
    (tmp_path / "spike.txt").write_text("ten of clubs", encoding="utf-8")
    page.import_paths([tmp_path / "spike.wav"])
    _wait(qtbot, page)
    _draft(page, "002", "jack of harts")
    background = Qt.ItemDataRole.BackgroundRole
    assert _cell(page, "002", 1, background) == QColor(DRAFT_COLOR) and _cell(page, "001", 1, background) is None
    assert "Confirm draft" in _cell(page, "002", 1, Qt.ItemDataRole.ToolTipRole)
    assert [_cell(page, i, 4) for i in ("spike", "002", "001")] == ["blocked", "blocked", "ok"]
    assert "over full scale" in _cell(page, "spike", 5) and "draft text" in _cell(page, "002", 5)
    assert page.histograms.note == "1 clip with broken sample values not in the histograms"  # the draft is in them
    assert sum(page.histograms.bars["loudness_lufs"].opts["height"]) == 5
    page.select(["spike"])  # drawn and played with the spike as 0, as analysed: the speech, not one 1e30 line
    shown, _ = page._clip_audio
    assert np.abs(shown).max() < 1.0 and np.abs(shown).max() == pytest.approx(np.abs(audio[audio < 1e3]).max())

    page.select(["002"])
    qtbot.mouseClick(page.editor.buttons["confirm"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert _cell(page, "002", 1, background) is None and _cell(page, "002", 4) == "ok"


def test_import_of_the_target_voice_shows_progress_can_be_cancelled_and_resumes(qtbot, tmp_path):
    """The 240-clip target-voice corpus imported from the page: the bar rises and the status line counts
    n / 240; Cancel keeps the clips already measured and says how many; importing again adds the rest,
    none twice."""
    import json
    import re
    import time

    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    corpus = shared_path("corpus", "target-voice")
    names = [row.split("|")[0] for row in (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()]
    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    shown = page.job_progress
    values: list[int] = []
    shown.bar.valueChanged.connect(values.append)
    page.import_paths([corpus])
    assert not shown.isHidden() and shown.cancel_button.isVisibleTo(page)
    qtbot.waitUntil(lambda: shown.bar.value() > 0, timeout=60_000)
    said = r"Importing (\d+) / 240 · elapsed \d+ s · (estimating the time left…|.* left)"  # trainer.time_left
    assert re.fullmatch(said, shown.text.text()), shown.text.text()
    assert int(shown.text.text().split()[1]) == shown.bar.value() and shown.bar.maximum() == 240
    qtbot.mouseClick(shown.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=60_000)
    said = re.fullmatch(r"Import cancelled: (\d+) of 240 clips kept; import again to go on", page.hint.text())
    assert said, page.hint.text()
    kept = int(said[1])
    assert 0 < kept < 240 and page.model.rowCount() == kept and shown.isHidden()
    assert values[0] == 0 and max(values) > 0 and values == sorted(values)  # the bar rose

    started = time.monotonic()
    page.import_paths([corpus])
    qtbot.waitUntil(lambda: shown.bar.value() > kept, timeout=120_000)  # the bar starts at the clips kept
    assert values[values.index(kept, 1) :][0] == kept
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    print(f"resumed import of {240 - kept} clips: {time.monotonic() - started:.1f} s")
    assert page.hint.text() == f"{240 - kept} clips added, {kept} already present"
    clips = json.loads((tmp_path / "project" / "manifest.json").read_text(encoding="utf-8"))["clips"]
    assert sorted(c["id"] for c in clips) == sorted(names) and page.model.rowCount() == 240
    assert len({c["source"] for c in clips}) == 240 and all(c["status"] == "ok" for c in clips)


def test_export_and_cache_refuse_a_folder_they_did_not_write(page, qtbot, tmp_path):
    """Export… into a folder of the user's and Build training cache… inside the project say why, delete nothing."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    page.export_to(mine)
    _wait(qtbot, page)
    assert page.hint.text() == (
        f"Exporting failed: {mine}: holds files voice-studio did not write there; "
        "choose a new or empty folder as the export folder"
    )
    assert [p.name for p in mine.iterdir()] == ["notes.txt"]
    page.build_cache(tmp_path / "project" / "cache")
    _wait(qtbot, page)
    assert page.hint.text().startswith(
        f"Building the training cache failed: {tmp_path / 'project' / 'cache'}: lies in {tmp_path / 'project'}, "
    )
    assert page.model.rowCount() == 5 and not (tmp_path / "project" / "cache").exists()


def _manifest_ids(folder) -> list[str]:
    import json

    return [c["id"] for c in json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["clips"]]


def test_closing_the_window_cancels_the_import_and_keeps_what_was_measured(qtbot, tmp_path):
    """Close (title-bar X) at "Importing n / 240": the window goes within a few seconds (not when the import
    would have ended), the import stops, and the clips measured until then are in the manifest, files and all."""
    import time

    from studio.main_window import MainWindow
    from studio.settings import Settings
    from trainer.dataset.project import VAD_GROUP
    from trainer.dataset.workers import worker_count

    window = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(window)
    page = window.dataset_page
    page.project_dir = tmp_path / "project"
    page.import_paths([shared_path("corpus", "target-voice")])
    qtbot.waitUntil(lambda: page.job_progress.bar.value() > 0, timeout=60_000)
    started, shown = time.monotonic(), page.job_progress.bar.value()
    window.close()
    closed_s = time.monotonic() - started
    kept = _manifest_ids(tmp_path / "project")
    print(f"closed in {closed_s:.2f} s at {shown} / 240, {len(kept)} clips kept")
    assert 0 < len(kept) < 200  # the import stopped (not timed: the clips kept say it, whatever the load)
    # at most the groups in flight (one a worker) beyond the bar, and the bar may lag by a group a worker (its
    # progress signals were still queued when the window closed)
    assert VAD_GROUP <= 8 and len(kept) - shown <= 2 * VAD_GROUP * worker_count(None, 240)
    assert all((tmp_path / "project" / "clips" / f"{i}.wav").exists() for i in kept)
    assert not page.jobs.task or not page.jobs.task.is_running()


def test_closing_the_page_cancels_a_fix_in_progress(page, qtbot, tmp_path):
    """The sibling: a Fix job (resample + trim + normalize) is cancelled the same way, its finished clips kept:
    the jobs in flight (one a worker) finish, no other starts. Counted in clips, not timed (a loaded machine)."""
    import re

    from trainer.dataset.workers import worker_count

    page.select(list(page.project().clips))
    task = page.fix_selected(trim=True, normalize=True, resample=True)
    page.shutdown()  # waits for the job at most CLOSE_WAIT_S
    assert not task.is_running() and task.state.is_cancelled()
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)
    in_flight = worker_count(None, 5)
    fixed = re.match(r"Fixes cancelled: (\d+) of 5 clips fixed", page.hint.text())
    if fixed is None:  # every clip was in flight at the cancel: nothing was left to stop
        assert in_flight >= 5 and page.hint.text().startswith("Cancel came after"), page.hint.text()
    else:
        assert int(fixed[1]) <= in_flight, page.hint.text()


def test_a_cancel_after_the_work_finished_is_said(qtbot, tmp_path):
    """Cancel pressed when the import had already finished (its result not yet shown): the status line says the
    Cancel came too late and that every clip was added, not a plain summary as if nothing was asked."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    task = page.import_paths([shared_path("corpus", "real-speech", "cards")])
    assert task.join(60)  # finished; its result waits in the event queue
    qtbot.mouseClick(page.job_progress.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=10_000)
    expected = "Cancel came after importing had finished: 5 clips added, 0 already present"
    assert page.hint.text() == expected and page.model.rowCount() == 5


def test_a_late_cancel_of_a_fix_is_said(page, qtbot):
    """The sibling: Cancel after a fix had finished says so too."""
    page.select(["001", "002"])
    task = page.fix_selected(normalize=True)
    assert task.join(60)
    qtbot.mouseClick(page.job_progress.cancel_button, Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert page.hint.text().startswith("Cancel came after normalizing had finished: Fixed 2 clips: 2 normalized")


def test_rows_shown_while_a_job_runs_keep_status_warnings_and_selection(page, qtbot):
    """While an import adds clips, the table's refreshes keep each clip's last known status and warnings (a
    blocked draft stays "blocked / draft text", not "ok" with none), say "checking…" for the new ones, and
    keep the selected clip selected."""
    _draft(page, "002", "jack of harts")
    before = (_cell(page, "002", 4), _cell(page, "002", 5), _cell(page, "002", 5, Qt.ItemDataRole.ToolTipRole))
    assert before[0] == "blocked" and "draft text" in before[1]
    page.select(["001"])
    seen: list[tuple] = []
    record = lambda: seen.append(  # noqa: E731 - after the page's own refresh (connected first)
        (_cell(page, "002", 4), _cell(page, "002", 5), _cell(page, "002", 5, Qt.ItemDataRole.ToolTipRole))
        + (page.selected_ids(), {_cell(page, page.model.row_id(r), 4) for r in range(5, page.model.rowCount())})
    )
    page._rows_timer.timeout.connect(record)
    page.import_paths([shared_path("corpus", "target-voice")])
    qtbot.waitUntil(lambda: any(s[4] for s in seen), timeout=60_000)  # a refresh with new clips in it
    page.cancel_job()
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=60_000)
    assert all(s[:3] == before and s[3] == ["001"] for s in seen), seen
    assert {"checking…"} == next(s[4] for s in seen if s[4])


def test_table_refresh_keeps_the_scroll_position(qtbot):
    """``ClipTable.show_rows`` (the refresh while a job runs) keeps the rows scrolled to and the selection."""
    from studio.widgets.clip_table import ClipTable

    table = ClipTable()
    qtbot.addWidget(table)
    table.resize(600, 200)
    table.show()
    row = lambda i: (f"c{i:03d}", "text", "", 1.0, "ok", "", -20.0, "", False, {})  # noqa: E731
    table.clips.set_rows([row(i) for i in range(60)])
    table.select(["c030"])
    table.verticalScrollBar().setValue(table.verticalScrollBar().maximum() // 2)
    top = table.verticalScrollBar().value()
    assert top > 0
    table.show_rows([row(i) for i in range(61)])
    assert table.verticalScrollBar().value() == top and table.selected_ids() == ["c030"]


def test_a_voice_config_that_cannot_phonemize_is_said_and_typed_text_is_kept(page, qtbot, tmp_path, joe):
    """The project's voice names an espeak voice espeak-ng lacks (en_US): the live preview says why there is no
    preview, Save text and Confirm say the text cannot be saved, and the typed text is kept, not lost."""
    bad = tmp_path / "us.onnx.json"
    config = json.loads(Path(str(joe.model_path) + ".json").read_text())
    config["espeak"]["voice"] = "en_US"
    bad.write_text(json.dumps(config))
    project = page.project()
    project.voice_config = str(bad)
    project.save()
    page.open_project(project.folder)
    page.select(["003"])
    messages = []
    page.message.connect(messages.append)
    page.editor.text.clear()
    qtbot.keyClicks(page.editor.text, "queen of hearts")
    qtbot.waitUntil(lambda: "No phoneme preview" in page.editor.phonemes.text(), timeout=10_000)
    assert "espeak.voice" in page.editor.phonemes.text()
    page.confirm_current("003")
    qtbot.keyClick(page.editor.text, Qt.Key.Key_Return)
    assert not page.is_busy() and len(messages) == 2, messages
    assert messages[0].startswith("Not confirmed: the text typed cannot be saved") and "en_US" in messages[0]
    assert "not started, the text typed cannot be saved" in messages[1] and "espeak.voice" in messages[1]
    assert page.project().clips["003"].text != "queen of hearts"
    assert page.save_edits_now() == [] and messages[-1].startswith("Text not saved")


def test_the_selected_clip_shows_its_mel_spectrogram_as_the_compare_page_draws_it(page, qtbot):
    """Selecting a clip draws its mel spectrogram under the waveform with the Compare page's widget (computed off
    the GUI thread); selecting two clips clears it."""
    from studio.widgets.clip_view import ClipView

    mel = page.editor.mel
    with qtbot.waitSignal(mel.drawn, timeout=60_000) as drawn:
        page.select(["003"])
    audio, _ = page._clip_audio
    assert drawn.args == [""] and mel.image.image.shape == (80, 1 + len(audio) // 256)
    compare = ClipView()
    qtbot.addWidget(compare)
    assert type(compare.mel) is type(mel)  # one mel view, one rule, on both pages
    page.select(["002", "003"])
    assert mel.image.image is None


def test_the_edited_column_says_a_text_was_edited_and_its_tooltip_lists_every_edit(page, qtbot):
    """A text saved in the editor shows "✎ text" in the edited column (it showed nothing: only audio edits were
    said); a fix adds its word after it, and the tooltip lists every edit in order; a speaker set says so too."""
    from studio.widgets.clip_table import COLUMNS

    edited = COLUMNS.index("edited")
    page.select(["003"])
    _type(qtbot, page.editor, "queen of hearts")
    qtbot.keyClick(page.editor.text, Qt.Key.Key_Return)
    _wait(qtbot, page)
    assert _cell(page, "003", edited) == "✎ text" and not page.table.isColumnHidden(edited)
    qtbot.mouseClick(page.buttons["normalize"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert _cell(page, "003", edited) == "✎ text, normalized"
    tip = _cell(page, "003", edited, Qt.ItemDataRole.ToolTipRole).splitlines()
    assert tip[0] == "text" and tip[1].startswith("normalize ") and len(tip) == 2
    page.select(["004"])
    page.set_speaker_selected("anna")
    _wait(qtbot, page)
    assert _cell(page, "004", edited) == "✎ speaker"
    assert "anna" in _cell(page, "004", edited, Qt.ItemDataRole.ToolTipRole)


def test_a_running_job_greys_out_new_dataset_from_a_voice(qtbot, tmp_path):
    """While a job runs, New dataset from a voice… is greyed out as Open and New project are: it would show
    another project under the running job."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    page._set_busy(True)
    assert not any(page.buttons[name].isEnabled() for name in ("open", "new", "distil"))
    page._set_busy(False)
    assert page.buttons["distil"].isEnabled()
