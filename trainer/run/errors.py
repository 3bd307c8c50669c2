"""The error a run's checks raise: :class:`RunError` (options, start points, hardware, ranks, resume, pre-flight)."""

from __future__ import annotations

from engines.errors import VoiceStudioError


class RunError(VoiceStudioError, ValueError):
    """A run cannot start: the message says what to change."""
