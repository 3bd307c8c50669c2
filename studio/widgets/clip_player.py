"""Plays whole clips loudness-matched, and switches the clip under a running stream at the same position.

A :class:`ClipPlayer` keeps one PortAudio output stream (``sounddevice``) whose callback reads
from the current buffer; :meth:`ClipPlayer.switch` replaces that buffer between two callbacks,
so the next block comes from the other clip at the same sample (candidates A/B without a gap).
Every clip is played at the same integrated loudness (:func:`loudness_gain`). A device that does not take the
clip's rate plays at its own (``engines.output_device.open_output``), the clip resampled with soxr; one that ends
the stream before the clip's end (unplugged mid-clip) is said in :attr:`ClipPlayer.message`.
"""

from __future__ import annotations

import threading

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal

from engines.imports import importing
from engines.output_device import CANNOT_PLAY, NoOutputDevice, open_output, output_available, stopped_words

TARGET_LUFS = -23.0
"""EBU R 128's programme loudness: every clip is played at this integrated loudness."""
MIN_GATED_S = 0.4
"""pyloudnorm's integrated loudness needs at least one 400 ms gating block; shorter clips use their RMS."""
GAINS_KEPT = 64
"""How many clips' gains a player remembers."""
POLL_MS = 40
"""How often the position is reported (and the end of a clip noticed) while playing."""


def loudness_gain(audio: np.ndarray, rate: int, target_lufs: float = TARGET_LUFS) -> float:
    """Linear gain that brings ``audio`` (mono float ``[N]``, ``rate`` Hz) to ``target_lufs``.

    Loudness is ITU-R BS.1770-4 integrated loudness (pyloudnorm's ``Meter``); a clip shorter
    than 0.4 s (one gating block) is measured by its mean square instead, ``10 log10(mean(x²))``
    (a full-scale 1 kHz sine: -3 dB, as its LUFS). The gain is capped so the peak stays ≤ 1.0.
    Silence (or an empty clip) gets 1.0.
    """
    samples = np.asarray(audio, dtype=np.float64).reshape(-1)
    peak = float(np.max(np.abs(samples))) if samples.size else 0.0
    if peak == 0.0 or not np.isfinite(peak):
        return 1.0
    if samples.size >= MIN_GATED_S * rate:
        with importing("pyloudnorm"):
            import pyloudnorm

        loudness = pyloudnorm.Meter(rate).integrated_loudness(samples)
    else:
        loudness = 10 * np.log10(np.mean(samples**2))
    if not np.isfinite(loudness):  # everything below the absolute gate (-70 LUFS)
        return min(1.0, 1.0 / peak)
    return float(min(10 ** ((target_lufs - loudness) / 20), 1.0 / peak))


class ClipPlayer(QObject):
    """One clip at a time through the default output device, loudness-matched.

    Signals:
        position_changed(float): seconds into the clip, about every ``POLL_MS`` while playing.
        playing_changed(bool): playing started (True) or ended, by :meth:`stop` or at the clip's end (False).
        message(str): for the user: the device plays at its own rate (said once a process), or it ended playing
            before the clip's end (after ``playing_changed(False)``).
    """

    position_changed = Signal(float)
    playing_changed = Signal(bool)
    message = Signal(str)

    def __init__(self, parent: QObject | None = None, device: int | str | None = None) -> None:
        super().__init__(parent)
        self.device = device
        self._lock = threading.Lock()
        self._buffer = np.zeros(0, np.float32)
        self._rate = 22050
        """Hz of ``_buffer`` (the device's rate while playing, the clip's own while stopped)."""
        self._clip_rate = 22050
        """Hz of the clip given to :meth:`play` (a clip at another rate opens the device again)."""
        self._pos = 0
        self._ended = threading.Event()
        self._stream = None
        self._gains: dict[tuple[int, int], tuple[np.ndarray, float]] = {}
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self._poll)

    def is_playing(self) -> bool:
        return self._stream is not None

    def position_s(self) -> float:
        """Seconds into the current clip of the next sample handed to the device (where a stop left it)."""
        with self._lock:
            return self._pos / self._rate

    def play(self, audio: np.ndarray, rate: int, start_s: float = 0.0) -> None:
        """Play mono ``audio`` ``[N]`` at ``rate`` Hz from ``start_s`` seconds, replacing what plays.

        Raises:
            NoOutputDevice: PortAudio or an output device is missing, or the stream cannot be opened (in words).
        """
        self.stop()
        cannot = self.cannot_play()
        if cannot:
            raise NoOutputDevice(cannot)
        opened = open_output(rate, self.device, callback=self._callback, finished_callback=self._ended.set)
        self._clip_rate = rate
        self._set_clip(audio, rate, start_s, opened.rate)
        self._ended.clear()
        try:
            opened.stream.start()
        except Exception as exc:
            opened.stream.close()
            raise NoOutputDevice(f"Cannot start the audio output at {opened.rate} Hz: {exc}") from exc
        self._stream = opened.stream
        self._timer.start()
        self.playing_changed.emit(True)
        if opened.note:
            self.message.emit(opened.note)

    def cannot_play(self) -> str:
        """``""`` where an output device is there, else the line :meth:`play` raises (``Cannot play audio: …``)."""
        ok, reason = output_available()
        return "" if ok else f"{CANNOT_PLAY}{reason}."

    def switch(self, audio: np.ndarray, rate: int) -> None:
        """Go on with another clip from the same position in seconds, taken at the moment of the swap (the
        buffer changes between two device callbacks); when stopped, the position is kept for the next play.

        Raises:
            NoOutputDevice: as :meth:`play` (only when the rate differs and the stream is opened again).
        """
        if self._stream is not None and rate != self._clip_rate:
            self.play(audio, rate, start_s=self.position_s())
            return
        self._set_clip(audio, rate, None, self._rate if self._stream is not None else rate)

    def seek(self, seconds: float) -> None:
        """Go to ``seconds`` into the current clip (playing or not), within its length."""
        with self._lock:
            self._pos = min(max(0, round(seconds * self._rate)), len(self._buffer))
        self.position_changed.emit(self.position_s())

    def duration_s(self) -> float:
        """Length of the current clip in seconds."""
        with self._lock:
            return len(self._buffer) / self._rate

    def stop(self) -> None:
        """Stop at once (what the device still buffers is dropped); the position stays where it was."""
        stream, self._stream = self._stream, None
        self._timer.stop()
        if stream is None:
            return
        try:
            stream.abort()
            stream.close()
        except Exception:  # a device that vanished mid-clip: it is stopped either way
            pass
        self.playing_changed.emit(False)

    def _set_clip(self, audio: np.ndarray, rate: int, start_s: float | None, out_rate: int) -> None:
        """Make ``audio`` (``rate`` Hz) the current clip from ``start_s`` seconds (``None``: the current position in
        seconds), resampled to ``out_rate`` Hz (the open stream's) with soxr where that differs."""
        samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        buffer = samples * np.float32(self.gain(samples, rate))
        if out_rate != rate:
            with importing("soxr"):
                import soxr

            buffer = soxr.resample(buffer, rate, out_rate, quality="HQ")
        buffer = np.clip(buffer, -1.0, 1.0).astype(np.float32)
        with self._lock:
            seconds = self._pos / self._rate if start_s is None else start_s
            self._buffer, self._rate = buffer, out_rate
            self._pos = min(max(0, round(seconds * out_rate)), len(buffer))

    def gain(self, audio: np.ndarray, rate: int) -> float:
        """:func:`loudness_gain` of ``audio``, remembered for the last ``GAINS_KEPT`` arrays (by identity), so
        switching back and forth between clips costs no measuring."""
        key = (id(audio), rate)
        if key not in self._gains or self._gains[key][0] is not audio:
            self._gains[key] = (audio, loudness_gain(audio, rate))
            while len(self._gains) > GAINS_KEPT:
                del self._gains[next(iter(self._gains))]
        return self._gains[key][1]

    def _callback(self, outdata: np.ndarray, frames: int, _time, _status) -> None:
        """PortAudio's thread: the next ``frames`` samples of the current buffer, zeros past its end."""
        with importing("sounddevice"):
            import sounddevice

        with self._lock:
            block = self._buffer[self._pos : self._pos + frames]
            self._pos += len(block)
        outdata[: len(block), 0] = block
        outdata[len(block) :, 0] = 0.0
        if len(block) < frames:
            raise sounddevice.CallbackStop

    def _poll(self) -> None:
        """The position; at the stream's end, stop, and say so when it ended before the clip's (the device failed:
        PortAudio ends a callback stream, or just stops calling it, and gives no error)."""
        self.position_changed.emit(self.position_s())
        stream = self._stream
        if stream is None or not (self._ended.is_set() or not stream.active):
            return
        with self._lock:
            early = self._pos < len(self._buffer)
        seconds = self.position_s()
        self.stop()
        if early:
            self.message.emit(stopped_words(seconds, "the audio output ended before the clip's end"))
