"""Getting audio into a dataset from the Dataset page: the picker, New project, import of files and zips,
slicing with options, progress, Cancel, drafts selected, and the speaker check."""

from __future__ import annotations

import zipfile

import numpy as np
import pytest
import soundfile
from conftest import shared_path
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def _long():
    """The 44 s reading of the shared corpus."""
    return shared_path("corpus", "real-speech", "long", "two_cities.wav")


@pytest.fixture
def page(qtbot, tmp_path):
    """A Dataset page on a folder that is no project yet."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    widget = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(widget)
    return widget


def _wait(qtbot, page, timeout=180_000) -> None:
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=timeout)


def test_picker_takes_files_zips_and_folders(qtbot, tmp_path):
    """The picker selects several existing files of the importer's kinds, and Open or its button takes a folder."""
    from PySide6.QtWidgets import QFileDialog

    from studio.widgets.recordings_picker import RecordingsPicker

    picker = RecordingsPicker(None, tmp_path)
    qtbot.addWidget(picker)
    assert picker.fileMode() == QFileDialog.FileMode.ExistingFiles
    assert picker.testOption(QFileDialog.Option.DontUseNativeDialog)
    assert all(f"*.{kind}" in picker.nameFilters()[0] for kind in ("wav", "flac", "zip", "csv"))
    assert picker.directory().absolutePath() == str(tmp_path) and picker.folder_button.isVisibleTo(picker)
    picker.choose_folder()
    assert picker.chosen() == [tmp_path]
    (tmp_path / "sub").mkdir()
    again = RecordingsPicker(None, tmp_path)
    qtbot.addWidget(again)
    again.selectFile(str(tmp_path / "sub"))
    again.accept()
    assert again.chosen() == [tmp_path / "sub"]


def test_a_single_file_and_a_zip_are_imported(page, qtbot, tmp_path):
    """One recording, then a zip of two, through the page's import: 1 clip, then 3."""
    cards = shared_path("corpus", "real-speech", "cards")
    page.import_paths([cards / "001.wav"])
    _wait(qtbot, page)
    assert page.model.rowCount() == 1 and page.hint.text().startswith("1 clip added,")
    archive = tmp_path / "two.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for name in ("002.wav", "003.wav"):
            out.write(cards / name, name)
    page.import_paths([archive])
    _wait(qtbot, page)
    assert page.model.rowCount() == 3 and page.hint.text().startswith("2 clips added,")


def test_the_table_fills_while_importing(page, qtbot):
    """Importing the 240-clip corpus: rows appear while the import still runs (not only at its end); Cancel
    keeps them."""
    seen: list[int] = []
    page.import_paths([shared_path("corpus", "target-voice")])
    qtbot.waitUntil(lambda: page.model.rowCount() > 0, timeout=120_000)
    seen.append(page.model.rowCount())
    assert page.is_busy() and seen[0] < 240
    page.cancel_job()
    _wait(qtbot, page)
    assert page.model.rowCount() >= seen[0] and page.hint.text().startswith("Import cancelled: ")


def test_an_ljspeech_csv_without_its_audio_says_what_was_expected(page, qtbot, tmp_path):
    """metadata.csv picked from a folder with no wavs/ (or an empty folder): the hint names the layout expected."""
    folder = tmp_path / "lj"
    folder.mkdir()
    (folder / "metadata.csv").write_text("a|Hello there.\nb|Good night.\n", encoding="utf-8")
    page.import_paths([folder / "metadata.csv"])
    _wait(qtbot, page)
    assert "no audio for any of its 2 lines; expected an LJSpeech folder" in page.hint.text()
    assert str(folder / "wavs") in page.hint.text()
    (tmp_path / "empty").mkdir()
    page.import_paths([tmp_path / "empty"])
    _wait(qtbot, page)
    assert "no recordings found; expected audio files" in page.hint.text()


def test_new_project_makes_an_empty_project(page, tmp_path):
    """New project on a new folder writes a manifest with no clips, shows it, and dialogs open there."""
    folder = tmp_path / "fresh"
    assert not page.has_project()
    page.new_project(folder)
    assert (folder / "manifest.json").is_file() and page.project_dir == folder and page.has_project()
    assert page.hint.text().startswith(f"New project {folder}") and page.start_folders.start(folder) == folder
    assert "Record tab" in page.hint.text()  # recording from nothing is a way in, as importing is
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("mine")
    page.new_project(tmp_path / "busy")
    assert "holds other files" in page.hint.text() and page.project_dir == folder
    page.start_folders.picked(tmp_path / "busy" / "x.txt")  # a file picked: its folder is where dialogs open next
    assert page.start_folders.start(page.project_dir) == tmp_path / "busy"
    page.open_project(tmp_path / "other")  # another project: its folder (or the nearest that exists), not the pick
    assert "New project… to record prompts on the Record tab" in page.hint.text()
    assert page.start_folders.start(page.project_dir) == tmp_path


def _options(max_s: float):
    """The options dialog with the longest clip set and no drafts: what the page gets from it."""
    from studio.widgets.slice_options import NO_DRAFTS, SliceOptionsDialog

    dialog = SliceOptionsDialog()
    dialog.max_s.setValue(max_s)
    dialog.recognizer.setCurrentIndex(dialog.recognizer.findText(NO_DRAFTS))
    return dialog.options(), dialog.drafting()


def _spans(page) -> list[float]:
    project = page.project()
    return [c.span[1] - c.span[0] for c in project.clips.values() if c.span]


def test_slicing_options_reach_the_slicer(qtbot, tmp_path):
    """A shorter longest clip in the options dialog gives more, shorter utterances."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    counts = {}
    for max_s in (12.0, 4.0):
        page = DatasetPage(Workspace(dataset_project=tmp_path / f"p{max_s}"))
        qtbot.addWidget(page)
        options, drafting = _options(max_s)
        assert options.max_s == max_s and drafting.recognizer is None
        page.slice_paths([_long()], options, drafting)
        _wait(qtbot, page)
        spans = _spans(page)
        counts[max_s] = len(spans)
        assert spans and max(spans) <= max_s + 2 * options.margin_s + 0.05, spans
    assert counts[4.0] > counts[12.0], counts


def test_slicing_moves_can_be_cancelled_and_keeps_and_selects_its_drafts(page, qtbot):
    """PocketSphinx drafts of two_cities in 4 s clips: the bar and the status move (seconds of audio, draft n of m);
    Cancel stops it, the drafts made stay, are said, shown and selected."""
    import re

    from trainer.dataset.slicing import SliceOptions

    values: list[int] = []
    statuses: list[str] = []
    shown = page.job_progress
    shown.bar.valueChanged.connect(values.append)
    task = page.slice_paths([_long()], SliceOptions(min_s=1.0, max_s=4.0))
    task.status.connect(statuses.append)
    qtbot.waitUntil(lambda: any(s.startswith("Recognising draft 3 of") for s in statuses), timeout=180_000)
    assert re.search(r" · \d+ of \d+ s of audio$", statuses[-1]) and shown.bar.maximum() > 30
    qtbot.mouseClick(shown.cancel_button, Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    said = re.fullmatch(r"Slicing cancelled: (\d+) drafts? of (\d+) kept; slicing again resumes", page.hint.text())
    assert said, page.hint.text()
    kept, total = int(said[1]), int(said[2])
    assert 2 <= kept < total and len(set(values)) >= 3 and values == sorted(values)
    assert page.model.rowCount() == kept and sorted(page.selected_ids()) == sorted(page.project().clips)


def test_new_drafts_are_selected_and_scrolled_to(qtbot, tmp_path):
    """After slicing into a project of 5 clips, the new utterances are the selection and the first is on screen;
    the result says they are far quieter than the dataset's clips (it said nothing) and what brings them level."""
    import re

    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    page.resize(900, 400)
    page.show()
    page.import_paths([shared_path("corpus", "real-speech", "cards")])
    _wait(qtbot, page)
    page.select(["001"])
    page.slice_paths([_long()], *_options(3.0))
    _wait(qtbot, page)
    new = [i for i in page.project().clips if i.startswith("two_cities_")]
    assert len(new) >= 8 and sorted(page.selected_ids()) == sorted(new)
    try:  # the cards' speaker is another man: the result warns (or says why it could not check)
        import resemblyzer  # noqa: F401

        assert "warning: the speaker of two_cities.wav may differ from the dataset's" in page.hint.text()
    except ImportError:
        assert "warning: speaker check skipped: speaker similarity needs resemblyzer" in page.hint.text()
    quieter = r"warning: the \d+ new clips are about 1\d dB quieter than the project's others \(median -3\d LUFS"
    assert re.search(quieter + r" against -19\): Normalize loudness .* brings every clip to -23 LUFS", page.hint.text())
    ids = [page.model.row_id(row) for row in range(page.model.rowCount())]
    first = page.proxy.mapFromSource(page.model.index(ids.index(sorted(new)[0]), 0))
    assert page.table.viewport().rect().intersects(page.table.visualRect(first))


def _concatenated(paths, out) -> None:
    parts = [soundfile.read(str(p), dtype="float32") for p in paths]
    soundfile.write(str(out), np.concatenate([a for a, _ in parts]), parts[0][1])


def test_speaker_check_warns_for_another_speaker_only(tmp_path):
    """A dataset of 3 LibriVox clips: a reading of the same speaker passes; two_cities (another man) is flagged.
    Where resemblyzer is missing, the check says it was skipped and why."""
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.speaker_check import check_speaker
    from trainer.evaluate.similarity import MISSING

    librivox = sorted(shared_path("corpus", "real-speech", "librivox").glob("*.wav"))
    project = DatasetProject.create(tmp_path / "p")
    project.import_sources(librivox[:3], workers=1)
    same = tmp_path / "same.wav"
    _concatenated(librivox[3:], same)
    try:
        import resemblyzer  # noqa: F401
    except ImportError:
        assert check_speaker(project, same).note == f"speaker check skipped: {MISSING}"
        return
    ok, other = check_speaker(project, same), check_speaker(project, _long())
    print(f"similarity: same speaker {ok.similarity:.3f}, another {other.similarity:.3f}")
    assert not ok.differs and ok.note == ""
    assert other.differs and "the speaker of two_cities.wav may differ from the dataset's" in other.note


def _type_in_folder_picker(qtbot, button, folder) -> list[str]:
    """Click ``button``, type ``folder`` in the folder picker it opens and press Open, as a user does; any dialog
    still open afterwards (a refusal such as "Directory not found", the picker itself) is closed and its title
    and text returned."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialog, QFileDialog, QLineEdit, QMessageBox

    left: list[str] = []
    closer = QTimer()  # stopped when the click returns: it must not close the next test's dialogs
    closer.setSingleShot(True)

    def answer() -> None:
        picker = QApplication.activeModalWidget()
        assert isinstance(picker, QFileDialog), picker
        picker.findChild(QLineEdit, "fileNameEdit").setText(str(folder))
        closer.start(300)  # before accept: a refusal's message box blocks in it
        picker.accept()

    def close_the_rest() -> None:
        if (dialog := QApplication.activeModalWidget()) is not None and isinstance(dialog, QDialog):
            text = dialog.text() if isinstance(dialog, QMessageBox) else ""
            left.append(f"{dialog.windowTitle()}: {text}")
            dialog.reject()
            closer.start(100)

    closer.timeout.connect(close_the_rest)
    QTimer.singleShot(300, answer)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    closer.stop()
    return left


def test_new_project_takes_a_new_folder_typed_in_its_picker(qtbot, tmp_path):
    """New project… with a folder that does not exist yet typed in the picker (as Build training cache… takes
    one) makes the project there, instead of Qt's "Directory not found"."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "old"))
    qtbot.addWidget(page)
    new = tmp_path / "anna-voice"
    assert _type_in_folder_picker(qtbot, page.buttons["new"], new) == []
    assert page.project_dir == new and (new / "manifest.json").is_file()
    assert page.hint.text().startswith(f"New project {new}:")


def test_a_zip_in_a_zip_imports_and_a_failed_import_leaves_no_folder(page, qtbot, tmp_path):
    """A zip holding only a text file: the hint says why nothing came in and no project folder is left (the page
    still offers to start one there); outer.zip holding inner.zip of an LJSpeech folder then imports its clips."""
    from conftest import target_voice_slice

    empty = tmp_path / "notes.zip"
    with zipfile.ZipFile(empty, "w") as out:
        out.writestr("readme.txt", "no audio here")
    page.import_paths([empty])
    _wait(qtbot, page)
    assert "no recordings found; expected audio files" in page.hint.text()
    assert not page.project_dir.exists() and not page.has_project()
    source = target_voice_slice(tmp_path / "src", 2)
    with zipfile.ZipFile(tmp_path / "inner.zip", "w") as out:
        for path in sorted(source.rglob("*")):
            out.write(path, str(path.relative_to(source)))
    with zipfile.ZipFile(tmp_path / "outer.zip", "w") as out:
        out.write(tmp_path / "inner.zip", "inner.zip")
    page.import_paths([tmp_path / "outer.zip"])
    _wait(qtbot, page)
    assert page.hint.text() == "2 clips added, 0 already present" and page.model.rowCount() == 2


def test_the_page_says_what_the_import_skipped_and_offers_changed_texts(page, qtbot, tmp_path):
    """The hint names what the import skipped (a Windows-1252 metadata.csv: its line and byte), as the command
    line does; importing the fixed file fills the transcripts in; a transcript changed later is offered by a
    button, not taken until it is pressed."""
    from conftest import target_voice_slice

    source = target_voice_slice(tmp_path / "src", 2)
    fixed = (source / "metadata.csv").read_text(encoding="utf-8").replace("The kettle", "The café kettle")
    (source / "metadata.csv").write_bytes(fixed.encode("cp1252"))
    page.import_paths([source])
    _wait(qtbot, page)
    assert "line 1 is not UTF-8 text (byte 16); save the file as UTF-8" in page.hint.text()
    (source / "metadata.csv").write_text(fixed, encoding="utf-8")
    page.import_paths([source])
    _wait(qtbot, page)
    assert page.hint.text() == "0 clips added, 2 already present, 2 transcripts filled in from the source"
    assert not page.buttons["take_texts"].isVisibleTo(page)
    (source / "metadata.csv").write_text(fixed.replace("The café kettle", "The kettle"), encoding="utf-8")
    page.import_paths([source])
    _wait(qtbot, page)
    assert "1 transcript differs from its source: slt_0001: metadata.csv:1 says 'The kettle" in page.hint.text()
    assert page.project().clips["slt_0001"].text.startswith("The café kettle")
    take = page.buttons["take_texts"]
    assert take.isVisibleTo(page) and take.text() == "Take the source's transcript"
    qtbot.mouseClick(take, Qt.MouseButton.LeftButton)
    _wait(qtbot, page)
    assert page.hint.text() == "0 clips added, 2 already present, 1 transcript replaced by the source's"
    assert page.project().clips["slt_0001"].text.startswith("The kettle") and not take.isVisibleTo(page)


def _choose_typed(qtbot, button, typed: str) -> list[bool]:
    """Click ``button``, type ``typed`` in the folder picker it opens key by key, as a user does, and press its
    Choose button with the mouse when it is enabled (else Cancel); returns whether Choose was enabled."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QDialogButtonBox, QFileDialog, QLineEdit

    enabled: list[bool] = []

    def answer() -> None:
        picker = QApplication.activeModalWidget()
        assert isinstance(picker, QFileDialog), picker
        name = picker.findChild(QLineEdit, "fileNameEdit")
        name.clear()
        qtbot.keyClicks(name, typed)
        box = picker.findChild(QDialogButtonBox, "buttonBox")
        choose = next(b for b in box.buttons() if box.buttonRole(b) == QDialogButtonBox.ButtonRole.AcceptRole)
        enabled.append(choose.isEnabled())
        qtbot.mouseClick(
            choose if choose.isEnabled() else box.button(QDialogButtonBox.StandardButton.Cancel),
            Qt.MouseButton.LeftButton,
        )

    QTimer.singleShot(300, answer)
    qtbot.mouseClick(button, Qt.MouseButton.LeftButton)
    return enabled


def test_choose_is_enabled_while_a_new_folder_name_is_typed(qtbot, tmp_path):
    """New project…: typing a folder name that does not exist yet enables Choose (it stayed greyed), and Choose
    makes the project there; a name under a folder that does not exist leaves it greyed. The sibling: the
    picker of Export for Piper… takes a new folder typed the same way."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "old"))
    qtbot.addWidget(page)
    (tmp_path / "here").mkdir()
    page.start_folders.picked(tmp_path / "here" / "x")
    assert _choose_typed(qtbot, page.buttons["new"], "nowhere/anna-voice") == [False]
    assert _choose_typed(qtbot, page.buttons["new"], "anna-voice") == [True]
    new = tmp_path / "here" / "anna-voice"
    assert page.project_dir == new and (new / "manifest.json").is_file()
    page.import_paths([shared_path("corpus", "real-speech", "cards")])
    _wait(qtbot, page)
    assert _choose_typed(qtbot, page.buttons["export"], "anna-piper") == [True]
    _wait(qtbot, page)
    assert (tmp_path / "here" / "anna-piper" / "metadata.csv").is_file()


def test_a_folder_that_is_no_project_yet_is_not_shown_as_one(page, qtbot, tmp_path):
    """The page's folder line says a project folder that does not exist yet is a new project made on import
    (it showed "Project: PATH" as if there were one), a folder without a manifest that it is not a project yet,
    and a project by its path."""
    assert page.folder_label.text() == f"New project: {page.project_dir} (created on import)"
    (tmp_path / "mine").mkdir()
    page.open_project(tmp_path / "mine")
    assert page.folder_label.text() == f"Folder: {tmp_path / 'mine'} (not a dataset project yet)"
    page.import_paths([shared_path("corpus", "real-speech", "cards") / "001.wav"])
    _wait(qtbot, page)
    assert page.folder_label.text() == f"Project: {tmp_path / 'mine'}"


def test_an_import_far_quieter_than_the_project_says_so(page, qtbot, tmp_path):
    """The sibling of slicing's loudness note: a recording 20 dB quieter than the project's clips, imported, is
    said to be so (by the clips' measured loudness), with the fix; one about as loud as them is not."""
    cards = shared_path("corpus", "real-speech", "cards")
    page.import_paths([cards / "001.wav", cards / "002.wav"])
    _wait(qtbot, page)
    audio, rate = soundfile.read(str(cards / "003.wav"), dtype="float32")
    soundfile.write(str(tmp_path / "quiet.wav"), audio * 0.1, rate)
    page.import_paths([tmp_path / "quiet.wav"])
    _wait(qtbot, page)
    lufs = {c.id: c.analysis["loudness_lufs"] for c in page.project().clips.values()}
    others = float(np.median([lufs["001"], lufs["002"]]))
    gap = f"about {others - lufs['quiet']:.0f} dB quieter than the project's others"
    said = f"warning: the new clip is {gap} (median {lufs['quiet']:.0f} LUFS against {others:.0f}): Normalize"
    assert said in page.hint.text(), page.hint.text()
    page.import_paths([cards / "004.wav"])
    _wait(qtbot, page)
    assert page.hint.text() == "1 clip added, 0 already present"


def test_dialogs_choosing_recordings_open_where_recordings_were_picked_else_in_the_users_folders(page, tmp_path):
    """Add recordings… and Slice long recording… open in the user's Music (or Documents, or home) folder, never in
    the project's own folder; then where recordings were picked last, also after another project is opened."""
    from studio.widgets.start_folders import user_folder

    page.new_project(tmp_path / "fresh")
    assert page.start_folders.recordings() == user_folder("audio") != page.project_dir
    (tmp_path / "takes").mkdir()
    page.start_folders.picked_recordings(tmp_path / "takes" / "one.wav")
    page.open_project(tmp_path / "other")
    assert page.start_folders.recordings() == tmp_path / "takes"
    assert page.start_folders.start(page.project_dir) == tmp_path  # the project's own dialogs: near the project
