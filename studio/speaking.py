"""Synthesize-and-play work for the Synthesize page, without Qt (it runs on a worker thread).

``speak_and_play`` streams an engine's chunks into a :class:`engines.playback.Playback`
while handing each chunk back to the caller (the page draws the waveform from
them); ``Speaking`` is what the Stop button reaches; ``Take`` gathers the chunks
of the line being spoken into a :class:`Line`.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

import assets
from engines.audio import concat
from engines.base import AudioChunk, EngineError, StreamStats, SynthesisOptions
from engines.timing.timeline import Timeline

if TYPE_CHECKING:
    from engines.base import Engine
    from engines.playback import Playback

ENGINE_LABELS = {"onnx": "ONNX", "torch": "torch", "remote": "remote"}
"""How the studio names each engine kind in its status lines and History."""


@dataclass
class Line:
    """One spoken line: its text, voice and audio (float32 ``[N]``).

    ``stopped``: Stop cut it short, so ``audio`` is only the part synthesized before it (not the whole text).
    ``engine``: the engine kind that spoke it (``onnx``, ``torch``, ``remote``; ``""``: not known).
    ``load_s``: seconds spent loading the engine before this line could start (``None``: it was loaded already).
    ``earlier``: a line of an earlier session, read back from the settings: its text, voice and engine, and no
    audio (``audio`` is empty, ``sample_rate`` 0).
    ``timeline``: when each word of it is heard (``engines.timing``; empty where the engine gave no timings).
    """

    text: str
    voice: str
    sample_rate: int
    audio: np.ndarray = field(repr=False)
    stats: StreamStats = field(default_factory=StreamStats)
    stopped: bool = False
    engine: str = ""
    load_s: float | None = None
    earlier: bool = False
    timeline: Timeline = field(default_factory=Timeline, repr=False)

    @property
    def label(self) -> str:
        """The voice and engine that made the line, as History names it: ``en_US-joe-medium · torch``."""
        return named(self.voice, self.engine)

    @property
    def seconds(self) -> float:
        """Length of ``audio``, seconds."""
        return len(self.audio) / self.sample_rate if self.sample_rate else 0.0


class Take:
    """The line being spoken: its chunks as they arrive (on the GUI thread), then the finished :class:`Line`.

    Args:
        text: what was typed. voice: the name the line is spoken with (a voice, or ``model/voice`` of a server).
        engine: the engine kind speaking it (``onnx``, ``torch``, ``remote``).
    """

    def __init__(self, text: str, voice: str, engine: str = "") -> None:
        self.text, self.voice, self.engine = text, voice, engine
        self.load_s: float | None = None
        """Seconds the engine took to load before this line (``None``: it was loaded already)."""
        self.answered_s: float | None = None
        """Seconds a remote server took to answer (connecting included; ``None``: a local engine)."""
        self.sample_rate = 0
        """Hz of the first chunk (a remote server names its rate only then); 0 before it."""
        self.playback_stopped = ""
        """Why playing stopped before the line's end (the device failed, ``speak_and_play``); ``""``: it did not."""
        self.stats = StreamStats()
        self.timeline = Timeline()
        """When each word of the line is heard, as far as synthesized (``engines.timing``)."""
        self._audio: list[np.ndarray] = []

    def add(self, chunk: AudioChunk) -> bool:
        """Keep ``chunk``; ``True`` for the first one (its ``sample_rate`` is the line's)."""
        first = not self.sample_rate
        if first:
            self.sample_rate = chunk.sample_rate
        self._audio.append(chunk.audio)
        self.stats.add(chunk)
        self.timeline.add(chunk)
        return first

    def line(self, stopped: bool = False) -> Line | None:
        """The line of every chunk so far (float32 ``[N]``), or ``None`` before the first; ``stopped``: Stop cut
        it short (see :attr:`Line.stopped`)."""
        if not self._audio:
            return None
        audio = concat(self._audio)
        return Line(
            self.text,
            self.voice,
            self.sample_rate,
            audio,
            self.stats,
            stopped,
            engine=self.engine,
            load_s=self.load_s,
            timeline=self.timeline,
        )

    def timing(self) -> str:
        """Engine load time (when this line had to wait for it), time to first audio (counted from the start of
        synthesis, after the load), RTF and duration, named by voice and engine (the chosen ones may have changed
        since): ``joe · torch: loaded in 4.6 s · first audio 0.19 s · RTF 0.120 · 2.1 s of audio``."""
        stats = self.stats
        name = named(self.voice, self.engine)
        loaded = f"loaded in {self.load_s:.1f} s · " if self.load_s is not None else ""
        if self.answered_s is not None:
            loaded += f"server answered in {self.answered_s:.2f} s · "
        return (
            f"{name}: {loaded}first audio {stats.first_audio_s:.2f} s · RTF {stats.rtf:.3f} · "
            f"{stats.audio_s:.1f} s of audio"
        )


def named(voice: str, engine: str) -> str:
    """A voice with the engine that speaks it, as the studio names a line: ``en_US-joe-medium · torch``."""
    return f"{voice} · {ENGINE_LABELS.get(engine, engine)}" if engine else voice


def default_line() -> str:
    """The first line of ``assets/default_lines.txt``: what the text box starts with."""
    path = assets.path("default_lines.txt")
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()] if path.exists() else []
    return lines[0] if lines else "Hello! This is Voice Studio."


class Speaking:
    """One line being spoken, as Stop needs to reach it: its cancel flag and, once open, its playback.

    ``ended`` is set by the GUI thread when the line's work has finished or was stopped.
    """

    def __init__(self, cancel: threading.Event | None = None) -> None:
        self.cancel = cancel
        self.playback: Playback | None = None
        self.ended = False
        self.lock = threading.Lock()

    @property
    def active(self) -> bool:
        """True from the start of the work until it ended or was stopped."""
        return self.cancel is not None and not self.ended

    def heard_s(self) -> float | None:
        """Seconds of the line heard so far (``Playback.heard_s``), ``None`` while nothing plays (before the
        device opens, once it is released, after Stop)."""
        playback = self.playback
        if playback is None or playback.finished or self.ended:
            return None
        return playback.heard_s

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

    Kinds: ``chunk`` (an ``AudioChunk``), ``notice`` (``(topic, message)`` for the user, the topic one of
    ``studio.widgets.notices.TOPICS``, e.g. ``device``: no sound device, synthesis goes on without playing, or
    the device plays at its own rate), ``answered`` (a remote server's seconds to answer,
    ``RemoteEngine.answered_s``), ``synthesized`` (all audio is out; playing may go on), ``playback_stopped``
    (the device failed while playing: the line saying after how many seconds and why; synthesis goes on, the
    line is kept). Returns once playing has ended or ``cancel`` is set.
    """
    from engines.output_device import output_available

    playback = None
    ok, reason = output_available()
    device = "" if ok else f"Cannot play audio: {reason}. Saving to a WAV file still works."
    yield ("notice", ("device", device))  # "": the sound device plays (a notice that it did not goes)
    for chunk in engine.synthesize(text, options, cancel):
        if playback is None and ok:  # opened at the first chunk: a remote server names its rate only then
            try:
                playback = _open(chunk.sample_rate, speaking, cancel)
            except EngineError as exc:
                ok = False
                yield ("notice", ("device", str(exc)))
            if playback is not None and playback.note:
                yield ("notice", ("device", playback.note))
        if playback is not None and playback.error is None:
            playback.write(chunk.audio)
        yield ("chunk", chunk)
        if playback is not None and playback.error is not None:  # said once: playback is then dropped
            yield ("playback_stopped", str(playback.error))
            ok, playback = False, None
    yield from _engine_notes(engine)
    if not cancel.is_set():
        yield ("synthesized", None)
    if playback is not None:
        _finish(playback, cancel)
        if playback.error is not None:
            yield ("playback_stopped", str(playback.error))


def _open(sample_rate: int, speaking: Speaking, cancel: threading.Event) -> Playback | None:
    """A playback at ``sample_rate`` Hz, reachable by Stop (``None`` when Stop came first).

    Raises:
        NoOutputDevice: nothing to play on.
    """
    from engines.playback import Playback

    with speaking.lock:
        speaking.playback = None if cancel.is_set() else Playback(sample_rate)
        return speaking.playback


def _engine_notes(engine) -> Iterator[tuple[str, object]]:
    """What the engine noticed while speaking (phonemes the voice lacks, another format a server used) and a
    remote server's time to answer, as :func:`speak_and_play` items."""
    report = getattr(engine, "last_report", None)
    if report is not None and report.missing:
        symbols = ", ".join(f"{s!r} ×{n}" for s, n in report.missing.items())
        yield ("notice", ("line", f"Skipped phonemes missing from the voice: {symbols}"))
    if getattr(engine, "notice", ""):  # e.g. a remote server refused the format and another was used
        yield ("notice", ("engine", engine.notice))
    if getattr(engine, "answered_s", None) is not None:  # a remote server: the wait for its answer
        yield ("answered", engine.answered_s)


def load_and_speak(
    make_engine: Callable[[], Engine],
    loading: str,
    text: str,
    options: SynthesisOptions,
    speaking: Speaking,
    cancel: threading.Event,
) -> Iterator[tuple[str, object]]:
    """Get the engine (loading it first when ``loading`` is not ``""``), then :func:`speak_and_play`.

    When the engine must load, yields ``("loading", loading)`` before (``loading`` says what, e.g. "Loading torch
    engine") and ``("loaded", seconds)`` after, so the wait is shown as loading and its time is reported apart
    from time to first audio; then the items of :func:`speak_and_play`.

    Raises:
        EngineError, VoiceError: the engine could not be loaded.
    """
    if not loading:
        yield from speak_and_play(make_engine(), text, options, speaking, cancel)
        return
    yield ("loading", loading)
    start = time.perf_counter()
    engine = make_engine()
    yield ("loaded", time.perf_counter() - start)
    if not cancel.is_set():
        yield from speak_and_play(engine, text, options, speaking, cancel)


def replay_and_wait(audio: np.ndarray, sample_rate: int, speaking: Speaking, cancel: threading.Event) -> str:
    """Play finished audio ``[N]`` float32 again; returns when played or cancelled, with the device's rate note
    (``""``, or the line saying the audio was resampled to the rate the device takes: said once a process).

    Raises:
        NoOutputDevice: no sound device, or none of its rates opens.
        PlaybackStopped: the device failed while playing (the message says after how many seconds and why).
    """
    playback = _open(sample_rate, speaking, cancel)
    if playback is None:
        return ""
    playback.write(audio)
    _finish(playback, cancel)
    playback.check()
    return playback.note


def _finish(playback, cancel: threading.Event) -> None:
    playback.close()
    while not playback.wait(0.05) and not cancel.is_set():
        pass
