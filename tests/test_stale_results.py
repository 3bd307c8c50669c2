"""What a page shows belongs to the inputs it was computed from: changing them clears it, and a result that
arrives after they changed is dropped (Qt offscreen, real pre-flight checks, real voices, a real server)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import synthesize_page

pytestmark = pytest.mark.gui


# --- Train page: pre-flight findings ---------------------------------------------------------------------
@pytest.fixture
def train(qtbot, tmp_path):
    """A Train page (not shown: no device detection) and two datasets: a folder that is none, an empty project."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.dataset.project import DatasetProject

    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    (tmp_path / "not-a-dataset").mkdir()
    empty = DatasetProject.create(tmp_path / "empty-project")
    empty.save()
    page.setup.preset.setCurrentText("test")
    page.setup.start.setCurrentIndex(page.setup.start.findData("scratch"))
    yield page, tmp_path / "not-a-dataset", empty.folder
    page.process.kill()


def _checked(page, qtbot, task) -> str:
    qtbot.waitUntil(lambda: not task.is_running(), timeout=60_000)
    qtbot.wait(50)  # the done signal is queued to the GUI thread
    return page.setup.findings.text()


def test_changing_any_train_choice_clears_the_findings(train, qtbot):
    """After a Check, another dataset, start, preset, epochs or device clears the findings and the "Checked"
    line: they described the choices shown before."""
    page, folder, _ = train
    setup = page.setup
    setup.device.setCurrentIndex(setup.device.findData("cpu"))
    changes = [
        lambda: setup.dataset.setText(str(folder) + "/"),
        lambda: setup.start.setCurrentIndex(setup.start.findData("joe")),
        lambda: setup.preset.setCurrentText("x-low"),
        lambda: setup.epochs.setValue(setup.epochs.value() + 1),
        lambda: setup.device.setCurrentIndex(setup.device.findData("auto")),
    ]
    for change in changes:
        setup.dataset.setText(str(folder))
        assert str(folder) in _checked(page, qtbot, page.check())
        assert page.status.text().startswith("Checked:") and setup.current
        change()
        assert setup.findings.text() == "" and setup.current == [], setup.findings.text()
        assert not page.status.text().startswith("Checked:")


def test_findings_that_arrive_after_a_change_are_dropped(train, qtbot):
    """A check still running when the dataset changes: its findings (about the old folder) are never shown."""
    page, folder, empty = train
    page.setup.dataset.setText(str(folder))
    task = page.check()
    page.setup.dataset.setText(str(empty))
    assert _checked(page, qtbot, task) == ""
    assert page.setup.current == [] and not page.status.text().startswith("Checked:")


def test_start_checks_what_is_selected_when_it_is_pressed(train, qtbot):
    """Start after a Check and a change checks the dataset shown now; a change while Start's check runs starts
    nothing and says so."""
    page, folder, empty = train
    page.setup.dataset.setText(str(folder))
    _checked(page, qtbot, page.check())
    page.setup.dataset.setText(str(empty))
    shown = _checked(page, qtbot, page.start())
    assert "0 usable clips" in shown and str(folder) not in shown
    assert "Fix the errors" in page.status.text() and not page.process.is_running()

    task = page.start()
    page.setup.dataset.setText(str(folder))
    assert _checked(page, qtbot, task) == ""
    assert "changed while it was being checked" in page.status.text() and not page.process.is_running()


def test_a_refused_start_says_so_only_until_a_choice_changes(train, qtbot):
    """Start on an empty project: "Fix the errors above"; another dataset chosen, the line no longer says it (the
    errors it points at are gone with the findings) but what to do with the dataset chosen now."""
    page, folder, empty = train
    page.setup.dataset.setText(str(empty))
    _checked(page, qtbot, page.start())
    assert "Fix the errors" in page.status.text()
    page.setup.dataset.setText(str(folder))
    assert page.setup.current == [] and "Fix the errors" not in page.status.text()
    assert "press Check" in page.status.text(), page.status.text()


def test_the_idle_status_follows_the_dataset_chosen(qtbot, tmp_path):
    """A new page asks for a dataset; once the Dataset page's project fills it in, the line says what to do
    with it, never "Choose a dataset"; cleared again, it asks again."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.dataset.project import DatasetProject

    DatasetProject.create(tmp_path / "project").save()
    workspace = Workspace(
        runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices", dataset_project=tmp_path / "project"
    )
    page = TrainPage(workspace, VoiceLibrary())
    qtbot.addWidget(page)
    assert page.status.text().startswith("Choose a dataset")
    page._devices_listed = True  # no device detection (it loads torch) in this test
    page.show()
    assert page.setup.dataset.text() == str(tmp_path / "project")
    assert "Choose a dataset" not in page.status.text() and "project" in page.status.text(), page.status.text()
    page.setup.dataset.setText("")
    assert page.status.text().startswith("Choose a dataset")


def test_the_wheel_over_a_setup_field_scrolls_and_changes_nothing(train, qtbot):
    """After a Check, the mouse wheel over the Device picker (not focused: the pointer passing over while the
    setup scrolls) leaves the device, the findings and the "Checked" line as they were; once the picker has the
    focus the wheel chooses, and the findings and the line go with the old choice."""
    from PySide6.QtCore import QPoint, QPointF, Qt
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    page, folder, _ = train
    page._devices_listed = True  # no device detection (it loads torch) in this test
    page.show()
    qtbot.waitExposed(page)
    page.setup.dataset.setText(str(folder))
    _checked(page, qtbot, page.check(estimate=False))
    device, chosen = page.setup.device, page.setup.device.currentData()

    def wheel() -> None:
        at = QPointF(device.width() / 2, device.height() / 2)
        event = QWheelEvent(at, device.mapToGlobal(at), QPoint(), QPoint(0, -120), Qt.MouseButton.NoButton,
                            Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False)  # fmt: skip
        QApplication.sendEvent(device, event)

    wheel()
    assert device.currentData() == chosen and page.setup.current and page.status.text().startswith("Checked:")
    page.activateWindow()
    device.setFocus()
    qtbot.waitUntil(device.hasFocus, timeout=2_000)
    wheel()
    assert device.currentData() != chosen and page.setup.current == []
    assert not page.status.text().startswith("Checked:")


def test_train_dataset_follows_the_dataset_page_until_the_user_sets_one(qtbot, tmp_path):
    """The dataset filled in from the Dataset page follows it to another project; a typed one stays."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.dataset.project import DatasetProject

    projects = {"now": tmp_path / "first"}
    for name in ("first", "second", "third"):  # the Dataset page's projects (a manifest each)
        DatasetProject.create(tmp_path / name).save()
    workspace = Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices", dataset_project=projects["now"])
    page = TrainPage(workspace, VoiceLibrary())
    qtbot.addWidget(page)
    page._devices_listed = True  # no device detection (it loads torch) in this test
    page.show()
    assert page.setup.dataset.text() == str(tmp_path / "first")
    page.hide()
    workspace.dataset_project = tmp_path / "second"
    page.show()
    assert page.setup.dataset.text() == str(tmp_path / "second")
    page.hide()
    page.setup.dataset.setText(str(tmp_path / "typed"))
    workspace.dataset_project = tmp_path / "third"
    page.show()
    assert page.setup.dataset.text() == str(tmp_path / "typed")


# --- Synthesize page: notices belong to their voice and engine --------------------------------------------
@pytest.fixture
def synth(qtbot, tmp_path, joe):
    """A Synthesize page listing joe and "broken": joe's config beside a model that is no ONNX graph."""

    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not an onnx graph")
    shutil.copy(f"{joe.model_path}.json", tmp_path / "broken.onnx.json")
    page = synthesize_page(qtbot, [broken])
    assert page.voice_names()[-1] == "broken"
    yield page
    page.stop()


def _select(page, name: str) -> None:
    page.voice_box.setCurrentIndex(page.voice_names().index(name))


def test_a_voice_error_goes_when_another_voice_is_chosen(synth, qtbot, joe):
    """Choosing the broken voice shows its error; choosing joe clears it."""
    _select(synth, "broken")
    synth.preload().join()
    qtbot.waitUntil(lambda: "broken" in synth.notice.text(), timeout=10_000)
    _select(synth, joe.name)
    assert synth.notice.text() == ""


def test_a_late_voice_error_is_not_shown_for_the_next_voice(synth, qtbot, joe):
    """The broken voice's load fails after joe was chosen: nothing is shown about it under joe."""
    _select(synth, "broken")
    task = synth.preload()
    _select(synth, joe.name)
    task.join()
    qtbot.wait(100)
    assert synth.notice.text() == ""


def test_an_engine_error_goes_when_the_engine_changes(synth, qtbot):
    """A failed line under the remote engine (a bad address) is not shown once a local engine is chosen."""
    synth.engine_box.setCurrentIndex(synth.engine_box.findData("remote"))
    synth.remote_panel.url.setText("http://127.0.0.1:9")
    synth.text_edit.setPlainText("Hello.")
    task = synth.speak()
    qtbot.waitUntil(lambda: not task.is_running(), timeout=20_000)
    said = synth.remote_panel.status  # a server's error is said once, in the remote box (not also a notice)
    qtbot.waitUntil(lambda: "cannot connect" in said.text(), timeout=5_000)
    synth.engine_box.setCurrentIndex(synth.engine_box.findData("onnx"))
    assert synth.notice.text() == "" and not said.isVisibleTo(synth)


def test_a_broken_voice_file_error_goes_when_a_good_voice_is_chosen(synth, tmp_path, joe):
    """Adding a voice with a truncated .onnx.json names the file; choosing a voice clears the message."""
    model = tmp_path / "cut.onnx"
    model.write_bytes(b"x")
    text = json.dumps(json.loads(Path(f"{joe.model_path}.json").read_text()))
    (tmp_path / "cut.onnx.json").write_text(text[: len(text) // 2])
    synth.add_voice_files([model])
    assert "cut.onnx.json" in synth.notice.text()
    _select(synth, "broken")
    _select(synth, joe.name)
    assert synth.notice.text() == ""


# --- Remote panel: a Test's answer belongs to the server it asked -----------------------------------------
def test_remote_test_result_goes_when_the_url_changes(qtbot, speech_server):
    """Test against the server: Connected, noise sliders on. Another URL: the status and the noise sliders
    (a Voice Studio server's) go. A Test answer arriving after the URL changed is dropped."""
    from engines.remote.settings import RemoteSettings
    from studio.pages.synthesize import SynthesizePage
    from studio.state import StudioState, Workspace

    state = StudioState(workspace=Workspace(remote=RemoteSettings(url=speech_server.url, voice="default")))
    state.library.load()
    page = SynthesizePage(state)
    qtbot.addWidget(page)
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    panel = page.remote_panel
    with qtbot.waitSignal(panel.tested, timeout=10_000):
        panel.test()
    assert "Connected" in panel.status.text() and page.noise_scale.isEnabled()
    panel.url.setText("http://127.0.0.1:9")
    assert panel.status.text() == "" and not panel.speaks_piper() and not page.noise_scale.isEnabled()

    panel.url.setText(speech_server.url)
    task = panel.test()
    panel.url.setText("http://127.0.0.1:9")
    assert task.is_dropped() and panel.test_button.isEnabled()  # the slot dropped it: Test again at once
    qtbot.waitUntil(lambda: not task.is_running(), timeout=10_000)
    qtbot.wait(100)
    assert panel.status.text() == "" and not panel.speaks_piper()


# --- Dataset page: what was shown about the project left ---------------------------------------------------
def test_dataset_messages_go_when_another_project_is_opened(qtbot, tmp_path):
    """A job's result line and the histograms of one project are not shown over another (empty) project."""
    from conftest import shared_path

    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    page = DatasetPage(Workspace(dataset_project=tmp_path / "first"))
    qtbot.addWidget(page)
    hint = page.hint.text()
    page.import_paths([shared_path("corpus", "real-speech", "cards")])
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    assert "5 clips added" in page.hint.text() and page.histograms.bars
    page.open_project(tmp_path / "second")
    assert "5 clips added" not in page.hint.text() and page.histograms.bars == {} and page.model.rowCount() == 0
    assert page.hint.text() != hint and "not a dataset project yet" in page.hint.text()
    page.open_project(tmp_path / "first")
    assert page.hint.text() == hint and page.model.rowCount() == 5


def test_a_folder_that_is_not_a_project_is_named_when_opened(qtbot, tmp_path, monkeypatch):
    """Opening an empty folder says it is not a project yet; Export and Build cache say so again before any
    folder dialog opens, and nothing is created."""
    from PySide6.QtWidgets import QFileDialog

    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    empty = tmp_path / "empty"
    empty.mkdir()
    page = DatasetPage(Workspace(dataset_project=tmp_path / "elsewhere"))
    qtbot.addWidget(page)
    page.open_project(empty)
    assert page.hint.text().startswith(f"{empty}: not a dataset project yet")
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: pytest.fail("a dialog opened"))
    page.hint.setText("")
    page._on_export_clicked()
    assert "not a dataset project yet" in page.hint.text()
    page.hint.setText("")
    page._on_cache_clicked()
    assert "not a dataset project yet" in page.hint.text() and list(empty.iterdir()) == []


def test_save_wav_saves_the_line_on_screen_only(synth, qtbot, joe, tmp_path):
    """After a good line, a failed one (the broken voice) leaves nothing to save, never the older line;
    replaying the older line from the history makes it the one Save WAV saves."""
    synth.text_edit.setPlainText("A good line.")
    task = synth.speak()
    qtbot.waitUntil(lambda: not task.is_running() and synth.save_button.isEnabled(), timeout=30_000)
    good = synth.last_line
    _select(synth, "broken")
    task = synth.speak()
    assert not synth.save_button.isEnabled() and synth.last_line is None
    qtbot.waitUntil(lambda: not task.is_running(), timeout=30_000)
    qtbot.waitUntil(lambda: "Could not speak" in synth.notice.text(), timeout=5_000)
    _select(synth, joe.name)
    assert not synth.save_button.isEnabled() and synth.last_line is None
    with pytest.raises(ValueError, match="nothing"):
        synth.save_wav(tmp_path / "x.wav")
    synth.replay(good).join()
    assert synth.save_button.isEnabled() and synth.last_line is good


# --- Compare page: the idle line names only the steps still to take --------------------------------------
def test_the_listen_tabs_idle_line_follows_what_is_chosen(qtbot, joe):
    """Nothing chosen: check candidates, choose lines, then Render; joe checked: the line no longer asks to
    check candidates (as the Train page no longer asks for a dataset once one is chosen)."""
    from studio.pages.compare import ComparePage
    from studio.state import StudioState

    state = StudioState()
    page = ComparePage(state.workspace, state.library, state.engines)
    qtbot.addWidget(page)
    assert page.listen.status.text() == "Check candidates, choose lines, then Render"
    page.listen.candidates_box.add_files([joe.model_path])
    assert page.listen.status.text() == "Choose lines, then Render"


# --- Compare page: the saved leaderboard ------------------------------------------------------------------
def test_a_saved_leaderboard_is_not_shown_for_recordings_changed_since(tmp_path, joe):
    """The rows saved for a selection measured MCD, F0 and similarity against the lines' recordings: once a recording
    is rewritten (a fix on the Dataset page trims it in place), reopening the selection offers Score, not the old
    rows as "saved earlier"."""
    import os

    import soundfile
    from conftest import target_voice_slice

    from studio.comparison import Comparison
    from studio.pages.compare_board import save_board, saved_board, scored_key
    from trainer.evaluate.leaderboard import Row
    from trainer.evaluate.lines import read_lines_file
    from trainer.evaluate.render import Candidate

    corpus = target_voice_slice(tmp_path / "corpus", 1)
    comparison = Comparison()
    comparison.set_candidates([Candidate(label="joe", model_path=joe.model_path)])
    comparison.set_lines(read_lines_file(corpus / "metadata.csv"))
    folder = tmp_path / "board"
    save_board(folder, [Row(label="joe", model_path=joe.model_path, mcd_db=7.0)], scored_key(comparison))
    assert saved_board(folder, scored_key(comparison))[0] is not None
    recording = comparison.lines[0].reference
    audio, rate = soundfile.read(recording)
    soundfile.write(recording, audio[: len(audio) // 2], rate)  # trimmed in place
    os.utime(recording, ns=(recording.stat().st_atime_ns, recording.stat().st_mtime_ns + 10**9))
    rows, said = saved_board(folder, scored_key(comparison))
    assert rows is None and said.endswith("press Score.")
