"""How the studio's Qt-free models tell their views of a change: :class:`Event` and :class:`Observed`.

A model has ``events``, one :class:`Event` per kind of change; a view connects its ``_on_<event>`` methods
(napari's model/view split). Listeners run on the thread that changes the model; the studio changes models on
the GUI thread only.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, Generic, TypeVar

T = TypeVar("T")


class Event(Generic[T]):
    """Listeners called with a value, in the order they connected, each time the model emits.

    A bound method is held weakly (a view that is gone is no longer called); any other callable strongly.
    """

    def __init__(self) -> None:
        self._listeners: list[Callable[[], Callable[[T], Any] | None]] = []

    def connect(self, listener: Callable[[T], Any]) -> None:
        """Call ``listener(value)`` on each emit."""
        if hasattr(listener, "__self__") and hasattr(listener, "__func__"):
            self._listeners.append(weakref.WeakMethod(listener))
        else:
            self._listeners.append(lambda: listener)

    def disconnect(self, listener: Callable[[T], Any]) -> None:
        """Stop calling ``listener`` (nothing happens if it is not connected)."""
        self._listeners = [ref for ref in self._listeners if ref() not in (None, listener)]

    def emit(self, value: T) -> None:
        """Call every live listener with ``value``."""
        for ref in list(self._listeners):
            listener = ref()
            if listener is not None:
                listener(value)


class Observed(Generic[T]):
    """A model attribute whose assignment of a different value emits ``events.<name>`` with it."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: type | None = None) -> T:
        return obj.__dict__[self.name]

    def __set__(self, obj: Any, value: T) -> None:
        if self.name in obj.__dict__ and obj.__dict__[self.name] == value:
            return
        obj.__dict__[self.name] = value
        getattr(obj.events, self.name).emit(value)
