"""``voice-studio dataset record`` driven by line commands on stdin, recording from the ALSA test microphone
(``microphone.py``) that ``test_recording`` uses, with real speech from ``../shared/corpus``."""

from __future__ import annotations

import io
import os
import queue
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from microphone import DEVICE, RATE
from test_recording import mic, speech  # noqa: F401 - mic is a fixture

ROOT = Path(__file__).resolve().parent.parent


class Driven:
    """``dataset record`` run in this process (on a thread) with a pipe for stdin and its stdout read line by line."""

    def __init__(self, monkeypatch, args: list[str]) -> None:
        from studio.cli import main

        read, self._write = os.pipe()
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.FileIO(read, "r")))
        self.lines: queue.Queue[str] = queue.Queue()
        self.said: list[str] = []
        monkeypatch.setattr(sys, "stdout", _Lines(self.lines))
        self.status: int | None = None
        self._thread = threading.Thread(
            target=lambda: setattr(self, "status", main(["dataset", "record", *args])), daemon=True
        )
        self._thread.start()
        self._open = True

    def send(self, command: str) -> None:
        os.write(self._write, f"{command}\n".encode())

    def wait_for(self, text: str, seconds: float = 60.0) -> str:
        """The next line of the dialogue holding ``text`` (the lines before it are kept in ``said``)."""
        end = time.monotonic() + seconds
        while True:
            try:
                line = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line with {text!r} in {seconds:g} s; said: {self.said}") from None
            self.said.append(line)
            if text in line:
                return line

    def end(self, seconds: float = 30.0) -> int | None:
        """Close stdin (the end of the script quits) and wait for the command; its exit status."""
        if self._open:
            os.close(self._write)
            self._open = False
        self._thread.join(seconds)
        while not self.lines.empty():
            self.said.append(self.lines.get())
        return self.status


class _Lines(io.TextIOBase):
    """A text stream that puts each whole line written into a queue."""

    def __init__(self, lines: queue.Queue) -> None:
        self._lines, self._part = lines, ""

    def write(self, text: str) -> int:
        *whole, self._part = (self._part + text).split("\n")
        for line in whole:
            self._lines.put(line)
        return len(text)


@pytest.fixture
def drive(monkeypatch):
    """``drive(args)``: a ``Driven`` command, ended (its stdin closed, so it quits) after the test."""
    started: list[Driven] = []
    yield lambda args: started.append(Driven(monkeypatch, args)) or started[-1]
    for driven in started:
        driven.end()


def _args(project: Path, *more: str) -> list[str]:
    texts = [speech(clip)[1] for clip in ("slt_0001", "slt_0002", "slt_0003")]
    lines = project.parent / "lines.txt"
    lines.write_text("\n".join(texts) + "\n")
    return [str(project), "--device", DEVICE, "--rate", str(RATE), "--prompts", str(lines), *more]


def _take(driven: Driven, mic, clip: str) -> list[str]:  # noqa: F811 - the fixture's value
    """``record``, say ``clip``, and wait for the take's check; the lines of its findings."""
    driven.send("record")
    driven.wait_for("recording…")
    mic.say(speech(clip, gain_db=-6.0)[0])
    driven.wait_for("checking…")
    start = len(driven.said)
    driven.wait_for("accept keeps it")
    return driven.said[start:-1]


def test_a_take_is_checked_accepted_and_retaken_as_the_prompts_clip(mic, tmp_path, drive):  # noqa: F811
    """The room tone's floor is printed, a take stops itself, is checked (the recognizer round trip included) and
    accepted as the first prompt's curated clip; ``back`` and a clipped retake replace that clip, found clipped."""
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.recording.takes import clip_id_for

    project = tmp_path / "project"
    driven = drive(_args(project))
    floor = driven.wait_for("noise floor:")
    assert -66 < float(floor.split()[2]) < -60  # -60 dBFS white noise, 22,050 of 48,000 Hz of it kept
    first_text = speech("slt_0001")[1]
    assert driven.wait_for("prompt 1 of 3:") == f"prompt 1 of 3: {first_text}"
    findings = _take(driven, mic, "slt_0001")
    assert findings == ["  This take is fine."], findings
    driven.send("accept")
    driven.wait_for("saved rec_")
    clip = DatasetProject(project).clips[clip_id_for(first_text)]
    assert clip.reviewed and clip.text_origin == "recorded" and DatasetProject(project).clip_path(clip.id).is_file()

    driven.send("back")
    driven.wait_for("prompt 1 of 3:")
    misread = _take(driven, mic, "slt_0002")  # another line read for this prompt: the round trip hears it
    assert any("may not say the prompt: the recognizer heard" in line for line in misread), misread
    driven.send("retake")
    driven.wait_for("recording…")
    mic.say(speech("slt_0001", gain_db=+12.0)[0])
    driven.wait_for("checking…")
    clipped = driven.wait_for("clipped")
    driven.wait_for("accept keeps it")
    driven.send("accept")
    driven.wait_for("saved rec_")
    assert driven.end() == 0
    again = DatasetProject(project)
    assert list(again.clips) == [clip.id] and again.clips[clip.id].audio_sha256 != clip.audio_sha256
    assert "This take" in clipped
    assert any(line.startswith("accepted 2 takes (") for line in driven.said)
    assert any("covered" in line and "diphones" in line for line in driven.said)


def test_quit_in_the_middle_of_a_take_keeps_the_takes_accepted(mic, tmp_path, drive):  # noqa: F811
    """A take accepted, the next one begun, ``quit``: the first is the project's one clip, the second is dropped,
    and the summary counts one take."""
    from trainer.dataset.project import DatasetProject

    project = tmp_path / "project"
    driven = drive(_args(project))
    _take(driven, mic, "slt_0001")
    driven.send("accept")
    driven.wait_for("prompt 2 of 3:")
    driven.send("record")
    driven.wait_for("recording…")
    mic.say(speech("slt_0002", gain_db=-6.0)[0])
    time.sleep(0.5)  # the take under way
    driven.send("quit")
    assert driven.end() == 0
    assert len(DatasetProject(project).clips) == 1
    assert any(re.match(r"accepted 1 take \([1-9]\d? s\)", line) for line in driven.said), driven.said


def test_a_bad_device_name_is_one_line_and_exit_2(mic, tmp_path):  # noqa: F811
    """An input device that does not exist: one line on stderr naming it (and the inputs there are), exit 2, no
    traceback, and no project made."""
    done = subprocess.run(
        [sys.executable, "-m", "studio.cli", "dataset", "record", str(tmp_path / "p"), "--device", "no such mic"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "'no such mic'" in done.stderr and DEVICE in done.stderr, done.stderr
    assert not (tmp_path / "p").exists()


def test_a_blank_device_name_names_no_device(monkeypatch):
    """``--device ''`` (an empty shell variable) names no device: it was "more than one input device named ''",
    a blank being part of every name; a part of one name still finds it."""
    from trainer.dataset.recording import capture

    inputs = [capture.InputDevice(0, "USB Microphone", 48000), capture.InputDevice(1, "default", 44100)]
    monkeypatch.setattr(capture, "input_devices", lambda: inputs)
    for blank in ("", "  "):
        with pytest.raises(capture.RecordingError, match=r"^no input device named '\s*'; the inputs are 0: USB"):
            capture.find_input(blank)
    assert capture.find_input("usb") == 0 and capture.find_input("1") == 1


def test_a_folder_holding_other_things_is_no_project_one_line_and_exit_2(mic, tmp_path, capsys):  # noqa: F811
    """A folder with files and no project is refused in one line naming it (takes would be mixed into it), and
    nothing is written there."""
    from studio.cli import main

    (tmp_path / "notes.txt").write_text("not a dataset")
    assert main(["dataset", "record", str(tmp_path), "--device", DEVICE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(tmp_path) in err and "not a dataset project" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mic.fifo", "microphone.conf", "notes.txt"]


def test_a_failure_before_any_take_leaves_no_project_behind(mic, tmp_path, capsys, monkeypatch):  # noqa: F811
    """A ``--prompts`` file that cannot be read, or a device that refuses to open: one line, exit 2, and the
    project the command would have made is not left behind (an empty folder given stays empty)."""
    from studio.cli import main
    from trainer.dataset.recording.booth import Booth
    from trainer.dataset.recording.capture import RecordingError

    missing = tmp_path / "missing.txt"
    assert main(["dataset", "record", str(tmp_path / "new"), "--device", DEVICE, "--prompts", str(missing)]) == 2
    assert capsys.readouterr().err.count("\n") == 1 and not (tmp_path / "new").exists()

    def refuses(self):
        raise RecordingError("voice_studio_mic: the device refuses 8,000 Hz")

    monkeypatch.setattr(Booth, "open", refuses)
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))  # a script with no commands
    (tmp_path / "empty").mkdir()
    assert main(["dataset", "record", str(tmp_path / "empty"), "--device", DEVICE]) == 2
    assert "refuses" in capsys.readouterr().err and not any((tmp_path / "empty").iterdir())


def test_speech_in_the_room_tone_is_said_and_measured_again(mic, tmp_path, drive):  # noqa: F811
    """Speech while the room tone is measured: a warning says so and offers ``room``; measured again in quiet, the
    floor is the room's and no warning comes."""
    said, _ = speech("slt_0001", gain_db=-6.0)
    mic.say(said)  # heard from the first frame the booth captures
    driven = drive(_args(tmp_path / "project"))
    warning = driven.wait_for("warning:")
    assert "speech" in warning and "'room' measures again" in warning
    until = time.monotonic() + 10
    while not mic.quiet and time.monotonic() < until:
        time.sleep(0.05)
    driven.send("room")
    floor = driven.wait_for("noise floor:")
    assert float(floor.split()[2]) < -60
    driven.wait_for("prompt 1 of 3:")
    assert driven.end() == 0
    assert not [line for line in driven.said[driven.said.index(floor) :] if "warning" in line]


def test_a_prompts_line_too_long_for_one_clip_is_left_out_and_named(tmp_path, capsys):
    """``--prompts`` lines are recorded in order, but one over the dataset's phoneme_ids limit (a take of it would
    be kept out of training) is left out and named on stderr."""
    from studio.cli.dataset_record import _project, _prompts

    long = " ".join(["The kettle whistled twice, then fell silent."] * 12)
    lines = tmp_path / "lines.txt"
    lines.write_text(f"Who left the garden gate open?\n{long}\nAbsolutely not.\n", encoding="utf-8")
    prompts, _ = _prompts(_project(tmp_path / "project"), lines, 50)
    assert prompts == ["Who left the garden gate open?", "Absolutely not."]
    assert "left out 1 line too long for one training clip" in capsys.readouterr().err


def test_skip_and_back_while_the_room_is_measured_say_the_room_tone_once(mic, tmp_path, drive):  # noqa: F811
    """``skip`` and ``back`` sent during the room tone move the prompt without a second "room tone" line, and
    ``back`` at the first prompt shows it again."""
    driven = drive(_args(tmp_path / "project"))
    driven.wait_for("room tone:")
    driven.send("skip")
    driven.send("back")
    driven.send("back")
    driven.wait_for("prompt 1 of 3:")
    assert driven.end() == 0
    assert sum(line.startswith("room tone:") for line in driven.said) == 1, driven.said


def test_the_terminal_meter_and_keys():
    """The meter's bar fills to the RMS with ``#``, to the peak with ``=``, marks the held peak and says CLIP; the
    keys (arrows as escape sequences) become the session's commands, other keys are ignored."""
    from studio.cli.record_keys import keys_to_commands
    from studio.cli.record_session import meter_line
    from trainer.dataset.recording.levels import Levels

    line = meter_line(Levels(peak_dbfs=-30.0, rms_dbfs=-45.0, hold_dbfs=-12.0, clipped=False))
    assert line.startswith("[" + "#" * 8 + "=" * 7 + " " * 8 + "|" + " " * 6 + "]") and not line.endswith("CLIP")
    assert meter_line(Levels(peak_dbfs=0.0, rms_dbfs=-3.0, hold_dbfs=0.0, clipped=True)).endswith("CLIP")
    typed = " \rRs\x1b[Cb\x1b[Dxmq"
    assert keys_to_commands(typed) == ["toggle", "accept", "retake", "skip", "skip", "back", "back", "room", "quit"]


def test_a_take_whose_check_breaks_is_one_line_and_not_kept(mic, tmp_path, drive, monkeypatch):  # noqa: F811
    """A check that raises what no measure expects (here the booth's check itself) is said in one line, never a
    traceback; ``accept`` then keeps nothing and says why; the session still quits cleanly."""
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.recording.booth import Booth

    def broken(self, *, recognizer=None):
        raise RuntimeError("the recognizer's model is damaged")

    monkeypatch.setattr(Booth, "check", broken)
    project = tmp_path / "project"
    driven = drive(_args(project))
    driven.send("record")
    driven.wait_for("recording…")
    mic.say(speech("slt_0001", gain_db=-6.0)[0])
    said = driven.wait_for("could not be checked")
    assert "RuntimeError: the recognizer's model is damaged" in said
    driven.send("accept")
    driven.wait_for("not checked, so it is not kept")
    assert driven.end() == 0
    assert not any("Traceback" in line for line in driven.said)
    assert not DatasetProject(project).clips
