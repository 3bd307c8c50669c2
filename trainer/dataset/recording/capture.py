"""A microphone captured in PortAudio's own callback thread into a ring buffer, read and resampled by the booth.

The callback only copies the block into the :class:`~trainer.dataset.recording.ring.RingBuffer` and counts
PortAudio's own input overflows; everything else (resampling with soxr to the project's rate, the meter, the
voice-activity detector) happens in the reader, so a reader that stalls (a busy window) loses nothing until the
ring (``RING_S`` seconds) is full, and then the loss is counted and reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from engines.errors import VoiceStudioError
from engines.imports import importing
from trainer.dataset.recording.levels import Levels, Meter
from trainer.dataset.recording.ring import RingBuffer

BLOCK = 512
"""Frames per PortAudio callback: 10.7 ms at 48 kHz, well under a 30 fps meter's 33 ms."""
RING_S = 30.0
"""Seconds of audio the ring buffer holds for a reader that stalls."""


class RecordingError(VoiceStudioError, RuntimeError):
    """The input device cannot be opened or used; the message names it and says what to do."""


@dataclass(frozen=True)
class InputDevice:
    """A sound device that can record: PortAudio's ``index``, its ``name`` and default ``rate``, Hz."""

    index: int
    name: str
    rate: int


def input_devices() -> list[InputDevice]:
    """The devices PortAudio can record from (none: an empty list)."""
    sd = _sounddevice()
    found = sd.query_devices()
    return [
        InputDevice(i, d["name"], int(d["default_samplerate"])) for i, d in enumerate(found) if d["max_input_channels"]
    ]


def find_input(wanted: str | None) -> int | None:
    """PortAudio's index of the input device ``wanted``: an index, a name, or a part of one names one (a whole
    name first); ``None``: the default input.

    Raises:
        RecordingError: no device can record, or none is ``wanted`` (the message lists those that can).
    """
    devices = input_devices()
    if not devices:
        raise RecordingError("no input device: PortAudio lists none that can record (connect a microphone)")
    if wanted is None:
        return None
    found = [d for d in devices if wanted == str(d.index) or wanted == d.name]
    part = wanted.strip().lower()  # a blank name is part of every name: it names none
    found = found or [d for d in devices if part and part in d.name.lower()]
    if len(found) != 1:
        names = ", ".join(f"{d.index}: {d.name}" for d in devices)
        how = "no" if not found else "more than one"
        raise RecordingError(f"{how} input device named {wanted!r}; the inputs are {names}")
    return found[0].index


def _sounddevice():
    with importing("sounddevice"):
        import sounddevice

    return sounddevice


class Capture:
    """Mono float32 capture from ``device`` (a name or index; ``None``: the default input) at ``rate`` Hz
    (``None``: the device's default rate).

    Raises:
        RecordingError: (``start``) the device is missing or refuses the rate; names both.
    """

    def __init__(self, device: int | str | None = None, rate: int | None = None, *, ring_s: float = RING_S) -> None:
        self.device = device
        self.rate = rate
        self.ring: RingBuffer | None = None
        self.meter: Meter | None = None
        self.input_overflows = 0
        """Blocks PortAudio itself reported as overflowed (the callback came too late to take them)."""
        self._ring_s = ring_s
        self._stream: Any = None
        self._metered = 0
        """``ring.written`` at the last :meth:`levels`."""

    def start(self) -> None:
        """Open the device and start capturing."""
        sd = _sounddevice()
        try:
            info = sd.query_devices(self.device, kind="input")
            self.rate = int(self.rate or info["default_samplerate"])
            self.ring = RingBuffer(round(self._ring_s * self.rate))
            self.meter, self._metered = Meter(self.rate), 0
            self._stream = sd.InputStream(
                device=self.device,
                channels=1,
                samplerate=self.rate,
                dtype="float32",
                blocksize=BLOCK,
                callback=self._callback,
            )
            self._stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            self._stream = None
            name = "the default input" if self.device is None else f"input device {self.device!r}"
            raise RecordingError(f"{name} cannot record at {self.rate or 'its'} Hz: {exc}") from None

    def stop(self) -> None:
        """Stop and close the device (the ring keeps what was captured)."""
        if self._stream is not None:
            self._stream.stop()
            self._stream.close()
            self._stream = None

    @property
    def running(self) -> bool:
        return self._stream is not None and self._stream.active

    def _callback(self, indata: np.ndarray, frames: int, time, status) -> None:
        """PortAudio's callback thread: copy the block in, count overflows; nothing that can wait."""
        if status.input_overflow:
            self.input_overflows += 1
        assert self.ring is not None
        self.ring.write(indata[:, 0])

    def read(self) -> np.ndarray:
        """Every frame captured since the last read, float32 ``[N]`` at ``rate``."""
        return self.ring.read() if self.ring is not None else np.zeros(0, np.float32)

    def levels(self) -> Levels:
        """The meter's levels of the frames captured since the last call, at least its window
        (``trainer.dataset.recording.levels``): a peak or clipped sample between two late polls is still shown."""
        assert self.ring is not None and self.meter is not None
        written = self.ring.written
        new, self._metered = written - self._metered, written
        return self.meter.update(self.ring.latest(max(new, self.meter.window())), written)

    @property
    def lost(self) -> int:
        """Frames lost so far: dropped by a full ring, plus blocks PortAudio overflowed (counted as blocks)."""
        return (self.ring.dropped if self.ring else 0) + self.input_overflows * BLOCK
