"""Loaded engines by (engine name, voice), created on first use; safe to call from any thread.

Loading an engine reads its model (a medium ONNX voice: about 0.3 s; the torch
engine: seconds, more with CUDA compilation), so callers keep the ones they
loaded here. Two uses, one pool:

- :meth:`EnginePool.get`: the one shared engine of a key (the studio speaks one
  line at a time, so its lines share the engine of their voice).
- :meth:`EnginePool.checkout` / :meth:`EnginePool.checkin`: an engine nobody else
  uses until it is checked in (the speech server: engines keep per-request
  state, so two requests never share one); a new one is made when none is idle.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from pathlib import Path

from engines.base import Engine
from engines.voice import Voice

Key = tuple[str, Path, int, int]
"""``(engine name, absolute model path, its modification time in ns, its size in bytes)``: one voice file, as it is
on disk, spoken by one engine (a file written again, e.g. a run exported again to the same name, is another key)."""
Maker = Callable[..., Engine]
"""Makes an engine by registry name for a voice, with the engine's keyword arguments
(default: ``engines.registry.create_engine``)."""


def _create(name: str, voice: Voice, **kwargs) -> Engine:
    from engines.registry import create_engine

    return create_engine(name, voice, **kwargs)


class EnginePool:
    """Engines by (engine name, voice), loaded lazily and at most once per key for :meth:`get`.

    Args:
        make: makes an engine (called off any lock shared between keys); its errors
            (``EngineError``, ``VoiceError``) reach the caller and nothing is kept.
    """

    def __init__(self, make: Maker | None = None) -> None:
        self._make = make or _create
        self._lock = threading.Lock()
        self._key_locks: dict[Key, threading.Lock] = {}
        self._shared: dict[Key, Engine] = {}
        self._idle: dict[Key, queue.SimpleQueue[Engine]] = {}
        self._made: list[tuple[str, Engine]] = []

    @staticmethod
    def key(name: str, voice: Voice) -> Key:
        """The pool's key of ``voice`` spoken by engine ``name`` (:data:`Key`; a file that cannot be read is keyed
        by its path alone, and loading it says why)."""
        path = voice.model_path.absolute()
        try:
            stat = path.stat()
        except OSError:
            return (name, path, 0, -1)
        return (name, path, stat.st_mtime_ns, stat.st_size)

    def get(self, name: str, voice: Voice) -> Engine:
        """The shared ``name`` engine of ``voice``, made on first use; callers racing for a key wait for one load.

        Raises:
            EngineError, VoiceError: from making the engine (the next call tries again).
        """
        key = self.key(name, voice)
        with self._lock:
            key_lock = self._key_locks.setdefault(key, threading.Lock())
        with key_lock:  # other keys load meanwhile
            if key not in self._shared:
                engine = self._make(name, voice)
                with self._lock:
                    self._shared[key] = engine
                    self._made.append((name, engine))
            return self._shared[key]

    def has(self, name: str, voice: Voice) -> bool:
        """Whether :meth:`get` has the shared ``name`` engine of ``voice`` loaded already (no load to wait for)."""
        with self._lock:
            return self.key(name, voice) in self._shared

    def checkout(self, name: str, voice: Voice) -> Engine:
        """An idle ``name`` engine of ``voice``, or a new one; it is the caller's until :meth:`checkin`.

        Raises:
            EngineError, VoiceError: from making the engine.
        """
        try:
            return self._idle_queue(self.key(name, voice)).get_nowait()
        except queue.Empty:
            engine = self._make(name, voice)
            with self._lock:
                self._made.append((name, engine))
            return engine

    def checkin(self, name: str, voice: Voice, engine: Engine) -> None:
        """Hand back an engine from :meth:`checkout`; the next checkout of its key reuses it."""
        self._idle_queue(self.key(name, voice)).put(engine)

    def fresh(self, name: str, voice: Voice, **kwargs) -> Engine:
        """A new ``name`` engine of ``voice`` made with ``kwargs`` (e.g. an ONNX ``seed``), for one use.

        The pool keeps no reference to it (nor lists it in :meth:`loaded`), so it is freed when the caller drops it.

        Raises:
            EngineError, VoiceError: from making the engine.
        """
        return self._make(name, voice, **kwargs)

    def seeded(self, name: str, voice: Voice, seed: int) -> Engine:
        """A new ``name`` engine of ``voice`` whose noise starts at ``seed`` (>= 0), for one use, as
        ``fresh(name, voice, seed=seed)`` makes it: from the shared engine (:meth:`get`) where that engine can
        seed a copy of itself (``reseeded``: the ONNX engine makes again only its parts with random nodes),
        else made anew. Like :meth:`fresh`, the pool keeps no reference to it.

        Raises:
            EngineError, VoiceError: from making the engine.
        """
        reseeded = getattr(self.get(name, voice), "reseeded", None)
        return reseeded(seed) if reseeded is not None else self.fresh(name, voice, seed=seed)

    def loaded(self) -> list[tuple[str, Engine]]:
        """``(engine name, engine)`` of every engine made so far, in order."""
        with self._lock:
            return list(self._made)

    def _idle_queue(self, key: Key) -> queue.SimpleQueue[Engine]:
        with self._lock:
            return self._idle.setdefault(key, queue.SimpleQueue())
