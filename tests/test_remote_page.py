"""The Synthesize page's "Remote server" engine against a real server on 127.0.0.1 (Qt offscreen)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PySide6.QtCore import Qt

from engines.audio import rms_db
from engines.base import SynthesisOptions
from engines.playback import BLOCK
from engines.remote.engine import RemoteEngine

pytestmark = pytest.mark.gui


def _state(speech_server, voices=()):
    """The studio's models: the embedded voice plus ``voices``, and the test server as the remote one."""
    from engines.remote.settings import RemoteSettings
    from studio.state import StudioState, Workspace

    remote = RemoteSettings(url=speech_server.url, model="tts-1", voice="default", response_format="pcm")
    state = StudioState(workspace=Workspace(remote=remote))
    state.library.load(voices)
    return state


@pytest.fixture
def page(qtbot, speech_server):
    from studio.pages.synthesize import SynthesizePage

    page = SynthesizePage(_state(speech_server))
    qtbot.addWidget(page)
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    yield page
    page.stop()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=10_000)


def test_test_button_fetches_models_and_voices(page, qtbot):
    """Test fills the model and voice pickers from the server and says it is connected."""
    assert page.remote_panel.isVisibleTo(page)
    assert not page.noise_scale.isEnabled()  # not known yet to take Piper's noise settings
    with qtbot.waitSignal(page.remote_panel.tested, timeout=10_000) as signal:
        qtbot.mouseClick(page.remote_panel.test_button, Qt.MouseButton.LeftButton)
    assert signal.args[0] == ["en_US-joe-medium"]
    assert page.remote_panel.model.currentText() == "en_US-joe-medium"
    assert [page.remote_panel.voice.itemText(i) for i in range(page.remote_panel.voice.count())] == ["default"]
    assert "Connected" in page.remote_panel.status.text()
    assert page.remote_panel.settings().piper_params  # a Voice Studio server reads noise settings
    assert page.noise_scale.isEnabled() and page.noise_w.isEnabled()
    page.engine_box.setCurrentIndex(page.engine_box.findData("onnx"))
    assert page.noise_scale.isEnabled() and not page.remote_panel.isVisibleTo(page)


def test_remote_line_streams_to_the_device(page, qtbot, capture):
    """Speak with the remote engine: the device plays exactly the line the server streamed."""
    with qtbot.waitSignal(page.remote_panel.tested, timeout=10_000):
        page.remote_panel.test()
    page.text_edit.setPlainText("A line from the server, played as it streams.")
    with qtbot.waitSignal(page.line_finished, timeout=30_000) as finished:
        page.speak()
    line = finished.args[0]
    assert line.voice == "en_US-joe-medium/default" and line.sample_rate == 22050
    assert len(line.audio) > line.sample_rate
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=20_000)
    played = capture.samples()
    assert abs(len(played) - len(line.audio)) <= BLOCK and rms_db(played) > -35
    np.testing.assert_allclose(played[: len(line.audio)], line.audio[: len(played)], atol=1e-6)


def test_unreachable_server_is_shown_inline(page, qtbot):
    """A wrong address: Test and Speak both say what is wrong under the fields."""
    page.remote_panel.url.setText("http://127.0.0.1:9")
    task = page.remote_panel.test()
    qtbot.waitUntil(lambda: not task.is_running(), timeout=20_000)
    qtbot.waitUntil(lambda: "cannot connect" in page.remote_panel.status.text(), timeout=5_000)
    page.remote_panel.url.setText("ftp://nowhere")
    page.text_edit.setPlainText("Hello.")
    assert page.speak() is None
    assert "not an http" in page.remote_panel.status.text()


def test_remote_fields_are_saved_without_the_key(page, tmp_path):
    """The settings file keeps URL, model, voice and format, never the API key; version 1 files migrate."""
    from studio.settings import Settings

    page.remote_panel.api_key.setText("secret-key")
    assert page.state.workspace.remote.api_key == "secret-key"
    settings = Settings()
    settings.take(page.state.library, page.state.workspace)
    settings.save(tmp_path / "settings.json")
    text = (tmp_path / "settings.json").read_text()
    assert "secret-key" not in text and json.loads(text)["remote"]["url"].startswith("http://127.0.0.1")
    (tmp_path / "old.json").write_text(json.dumps({"version": 1, "voices": ["/x/a.onnx"], "last_voice": None}))
    old = Settings.load(tmp_path / "old.json")
    assert old.voices == ["/x/a.onnx"] and old.remote == {}


def test_a_hidden_local_speaker_is_not_sent_as_the_remote_voice(qtbot, speech_server, trio_voice):
    """A 3-speaker local voice with speaker "cleo" picked, then the remote engine with voice "default": the
    line is the server's "default" (the hidden picker's "cleo" was sent as the voice: 404 from this server)."""
    from studio.pages.synthesize import SynthesizePage

    page = SynthesizePage(_state(speech_server, [trio_voice]))
    qtbot.addWidget(page)
    page.voice_box.setCurrentIndex(page.voice_names().index("en_US-trio-low"))
    page.speaker_box.setCurrentText("cleo")
    page.engine_box.setCurrentIndex(page.engine_box.findData("remote"))
    assert not page.speaker_box.isVisibleTo(page) and page.remote_panel.voice.currentText() == "default"
    with qtbot.waitSignal(page.remote_panel.tested, timeout=10_000):
        page.remote_panel.test()
    page.noise_scale.set_value(0.0)
    page.noise_w.set_value(0.0)
    text = "The voice chosen for the server."
    page.text_edit.setPlainText(text)
    page.speak()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=30_000)
    assert page.notice.text() == "" and page.last_line is not None, page.notice.text()
    assert page.last_line.voice == "en_US-joe-medium/default"
    options = SynthesisOptions(length_scale=page.options().length_scale, noise_scale=0.0, noise_w=0.0)
    direct = np.concatenate([c.audio for c in RemoteEngine(page.remote_panel.settings()).synthesize(text, options)])
    assert np.array_equal(page.last_line.audio, direct)
