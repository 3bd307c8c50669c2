"""The Dataset page says what it found and what a fix did, in words (issue 17): warning sentences in the table's
tooltips, counts in agreement, fixed clips marked with their loudness and kept selected, histograms in the app's
palette, the report with room to read, the training cache written where the user pointed and its status shown,
and a folder that no file manager can open named in a message."""

from __future__ import annotations

import json

import pytest
import soundfile
from conftest import shared_path
from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication, QLineEdit, QMessageBox

pytestmark = pytest.mark.gui

CARDS = ("corpus", "real-speech", "cards")


@pytest.fixture
def page(qtbot, tmp_path):
    """A Dataset page on a new project holding the five 'cards' recordings."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    widget = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(widget)
    widget.import_paths([shared_path(*CARDS)])
    qtbot.waitUntil(lambda: not widget.is_busy(), timeout=120_000)
    return widget


def _wait(qtbot, page) -> None:
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)


def _cell(page, clip_id: str, column: str, role=Qt.ItemDataRole.DisplayRole):
    from studio.widgets.clip_table import COLUMNS

    for row in range(page.model.rowCount()):
        if page.model.row_id(row) == clip_id:
            return page.model.data(page.model.index(row, COLUMNS.index(column)), role)
    raise KeyError(clip_id)


def test_one_clip_added_and_warnings_as_sentences(qtbot, tmp_path):
    """Importing one recording says "1 clip added"; a draft's warning reads "draft text", and its tooltip is the
    sentence with the fix, not the raw kind name repeated."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    page.import_paths([shared_path(*CARDS, "001.wav")])
    _wait(qtbot, page)
    assert page.hint.text() == "1 clip added, 0 already present"
    project = page.project()
    project.clips["001"].text, project.clips["001"].reviewed = "ten of clubs", False
    project.save()
    page.refresh()
    assert _cell(page, "001", "warnings") == "draft text, narrow band"  # a 16 kHz card, for joe's 22,050 Hz
    tip = _cell(page, "001", "warnings", Qt.ItemDataRole.ToolTipRole)
    assert "not confirmed by a person: correct it, then Confirm" in tip and "unreviewed" not in tip
    page.select(["001"])
    page.confirm_selected()
    _wait(qtbot, page)
    assert page.hint.text() == "Confirmed 1 text"
    assert "draft text" not in page.report.toMarkdown() and "unreviewed" not in page.report.toMarkdown()


def test_fix_marks_edited_clips_shows_loudness_and_keeps_selection(page, qtbot):
    """After Normalize loudness the two clips stay selected, show ✎ normalized and their new loudness (-23 LUFS),
    and the message counts what changed; an untouched clip has no mark."""
    before = _cell(page, "001", "loudness (LUFS)")
    assert before is not None and abs(float(before) + 23) > 1
    page.select(["001", "002"])
    qtbot.mouseClick(page.buttons["normalize"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert page.selected_ids() == ["001", "002"]
    assert _cell(page, "001", "edited") == "✎ normalized" and _cell(page, "003", "edited") == ""
    assert "normalize" in _cell(page, "001", "edited", Qt.ItemDataRole.ToolTipRole)
    assert float(_cell(page, "001", "loudness (LUFS)")) == pytest.approx(-23, abs=0.5)
    assert page.hint.text().startswith("Fixed 2 clips: 2 normalized (gain ")


def test_histograms_follow_the_palette_and_the_report_has_room(page, qtbot):
    """The histograms' background is the palette's base colour, light or dark, never a fixed black; the report
    text gets a readable height in a 1024x640 window."""
    light = page.palette()
    assert page.histograms.backgroundBrush().color() == light.color(QPalette.ColorRole.Base)
    dark = QPalette(light)
    for role, colour in ((QPalette.ColorRole.Base, "#1e1e1e"), (QPalette.ColorRole.Text, "#f0f0f0")):
        dark.setColor(role, QColor(colour))
    page.histograms.setPalette(dark)
    assert page.histograms.backgroundBrush().color() == QColor("#1e1e1e")
    plot = page.histograms.getItem(0, 0)
    assert plot.getAxis("left").textPen().color() == QColor("#f0f0f0")
    page.resize(1024, 640)
    page.show()
    page.tabs.setCurrentIndex(1)
    qtbot.waitExposed(page)
    assert page.report.height() >= 200, page.report.height()


def _type_folder_and_accept(path) -> None:
    """Answer the open folder dialog as a user does: type a path in its name box and press Return."""
    dialog = QApplication.activeModalWidget()
    box = dialog.findChild(QLineEdit)
    box.setText(str(path))
    box.returnPressed.emit()
    dialog.accept()


def test_cache_written_at_the_new_folder_chosen_and_its_status(page, qtbot, tmp_path):
    """Build training cache… takes a folder that does not exist yet and writes the cache exactly there (not one
    level deeper); the page says where it is and that it is up to date, then out of date after a fix."""
    chosen = tmp_path / "fresh-cache"
    assert page.cache_label.text().startswith("Training cache: none built yet")
    QTimer.singleShot(300, lambda: _type_folder_and_accept(chosen))
    qtbot.mouseClick(page.buttons["cache"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert (chosen / "cache.json").is_file() and not (chosen / "cache").exists()
    assert len(json.loads((chosen / "cache.json").read_text())["utterances"]) == 5
    assert page.hint.text() == f"Training cache of 5 clips written to {chosen}"
    assert f"Training cache at {chosen}: up to date" in page.cache_label.text()
    page.select(["003"])
    page.fix_selected(trim=True)
    _wait(qtbot, page)
    assert "out of date (1 clip re-fixed)" in page.cache_label.text()


def test_export_to_a_new_folder_typed_in_the_picker(page, qtbot, tmp_path):
    """The sibling picker: Export for Piper… takes a folder that does not exist yet and writes there."""
    chosen = tmp_path / "new-export"
    QTimer.singleShot(300, lambda: _type_folder_and_accept(chosen))
    qtbot.mouseClick(page.buttons["export"], Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert len((chosen / "metadata.csv").read_text(encoding="utf-8").splitlines()) == 5
    assert page.hint.text() == f"Exported 5 clips to {chosen}; 0 left out (see the report)"


def _message(widget) -> QMessageBox:
    from studio.widgets.locations import NO_FILE_MANAGER

    boxes = [b for b in widget.findChildren(QMessageBox) if b.objectName() == NO_FILE_MANAGER and b.isVisible()]
    assert len(boxes) == 1
    return boxes[0]


def test_open_folder_without_a_file_manager_says_where(page, qtbot, tmp_path):
    """With no file manager (offscreen: nothing opens a folder), Open folder shows the folder's path, selectable;
    the sibling: the Train page's Open folder does the same."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.run_state import load_run

    page.build_cache(tmp_path / "cache")
    _wait(qtbot, page)
    page.cache_label.linkActivated.emit("open")
    box = _message(page)
    assert str(tmp_path / "cache") in box.text() and "no file manager" in box.text()
    assert box.textInteractionFlags() & Qt.TextInteractionFlag.TextSelectableByMouse

    run = tmp_path / "runs" / "bare"
    (run / "checkpoints").mkdir(parents=True)
    train = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(train)
    train.show_run(load_run(run))
    train.buttons["open"].click()
    assert str(run) in _message(train).text()


def test_cli_counts_and_sentences(tmp_path):
    """`voice-studio dataset import` of one recording says "1 clip added"; a blocked clip is named with its
    sentence, not its kind; the report command it points to pastes into sh for a project under an awkward folder."""
    import subprocess
    import sys

    import numpy as np
    from conftest import AWKWARD_FOLDER, sh_words

    source, project = tmp_path / "in", tmp_path / AWKWARD_FOLDER / "p"
    source.mkdir()
    soundfile.write(str(source / "quiet.wav"), np.zeros(32000, dtype=np.float32), 16000)
    (source / "quiet.txt").write_text("ten of clubs", encoding="utf-8")
    command = [sys.executable, "-m", "studio", "dataset", "import", "--project", str(project), str(source)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert "1 clip added," in result.stderr and "1 clips" not in result.stderr, result.stderr
    assert "problem: quiet: no speech found in its 2.00 s: exclude it" in result.stderr
    assert "1 of the 1 clip added now has blocking findings" in result.stderr
    report = result.stderr.split("see them with: ", 1)[1].splitlines()[0]
    assert sh_words(report) == ["voice-studio", "dataset", "report", str(project)]


def test_train_page_resample_moves_and_says_the_path_once(qtbot, tmp_path):
    """The Train page's Resample (offered by its checks) shows clips done of all as it works, then checks again
    with a moving figure; an error naming the folder says it once."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from studio.widgets.locations import with_path
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path / "project")
    project.import_sources([shared_path(*CARDS)])
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.setup.dataset.setText(str(project.folder))
    shown: list[str] = []
    page.setup.findings.setText = lambda text, real=page.setup.findings.setText: (shown.append(text), real(text))
    task = page._resample(22050)
    qtbot.waitUntil(lambda: not task.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: "Checking" not in page.setup.findings.text(), timeout=60_000)
    assert any(f"of {project.folder} to 22,050 Hz: 5 / 5 clips…" in text for text in shown), shown
    assert {DatasetProject(project.folder).clips[i].analysis["sample_rate"] for i in project.clips} == {22050}
    error = ValueError(f"{project.folder}: not a dataset project")
    assert with_path(project.folder, error).count(str(project.folder)) == 1
    assert with_path(project.folder, ValueError("no such file")) == f"{project.folder}: no such file"


def test_cache_line_keeps_describing_the_cache_the_user_built(page, qtbot, tmp_path):
    """A training run from the project builds its own cache in its run folder (``trainer.run.train``); the page's
    cache line still describes the cache the user built, and wraps rather than losing its "Open folder" link."""
    import io

    from trainer.run.train import _cache_for

    built = tmp_path / "my-cache"
    project = page.project()
    project.clips["002"].reviewed = False  # a draft: left out, and said so as Export says it
    project.save()
    page.build_cache(built)
    _wait(qtbot, page)
    assert page.hint.text() == f"Training cache of 4 clips written to {built}; 1 left out (see the report)"
    run_cache = _cache_for(page.project_dir, tmp_path / "runs" / "joe-test", 22050, io.StringIO())
    assert (run_cache / "cache.json").is_file()
    page.refresh()
    line = page.cache_label.text()
    assert line.startswith(f"Training cache at {built}: up to date") and "Open folder" in line, line
    assert page.cache_label.wordWrap()


def test_an_unreadable_clip_is_counted_as_listed_and_can_be_excluded(page, qtbot, tmp_path):
    """A text file named bad.wav: the import's counts agree with the row it adds (an unreadable clip); its
    tooltip's advice works: Exclude excludes it (its finding leaves the report), Include makes it unreadable
    again, not ok; the clip editor and trim still refuse it while excluded."""
    from trainer.dataset.curation import CurationError, trim_clip

    bad = tmp_path / "bad.wav"
    bad.write_text("not audio at all", encoding="utf-8")
    page.import_paths([bad])
    _wait(qtbot, page)
    said = "1 clip added (1 unreadable: replace the recording, or exclude the clip), 0 already present"
    assert page.hint.text() == said
    assert _cell(page, "bad", "status") == "error" and "exclude the clip" in _cell(
        page, "bad", "warnings", Qt.ItemDataRole.ToolTipRole
    )
    page.select(["bad"])
    page.set_excluded(True)
    _wait(qtbot, page)
    assert page.hint.text() == "Excluded 1 clip" and _cell(page, "bad", "status") == "excluded"
    assert "bad" not in page.report.toPlainText()
    with pytest.raises(CurationError, match="bad: cannot trim an unreadable clip"):
        trim_clip(page.project(), "bad", 0.0, 0.5)
    page.select(["bad"])
    page.set_excluded(False)
    _wait(qtbot, page)
    assert page.hint.text() == "Included 1 clip" and _cell(page, "bad", "status") == "error"


def _cli(capfd, *args) -> tuple[int, str]:
    """``voice-studio dataset ARGS`` run in this process (``studio.cli.main``): its exit status and what it wrote
    to standard error (the file descriptor's, so a worker process's lines count too)."""
    from studio.cli import main

    capfd.readouterr()
    code = main(["dataset", *map(str, args)])
    return code, capfd.readouterr().err


def test_cli_words_say_what_is_counted(tmp_path, capfd):
    """`voice-studio dataset` progress says what it counts ("analysed 6 of 6 clips", "sliced 9 of 9 s of audio",
    never "5/5" or "0/0"); a slice with nothing to do says only that; confirm with no draft says one line; rates
    read "16,000 → 22,050 Hz"; the cache says how many clips it left out; an export over a project says so."""
    import re

    import numpy as np

    from engines.words import count

    project, other = tmp_path / "p", tmp_path / "other"
    source = tmp_path / "in"
    source.mkdir()
    for name in ("001", "002", "003", "004", "005"):
        (source / f"{name}.wav").write_bytes((shared_path(*CARDS) / f"{name}.wav").read_bytes())
        (source / f"{name}.txt").write_text(f"card {name}", encoding="utf-8")
    soundfile.write(str(source / "quiet.wav"), np.zeros(32000, dtype=np.float32), 16000)
    (source / "quiet.txt").write_text("ten of clubs", encoding="utf-8")
    code, err = _cli(capfd, "import", "--project", project, source)
    assert code == 0 and "analysed 6 of 6 clips" in err and "/6" not in err, err
    code, err = _cli(capfd, "confirm", project)
    assert code == 1 and err == f"{project}: no draft transcript to confirm\n", err
    code, err = _cli(capfd, "fix", project, "--resample")
    assert "fixed 6 of 6 clips" in err and "6 resampled (16,000 → 22,050 Hz)" in err, err
    code, err = _cli(capfd, "cache", project, "--out", tmp_path / "cache")
    left = sum(line.startswith("left out ") for line in err.splitlines())  # quiet, and clips the resampling clipped
    assert code == 0 and re.search(rf"cached {6 - left} of {6 - left} clips?\n", err) and "left out quiet:" in err
    assert err.splitlines()[-1].endswith(f"; {left} left out (listed above)"), err
    code, err = _cli(capfd, "export", project, "--out", tmp_path / "out")
    assert (
        err.splitlines()[-1] == f"wrote {count(6 - left, 'clip')} to {tmp_path / 'out'}; {left} left out (listed above)"
    )
    _cli(capfd, "import", "--project", other, source / "001.wav")
    code, err = _cli(capfd, "export", project, "--out", other)
    assert code == 2 and f"{other}: is a dataset project folder (it holds manifest.json)" in err, err

    audio, rate = soundfile.read(str(shared_path("corpus", "real-speech", "long", "two_cities.wav")), dtype="float32")
    soundfile.write(str(tmp_path / "part.wav"), audio[: 10 * rate], rate)
    slicing = ("slice", "--project", project, tmp_path / "part.wav", "--recognizer", "none")
    code, err = _cli(capfd, *slicing)
    assert code == 0 and "s of audio" in err and "/" not in err.split("sliced")[1].split()[0], err
    code, err = _cli(capfd, *slicing)
    assert code == 0 and len(err.splitlines()) == 1 and "part.wav already sliced: all" in err, err
