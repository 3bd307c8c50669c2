"""What the Synthesize page keeps (issue 31): save dialogs that propose a name from the voice and the text in the
folder saved to last, typed text and History across restarts (never the audio), the engine picker saying the speed
to expect, and the user's settings kept when the voice changes (Qt offscreen, the real joe voice)."""

from __future__ import annotations

import gc
import json
import shutil

import numpy as np
import pytest
from conftest import save_dialog, synthesize_page
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.gui


@pytest.fixture
def config_home(tmp_path, monkeypatch):
    """The settings file of this test alone (``XDG_CONFIG_HOME`` under ``tmp_path``), and a home with ``Music``."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home" / "Music").mkdir(parents=True)
    return tmp_path / "config"


@pytest.fixture
def windows(qtbot, tmp_path, config_home):
    """Opens main windows as the studio starts (the settings file read anew each time); closes them at the end."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    opened = []

    def open_window(settings=None):
        window = MainWindow(Settings.load() if settings is None else settings, runs_root=tmp_path / "runs")
        window.show()
        opened.append(window)
        return window

    yield open_window
    for window in opened:
        window.synthesize_page.stop()
        window.close()
        window.deleteLater()
    QApplication.processEvents()
    gc.collect()


def _line(text: str, voice: str = "en_US-joe-medium", engine: str = "onnx"):
    """A finished line of 0.1 s of silence, as the page keeps one."""
    from studio.speaking import Line

    return Line(text, voice, 22050, np.zeros(2205, np.float32), engine=engine)


def _voice_copy(joe, folder, name: str, **inference):
    """An exported-like voice: joe's model (a link) and config under ``name``, with ``inference`` defaults."""
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / f"{name}.onnx"
    model.symlink_to(joe.model_path)
    config = json.loads(joe.config.path.read_text(encoding="utf-8"))
    config["inference"] = {**config["inference"], **inference}
    (folder / f"{name}.onnx.json").write_text(json.dumps(config), encoding="utf-8")
    return model


def test_a_proposed_file_name_is_the_voice_and_the_first_words_in_safe_characters():
    """joe's "Hello there!" is joe-hello-there.wav: Piper's short voice name, lower-case ASCII words joined by
    hyphens, cut at a word under 40 characters; no path parts, no empty name."""
    from studio.widgets.start_folders import proposed_name

    assert proposed_name("en_US-joe-medium", "Hello there!", suffix=".wav") == "joe-hello-there.wav"
    assert proposed_name("tts-1/default", "Ça va? Très bien.", suffix=".wav") == "tts-1-default-ca-va-tres-bien.wav"
    long = proposed_name("joe", "The storm rolled in just after midnight, rattling every window.", suffix=".flac")
    assert long == "joe-the-storm-rolled-in-just-after.flac"
    assert proposed_name("joe", "../../etc/passwd", suffix=".wav") == "joe-etc-passwd.wav"
    assert proposed_name("joe", "日本語です", suffix=".wav") == "joe.wav"
    assert proposed_name("", "...", suffix=".csv", fallback="ratings") == "ratings.csv"


def test_save_wav_proposes_the_voice_and_text_in_the_folder_saved_to_last_after_a_restart(
    windows, qtbot, monkeypatch, tmp_path
):
    """Save WAV… offers joe-hello-there.wav in ~/Music at first; after a save elsewhere, a new window (the studio
    started again) offers its line's name in that folder."""
    from studio.widgets import speak_bar

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    first = windows()
    page = first.synthesize_page
    page.text_edit.setPlainText("Hello there.")
    with qtbot.waitSignal(page.line_finished, timeout=30_000):
        page.speak()
    asked = save_dialog(monkeypatch, speak_bar, elsewhere / "mine.wav")
    page.save_button.click()
    second = windows().synthesize_page
    second.bar.show_line(_line("Another take, please."))
    second.save_button.click()
    home = tmp_path / "home" / "Music"
    assert asked == [str(home / "joe-hello-there.wav"), str(elsewhere / "joe-another-take-please.wav")], asked
    assert (elsewhere / "mine.wav").is_file()


def test_a_leaderboard_export_proposes_its_subject_in_the_folder_a_csv_went_to_last(qtbot, tmp_path, monkeypatch):
    """Export CSV… of the leaderboard offers leaderboard-<what is compared>.csv, in the folder the last CSV export
    went to (a blind test's ratings)."""
    from studio.state import SaveFolders
    from studio.widgets import tables
    from studio.widgets.leaderboard_view import LeaderboardView
    from trainer.evaluate.leaderboard import Row

    folders = SaveFolders()
    folders.remember("csv", tmp_path / "exports" / "ratings-tune.csv")
    (tmp_path / "exports").mkdir()
    view = LeaderboardView(folders=folders)
    qtbot.addWidget(view)
    view.set_rows([Row(label="epoch 4", model_path=tmp_path / "a.ckpt", val_mel=9.0)])
    view.subject = "my run 7"
    asked = save_dialog(monkeypatch, tables)  # cancelled: only where it started is looked at
    view.export_csv()
    assert asked == [str(tmp_path / "exports" / "leaderboard-my-run-7.csv")], asked


def test_typed_text_and_history_come_back_after_a_restart_without_their_audio(windows, qtbot):
    """The text box and the newest 50 History lines (text, voice, engine; no audio) are in the settings file when
    the window closes; a new window shows them, and double-clicking a line of that earlier session puts its text
    back in the box and speaks it."""
    from studio.settings import settings_path

    first = windows()
    for i in range(55):
        first.state.lines.add(_line(f"Line {i}.", engine="torch" if i % 2 else "onnx"))
    first.synthesize_page.text_edit.setPlainText("Still typing this")
    first.close()
    raw = json.loads(settings_path().read_text(encoding="utf-8"))
    assert raw["text"] == "Still typing this" and len(raw["history"]) == 50
    assert raw["history"][0] == {"text": "Line 54.", "voice": "en_US-joe-medium", "engine": "onnx"}
    page = windows().synthesize_page
    assert page.text_edit.toPlainText() == "Still typing this"
    rows = [page.history.item(i).text() for i in range(page.history.count())]
    assert len(rows) == 50 and rows[:2] == ["en_US-joe-medium · ONNX: Line 54.", "en_US-joe-medium · torch: Line 53."]
    assert "earlier session" in page.history.item(0).toolTip()
    with qtbot.waitSignal(page.line_finished, timeout=30_000):
        page.history.chosen.emit(page.history.item(1).data(Qt.ItemDataRole.UserRole))
    assert page.text_edit.toPlainText() == "Line 53." and len(page.last_line.audio) > 0


def test_a_version_2_settings_file_keeps_its_fields_and_starts_without_history(tmp_path):
    """A settings file of version 2 (before text, History and save folders were kept) is read with its voice,
    engine and remote fields, and no text, History, save folders or Home Assistant place; written again, it is
    the current version."""
    from studio.settings import Settings

    path = tmp_path / "settings.json"
    old = {"version": 2, "voices": [], "last_voice": "/v/a.onnx", "engine": "torch", "remote": {"url": "http://h:1"}}
    path.write_text(json.dumps(old), encoding="utf-8")
    settings = Settings.load(path)
    assert (settings.last_voice, settings.engine, settings.remote["url"]) == ("/v/a.onnx", "torch", "http://h:1")
    assert (settings.text, settings.history, settings.save_folders, settings.home_assistant) == (None, [], {}, {})
    settings.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["version"] == 4


def test_the_place_send_to_home_assistant_went_is_kept(tmp_path):
    """The URL and folder a voice was sent to last come back from the settings file into the workspace; a
    version 3 file (before they were kept) reads with none."""
    from studio.settings import Settings
    from studio.state import VoiceLibrary, Workspace

    path = tmp_path / "settings.json"
    workspace = Workspace(voices_dir=tmp_path / "voices")
    workspace.home_assistant = {"url": "http://ha.local:5000", "folder": "/share/piper"}
    settings = Settings()
    settings.take(VoiceLibrary(), workspace)
    settings.save(path)
    again = Workspace(voices_dir=tmp_path / "voices")
    Settings.load(path).apply(VoiceLibrary(), again)
    assert again.home_assistant == {"url": "http://ha.local:5000", "folder": "/share/piper"}
    path.write_text(json.dumps({"version": 3, "voices": [], "home_assistant": {"url": "x"}}), encoding="utf-8")
    assert Settings.load(path).home_assistant == {}


def test_the_engine_picker_says_torch_on_the_cpu_is_slower_than_onnx(qtbot):
    """Without a CUDA GPU for torch (this machine), the torch item says it runs slower than ONNX on the CPU, and
    its tooltip gives the measured figures; the guess agrees with torch's own answer."""
    torch = pytest.importorskip("torch")
    from engines.extras import torch_device
    from engines.pool import EnginePool
    from studio.state import Workspace
    from studio.widgets.engine_picker import EnginePicker

    assert torch_device() == ("cuda" if torch.cuda.is_available() else "cpu")
    picker = EnginePicker(EnginePool(), Workspace())
    qtbot.addWidget(picker)
    index = picker.box.findData("torch")
    if torch_device() == "cpu":
        assert "CPU" in picker.box.itemText(index) and "slower than ONNX" in picker.box.itemText(index)
        assert "RTF" in picker.box.itemData(index, Qt.ItemDataRole.ToolTipRole)


def test_the_torch_device_is_guessed_from_torch_s_build_and_a_gpu_driver():
    """A CUDA build of torch with an NVIDIA driver: cuda; a CPU build, no driver, or CUDA_VISIBLE_DEVICES
    empty: cpu (the words of torch/version.py as its wheels write them)."""
    from engines.extras import expected_torch_device

    cuda_build = "__version__ = '2.5.1+cu124'\ncuda: Optional[str] = '12.4'\n"
    cpu_build = "__version__ = '2.13.0+cpu'\ncuda: Optional[str] = None\n"
    assert expected_torch_device(cuda_build, driver=True, visible=None) == "cuda"
    assert expected_torch_device(cuda_build, driver=False, visible=None) == "cpu"
    assert expected_torch_device(cpu_build, driver=True, visible=None) == "cpu"
    assert expected_torch_device(cuda_build, driver=True, visible="") == "cpu"
    assert expected_torch_device(cuda_build, driver=True, visible="0") == "cuda"


def test_an_exported_voice_keeps_the_speed_set_and_says_so(windows, tmp_path, joe):
    """Speed ×1.83, then the Train page exports a voice (it becomes the Synthesize voice): Speed stays ×1.83 and a
    line says so with the voice's own; a slider left alone takes the new voice's default; Voice defaults gives
    the new voice's own settings and takes the line away."""
    window = windows()
    page = window.synthesize_page
    page.speed.slider.setValue(183)
    exported = _voice_copy(joe, tmp_path / "voices", "tune", noise_scale=0.5, length_scale=1.1)
    window.train_page.voice_exported.emit(exported)
    assert page.voice.name == "tune"
    assert page.speed.value() == pytest.approx(1.83) and page.options().length_scale == pytest.approx(1 / 1.83)
    assert page.noise_scale.value() == pytest.approx(0.5)
    assert "Speed ×1.83" in page.settings.kept.text() and "tune" in page.settings.kept.text()
    page.reset_button.click()
    assert page.options().length_scale == 1.1 and page.options().noise_scale == 0.5
    assert not page.settings.kept.isVisibleTo(page)


def test_the_speaker_chosen_stays_when_another_voice_has_it(qtbot, trio_voice, tmp_path):
    """Speaker cleo of a 3-speaker voice, then another voice of the same speakers: cleo is still chosen."""

    other = tmp_path / "en_US-trio2-low.onnx"
    shutil.copyfile(trio_voice, other)
    shutil.copyfile(f"{trio_voice}.json", f"{other}.json")
    page = synthesize_page(qtbot, [trio_voice])
    page.voice_box.setCurrentIndex(page.voice_names().index("en_US-trio-low"))
    page.speaker_box.setCurrentText("cleo")
    page.add_voice_files([other])
    assert page.voice.name == "en_US-trio2-low" and page.speaker_box.currentText() == "cleo"


def test_a_checkpoint_voice_says_it_switched_to_torch_and_an_onnx_voice_goes_back(
    qtbot, tmp_path, make_tiny_checkpoint
):
    """ONNX chosen, then a .ckpt voice: the engine is torch (only it speaks checkpoints) and a notice says it
    switched from ONNX; choosing joe again gives ONNX back."""
    from engines.torch.vits.checkpoint import load_checkpoint_voice
    from studio.pages.synthesize import SynthesizePage
    from studio.state import StudioState

    state = StudioState()
    state.library.load()
    page = SynthesizePage(state)
    qtbot.addWidget(page)
    assert page.engine_kind() == "onnx"
    state.library.add(load_checkpoint_voice(make_tiny_checkpoint(tmp_path / "epoch=1.ckpt")))
    assert page.voice.model_path.suffix == ".ckpt" and page.engine_kind() == "torch"
    assert "only the torch engine speaks" in page.notice.text() and "ONNX" in page.notice.text()
    page.voice_box.setCurrentIndex(page.voice_names().index("en_US-joe-medium"))
    assert page.engine_kind() == "onnx" and page.notice.text() == ""
