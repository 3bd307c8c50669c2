"""Sound devices that misbehave (``tests/sound_device_fakes.py``, faked at the ``sounddevice`` boundary and playing
through the real PortAudio output, ALSA captured to a file): one that takes only its own rate, and one that goes
away mid-line; through ``say``, the Synthesize page, replays and the Compare page's player. A device's rate note
is said once a process: each test here that plays resampled in this process uses a pair of rates of its own."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import soxr
from conftest import synthesize_page
from sound_device_fakes import FakeDevice

from engines.audio import concat, rms_db
from engines.base import SynthesisOptions
from engines.cleaning import clean_text
from engines.errors import VoiceStudioError
from engines.output_device import NoOutputDevice
from engines.playback import BLOCK, Playback

LINE = "A device that keeps its own rate."
STILL = ("--noise-scale", "0", "--noise-w", "0")
"""``say``'s options for the same audio every time."""
RUN_SAY = (
    "import sys\n"
    "sys.path.insert(0, {tests!r})\n"
    "from sound_device_fakes import FakeDevice\n"
    "FakeDevice(**{fake!r}).install()\n"
    "from studio.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
"""``voice-studio`` run as a user runs it (a process of its own), with the fake device in ``sounddevice``."""


def _say(fake: dict, *args: str) -> subprocess.CompletedProcess:
    script = RUN_SAY.format(tests=str(Path(__file__).parent), fake=fake)
    command = [sys.executable, "-c", script, "say", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, env=os.environ.copy())


def _spoken(engine, text: str = LINE) -> np.ndarray:
    """What ``say`` with ``STILL`` speaks for ``text``: float32 ``[N]`` at the voice's 22,050 Hz."""
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, sentence_silence=0.0)
    return concat([chunk.audio for chunk in engine.synthesize(clean_text(text), options)])


def _played(capture) -> np.ndarray:
    """What the device received, without the silence PortAudio may prime it with."""
    played = capture.samples()
    return played[np.argmax(played != 0) :]


# --- a device that only takes its own rate ----------------------------------------------------------------------
def test_say_plays_through_a_device_that_takes_only_its_own_rate(capture, engine):
    """A device taking only 48,000 Hz: ``say`` plays the line at 48 kHz, resampled as one soxr stream, says so once
    and exits 0 (it exited 2: "Cannot open the audio output at 22050 Hz")."""
    result = _say({"rates": {48000}, "default_rate": 48000}, LINE, *STILL)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("48000 Hz") == 1 and "22050 Hz" in result.stderr
    expected = soxr.resample(_spoken(engine), 22050, 48000, quality="HQ")
    played = _played(capture)
    assert abs(len(played) - len(expected)) <= BLOCK
    n = min(len(played), len(expected))  # streamed chunks end where the timing puts them: not the same bits
    assert rms_db(played[:n] - expected[:n]) < rms_db(expected) - 40


def test_a_device_that_takes_no_rate_says_what_was_tried_and_one_that_takes_another_plays_at_it(monkeypatch):
    """A device refusing every rate: one line naming the line's rate, the device's own and the usual rates tried.
    One that refuses its own reported rate too but takes 32,000 Hz is opened at 32,000 Hz."""
    FakeDevice(rates=set(), default_rate=48000).install(monkeypatch)
    with pytest.raises(NoOutputDevice) as refused:
        Playback(22050)
    message = str(refused.value)
    assert "22050 Hz" in message and "48000 Hz" in message and "Invalid sample rate" in message
    assert "\n" not in message
    FakeDevice(rates={32000}, default_rate=48000).install(monkeypatch)
    playback = Playback(16000)
    playback.close()
    assert playback.wait(10) and playback.rate == 32000 and playback.error is None


def test_the_synthesize_page_speaks_through_a_device_that_takes_only_its_own_rate(qtbot, capture, monkeypatch):
    """The Synthesize page on a 48,000 Hz-only device: the line plays resampled to 48 kHz, the device notice says
    so, and the next line plays without saying it again."""
    device = FakeDevice(rates={48000}, default_rate=48000).install(monkeypatch)
    page = _synthesize_page(qtbot)
    line = _speak(page, qtbot, "Hello there.")
    assert "48000 Hz" in page.notice.text() and "22050 Hz" in page.notice.text()
    expected = soxr.resample(line.audio, line.sample_rate, 48000, quality="HQ")
    played = _played(capture)
    assert abs(len(played) - len(expected)) <= BLOCK and 48000 in device.opened
    np.testing.assert_allclose(played[: len(expected)], expected[: len(played)], atol=1e-4)
    _speak(page, qtbot, "And again.")
    assert "48000 Hz" not in page.notice.text() and "RTF" in page.status.text()


def test_the_compare_page_plays_a_clip_through_a_device_that_takes_only_its_own_rate(qtbot, capture, monkeypatch):
    """The Compare page's player (the blind test's play) on a 44,100 Hz-only device: the clip plays resampled to
    44.1 kHz, loudness-matched, and the page's notice says at which rate."""
    page = _compare_page(qtbot)
    FakeDevice(rates={44100}, default_rate=44100).install(monkeypatch)
    rate = 16000
    clip = (0.2 * np.cos(2 * np.pi * 440 * np.arange(rate) / rate)).astype(np.float32)
    page.play(clip, rate)
    qtbot.waitUntil(lambda: not page.listen.player.is_playing(), timeout=10_000)
    expected = soxr.resample(clip * page.listen.player.gain(clip, rate), rate, 44100, quality="HQ")
    played = _played(capture)
    assert len(played) >= len(expected) and not played[len(expected) :].any()  # then the last block's zeros
    np.testing.assert_allclose(played[: len(expected)], expected, atol=1e-5)
    assert "44100 Hz" in page.notice.text()


# --- a device that goes away mid-line -----------------------------------------------------------------------------
def test_say_stops_with_an_error_when_the_device_goes_away(capture, engine):
    """The device failing at its 11th write of 1,024 samples: ``say`` exits 2 saying playback stopped after 0.46 s
    and why (it exited 0 and reported the whole line's seconds); the device got those 10 blocks only."""
    result = _say({"fail_at": 11}, LINE, *STILL)
    assert result.returncode == 2, result.stderr
    assert "Playback stopped after 0.46 s" in result.stderr and "PaErrorCode -9999" in result.stderr
    assert "s of audio" not in result.stderr and "Traceback" not in result.stderr
    played = capture.samples()
    np.testing.assert_allclose(played, _spoken(engine)[: 10 * BLOCK], atol=1e-4)  # chunked as timing has it


def test_the_synthesize_page_says_playback_stopped_and_plays_again_once_the_device_is_back(qtbot, capture, monkeypatch):
    """The device going away at its 11th write: the page's status says playback stopped after 0.46 s and why; the
    line is still kept. Once the device is back, the next line plays whole."""
    device = FakeDevice(fail_at=11).install(monkeypatch)
    page = _synthesize_page(qtbot)
    line = _speak(page, qtbot, "This line loses its device half way.")
    assert "Playback stopped after 0.46 s" in page.status.text() and "-9999" in page.status.text()
    assert len(line.audio) > 20 * BLOCK and len(page.state.lines.lines) == 1
    device.back()
    capture.reset()
    line = _speak(page, qtbot, "Back again.")
    assert "RTF" in page.status.text() and "stopped" not in page.status.text()
    np.testing.assert_allclose(capture.samples(), line.audio, atol=1e-6)


def test_a_replay_that_loses_its_device_raises_where_the_dataset_and_synthesize_pages_say_it(monkeypatch):
    """``replay_and_wait`` (a History replay, the Dataset page's Space) on a device gone at its 3rd write raises
    an error naming the seconds played (it returned as if the clip had played)."""
    from studio.speaking import Speaking, replay_and_wait

    FakeDevice(fail_at=3).install(monkeypatch)
    audio = np.full(22050, 0.1, np.float32)
    with pytest.raises(VoiceStudioError, match=r"Playback stopped after 0\.09 s"):
        replay_and_wait(audio, 22050, Speaking(), threading.Event())


def test_the_compare_page_says_when_the_device_stops_mid_clip_and_plays_again_once_it_is_back(
    qtbot, capture, monkeypatch
):
    """The device going away at its 11th callback while the Compare page plays a clip: the page's notice (above
    every tab) says playback stopped before the clip's end; once the device is back the clip plays whole and the
    notice goes."""
    page = _compare_page(qtbot)
    device = FakeDevice(fail_at=11).install(monkeypatch)
    rate = 22050
    clip = (0.2 * np.cos(2 * np.pi * 440 * np.arange(4 * rate) / rate)).astype(np.float32)
    page.play(clip, rate)
    qtbot.waitUntil(lambda: not page.listen.player.is_playing(), timeout=10_000)
    assert "Playback stopped after" in page.notice.text(), page.notice.text()
    device.back()
    capture.reset()
    page.play(clip, rate)
    qtbot.waitUntil(lambda: not page.listen.player.is_playing(), timeout=10_000)
    gain = page.listen.player.gain(clip, rate)
    np.testing.assert_allclose(_played(capture)[: len(clip)], clip * gain, atol=1e-6)
    assert len(_played(capture)) >= len(clip) and page.notice.text() == ""


# --- helpers --------------------------------------------------------------------------------------------------------
def _speak(page, qtbot, text: str):
    """Speak ``text`` on the Synthesize page and wait for the line to end; returns it."""
    page.text_edit.setPlainText(text)
    page.speak()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=60_000)
    assert page.state.lines.lines, page.notice.text()
    return page.state.lines.lines[0]


def _synthesize_page(qtbot):
    """A Synthesize page on the embedded voice."""
    return synthesize_page(qtbot)


def _compare_page(qtbot):
    """A Compare page on an empty workspace (its player is the Listen tab's, the blind test's and the
    tie-break's)."""
    from engines.pool import EnginePool
    from studio.pages.compare import ComparePage
    from studio.state import VoiceLibrary, Workspace

    page = ComparePage(Workspace(), VoiceLibrary(), EnginePool())
    qtbot.addWidget(page)
    return page


# --- no device at all -----------------------------------------------------------------------------------------------
def _blind_page(qtbot, tmp_path):
    """A Compare page at 1024×640 on its Blind test tab: two candidates, two lines, their renders (a tone each)."""
    from trainer.evaluate.lines import Line
    from trainer.evaluate.render import Candidate, Rendered

    page = _compare_page(qtbot)
    rate = 22050
    tone = (0.2 * np.sin(2 * np.pi * 220 * np.arange(rate // 2) / rate)).astype(np.float32)
    page.comparison.set_candidates([Candidate(label=v, model_path=tmp_path / f"{v}.onnx") for v in ("a", "b")])
    page.comparison.set_lines([Line(name=f"line {n}", text=f"Line {n}.") for n in (1, 2)])
    page.comparison.add_rendered(
        {
            (v, i): Rendered(audio=tone, sample_rate=rate, path=tmp_path / "x.wav", cached=True)
            for v in "ab"
            for i in (0, 1)
        }
    )
    page.resize(1024, 640)
    page.show()
    page.tabs.setCurrentWidget(page.blind)
    qtbot.waitUntil(page.blind.panel.isVisible)
    return page


def test_blind_test_keys_without_a_device_show_cannot_play_and_a_rating_unheard_says_so(qtbot, tmp_path, monkeypatch):
    """No output device: A in the blind test shows "Cannot play audio: …" above the Compare page's tabs, and it
    stays when the trial is rated, whose status says it was rated unheard; a trial rated with nothing tried shows
    the same notice; Space on the Listen tab puts the same notice there (one rule for the page)."""
    from PySide6.QtCore import Qt

    FakeDevice().install(monkeypatch).gone = True
    page = _blind_page(qtbot, tmp_path)
    panel = page.blind.panel
    qtbot.keyClick(panel, "a")
    assert page.notice.isVisible() and page.notice.text().startswith("Cannot play audio: "), page.notice.text()
    qtbot.keyClick(panel, "1")
    assert page.notice.isVisible() and page.notice.text().startswith("Cannot play audio: ")
    assert "saved" in panel.status.text() and "without hearing" in panel.status.text(), panel.status.text()
    page.notice.clear()
    qtbot.keyClick(panel, Qt.Key.Key_Return)
    qtbot.keyClick(panel, "2")
    assert page.notice.text().startswith("Cannot play audio: ") and "without hearing" in panel.status.text()
    page.notice.clear()
    page.tabs.setCurrentWidget(page.listen)
    page.listen.line_list.setCurrentRow(0)
    page.listen.toggle_play()
    assert page.notice.isVisible() and page.notice.text().startswith("Cannot play audio: ")
