"""The room's noise floor, and when a take has ended: trailing silence judged by Silero VAD against that floor.

A window of 32 ms counts as silence when Silero VAD v5 gives it a speech probability under 0.5 (the dataset's
``trainer.dataset.analysis.SPEECH_THRESHOLD``) and its RMS is within ``ABOVE_FLOOR_DB`` of the noise floor measured
in the room tone; so neither a quiet room's breathing nor a loud room's hum decides alone, and no fixed dB level
is assumed. A take stops itself after ``STOP_AFTER_S`` of such windows, once ``MIN_SPEECH_S`` of speech was heard.
"""

from __future__ import annotations

import numpy as np

from trainer.dataset.analysis import SPEECH_THRESHOLD
from trainer.dataset.recording.levels import rms_dbfs
from trainer.dataset.vad import RATE, WINDOW, StreamVad

ROOM_TONE_S = 3.0
"""Seconds of room tone measured before the first take."""
FLOOR_WINDOW_S = 0.05
"""Seconds per RMS window of the room tone; the floor is their median (a cough or click does not raise it)."""
ABOVE_FLOOR_DB = 10.0
"""A window louder than the noise floor by more than this, dB, is never silence (speech trailing off)."""
STOP_AFTER_S = 1.0
"""Seconds of trailing silence that end a take."""
MIN_SPEECH_S = 0.25
"""Seconds of speech a take must have heard before silence can end it (and the room tone may hold before it is
said to have speech in it)."""
NOISY_FLOOR_DBFS = -45.0
"""A noise floor louder than this, dBFS, is no usable floor: 15 dB over ACX's limit for a recording's noise floor
(-60 dBFS RMS, ACX "Audio Submission Requirements"), 22 dB under speech normalized to -23 LUFS; the voice would
learn the room. A quiet room with a USB microphone measures -60 to -70."""


def noise_floor_dbfs(room: np.ndarray, rate: int) -> float:
    """The median RMS, dBFS, of ``FLOOR_WINDOW_S`` windows of room tone (float32 ``[N]`` at ``rate`` Hz)."""
    size = max(1, round(FLOOR_WINDOW_S * rate))
    windows = [room[i : i + size] for i in range(0, len(room) - size + 1, size)] or [room]
    return float(np.median([rms_dbfs(w) for w in windows]))


def room_doubt(floor_dbfs: float, speech_s: float) -> str:
    """Why a room tone (its noise floor, dBFS, and the seconds Silero VAD heard as speech in it) is no floor to
    judge takes by; ``""`` when it is one."""
    if speech_s >= MIN_SPEECH_S:
        return f"the room tone had speech in it ({speech_s:.1f} s): stay quiet and measure it again"
    if floor_dbfs > NOISY_FLOOR_DBFS:
        return (
            f"the room is loud for recording (noise floor {floor_dbfs:.0f} dBFS, over {NOISY_FLOOR_DBFS:.0f}): "
            "quieten it (a fan, a window) or move closer to the microphone, and measure it again"
        )
    return ""


class SilenceJudge:
    """Streams 16 kHz audio through Silero VAD, 512 samples at a time, and says when the take has ended."""

    def __init__(self, floor_dbfs: float) -> None:
        self.floor_dbfs = floor_dbfs
        self._vad = StreamVad()
        self._pending = np.zeros(0, np.float32)
        self.windows = 0
        self.speech_windows = 0
        self.last_speech = -1
        """Index of the last window heard as speech (-1: none yet)."""

    def feed(self, audio: np.ndarray) -> None:
        """Judge the whole windows of ``audio`` (float32 ``[N]`` at 16 kHz) and keep the rest for the next call."""
        audio = np.concatenate([self._pending, audio])
        whole = len(audio) // WINDOW * WINDOW
        for start in range(0, whole, WINDOW):
            self._judge(audio[start : start + WINDOW])
        self._pending = audio[whole:]

    def _judge(self, window: np.ndarray) -> None:
        probability = self._vad.probability(window)
        loud = rms_dbfs(window) > self.floor_dbfs + ABOVE_FLOOR_DB
        if probability >= SPEECH_THRESHOLD:
            self.speech_windows += 1
        if probability >= SPEECH_THRESHOLD or (loud and self.speech_windows):
            self.last_speech = self.windows
        self.windows += 1

    @property
    def speech_s(self) -> float:
        """Seconds of the windows heard as speech."""
        return self.speech_windows * WINDOW / RATE

    @property
    def speech_end_s(self) -> float | None:
        """Where the last speech (or sound above the floor after speech) ended, s from the take's start."""
        return (self.last_speech + 1) * WINDOW / RATE if self.last_speech >= 0 else None

    @property
    def ended(self) -> bool:
        """Enough speech was heard, then ``STOP_AFTER_S`` of silence."""
        heard = self.speech_s >= MIN_SPEECH_S
        trailing = (self.windows - 1 - self.last_speech) * WINDOW / RATE
        return heard and trailing >= STOP_AFTER_S
