"""The sound output device (PortAudio, through ``sounddevice``): whether there is one, opening it at a rate it
takes, and what to tell the user when it cannot play or stops playing.

Some devices take only their own rate (WASAPI in shared mode, HDMI outputs, ALSA ``hw:`` devices): PortAudio
refuses a stream at any other with ``paInvalidSampleRate``. :func:`open_output` then opens the device at its own
(default) rate, and failing that at the usual rates, and says which rate it plays at, so the player resamples
(``engines.playback``, ``studio.widgets.clip_player``); only when no rate opens does it refuse, naming them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from engines.base import EngineError
from engines.imports import importing

DTYPE = "float32"
"""Sample format handed to PortAudio (and written by ALSA's ``file`` plugin in tests)."""
CANNOT_PLAY = "Cannot play audio: "
"""How every :class:`NoOutputDevice` message begins."""
INVALID_SAMPLE_RATE = -9997
"""PortAudio's ``paInvalidSampleRate`` (``portaudio.h``): the device does not take the rate asked for."""
USUAL_RATES = (8000, 9600, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 88200, 96000, 192000)
"""Rates (Hz) tried, after the device's own, on a device that refuses a rate: PortAudio's list of standard rates
(``standardSampleRates`` in its ``examples/pa_devs.c``)."""

_told: set[tuple[str, int, int]] = set()
"""``(device, asked Hz, played Hz)`` already told to the user in this process (a rate note is said once)."""


class NoOutputDevice(EngineError):
    """No audio output can be opened (no PortAudio library, no output device, or no rate it takes). Its message
    begins with :data:`CANNOT_PLAY` or "Cannot open the audio output"."""


class PlaybackStopped(EngineError):
    """The output device failed while playing (unplugged, switched off, taken by another program): the message
    says after how many seconds, and the device's reason."""


def why_not_played(exc: BaseException) -> str:
    """``exc``'s reason without :data:`CANNOT_PLAY`, for a message that says "Cannot play …" itself."""
    return str(exc).removeprefix(CANNOT_PLAY)


def stopped_words(seconds: float, why: str) -> str:
    """One line for playing that stopped before its end: ``Playback stopped after 0.46 s: WHY. …``, the way on
    included."""
    return (
        f"Playback stopped after {seconds:.2f} s: {why}. Was the device unplugged or taken by another program? "
        "Play again once it is back."
    )


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


@dataclass(frozen=True)
class OpenedOutput:
    """A mono :data:`DTYPE` output stream, opened and not started.

    ``rate``: Hz the device plays at (the rate asked for, unless the device refused it); ``note``: ``""``, or the
    one line that says audio is resampled to ``rate`` (given the first time in a process only).
    """

    stream: Any
    rate: int
    note: str


def open_output(sample_rate: int, device: int | str | None = None, **stream_args: Any) -> OpenedOutput:
    """Open ``device`` (``None``: the default output) for mono audio at ``sample_rate`` Hz, or at a rate it takes.

    Tried in turn: ``sample_rate``; the device's own default rate; when the refusal was the rate
    (:data:`INVALID_SAMPLE_RATE`), :data:`USUAL_RATES`, those above ``sample_rate`` first (nearest first), then
    those below. ``stream_args`` go to ``sounddevice.OutputStream`` (``callback``, ``finished_callback``).

    Raises:
        NoOutputDevice: no rate opens; the message names the rates tried and PortAudio's reason, in one line.
    """
    with importing("sounddevice"):
        import sounddevice

    def stream(rate: int):
        return sounddevice.OutputStream(samplerate=rate, channels=1, dtype=DTYPE, device=device, **stream_args)

    try:
        return OpenedOutput(stream(sample_rate), sample_rate, "")
    except Exception as exc:  # sounddevice.PortAudioError, or ValueError for a device it does not know
        refused = exc
    own = device_rate(device)
    for rate in _other_rates(sample_rate, own, _rate_refused(refused)):
        try:
            opened = stream(rate)
        except Exception:  # noqa: BLE001 - PortAudio refuses this rate too: the next one
            continue
        return OpenedOutput(opened, rate, _note_once(device, sample_rate, rate))
    raise NoOutputDevice(_refusal(sample_rate, own, refused))


def device_rate(device: int | str | None) -> int | None:
    """The output device's own (default) rate, Hz, as PortAudio reports it; ``None`` when it cannot be asked."""
    with importing("sounddevice"):
        import sounddevice

    try:
        return round(sounddevice.query_devices(device, "output")["default_samplerate"])
    except Exception:  # noqa: BLE001 - gone, or no such device: nothing to try
        return None


def _rate_refused(exc: Exception) -> bool:
    """Whether PortAudio refused the stream for its sample rate (``PortAudioError(msg, -9997)``)."""
    return len(exc.args) > 1 and exc.args[1] == INVALID_SAMPLE_RATE


def _other_rates(sample_rate: int, own: int | None, probe: bool) -> Iterator[int]:
    """The rates to try after ``sample_rate``: ``own``, then (when ``probe``) the usual ones, above it first."""
    if own is not None and own != sample_rate:
        yield own
    if probe:
        above = [r for r in USUAL_RATES if r > sample_rate]
        below = [r for r in reversed(USUAL_RATES) if r < sample_rate]
        yield from (r for r in above + below if r != own)


def _note_once(device: int | str | None, asked: int, played: int) -> str:
    """The line saying ``asked`` Hz audio plays resampled to ``played`` Hz; ``""`` once said in this process."""
    key = (str(device), asked, played)
    if key in _told:
        return ""
    _told.add(key)
    return f"The audio output does not take {asked} Hz: playing at {played} Hz, a rate it takes (resampled)."


def _refusal(sample_rate: int, own: int | None, exc: Exception) -> str:
    """Why no stream opened: the rates tried and PortAudio's reason for the first, in one line."""
    if not _rate_refused(exc):
        also = f" (nor at its own {own} Hz)" if own is not None and own != sample_rate else ""
        return f"Cannot open the audio output at {sample_rate} Hz{also}: {exc}"
    own_words = f", its own {own} Hz" if own is not None and own != sample_rate else ""
    return (
        f"{CANNOT_PLAY}the audio output takes none of the rates tried ({sample_rate} Hz{own_words}, "
        f"{USUAL_RATES[0]}–{USUAL_RATES[-1]} Hz): {exc}. Pick another output device in the system's sound "
        "settings; saving to a file still works."
    )
