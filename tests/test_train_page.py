"""The Train page driven as a user drives it: a real trainer process on real clips (Qt offscreen)."""

from __future__ import annotations

import gc
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import target_voice_slice, write_started_run

pytest.importorskip("lightning")
pytestmark = pytest.mark.gui

CLIPS = 16


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A dataset project of the first 16 target-voice clips (32 kHz FLAC)."""
    from trainer.dataset.project import DatasetProject

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", CLIPS)
    project = DatasetProject.create(tmp_path_factory.mktemp("project") / "project")
    project.import_sources([folder], workers=2)
    return project.folder


@pytest.fixture
def window(qtbot, tmp_path):
    from studio.main_window import MainWindow
    from studio.settings import Settings

    win = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(win)
    win.show_area("Train")
    yield win
    win.train_page.process.kill()
    win.train_page.process.wait(10_000)
    gc.collect()


def _check(page, qtbot, dataset: Path, start: str = "scratch"):
    page.setup.dataset.setText(str(dataset))
    page.setup.start.setCurrentIndex(page.setup.start.findData(start))
    page.setup.preset.setCurrentText("test")
    task = page.check()
    qtbot.waitUntil(lambda: not task.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: "Checking" not in page.setup.findings.text(), timeout=5_000)
    return page.setup.current


def test_preflight_offers_to_resample_then_passes(window, qtbot, project, tmp_path):
    """32 kHz clips against the 22,050 Hz voice: the resample offer; after it, no rate finding is left."""
    page = window.train_page
    copy = tmp_path / "project"
    shutil.copytree(project, copy)
    findings = _check(page, qtbot, copy, "joe")
    offer = [f for f in findings if f.fix == "resample"]
    assert offer and offer[0].fix_rate == 22050 and "32,000 Hz" in offer[0].message
    assert page.setup.resample.isVisibleTo(page) and "22,050" in page.setup.resample.text()
    page.setup.resample.click()
    qtbot.waitUntil(lambda: "Resampling" not in page.setup.findings.text(), timeout=120_000)
    qtbot.waitUntil(lambda: "Checking" not in page.setup.findings.text(), timeout=60_000)
    assert not [f for f in page.setup.current if f.fix == "resample"]
    assert not page.setup.resample.isVisibleTo(page)


def test_empty_dataset_is_refused(window, qtbot, tmp_path):
    """A project with no clips: an error, and Start does not start a trainer."""
    from trainer.dataset.project import DatasetProject

    empty = DatasetProject.create(tmp_path / "empty")
    empty.save()
    findings = _check(window.train_page, qtbot, empty.folder)
    assert any(f.blocking and "0 usable clips" in f.message for f in findings)
    task = window.train_page.start()
    qtbot.waitUntil(lambda: not task.is_running(), timeout=60_000)
    qtbot.wait(200)
    assert not window.train_page.process.is_running()
    assert "Fix the errors" in window.train_page.status.text()


def _epochs(page) -> int:
    return len(page.view.epoch_chart.data)


def test_run_kill_resume_stop_export(window, qtbot, project):
    """Start a test-preset run, see epochs charted; a killed trainer is an error and the run resumes;
    Stop is graceful; the exported voice appears among the Synthesize page's voices."""
    page = window.train_page
    _check(page, qtbot, project)
    page.setup.epochs.setValue(40)
    finished = []
    page.process.finished.connect(lambda code, crashed: finished.append((code, crashed)))
    page.start()
    qtbot.waitUntil(lambda: _epochs(page) >= 2, timeout=180_000)
    assert page.view.loss_chart.data["train_mel"][1] and "epoch" in page.view.stats.text()
    assert page.view.milestones.rowCount() == 0  # 40 epochs: quarters at 10, 20, 30, 40; none reached, none listed
    assert page.view.previews.count() >= 3

    page.process.kill()
    qtbot.waitUntil(lambda: len(finished) == 1, timeout=30_000)
    assert "Error: the trainer was killed" in page.status.text() and "resumes from epoch" in page.status.text()
    assert (page.state.folder / "trainer.json").exists()  # left by the killed trainer, whose process has ended
    assert page.buttons["resume"].isEnabled()
    killed_at = page.state.epochs_done

    page.resume()
    qtbot.waitUntil(lambda: page.state.epochs_done >= killed_at + 1, timeout=180_000)
    page.stop()
    assert "Stopping after this epoch" in page.status.text()
    qtbot.waitUntil(lambda: len(finished) == 2, timeout=120_000)
    assert finished[1] == (0, False)
    assert page.state.status == "stopped" and "Stopped after epoch" in page.status.text()
    assert (page.state.folder / "last.ckpt").is_file()
    document = json.loads((page.state.folder / "training.json").read_text())
    assert document["preset"] == "test"

    page.runs.refresh()
    assert page.runs.table.item(0, 1).text() == "stopped"
    with qtbot.waitSignal(page.voice_exported, timeout=120_000) as exported:
        page.export()
    assert Path(exported.args[0]).is_file()
    from engines.voice_naming import slug

    named = Path(exported.args[0]).stem  # en_US-RUN-medium: Home Assistant's naming (trainer.checkpoints.naming)
    assert named.startswith(f"en_US-{slug(page.state.folder.name)}-")
    qtbot.waitUntil(lambda: named in window.synthesize_page.voice_names(), timeout=10_000)
    # a test-preset voice is a smoke test: the export message, its config (kept from the run's) and its label
    assert "It is a smoke test (test preset)" in page.status.text()
    training = json.loads(Path(f"{exported.args[0]}.json").read_text())["training"]
    assert training["preset"] == "test" and training["start_voice"] and training["epochs"] >= 1
    picker = window.synthesize_page.picker
    shown = [picker.box.itemText(i) for i in range(picker.box.count())]
    assert any(t.startswith(f"⚠ smoke test: {named}") for t in shown)


def test_a_restarted_studio_lists_the_run_and_offers_resume(window, qtbot, project, tmp_path):
    """A run stopped in one session: a new Train page (the studio restarted) lists it and can resume it."""
    import subprocess
    import sys

    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.run_state import request_stop

    run = tmp_path / "runs" / "earlier"
    command = ["train", "--dataset", str(project), "--out", str(run), "--preset", "test", "--epochs", "5"]
    process = subprocess.Popen([sys.executable, "-m", "studio", *command], stderr=subprocess.DEVNULL)
    qtbot.waitUntil(lambda: (run / "last.ckpt").exists(), timeout=180_000)
    request_stop(run)
    assert process.wait(180) == 0
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.tabs.setCurrentIndex(1)  # the Runs tab reads the folder
    assert page.runs.table.item(0, 0).text() == "earlier" and page.runs.table.item(0, 1).text() == "stopped"
    page.runs.table.selectRow(0)
    assert page.state is not None and page.state.folder == run
    assert page.buttons["resume"].isEnabled() and page.buttons["export"].isEnabled()


def test_compare_checkpoints_emits_the_run_folder(qtbot, tmp_path):
    """The Compare button is enabled for a shown run with ranked checkpoints and emits its folder; a run
    with none ranked leaves it disabled."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.run_state import load_run

    runs = tmp_path / "runs"
    ranked, bare = runs / "ranked", runs / "bare"
    (ranked / "checkpoints").mkdir(parents=True)
    (bare / "checkpoints").mkdir(parents=True)
    name = "best-epoch=0002-val_mel=0.6120.ckpt"
    (ranked / "checkpoints" / name).write_bytes(b"ckpt")
    (ranked / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": [[0.612, name]]}))
    page = TrainPage(Workspace(runs_dir=runs, voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    button = page.buttons["compare"]
    assert button.text() == "Compare" and "checkpoints" in button.toolTip() and not button.isEnabled()
    page.show_run(load_run(bare))
    assert not button.isEnabled()
    page.show_run(load_run(ranked))
    assert button.isEnabled()
    with qtbot.waitSignal(page.compare_requested, timeout=1000) as emitted:
        button.click()
    assert emitted.args == [ranked]


def test_a_run_folder_trained_elsewhere_is_opened_and_followed(qtbot, tmp_path):
    """A run folder outside the runs folder (shared storage that other machines train into) opens from the
    Runs tab; its new events show as they are written, and following ends with its finish."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.live import LIVE_FILE
    from trainer.events.log import EventLog
    from trainer.events.schema import Checkpoint, Epoch, Finish, RunStart
    from trainer.run.document import RunDocument, write_run
    from trainer.run.options import RunOptions

    run = tmp_path / "shared" / "run"
    run.mkdir(parents=True)
    options = RunOptions(dataset=tmp_path, out=run, preset="test", epochs=2)
    write_run(RunDocument(options=options, cache=tmp_path, config={"epochs": 2, "batch_size": None}))
    log = EventLog(run / "events.jsonl")  # the "other machine"
    (run / LIVE_FILE).write_text(json.dumps({"host": "another-machine", "pid": 4242}))  # as it trains
    log.emit(RunStart(config={}, num_utterances=20, device="cpu", epochs=2, start="scratch"))
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    assert not page.runs.open_folder(tmp_path) and "not a run folder" in page.runs.note.text()
    assert page.runs.open_folder(run) and page.state is not None and page.state.folder == run
    assert page.follower.is_following() and "Following it" in page.status.text()
    times = {"seconds": 1.0, "train_s": 1.0, "val_s": 0.0, "preview_s": 0.0, "checkpoint_wait_s": 0.0}
    log.emit(Epoch(epoch=0, step=5, losses={"val_mel": 1.5}, learning_rates={}, **times))
    qtbot.waitUntil(lambda: page.state.epochs_done == 1, timeout=10_000)
    best = run / "checkpoints" / "best-epoch=0000-val_mel=1.5000.ckpt"  # the other machine ranks a checkpoint
    best.parent.mkdir()
    best.write_bytes(b"generator")
    (best.parent / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": [[1.5, best.name]]}))
    log.emit(Checkpoint(epoch=0, path=str(best), role="best"))
    qtbot.waitUntil(lambda: "epoch 1" in page.view.best_row.caption.toolTip(), timeout=10_000)
    log.emit(Finish(epochs=1, seconds=3.0, setup_s=1.0, status="done"))
    qtbot.waitUntil(lambda: not page.follower.is_following(), timeout=10_000)
    assert page.state.status == "done" and page.status.text().startswith("run: done, 1 epoch.")
    log.close()


def test_a_run_whose_last_ckpt_was_cut_offers_continue_from_best(qtbot, tmp_path, make_tiny_checkpoint, monkeypatch):
    """The Runs tab marks a stopped run whose last.ckpt was cut in half; shown, its status says so and Resume reads
    Continue from best, which starts a new run beside it from its best intact checkpoint with the run's settings."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    run = tmp_path / "runs" / "cut"
    write_started_run(run, tmp_path, epochs=4)
    best = run / "checkpoints" / "best-epoch=0000-val_mel=1.5000.ckpt"
    best.parent.mkdir()
    make_tiny_checkpoint(best)
    (best.parent / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": [[1.5, best.name]]}))
    data = make_tiny_checkpoint(run / "last.ckpt", seed=3).read_bytes()
    (run / "last.ckpt").write_bytes(data[: len(data) // 2])
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    started = []
    monkeypatch.setattr(page.process, "start", lambda folder, arguments, env=None: started.append((folder, arguments)))
    page.tabs.setCurrentIndex(1)
    assert page.runs.table.item(0, 1).text() == "interrupted · last.ckpt damaged"
    page.runs.table.selectRow(0)
    button = page.buttons["resume"]
    assert "Its last.ckpt is damaged: cut short at" in page.status.text()
    assert button.text() == "Continue from best" and button.isEnabled() and "--from-best" in button.toolTip()
    button.click()
    folder, arguments = started[0]
    assert folder == tmp_path / "runs" / "cut-from-epoch-1"
    flags = dict(zip(arguments[1::2], arguments[2::2], strict=False))
    assert arguments[0] == "train" and flags["--from"] == str(best) and flags["--out"] == str(folder)
    assert (flags["--preset"], flags["--epochs"], flags["--dataset"]) == ("test", "3", str(tmp_path))
    assert page.status.text().startswith("Going on from cut's epoch 1 · val_mel 1.5000 in a new run")


def test_a_run_another_trainer_is_writing_is_running_elsewhere_not_resumable(qtbot, tmp_path, make_tiny_checkpoint):
    """A run in the runs folder that a trainer elsewhere is writing (its trainer.json: another machine, events
    changing) reads "running elsewhere" and is not offered for resume beside it; once its events go quiet, or
    when the process it names on this host has ended (a killed terminal run), it is "interrupted" and is."""
    import os
    import socket
    import time

    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.live import LIVE_FILE, RECENT_S

    run = tmp_path / "runs" / "terminal"
    write_started_run(run, tmp_path)
    make_tiny_checkpoint(run / "last.ckpt")  # a resume point
    (run / LIVE_FILE).write_text(json.dumps({"host": "another-machine", "pid": 4242}))
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)

    def shown_status() -> tuple[str, bool]:
        page.runs.refresh()
        page.runs.reopen(0)
        status = page.runs.table.item(0, 1).text(), page.buttons["resume"].isEnabled()
        page.follower.stop()
        return status

    assert shown_status() == ("running elsewhere", False)
    quiet = time.time() - RECENT_S - 60
    os.utime(run / "events.jsonl", (quiet, quiet))
    assert shown_status() == ("interrupted", True)
    os.utime(run / "events.jsonl")  # fresh again, but the trainer it names ran here and has ended
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (run / LIVE_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": int(ended.stdout)}))
    assert shown_status() == ("interrupted", True)
    (run / LIVE_FILE).write_text(json.dumps({"host": socket.gethostname(), "pid": os.getpid()}))  # one that runs
    assert shown_status() == ("running elsewhere", False)


def _timing_children() -> list[int]:
    """Child processes of this test that time a training step (``trainer.run.step_timing``; Linux ``/proc``)."""
    import os

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"trainer.run.step_timing" in command:
            found.append(int(stat.parent.name))
    return found


def _choose(page, project, epochs: int) -> None:
    setup = page.setup
    setup.dataset.setText(str(project))
    setup.start.setCurrentIndex(setup.start.findData("scratch"))
    setup.preset.setCurrentText("test")
    setup.device.setCurrentIndex(setup.device.findData("cpu"))
    setup.epochs.setValue(epochs)


def test_check_says_how_long_the_epochs_take_here(window, qtbot, project, tmp_path, monkeypatch):
    """On a machine that never timed a step, Check times one in a child process (saying so, with a moving
    figure), then says how long the chosen epochs take, under the findings and in the status line; the next
    Check says it from the remembered step at once; a change of the choices clears it."""
    from trainer.run.epoch_time import estimate_sentence, remembered
    from trainer.run.preflight import summarize
    from trainer.run.step_timing import estimate_run, step_key

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # nothing timed here yet
    page = window.train_page
    _choose(page, project, 9000)
    page.check()
    qtbot.waitUntil(lambda: "Timing a training step on this CPU" in page.setup.estimate.text(), timeout=60_000)
    assert page.setup.estimate.isVisibleTo(page)
    qtbot.waitUntil(lambda: bool(_timing_children()), timeout=30_000)  # said just before the child starts
    qtbot.waitUntil(lambda: "≈" in page.setup.estimate.text(), timeout=180_000)
    options = page.setup.options(page.runs_root)
    assert remembered(step_key(options)) is not None  # the timed step, kept for the next check
    expected = estimate_run(options, summarize(project).clips)
    sentence = estimate_sentence(expected)
    assert sentence.startswith("9,000 epochs ≈ ") and "on this CPU" in sentence
    assert sentence in page.setup.estimate.text() and "from a step timed on this machine" in page.setup.estimate.text()
    assert sentence in page.status.text() and page.status.text().endswith("Press Start to train.")
    page.setup.epochs.setValue(10)
    assert not page.setup.estimate.isVisibleTo(page) and sentence not in page.status.text()
    page.check()
    qtbot.waitUntil(lambda: "10 epochs ≈ " in page.setup.estimate.text(), timeout=60_000)
    assert not _timing_children()


def test_a_change_while_a_step_is_timed_ends_the_timing(window, qtbot, project, tmp_path, monkeypatch):
    """A choice changed while Check times a step: the child process ends and no estimate is shown."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    page = window.train_page
    _choose(page, project, 100)
    page.check()
    qtbot.waitUntil(lambda: bool(_timing_children()), timeout=60_000)
    page.setup.epochs.setValue(200)
    qtbot.waitUntil(lambda: not _timing_children(), timeout=10_000)
    qtbot.wait(300)
    assert not page.setup.estimate.isVisibleTo(page) and "≈" not in page.status.text()


def test_preview_now_brings_previews_within_the_epoch(window, qtbot, project):
    """While a run trains, Preview now asks its trainer for previews: the Previews tab shows, says they are on
    their way and lists them (marked with the step they were spoken after) within the epoch; the button waits
    for them, then works again."""
    page = window.train_page
    button = page.buttons["preview"]
    assert button.text() == "Preview now" and not button.isEnabled()
    _choose(page, project, 40)
    page.start()
    qtbot.waitUntil(lambda: page.state is not None and page.state.progress is not None, timeout=180_000)
    qtbot.waitUntil(button.isEnabled, timeout=5_000)
    button.click()
    previews = page.view.previews
    assert not button.isEnabled() and page.view.side.currentWidget() is previews
    assert "Previews asked for" in previews.now.text()

    def within() -> list[str]:
        texts = [previews.list.item(i).text() for i in range(previews.count())]
        return [text for text in texts if ", step " in text]

    qtbot.waitUntil(lambda: len(within()) == 3, timeout=120_000)
    assert all(text.startswith("Epoch ") for text in within())
    qtbot.waitUntil(button.isEnabled, timeout=5_000)
    assert "Previews asked for" not in previews.now.text()
