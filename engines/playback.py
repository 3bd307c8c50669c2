"""Playing streamed audio through PortAudio (``sounddevice``) on a thread of its own.

A :class:`Playback` is one utterance: chunks go into a queue as they are
synthesized, a player thread writes them to a blocking output stream in blocks
of :data:`BLOCK` samples (so ``abort`` takes effect within one block), and the
stream is drained and closed at the end. Nothing is padded: only real audio
reaches the device. A device that does not take the audio's rate is played at
its own, the chunks resampled as one soxr stream (``engines.output_device``).
A device that fails mid-line (unplugged) ends the playing; :attr:`Playback.error`
then says after how many seconds and why, for the caller to tell.
"""

from __future__ import annotations

import queue
import threading
import time

import numpy as np

from engines.output_device import (
    CANNOT_PLAY,
    NoOutputDevice,
    PlaybackStopped,
    open_output,
    output_available,
    stopped_words,
)
from engines.server.encode import Resampler

BLOCK = 1024
"""Samples per write: at 22,050 Hz about 46 ms, the bound on how late a stop can land."""


class Playback:
    """Plays one utterance as its chunks arrive.

    Args:
        sample_rate: rate of every chunk, Hz.
        device: sounddevice output device (``None``: the default).

    Attributes:
        rate: Hz the device plays at: ``sample_rate``, or the device's own when it refuses that one.
        note: ``""``, or the line saying the audio is resampled to ``rate`` (``open_output``: once a process).
        played_samples: samples written to the device so far, at ``rate``.
        error: ``None``, or :class:`PlaybackStopped` once the device failed while playing (read it after
            :meth:`wait`, or with :meth:`check`).

    Raises:
        NoOutputDevice: PortAudio or an output device is missing, or it takes no rate; the message
            says so in words a user understands.
    """

    def __init__(self, sample_rate: int, device: int | str | None = None) -> None:
        ok, reason = output_available()
        if not ok:
            raise NoOutputDevice(f"{CANNOT_PLAY}{reason}. Saving to a WAV file still works.")
        opened = open_output(sample_rate, device)
        self._stream = opened.stream
        try:
            self._stream.start()
        except Exception as exc:
            self._stream.close()
            raise NoOutputDevice(f"Cannot start the audio output at {opened.rate} Hz: {exc}") from exc
        self.sample_rate, self.rate, self.note = sample_rate, opened.rate, opened.note
        self.played_samples = 0
        self._first_write: float | None = None
        self.error: PlaybackStopped | None = None
        self._resampler = Resampler(sample_rate, opened.rate)
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue()
        self._abort = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="playback", daemon=True)
        self._thread.start()

    def write(self, audio: np.ndarray) -> None:
        """Queue mono float32 samples ``[N]`` at ``sample_rate`` for playing; returns at once (dropped once
        playing has ended)."""
        if not self._abort.is_set() and not self._done.is_set():
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

    def check(self) -> None:
        """Raise :attr:`error` if the device failed while playing.

        Raises:
            PlaybackStopped: the device failed; the message says after how many seconds and why.
        """
        if self.error is not None:
            raise self.error

    @property
    def finished(self) -> bool:
        """True once the device is released."""
        return self._done.is_set()

    @property
    def played_s(self) -> float:
        """Seconds of audio the device has been given."""
        return self.played_samples / self.rate

    @property
    def heard_s(self) -> float:
        """Seconds of the utterance heard by now, for following it (a highlighted word): what was written to the
        device, or the time since the first write where that is less (a device that takes audio faster than it
        plays it), less the device's output latency (PortAudio's ``latency``: what it holds before the
        speaker); 0 before the first write."""
        if self._first_write is None:
            return 0.0
        written = min(self.played_s, time.perf_counter() - self._first_write)
        return max(0.0, written - float(getattr(self._stream, "latency", 0.0) or 0.0))

    def _run(self) -> None:
        try:
            self._play_queue()
            if self._abort.is_set():
                self._stream.abort()
            else:
                self._stream.stop()
        except Exception as exc:  # device unplugged mid-line, and the like
            if not self._abort.is_set():
                self.error = PlaybackStopped(stopped_words(self.played_s, f"the audio output failed ({exc})"))
        finally:
            self._release()

    def _play_queue(self) -> None:
        """Write the queued chunks, resampled to ``rate``, in blocks of ``BLOCK`` samples (a shorter one only at
        the end), until :meth:`close` or :meth:`abort`."""
        pending = np.zeros(0, np.float32)
        while not self._abort.is_set():
            audio = self._queue.get()
            more = self._resampler.finish() if audio is None else self._resampler(audio)
            pending = np.concatenate([pending, more])
            whole = len(pending) if audio is None else len(pending) // BLOCK * BLOCK
            self._write(pending[:whole])
            pending = pending[whole:]
            if audio is None:
                return

    def _write(self, samples: np.ndarray) -> None:
        """Write float32 ``[N]`` samples to the device ``BLOCK`` at a time (fewer once :meth:`abort` is called)."""
        for start in range(0, len(samples), BLOCK):
            if self._abort.is_set():
                return
            block = samples[start : start + BLOCK]
            if self._first_write is None:
                self._first_write = time.perf_counter()
            self._stream.write(block.reshape(-1, 1))
            self.played_samples += len(block)

    def _release(self) -> None:
        """Close the stream (a device that is gone may refuse even that) and say playing has ended."""
        try:
            self._stream.close()
        except Exception:  # noqa: BLE001 - the device went away: it is released either way
            pass
        self._done.set()
