"""``voice-studio say -o`` into what is not a plain file: standard output, a FIFO, a device, a symlink."""

from __future__ import annotations

import io
import os
import stat
import struct
import subprocess
import sys
import threading

import numpy as np
import soundfile

TEXT = "Streaming into a pipe. A second sentence follows."
DETERMINISTIC = ("--noise-scale", "0", "--noise-w", "0")


def say(*args: str) -> subprocess.CompletedProcess:
    """``voice-studio say TEXT ARGS`` as a user runs it; stdout as bytes."""
    command = [sys.executable, "-m", "studio", "say", TEXT, *args]
    return subprocess.run(command, capture_output=True, timeout=120, env=os.environ.copy())


def read_wav(data: bytes) -> np.ndarray:
    audio, rate = soundfile.read(io.BytesIO(data), dtype="float32")
    assert rate == 22050
    return audio


def test_say_to_stdout_is_a_streamable_wav():
    """-o - writes one WAV with unknown sizes to stdout and nothing else; messages go to stderr."""
    result = say("-o", "-", *DETERMINISTIC)
    assert result.returncode == 0, result.stderr.decode()
    out = result.stdout
    assert out[:4] == b"RIFF" and out[8:16] == b"WAVEfmt " and out[36:40] == b"data"
    assert struct.unpack("<I", out[4:8])[0] == 0xFFFFFFFF == struct.unpack("<I", out[40:44])[0]
    audio = read_wav(out)
    assert len(audio) == (len(out) - 44) // 2 and len(audio) / 22050 > 2.0
    assert b"time to first audio" in result.stderr
    raw = say("-o", "-", "--raw", *DETERMINISTIC)
    assert raw.returncode == 0 and raw.stdout == out[44:]  # the same samples, no header


def test_say_streams_into_a_fifo_and_leaves_it_a_fifo(tmp_path):
    """A named pipe is written in place while a reader reads it; it is not replaced by a file."""
    fifo = tmp_path / "speech.wav"
    os.mkfifo(fifo)
    received = bytearray()

    def reader() -> None:
        with open(fifo, "rb") as pipe:
            while piece := pipe.read(4096):
                received.extend(piece)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    result = say("-o", str(fifo))
    thread.join(timeout=30)
    assert result.returncode == 0, result.stderr.decode()
    assert not thread.is_alive(), "the reader never saw the end of the stream"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert len(read_wav(bytes(received))) / 22050 > 2.0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["speech.wav"]  # no temporary file left


def test_say_to_dev_null_leaves_the_device():
    """/dev/null is a character device: written as a stream, never replaced."""
    result = say("-o", "/dev/null", "--quiet")
    assert result.returncode == 0, result.stderr.decode()
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_say_through_a_symlink_keeps_the_link(tmp_path):
    """Sibling: a symlink to a WAV file: the file it names gets the new audio, the link stays a link."""
    target = tmp_path / "real.wav"
    soundfile.write(str(target), np.zeros(100, np.float32), 22050)
    link = tmp_path / "link.wav"
    link.symlink_to(target)
    result = say("-o", str(link), "--quiet")
    assert result.returncode == 0, result.stderr.decode()
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert soundfile.info(str(target)).frames > 22050


def test_say_refuses_what_a_stream_cannot_carry(tmp_path):
    """Sibling: FLAC into a FIFO, --raw into a file or with no -o: exit 2 with one clear line, nothing touched."""
    fifo = tmp_path / "speech.flac"
    os.mkfifo(fifo)
    cases = {
        ("-o", str(fifo)): "written as it is synthesized",
        ("-o", str(tmp_path / "x.wav"), "--raw"): "--raw is for streams",
        ("--raw",): "--raw writes raw PCM into -o -",
    }
    for args, message in cases.items():
        result = say(*args)
        stderr = result.stderr.decode()
        assert result.returncode == 2 and message in stderr and "Traceback" not in stderr, stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and sorted(p.name for p in tmp_path.iterdir()) == ["speech.flac"]
