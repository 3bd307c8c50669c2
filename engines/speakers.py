"""A voice's speakers, named one way everywhere: ``say --speaker``, the server's ``voice`` field, the studio's
speaker picker and the engines' ``VoiceConfig.speaker_id``.

A speaker of a voice is named by:

- nothing or ``default``: the voice's default speaker;
- a speaker name of ``speaker_id_map``, or an id as digits (``"1"``; ``"0"`` for a one-speaker voice);
- one of OpenAI's voice names (``OPENAI_VOICES``): the default speaker, so that stock OpenAI clients, which always
  send one, are answered with the voice as it is.

The voice's own name and a server's voice map are read a level up (``engines.names.find_speaker``). This module
reads any config with speakers (:class:`SpeakerMap`, which ``engines.voice.VoiceConfig`` is) and imports neither
``engines.voice`` nor ``engines.names``, so the config can resolve names without an import cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

from engines.errors import VoiceStudioError

OPENAI_VOICES = ("alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse")
"""OpenAI's speech voices (its "Create speech" API reference), which its SDKs and the apps built on them send."""
DEFAULT_SPEAKER = "default"
"""The name of a voice's default speaker (its only one for a single-speaker voice)."""


class UnknownName(VoiceStudioError, ValueError):
    """A voice or speaker name that matches nothing; ``field`` is ``"model"`` (a voice) or ``"voice"``
    (a speaker, as OpenAI's API calls it). The message lists the known names."""

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.field = field


class SpeakerMap(Protocol):
    """What the rules read of a voice config (``engines.voice.VoiceConfig``)."""

    @property
    def path(self) -> Path: ...
    @property
    def num_speakers(self) -> int: ...
    @property
    def speaker_id_map(self) -> Mapping[str, int]: ...
    @property
    def speakers(self) -> list[str]: ...


def config_speaker(config: SpeakerMap, name: str | int | None, where: str | None = None) -> int | None:
    """The speaker id ``name`` means for a voice of ``config``; ``None`` for the default speaker. ``where`` names
    the voice in the message (default: the config's file name).

    Raises:
        UnknownName: no speaker of this voice by that name or id (field ``voice``), naming the known ones.
    """
    key = str(name).strip() if name is not None else ""
    if key in ("", DEFAULT_SPEAKER):
        return None
    if key in config.speaker_id_map:
        return config.speaker_id_map[key]
    if key.isdigit() and int(key) < max(config.num_speakers, 1):
        return int(key) if config.num_speakers > 1 else None
    if key in OPENAI_VOICES:
        return None
    where = where or config.path.name
    raise UnknownName(f"unknown speaker '{name}' for {where}; known: {known_speakers(config)}", "voice")


def known_speakers(config: SpeakerMap) -> str:
    """The speaker names a message can offer: ``default``, the names, the id range, OpenAI's voice names."""
    names = [DEFAULT_SPEAKER, *config.speakers]
    ids = f"ids 0-{config.num_speakers - 1}" if config.num_speakers > 1 else "id 0"
    return f"{', '.join(names)}, {ids}, or one of OpenAI's voices ({', '.join(OPENAI_VOICES)})"


def speaker_name(config: SpeakerMap, speaker: int | None) -> str:
    """How a resolved speaker is shown: its name in ``speaker_id_map``, else ``default`` or the id as text."""
    if speaker is None:
        return DEFAULT_SPEAKER
    by_id = {sid: name for name, sid in config.speaker_id_map.items()}
    return by_id.get(speaker, str(speaker))
