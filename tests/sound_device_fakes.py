"""A sound device that misbehaves, faked at the ``sounddevice`` boundary and playing through the real one.

:class:`FakeDevice` replaces ``sounddevice.OutputStream`` with a subclass of the real class and
``sounddevice.query_devices`` with a wrapper of the real function: a stream at a rate the device does not take
is refused as PortAudio refuses it (``PortAudioError(-9997)``, "Invalid sample rate"), and the device can go
away at its N-th write (a blocking stream: ``PortAudioError(-9999)``) or N-th callback (a callback stream:
PortAudio ends it, as it does when the host reports the device gone). Everything else is the real PortAudio
stream, so what is played still reaches ALSA's capture file (``tests/conftest.py``). Once gone, the device can
neither be found nor opened until :meth:`FakeDevice.back`. With ``realtime`` a blocking stream takes audio no
faster than it would play it (ALSA's file device in the tests takes it at once), for tests that follow the
playing position.
"""

from __future__ import annotations

import time

import sounddevice

INVALID_SAMPLE_RATE = -9997
"""``paInvalidSampleRate`` (PortAudio's ``portaudio.h``)."""
HOST_ERROR = -9999
"""``paUnanticipatedHostError`` (PortAudio's ``portaudio.h``): what a write gets when the device went away."""
DEVICE_UNAVAILABLE = -9985
"""``paDeviceUnavailable`` (PortAudio's ``portaudio.h``)."""
REAL_STREAM, REAL_QUERY = sounddevice.OutputStream, sounddevice.query_devices
"""What the fakes stand in front of (taken before any fake is installed)."""


class FakeDevice:
    """The default output device, taking only ``rates`` (``None``: any) and reporting ``default_rate`` as its
    own (``None``: the real one's), gone at its ``fail_at``-th write or callback (``None``: never).

    ``opened``: the rate of every stream opened, refused or not; ``writes``: writes and callbacks so far."""

    def __init__(
        self,
        *,
        rates: set[int] | None = None,
        default_rate: int | None = None,
        fail_at: int | None = None,
        realtime: bool = False,
    ) -> None:
        self.rates, self.default_rate, self.fail_at, self.realtime = rates, default_rate, fail_at, realtime
        self.opened: list[int] = []
        self.writes = 0
        self.gone = False

    def install(self, monkeypatch=None) -> FakeDevice:
        """Put the fake in ``sounddevice`` (through ``monkeypatch`` when given: undone after the test)."""
        for name, value in (
            ("OutputStream", self._stream_class(REAL_STREAM)),
            ("query_devices", self._query(REAL_QUERY)),
        ):
            if monkeypatch is None:
                setattr(sounddevice, name, value)
            else:
                monkeypatch.setattr(sounddevice, name, value)
        return self

    def back(self) -> None:
        """The device is plugged in again, and stays."""
        self.gone, self.fail_at = False, None

    def _query(self, real_query):
        def query_devices(device=None, kind=None):
            if self.gone:
                raise sounddevice.PortAudioError(f"Error querying device {-1 if device is None else device}")
            info = real_query(device, kind)
            if kind == "output" and self.default_rate is not None:
                info = dict(info, default_samplerate=float(self.default_rate))
            return info

        return query_devices

    def _stream_class(self, real_stream):
        device = self

        class FakeStream(real_stream):
            def __init__(self, *args, samplerate=None, callback=None, **kwargs) -> None:
                device.opened.append(samplerate)
                if device.gone:
                    raise sounddevice.PortAudioError(
                        "Error opening OutputStream: Device unavailable", DEVICE_UNAVAILABLE
                    )
                if device.rates is not None and samplerate not in device.rates:
                    raise sounddevice.PortAudioError(
                        "Error opening OutputStream: Invalid sample rate", INVALID_SAMPLE_RATE
                    )
                wrapped = None if callback is None else device._callback(callback)
                super().__init__(*args, samplerate=samplerate, callback=wrapped, **kwargs)

            def write(self, data):
                device._count()
                if device.realtime:
                    _pace(self, len(data))
                return super().write(data)

        return FakeStream

    def _callback(self, callback):
        def wrapped(outdata, frames, time, status):
            try:
                self._count()
            except sounddevice.PortAudioError:
                raise sounddevice.CallbackAbort from None  # PortAudio ends the stream, as on a lost device
            callback(outdata, frames, time, status)

        return wrapped

    def _count(self) -> None:
        """One more write or callback; the ``fail_at``-th one (and every one after it) finds the device gone."""
        self.writes += 1
        if self.gone or (self.fail_at is not None and self.writes >= self.fail_at):
            self.gone = True
            raise sounddevice.PortAudioError("Unanticipated host error", HOST_ERROR)


def _pace(stream, frames: int) -> None:
    """Wait until ``stream``, were it playing in real time and holding its ``latency`` in seconds, had room for
    ``frames`` more (its first write starts the clock)."""
    now = time.perf_counter()
    if not hasattr(stream, "paced_from"):
        stream.paced_from, stream.paced_frames = now, 0
    wait = stream.paced_from + (stream.paced_frames + frames) / stream.samplerate - stream.latency - now
    if wait > 0:
        time.sleep(wait)
    stream.paced_frames += frames
