"""The Synthesize page says what it waits for and what it did (issue 17): engine loading as its own status and
number, a Speed slider whose name and direction agree, notices that belong to their subject, History naming
the engine, settings restored (Qt offscreen, the real joe voice, the torch engine on CPU)."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_same_speech, synthesize_page
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot):
    """A page on a fresh studio state: no engine loaded yet."""
    page = synthesize_page(qtbot)
    yield page
    page.stop()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=10_000)


def _speak(page, qtbot, text: str, seen: list[str] | None = None) -> None:
    """Speak ``text`` and wait for its end; ``seen`` collects each status line shown meanwhile."""
    page.text_edit.setPlainText(text)
    task = page.speak()
    assert task is not None
    while task.is_running() or page.is_speaking():
        qtbot.wait(5)
        if seen is not None and (not seen or seen[-1] != page.status.text()):
            seen.append(page.status.text())
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=60_000)


def test_first_speak_on_torch_shows_loading_then_a_separate_load_time(page, qtbot, monkeypatch):
    """A fresh torch engine: "Loading torch engine…" before "Speaking…", then the stats name the
    load time apart from time to first audio; once loaded on the CPU, the picker still says how much slower than ONNX
    it is."""
    pytest.importorskip("torch")
    import weakref

    from engines.torch import loaded

    # No generator of joe loaded yet in this process: an earlier test's engine, kept by the garbage the GUI tests'
    # gc.freeze leaves uncollected, would share its generator (engines.torch.loaded) and load in 0.0 s.
    monkeypatch.setattr(loaded, "_LOADED", weakref.WeakValueDictionary())
    page.engine_box.setCurrentIndex(page.engine_box.findData("torch"))
    seen: list[str] = []
    _speak(page, qtbot, "Loaded first.", seen)
    loading = [i for i, text in enumerate(seen) if text.startswith("Loading torch engine")]
    assert loading, seen
    assert "Speaking…" in seen[loading[0] :], seen
    line = page.last_line
    assert line is not None and line.load_s is not None and line.load_s > 0
    status = page.status.text()
    assert f"loaded in {line.load_s:.1f} s · first audio {line.stats.first_audio_s:.2f} s" in status
    assert line.stats.first_audio_s < line.load_s  # first audio counts from after the load
    _speak(page, qtbot, "Loaded already.")  # the engine is loaded now: no load time
    assert "loaded in" not in page.status.text() and "first audio" in page.status.text()
    if page.engines.pool.get("torch", page.voice).device_label == "CPU":
        assert "CPU" in page.engine_box.currentText() and "slower than ONNX" in page.engine_box.currentText()


def test_a_wait_over_half_a_second_shows_its_seconds(qtbot):
    """The waiting status gains the elapsed seconds after 0.5 s, and they move."""
    from PySide6.QtWidgets import QLabel

    from studio.widgets.ticking import TickingStatus

    label = QLabel()
    qtbot.addWidget(label)
    waiting = TickingStatus(label)
    waiting.start("Loading torch engine")
    assert label.text() == "Loading torch engine…"
    # a 0.5 s timer: a loaded machine gets slack (the timeout is waited only on failure)
    qtbot.waitUntil(lambda: label.text().endswith(" s"), timeout=10_000)
    first = label.text()
    qtbot.waitUntil(lambda: label.text() != first, timeout=10_000)
    waiting.stop()
    stopped = label.text()
    qtbot.wait(300)
    assert label.text() == stopped


def test_history_names_the_engine_of_each_line(page, qtbot):
    """The same voice on ONNX and on torch gives two History rows that say which engine spoke; the ONNX engine's
    first line, too, shows its load time apart."""
    pytest.importorskip("torch")
    seen: list[str] = []
    _speak(page, qtbot, "Same words.", seen)
    assert any(text.startswith("Loading ONNX engine for en_US-joe-medium") for text in seen), seen
    assert page.status.text().startswith("en_US-joe-medium · ONNX: loaded in ")
    page.engine_box.setCurrentIndex(page.engine_box.findData("torch"))
    _speak(page, qtbot, "Same words.")
    rows = [page.history.item(i).text() for i in range(page.history.count())]
    assert rows == ["en_US-joe-medium · torch: Same words.", "en_US-joe-medium · ONNX: Same words."]


def test_the_text_box_says_how_the_voice_reads_a_line_it_normalizes(page, qtbot):
    """Under the text box, "Reads: …" shows the line as the voice's text front end says it (ambiguous forms in its
    tooltip), after a pause in typing; a line read as written shows nothing, nor does a remote engine's."""
    page.text_edit.setPlainText("Add 1/2 cup at 9:30 a.m.")
    qtbot.waitUntil(lambda: page.reads.isVisibleTo(page), timeout=5_000)
    assert page.reads.text() == "Reads: Add one half cup at nine thirty AM."
    assert '"1/2" reads "one half"' in page.reads.toolTip()
    page.text_edit.setPlainText("A plain line.")
    qtbot.waitUntil(lambda: not page.reads.isVisibleTo(page), timeout=5_000)
    page.text_edit.setPlainText("$5")
    qtbot.waitUntil(lambda: page.reads.isVisibleTo(page), timeout=5_000)
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    assert not page.reads.isVisibleTo(page)


def test_the_page_reads_ssml_through_the_same_layer(page, qtbot, engine):
    """The SSML box checks itself for a text that starts with <speak>, and "Reads:" shows its speech and pause; the
    line spoken (noise 0) is the engine's audio for the SSML (its second of silence in it); unchecked by hand, the
    tags are read as written, as the engine with ssml off; malformed markup is said in the status line, naming
    where, and nothing is spoken."""
    import dataclasses

    from engines.cleaning import clean_text

    line = '<speak>Hello <break time="1s"/> world.</speak>'
    for slider in (page.noise_scale.slider, page.noise_w.slider):
        slider.setValue(slider.minimum())
    page.text_edit.setPlainText(line)
    assert page.ssml_box.isChecked()
    qtbot.waitUntil(lambda: page.reads.isVisibleTo(page), timeout=5_000)
    assert page.reads.text() == "Reads: Hello [1 s] world."
    options = page.options()
    assert (options.noise_scale, options.noise_w, options.ssml) == (0.0, 0.0, True)
    _speak(page, qtbot, line)
    assert_same_speech(page.last_line.audio, np.concatenate([c.audio for c in engine.synthesize(line, options)]))
    assert np.count_nonzero(page.last_line.audio == 0) >= engine.sample_rate
    page.ssml_box.setChecked(False)
    _speak(page, qtbot, line)
    literal = engine.synthesize(clean_text(line, ssml=False), dataclasses.replace(options, ssml=False))
    assert not page.ssml_box.isChecked()
    assert_same_speech(page.last_line.audio, np.concatenate([c.audio for c in literal]))
    page.text_edit.setPlainText('<speak>Hello <break time="1 sec"/> world.</speak>')
    page.ssml_box.setChecked(True)
    assert page.speak() is None
    assert page.status.text() == 'SSML line 1, column 14: <break time="1 sec">: a time is written like 500ms or 1.5s'


def test_speed_slider_to_the_right_is_faster(page):
    """Speed moved right asks for a smaller length_scale (1 / speed); the label reads ×speed; the voice default is
    sent exactly until the slider moves."""
    default = page.voice.config.length_scale
    assert page.options().length_scale == default
    slider = page.speed.slider
    slider.setValue(slider.value() + 25)
    faster = page.options().length_scale
    assert faster < default
    assert faster == pytest.approx(1 / page.speed.value())
    assert page.speed.label.text() == f"×{page.speed.value():.2f}"
    assert "length_scale = 1 / speed" in page.speed.toolTip()
    slider.setValue(slider.value() - 50)
    assert page.options().length_scale > default
    page.reset_button.click()
    assert page.options().length_scale == default


def test_a_save_error_names_the_path_once_and_a_later_save_replaces_it(page, qtbot, tmp_path):
    """Save to a missing folder: one line, the path once; a save that works takes the error away."""
    _speak(page, qtbot, "Save me.")
    bad = tmp_path / "missing" / "line.wav"
    page.bar.save_to(bad)
    assert page.notice.text().count(str(bad)) == 1
    assert page.notice.text().startswith(f"Could not save {bad}: ")
    page.bar.save_to(tmp_path / "line.wav")
    assert (tmp_path / "line.wav").is_file()
    assert page.notice.text() == ""


def test_an_engine_switch_keeps_other_notices_and_drops_the_engine_one(page, qtbot, tmp_path):
    """A save error stays when the engine changes; an error of the old engine (a remote server that is not
    there) goes."""
    _speak(page, qtbot, "Kept.")
    page.bar.save_to(tmp_path / "missing" / "line.wav")
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    page.remote_panel.url.setText("http://127.0.0.1:9")
    page.text_edit.setPlainText("Hello.")
    page.speak()
    qtbot.waitUntil(lambda: "cannot connect" in page.remote_panel.status.text(), timeout=20_000)  # in its box
    assert "cannot connect" not in page.notice.text()  # said once, under the server's fields
    page.bar.save_to(tmp_path / "missing" / "again.wav")
    page.engine_box.setCurrentIndex(page.engine_box.findData("onnx"))
    assert "cannot connect" not in page.notice.text() and not page.remote_panel.isVisibleTo(page)
    assert "Could not save" in page.notice.text() and "again.wav" in page.notice.text()


def test_engine_voice_and_dataset_project_come_back_in_a_new_window(qtbot, tmp_path, joe):
    """What was chosen (engine, voice, dataset project, the SSML box) is saved and a new window shows it again; a
    project folder that has gone is one line, not an error."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    project = tmp_path / "project"
    project.mkdir()
    first = MainWindow(Settings())
    qtbot.addWidget(first)
    first.dataset_page.project_dir = project
    first.synthesize_page.engine_box.setCurrentIndex(first.synthesize_page.engine_box.findData("remote"))
    first.synthesize_page.ssml_box.setChecked(True)
    saved = Settings.load()
    assert (saved.engine, saved.dataset_project, saved.last_voice) == ("remote", str(project), str(joe.model_path))
    assert saved.ssml is True
    second = MainWindow(saved)
    qtbot.addWidget(second)
    assert second.synthesize_page.engine_kind() == "remote"
    assert second.synthesize_page.ssml_box.isChecked()
    assert second.synthesize_page.voice.model_path == joe.model_path
    assert second.dataset_page.project_dir == project
    project.rmdir()
    third = MainWindow(Settings.load())
    qtbot.addWidget(third)
    assert third.dataset_page.project_dir != project
    assert f"{project}: the dataset project shown last is no longer there" in third.synthesize_page.notice.text()


def test_remote_test_counts_in_words_and_a_line_says_when_the_server_answered(qtbot, speech_server):
    """Test against a server with one voice says "1 model, 1 voice"; a line waits "Waiting for URL…", then its
    stats give the server's answer time beside time to first audio, and History names the remote engine."""
    from engines.remote.settings import RemoteSettings
    from studio.pages.synthesize import SynthesizePage
    from studio.state import StudioState, Workspace

    remote = RemoteSettings(url=speech_server.url, model="tts-1", voice="default", response_format="pcm")
    state = StudioState(workspace=Workspace(remote=remote))
    state.library.load()
    page = SynthesizePage(state)
    qtbot.addWidget(page)
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    with qtbot.waitSignal(page.remote_panel.tested, timeout=10_000):
        qtbot.mouseClick(page.remote_panel.test_button, Qt.MouseButton.LeftButton)
        assert page.remote_panel.status.text() == f"Asking {speech_server.url}…"
    assert page.remote_panel.status.text() == "Connected: 1 model, 1 voice for en_US-joe-medium"
    seen: list[str] = []
    _speak(page, qtbot, "Hello from the server.", seen)
    assert seen[0].startswith(f"Waiting for {speech_server.url}…"), seen
    line = page.last_line
    assert line is not None and line.engine == "remote"
    assert page.status.text().startswith("en_US-joe-medium/default · remote: server answered in ")
    assert " s · first audio " in page.status.text()
    assert page.history.item(0).text() == "en_US-joe-medium/default · remote: Hello from the server."
