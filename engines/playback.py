"""Playing streamed audio through PortAudio (``sounddevice``) on a thread of its own.

A :class:`Playback` is one utterance: chunks go into a queue as they are
synthesized, a player thread writes them to a blocking output stream in small
blocks (so ``abort`` takes effect within one block), and the stream is drained
and closed at the end. Nothing is padded: only real audio reaches the device.
"""

from __future__ import annotations

import queue
import threading

import numpy as np

from engines.base import EngineError
from engines.imports import importing

BLOCK = 1024
"""Samples per write: at 22,050 Hz about 46 ms, the bound on how late a stop can land."""
DTYPE = "float32"
"""Sample format handed to PortAudio (and written by ALSA's ``file`` plugin in tests)."""


class NoOutputDevice(EngineError):
    """No audio output can be opened (no PortAudio library or no output device). Its message begins with
    :data:`CANNOT_PLAY`."""


CANNOT_PLAY = "Cannot play audio: "
"""How every :class:`NoOutputDevice` message begins."""


def why_not_played(exc: BaseException) -> str:
    """``exc``'s reason without :data:`CANNOT_PLAY`, for a message that says "Cannot play …" itself."""
    return str(exc).removeprefix(CANNOT_PLAY)


def output_available() -> tuple[bool, str]:
    """Whether a default output device exists; the reason if not."""
    try:
        with importing("sounddevice"):
            import sounddevice

        sounddevice.query_devices(kind="output")
    except OSError as exc:  # PortAudio library missing
        return False, f"PortAudio is not installed ({exc})"
    except Exception:  # sounddevice.PortAudioError, ValueError: no such device
        return False, "no audio output device was found"
    return True, ""


class Playback:
    """Plays one utterance as its chunks arrive.

    Args:
        sample_rate: rate of every chunk, Hz.
        device: sounddevice output device (``None``: the default).

    Raises:
        NoOutputDevice: PortAudio or an output device is missing; the message
            says so in words a user understands.
    """

    def __init__(self, sample_rate: int, device: int | str | None = None) -> None:
        ok, reason = output_available()
        if not ok:
            raise NoOutputDevice(f"{CANNOT_PLAY}{reason}. Saving to a WAV file still works.")
        with importing("sounddevice"):
            import sounddevice

        try:
            self._stream = sounddevice.OutputStream(samplerate=sample_rate, channels=1, dtype=DTYPE, device=device)
            self._stream.start()
        except Exception as exc:
            raise NoOutputDevice(f"Cannot open the audio output at {sample_rate} Hz: {exc}") from exc
        self.sample_rate = sample_rate
        self.played_samples = 0
        self.error: Exception | None = None
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue()
        self._abort = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="playback", daemon=True)
        self._thread.start()

    def write(self, audio: np.ndarray) -> None:
        """Queue mono float32 samples ``[N]`` for playing; returns at once."""
        if not self._abort.is_set():
            self._queue.put(np.ascontiguousarray(audio, dtype=np.float32))

    def close(self) -> None:
        """No more audio: play what is queued, then release the device."""
        self._queue.put(None)

    def abort(self) -> None:
        """Stop now: drop queued audio and what the device still buffers."""
        self._abort.set()
        self._queue.put(None)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until playing has ended; False on timeout."""
        return self._done.wait(timeout)

    @property
    def finished(self) -> bool:
        """True once the device is released."""
        return self._done.is_set()

    def _run(self) -> None:
        try:
            while not self._abort.is_set():
                audio = self._queue.get()
                if audio is None:
                    break
                for start in range(0, len(audio), BLOCK):
                    if self._abort.is_set():
                        break
                    block = audio[start : start + BLOCK]
                    self._stream.write(block.reshape(-1, 1))
                    self.played_samples += len(block)
            if self._abort.is_set():
                self._stream.abort()
            else:
                self._stream.stop()
        except Exception as exc:  # device unplugged mid-line, and the like
            self.error = exc
        finally:
            self._stream.close()
            self._done.set()
