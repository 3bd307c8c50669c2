"""A microphone for the tests: ALSA's ``file`` plugin reading a FIFO that a thread fills in real time.

The ALSA device ``voice_studio_mic`` (added to the test process's ALSA configuration, ``tests/conftest.py``'s or
``.ci/run``'s) is ``type file`` over the ``null`` device with ``infile`` a FIFO; PortAudio records from it as from
any capture device. The null device keeps no time, so the FIFO does: :class:`Microphone` writes 1,024-frame chunks
(4,096 bytes: one atomic pipe write) at the rate a real device would, room noise when it has nothing to say and
what :meth:`Microphone.say` queued otherwise. A device read of at most one chunk (the recorder's block is 512
frames) then always gets whole data.
"""

from __future__ import annotations

import os
import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np

DEVICE = "voice_studio_mic"
RATE = 48000
"""The microphone's rate, Hz (a common USB microphone's; the project's voice is 22,050 Hz, so takes resample)."""
CHUNK = 1024
"""Frames per pipe write: 4,096 bytes of float32, ``PIPE_BUF`` on Linux, so a write is never read in part."""
NOISE_RMS = 0.001
"""The room noise's RMS: -60 dBFS."""
SYSTEM_CONF = Path("/usr/share/alsa/alsa.conf")

SNIPPET = """
pcm.voice_studio_mic {
  type file
  slave.pcm "null"
  file "/dev/null"
  infile "%s"
  format "raw"
}
"""


def reinit_portaudio() -> None:
    """Make PortAudio enumerate the devices again (and ALSA read its configuration again)."""
    import sounddevice

    sounddevice._terminate()
    sounddevice._initialize()


class Microphone:
    """The FIFO behind ``voice_studio_mic`` and the thread that fills it; :meth:`say` queues audio at ``RATE``."""

    def __init__(self, folder: Path) -> None:
        self.fifo = folder / "mic.fifo"
        os.mkfifo(self.fifo)
        self.fed = 0
        """Frames written into the FIFO so far."""
        self._queue: queue.Queue[np.ndarray] = queue.Queue()
        self._pending = np.zeros(0, np.float32)
        self._noise = np.random.default_rng(0)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._feed, name="test microphone", daemon=True)
        self._thread.start()

    def say(self, audio: np.ndarray) -> None:
        """Queue float32 ``[N]`` at ``RATE``; it is heard after what was queued before, room noise around it."""
        self._queue.put(np.asarray(audio, np.float32))

    @property
    def quiet(self) -> bool:
        """Everything queued has been written."""
        return self._queue.empty() and not len(self._pending)

    def close(self) -> None:
        self._stop.set()
        try:  # a writer blocked opening the FIFO is released by a reader
            os.close(os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass
        self._thread.join(5)
        self.fifo.unlink(missing_ok=True)

    def _chunk(self) -> np.ndarray:
        while len(self._pending) < CHUNK and not self._queue.empty():
            self._pending = np.concatenate([self._pending, self._queue.get()])
        out = self._noise.normal(0.0, NOISE_RMS, CHUNK).astype(np.float32)
        said = self._pending[:CHUNK]
        out[: len(said)] = said
        self._pending = self._pending[len(said) :]
        return out

    def _feed(self) -> None:
        """Open the FIFO for each reader (PortAudio opens the device when it lists it, then to record), and write
        a chunk every ``CHUNK / RATE`` seconds while it reads."""
        while not self._stop.is_set():
            try:
                fd = os.open(self.fifo, os.O_WRONLY)
            except OSError:
                return
            start = time.monotonic()
            sent = 0
            try:
                while not self._stop.is_set():
                    os.write(fd, self._chunk().tobytes())
                    sent += CHUNK
                    self.fed += CHUNK
                    time.sleep(max(0.0, start + sent / RATE - time.monotonic()))
            except BrokenPipeError:
                pass
            finally:
                os.close(fd)


@contextmanager
def listed_microphone(folder: Path) -> Iterator[Microphone]:
    """``voice_studio_mic`` added to this process's ALSA configuration (one more file, in ``folder``) and listed by
    PortAudio, fed by a :class:`Microphone`; all of it undone on leaving. Needs ALSA (``SYSTEM_CONF``)."""
    before = os.environ.get("ALSA_CONFIG_PATH")
    conf = folder / "microphone.conf"
    microphone = Microphone(folder)
    conf.write_text(SNIPPET % microphone.fifo)
    os.environ["ALSA_CONFIG_PATH"] = f"{before or SYSTEM_CONF}:{conf}"  # ALSA reads the files listed, in order
    try:
        reinit_portaudio()
        yield microphone
    finally:
        microphone.close()
        if before is None:
            os.environ.pop("ALSA_CONFIG_PATH", None)
        else:
            os.environ["ALSA_CONFIG_PATH"] = before
        reinit_portaudio()
