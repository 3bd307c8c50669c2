"""The Dataset page's Record tab driven by its keys, recording from the ALSA test microphone (``microphone.py``)."""

from __future__ import annotations

import re

import pytest
from microphone import DEVICE, RATE, SYSTEM_CONF, listed_microphone
from PySide6.QtCore import Qt
from test_recording import speech

pytestmark = pytest.mark.gui


@pytest.fixture
def tab(qtbot, tmp_path):
    """The Record tab of a Dataset page on a new project, shown, the test microphone chosen at 48 kHz."""
    if not SYSTEM_CONF.exists():
        pytest.skip("the test microphone needs ALSA (Linux with /usr/share/alsa/alsa.conf)")
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    with listed_microphone(tmp_path) as mic:
        page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
        qtbot.addWidget(page)
        page.new_project(tmp_path / "project")
        page.tabs.setCurrentWidget(page.record_tab)
        page.show()
        qtbot.waitExposed(page)
        record = page.record_tab
        record.list_devices()
        record.devices.setCurrentIndex(record.devices.findData(DEVICE))
        record.rates.setCurrentIndex(record.rates.findData(RATE))
        yield page, record, mic
        record.close_booth()


def _take(qtbot, record, mic, clip: str) -> list[float]:
    """Space, say ``clip``, and wait until the take stopped itself and was checked; returns the meter's peaks,
    dBFS, as they were drawn meanwhile."""
    from trainer.dataset.recording.booth import RECORDING

    qtbot.keyClick(record, Qt.Key.Key_Space)
    assert record.booth.phase == RECORDING
    mic.say(speech(clip, gain_db=-6.0)[0])
    peaks: list[float] = []
    qtbot.waitUntil(lambda: peaks.append(record.meter.levels.peak_dbfs) or record.check is not None, timeout=60_000)
    return peaks


def test_keys_record_accept_back_retake_and_skip(tab, qtbot):
    """Start, wait out the room tone, then Space records (auto-stop), Enter accepts into the project, ← goes back,
    R retakes, Enter replaces the clip, → skips; the meter is polled at 33 fps and the prompt is shown large."""
    from trainer.dataset.recording.booth import READY, RECORDING
    from trainer.dataset.recording.takes import clip_id_for

    page, record, mic = tab
    qtbot.mouseClick(record.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: record.booth is not None and record.booth.phase == READY, timeout=30_000)
    assert record.timer.interval() <= 33 and "noise floor -6" in record.status.text()
    assert "diphones" in record.coverage.text()
    assert record.prompt.font().pointSizeF() > 2 * record.status.font().pointSizeF()
    record.setFocus()
    first = record.booth.prompt
    assert record.prompt.text() == first

    peaks = _take(qtbot, record, mic, "slt_0001")
    assert max(peaks) == pytest.approx(-6.0, abs=1.0) and min(peaks) < -40  # room noise, then the speech
    qtbot.keyClick(record, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.model.rowCount() == 1, timeout=10_000)
    assert record.booth.index == 1 and record.prompt.text() != first
    # the coverage lines date from the start; the take is said in seconds, not "0.0 min"
    assert re.search(r"accepted now: 1 take \([1-9]\d? s\)", record.status.text())
    # the coverage's first line is read again: the project has that take now
    recounted = r"recorded: 1 line \([1-9]\d? s\), covered"
    qtbot.waitUntil(lambda: re.match(recounted, record.coverage.text()), timeout=10_000)
    assert "with these 50 prompts" in record.coverage.text()
    written = page.project().clips[clip_id_for(first)]

    qtbot.keyClick(record, Qt.Key.Key_Left)
    assert record.booth.index == 0
    _take(qtbot, record, mic, "slt_0002")
    qtbot.keyClick(record, Qt.Key.Key_R)
    assert record.booth.phase == RECORDING and record.check is None
    mic.say(speech("slt_0003", gain_db=-6.0)[0])
    qtbot.waitUntil(lambda: record.check is not None, timeout=60_000)
    qtbot.keyClick(record, Qt.Key.Key_Enter)
    qtbot.waitUntil(lambda: page.project().clips[written.id].audio_sha256 != written.audio_sha256, timeout=10_000)
    assert len(page.project().clips) == 1

    qtbot.keyClick(record, Qt.Key.Key_Right)
    assert record.booth.index == 2


def test_the_booth_stopped_at_once_after_a_take_still_says_what_was_recorded(tab, qtbot):
    """Stop booth straight after Enter: the recount of the accepted take still arrives (the coverage said
    "recorded: nothing yet" beside "accepted now: 1 take"), and the status says the booth is stopped (it still
    said "ready · prompt 2 of 50")."""
    from trainer.dataset.recording.booth import READY

    page, record, mic = tab
    qtbot.mouseClick(record.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: record.booth is not None and record.booth.phase == READY, timeout=30_000)
    record.setFocus()
    _take(qtbot, record, mic, "slt_0001")
    qtbot.keyClick(record, Qt.Key.Key_Return)
    qtbot.mouseClick(record.start_button, Qt.MouseButton.LeftButton)
    assert record.booth is None
    assert re.fullmatch(r"stopped · accepted now: 1 take \([1-9]\d? s\)", record.status.text())
    qtbot.waitUntil(lambda: re.match(r"recorded: 1 line \([1-9]\d? s\)", record.coverage.text()), timeout=10_000)


def test_the_meter_labels_its_scale_in_dbfs(qtbot):
    """Under the bar the meter writes its dBFS scale (-60 to 0, the speech band's -18 and -6), so a level can be
    read, not guessed: the strip under the bar holds text."""
    from PySide6.QtGui import QColor

    from studio.widgets.level_meter import TICKS_DB, LevelMeter

    meter = LevelMeter()
    qtbot.addWidget(meter)
    meter.resize(600, meter.sizeHint().height())
    image = meter.grab().toImage()
    strip = [QColor(image.pixel(x, y)).lightness() for x in range(image.width()) for y in range(30, image.height())]
    assert image.height() >= 30 + meter.fontMetrics().height()
    assert sum(1 for light in strip if light < 128) > 20 * len(TICKS_DB)  # glyphs, not a blank strip
    assert {-60.0, -18.0, -6.0, 0.0} <= set(TICKS_DB)


def test_another_project_shown_stops_the_booth(tab, qtbot, tmp_path):
    """A booth open on one project stops when the page shows another (New dataset from a voice…, Open project…):
    a take accepted after would have landed in the project no longer shown."""
    page, record, _mic = tab
    qtbot.mouseClick(record.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: record.booth is not None, timeout=30_000)
    page.workspace.dataset_project = tmp_path / "project"  # the same project again: the booth goes on
    assert record.booth is not None
    page.new_project(tmp_path / "other")
    assert record.booth is None and record.start_button.text() == "Start booth"
    assert "other" in record.status.text() and record.findings.text() == ""


def test_speech_in_the_room_tone_is_said_and_m_measures_it_again(tab, qtbot):
    """Speech while the room tone is measured: the tab says so and offers Measure room again; M measures again,
    and in quiet the floor is the room's and the warning goes."""
    from trainer.dataset.recording.booth import READY, ROOM

    page, record, mic = tab
    mic.say(speech("slt_0001", gain_db=-6.0)[0])  # heard from the booth's first frame
    qtbot.mouseClick(record.start_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: record.booth is not None and record.booth.phase == READY, timeout=30_000)
    assert "speech" in record.findings.text() and "Measure room again" in record.findings.text()
    assert record.room_button.isVisible()
    qtbot.waitUntil(lambda: mic.quiet, timeout=10_000)
    record.setFocus()
    qtbot.keyClick(record, Qt.Key.Key_M)
    assert record.booth.phase == ROOM and record.findings.text() == ""
    qtbot.waitUntil(lambda: record.booth.phase == READY, timeout=30_000)
    assert record.booth.room_doubt == "" and record.booth.noise_floor_dbfs < -60
    assert record.findings.text() == ""


def test_with_every_prompt_recorded_no_booth_is_opened(qtbot, tmp_path, monkeypatch):
    """A project that holds every line of the shipped prompts: Start booth says so and opens no microphone (it
    opened a booth of 0 prompts, measuring the room for nothing)."""
    import studio.pages.dataset_record as record_tab
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace

    def no_booth(*_):
        raise AssertionError("a booth was made for no prompt")

    monkeypatch.setattr(record_tab, "choose_prompts", lambda project: ([], ["recorded: 490 lines", "with these…"]))
    monkeypatch.setattr(record_tab, "make_booth", no_booth)
    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    page.new_project(tmp_path / "project")
    record = page.record_tab
    record.toggle_booth()
    qtbot.waitUntil(lambda: record.start_button.isEnabled(), timeout=10_000)
    assert record.booth is None and record.status.text() == record_tab.ALL_RECORDED
    assert record.start_button.text() == "Start booth"
