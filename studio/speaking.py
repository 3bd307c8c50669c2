"""Synthesize-and-play work for the Synthesize page, without Qt (it runs on a worker thread).

``speak_and_play`` streams an engine's chunks into a :class:`engines.playback.Playback`
while handing each chunk back to the caller (the page draws the waveform from
them); ``Speaking`` is what the Stop button reaches.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from engines.base import EngineError, StreamStats, SynthesisOptions


@dataclass
class Line:
    """One spoken line: its text, voice and audio (float32 ``[N]``)."""

    text: str
    voice: str
    sample_rate: int
    audio: np.ndarray = field(repr=False)
    stats: StreamStats = field(default_factory=StreamStats)


class Speaking:
    """One line being spoken, as Stop needs to reach it: its cancel flag and, once open, its playback.

    ``ended`` is set by the GUI thread when the line's work has finished or was stopped.
    """

    def __init__(self, cancel: threading.Event | None = None) -> None:
        self.cancel = cancel
        self.playback = None
        self.ended = False
        self.lock = threading.Lock()

    @property
    def active(self) -> bool:
        """True from the start of the work until it ended or was stopped."""
        return self.cancel is not None and not self.ended

    def stop(self) -> None:
        """Cancel the synthesis and abort the playback, whichever are running."""
        with self.lock:
            if self.cancel is not None:
                self.cancel.set()
            if self.playback is not None:
                self.playback.abort()
        self.ended = True


def speak_and_play(
    engine, text: str, options: SynthesisOptions, speaking: Speaking, cancel: threading.Event
) -> Iterator[tuple[str, object]]:
    """Synthesize ``text`` and play it as it streams; yields ``(kind, value)`` items.

    Kinds: ``chunk`` (an ``AudioChunk``), ``notice`` (a message for the user, e.g.
    no sound device: synthesis goes on without playing), ``synthesized`` (all
    audio is out; playing may go on). Returns once playing has ended or ``cancel``
    is set.
    """
    from engines.playback import Playback, output_available

    playback = None
    ok, reason = output_available()
    if not ok:
        yield ("notice", f"Cannot play audio: {reason}. Saving to a WAV file still works.")
    for chunk in engine.synthesize(text, options, cancel):
        if playback is None and ok:  # opened at the first chunk: a remote server names its rate only then
            try:
                with speaking.lock:
                    playback = speaking.playback = None if cancel.is_set() else Playback(chunk.sample_rate)
            except EngineError as exc:
                ok = False
                yield ("notice", str(exc))
        if playback is not None:
            playback.write(chunk.audio)
        yield ("chunk", chunk)
    report = getattr(engine, "last_report", None)
    if report is not None and report.missing:
        symbols = ", ".join(f"{s!r} ×{n}" for s, n in report.missing.items())
        yield ("notice", f"Skipped phonemes missing from the voice: {symbols}")
    if getattr(engine, "notice", ""):  # e.g. a remote server refused the format and another was used
        yield ("notice", engine.notice)
    if not cancel.is_set():
        yield ("synthesized", None)
    if playback is not None:
        _finish(playback, cancel)


def replay_and_wait(audio: np.ndarray, sample_rate: int, speaking: Speaking, cancel: threading.Event) -> None:
    """Play finished audio ``[N]`` float32 again; returns when played or cancelled.

    Raises:
        NoOutputDevice: no sound device.
    """
    from engines.playback import Playback

    with speaking.lock:
        playback = speaking.playback = Playback(sample_rate)
    playback.write(audio)
    _finish(playback, cancel)


def _finish(playback, cancel: threading.Event) -> None:
    playback.close()
    while not playback.wait(0.05) and not cancel.is_set():
        pass
