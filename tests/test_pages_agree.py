"""Pages that show the same thing agree: a change made on one page (a resample, a fix, a cache build) shows on every
other page that displays it, and the Dataset page's report says what the Train page's Check says about the dataset
as a whole (Qt offscreen, real clips of the target voice, real jobs and checks)."""

from __future__ import annotations

import json

import pytest
import soundfile
from conftest import target_voice_slice, write_started_run

pytestmark = pytest.mark.gui

CLIPS = 4


@pytest.fixture
def pages(qtbot, tmp_path):
    """The Dataset and Train pages of one workspace, on a project of 4 target-voice clips (32 kHz), its training
    cache built by the Dataset page."""
    from studio.pages.dataset import DatasetPage
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    workspace = Workspace(
        dataset_project=tmp_path / "project", runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"
    )
    dataset, train = DatasetPage(workspace), TrainPage(workspace, VoiceLibrary())
    for page in (dataset, train):
        qtbot.addWidget(page)
    dataset.import_paths([target_voice_slice(tmp_path / "piper-data", CLIPS)])
    _wait(qtbot, dataset)
    dataset.build_cache(tmp_path / "cache")
    _wait(qtbot, dataset)
    train.setup.dataset.setText(str(workspace.dataset_project))
    yield dataset, train
    train.process.kill()


def _wait(qtbot, dataset) -> None:
    qtbot.waitUntil(lambda: not dataset.is_busy(), timeout=120_000)


def _checked(qtbot, train) -> str:
    """Check the Train page's choices (joe, the test preset) and wait for the findings; returns the status line."""
    train.setup.preset.setCurrentText("test")
    task = train.check(estimate=False)
    qtbot.waitUntil(lambda: not task.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: train.status.text().startswith("Checked:"), timeout=5_000)
    return train.status.text()


def test_a_resample_on_the_train_page_shows_on_the_dataset_page(pages, qtbot):
    """Check → Resample on the Train page re-fixes the 4 clips: the Dataset page, not touched, says its cache is out
    of date for them and marks them edited, as the project itself says."""
    from studio.widgets.clip_table import COLUMNS
    from trainer.data.preprocess.status import cache_status

    dataset, train = pages
    assert "up to date" in dataset.cache_label.text()
    _checked(qtbot, train)
    assert train.setup.resample.isVisibleTo(train)
    train.setup.resample.click()  # resampled, then checked again: findings with no rate offer
    qtbot.waitUntil(lambda: bool(train.setup.current) and not train.setup.resample.isVisibleTo(train), timeout=120_000)
    said = cache_status(dataset.project()).describe()
    assert "out of date (4 clips re-fixed)" in said
    assert dataset.cache_label.text().startswith(said), dataset.cache_label.text()
    edited = COLUMNS.index("edited")
    marks = [dataset.model.data(dataset.model.index(row, edited)) for row in range(dataset.model.rowCount())]
    assert len(marks) == CLIPS and all("22,050" in mark or "resampl" in mark for mark in marks), marks


def test_a_fix_or_cache_build_on_the_dataset_page_clears_the_train_pages_check(pages, qtbot, tmp_path):
    """A Check on the Train page, then a fix on the Dataset page: the findings and the "Checked" line go (they
    described the clips before it) and the line says why; the same for a cache rebuilt where Train checked it."""
    dataset, train = pages
    _checked(qtbot, train)
    dataset.select(list(dataset.project().clips))
    dataset.fix_selected(normalize=True)
    _wait(qtbot, dataset)
    assert train.setup.current == [] and train.setup.findings.text() == ""
    assert not train.status.text().startswith("Checked:") and "Normalizing" in train.status.text()

    train.setup.dataset.setText(str(tmp_path / "cache"))
    _checked(qtbot, train)
    dataset.build_cache(tmp_path / "cache")
    _wait(qtbot, dataset)
    assert train.setup.current == [] and not train.status.text().startswith("Checked:")


def test_the_report_says_what_check_says_about_the_dataset(pages, qtbot):
    """4 clips at 32 kHz: the Train page's Check warns of few clips and of their rate; the Dataset page's report
    says both in the same words, not "No problems found"."""
    dataset, train = pages
    _checked(qtbot, train)
    checked = " ".join(f.message for f in train.setup.current)
    report = dataset.report.toPlainText()
    few = "Only 4 clips: 100 to 2,000 make a good voice."
    rate = "is at 22,050 Hz, clips are not (4 at 32,000 Hz). Training resamples them; resample the curated copies"
    assert few in checked and rate in checked, checked
    assert few in report and rate in report and "No problems found" not in report, report


def _rank(run, epoch: int, val_mel: float, ranking: list) -> None:
    """Rank a checkpoint of ``epoch`` as the trainer does (its file beside ``best.json``), best first."""
    best = run / "checkpoints" / f"best-epoch={epoch:04d}-val_mel={val_mel:.4f}.ckpt"
    best.parent.mkdir(exist_ok=True)
    best.write_bytes(b"generator")
    ranking[:] = sorted([*ranking, [val_mel, best.name]])
    (best.parent / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))


def test_a_run_followed_on_the_train_page_shows_its_new_epoch_and_checkpoint_on_the_compare_page(qtbot, tmp_path):
    """A run another machine trains, followed on the Train page and opened on the Compare page: its next epoch
    and checkpoint appear there as they come (listed unchecked, the comparison under way left as it is; its
    curves with the new epoch), not only on the Train page."""
    from studio.pages.compare import ComparePage
    from studio.pages.train import TrainPage
    from studio.state import StudioState, Workspace
    from trainer.events.live import LIVE_FILE
    from trainer.events.log import EventLog
    from trainer.events.schema import Checkpoint, Epoch

    run = tmp_path / "shared" / "run"
    write_started_run(run, tmp_path, epochs=3)
    (run / LIVE_FILE).write_text(json.dumps({"host": "another-machine", "pid": 4242}))  # it trains there
    ranking: list = []
    _rank(run, 0, 1.5, ranking)
    state = StudioState(workspace=Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"))
    train = TrainPage(state.workspace, state.library)
    compare = ComparePage(state.workspace, state.library, state.engines)
    for page in (train, compare):
        qtbot.addWidget(page)
    compare.open_run(run)
    boxed = compare.listen.candidates_box
    assert [e.candidate.label for e in boxed.entries()] == ["epoch 1 · val_mel 1.5000"]
    assert train.runs.open_folder(run) and train.follower.is_following()

    log = EventLog(run / "events.jsonl")  # the other machine's next epoch
    times = {"seconds": 1.0, "train_s": 1.0, "val_s": 0.0, "preview_s": 0.0, "checkpoint_wait_s": 0.0}
    log.emit(Epoch(epoch=1, step=10, losses={"val_mel": 1.2}, learning_rates={}, **times))
    _rank(run, 1, 1.2, ranking)
    log.emit(Checkpoint(epoch=1, path=str(run / "checkpoints" / ranking[0][1]), role="best"))
    log.close()
    qtbot.waitUntil(lambda: len(boxed.entries()) == 2, timeout=10_000)
    checked = [e.candidate.label for e in boxed.entries(checked_only=True)]
    assert [e.candidate.label for e in boxed.entries()][1] == "epoch 2 · val_mel 1.2000" and len(checked) == 1
    assert compare.runs.curves[0].epochs == [1, 2]
    train.follower.stop()


def test_a_change_made_in_a_terminal_shows_when_the_studio_is_active_again(qtbot, tmp_path):
    """``voice-studio dataset fix --normalize`` run in a terminal: when the studio is the active application again
    (or within a few seconds while it is) the Dataset page shows the clips normalized, and the Train page's check
    of that dataset is dropped with the words why (studio.state_files.OutsideWatch, looked with by the main window)."""
    import subprocess
    import sys

    from conftest import ROOT
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from studio.main_window import MainWindow
    from studio.settings import Settings
    from studio.widgets.clip_table import COLUMNS
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path / "project")
    project.import_sources([target_voice_slice(tmp_path / "piper-data", CLIPS)], workers=1)
    window = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(window)
    dataset, train = window.dataset_page, window.train_page
    dataset.open_project(project.folder)
    train.setup.dataset.setText(str(project.folder))
    train.setup.start.setCurrentIndex(train.setup.start.findData("scratch"))
    _checked(qtbot, train)
    edited = COLUMNS.index("edited")
    marks = lambda: [dataset.model.data(dataset.model.index(r, edited)) for r in range(dataset.model.rowCount())]  # noqa: E731
    assert len(marks()) == CLIPS and not any("normaliz" in str(mark) for mark in marks())

    state = QApplication.instance().applicationStateChanged
    window.outside.look()  # what the window's timer does every few seconds
    command = [sys.executable, "-m", "studio", "dataset", "fix", str(project.folder), "--normalize"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not any("normaliz" in str(mark) for mark in marks())  # not looked at yet
    state.emit(Qt.ApplicationState.ApplicationActive)  # back from the terminal
    assert all("normaliz" in str(mark) for mark in marks()), marks()
    assert train.setup.current == [] and not train.status.text().startswith("Checked:")
    assert "Something outside the studio changed the dataset" in train.status.text(), train.status.text()
    _checked(qtbot, train)
    state.emit(Qt.ApplicationState.ApplicationActive)  # nothing changed since: the check stays
    assert train.status.text().startswith("Checked:") and train.setup.current
    first = sorted(project.clips)[0]
    dataset.select([first])  # in the editor: drawn again from the file the terminal rewrote
    done = subprocess.run([*command[:-1], "--resample"], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    qtbot.waitUntil(lambda: all("resampl" in str(mark) for mark in marks()), timeout=10_000)  # the timer found it
    shown, rate = dataset._clip_audio
    assert (rate, len(shown)) == (22050, soundfile.info(str(project.clip_path(first))).frames)
    assert dataset.editor.clip_id == first and dataset.editor.waveform.points > 0


def test_the_studios_own_changes_are_not_taken_for_outside_ones(tmp_path):
    """A change a page announced is not announced again as made outside the studio, nor one made while a job of the
    studio's still writes; a change nobody announced is, once (studio.state_files.OutsideWatch)."""
    from studio.state_files import OUTSIDE, FolderChanges, OutsideWatch

    folder = tmp_path / "project"
    (folder / "clips").mkdir(parents=True)
    channel, heard, busy = FolderChanges(), [], [False]
    channel.events.changed.connect(heard.append)
    watch = OutsideWatch(channel, lambda: [folder], lambda: busy[0])

    def change(name: str) -> None:
        (folder / "clips" / name).write_bytes(b"x" * len(heard + [name]))

    assert watch.look() is None  # first seen: noted
    change("a.wav")
    channel.announce(folder, what="a fix on the Dataset page")  # the page that made it said so
    assert watch.look() is None and [c.what for c in heard] == ["a fix on the Dataset page"]
    busy[0] = True
    change("b.wav")
    assert watch.look() is None and len(heard) == 1  # the job says what it changed when it ends
    busy[0] = False
    assert watch.look() is None  # what it wrote was noted while it wrote
    change("c.wav")
    said = watch.look()
    assert said is not None and said.what == OUTSIDE and said.concerns(folder) and len(heard) == 2
    assert watch.look() is None  # nothing new since
