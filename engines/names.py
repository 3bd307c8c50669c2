"""Voice and speaker names, resolved one way everywhere: the server's ``model`` and ``voice`` fields,
``say --voice/--speaker``, the server's ``--voice`` and the studio's speaker picker.

A voice is named by its full name (``en_US-joe-medium``), matched exactly, then
ignoring case, then by Piper's short name (the NAME of ``lang_REGION-NAME-quality``:
``joe``) when only one voice has it.

A speaker of a voice is named by:

- the voice's own name: the voice's default speaker;
- a key of the voice map (``{"alloy": "ben"}``): the speaker it maps to;
- otherwise as its config reads it (``engines.speakers``: ``default``, a speaker name, an id as digits, or one of
  OpenAI's voice names not in the map).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from engines.speakers import UnknownName, config_speaker
from engines.voice import Voice, VoiceConfig
from engines.voice_naming import QUALITIES

MODEL_ALIASES = ("tts-1", "tts-1-hd", "gpt-4o-mini-tts")
"""OpenAI model names that mean "the default voice", for clients that cannot change the model."""
_PIPER_NAME = re.compile(rf"[a-z]{{2,3}}(?:_[A-Za-z]{{2,3}})?-(.+)-(?:{'|'.join(QUALITIES)})")
"""Piper's (and Home Assistant's) voice file naming, ``engines.voice_naming``: ``en_US-joe-medium``."""


def short_name(name: str) -> str:
    """Piper's short name of a voice (``en_US-joe-medium`` -> ``joe``); other names unchanged."""
    found = _PIPER_NAME.fullmatch(name)
    return found.group(1) if found else name


def find_voice(voices: Sequence[Voice], name: str) -> Voice:
    """The voice ``name`` means among ``voices``.

    Raises:
        UnknownName: no voice matches, or a short name is shared by several (field ``model``).
    """
    for same in (lambda v: v.name == name, lambda v: v.name.casefold() == name.casefold()):
        found = [v for v in voices if same(v)]
        if found:
            return found[0]
    by_short = [v for v in voices if short_name(v.name).casefold() == name.casefold()]
    if len(by_short) == 1:
        return by_short[0]
    if by_short:
        raise UnknownName(f"'{name}' could be {', '.join(v.name for v in by_short)}: give the full name", "model")
    known = ", ".join(v.name for v in voices)
    raise UnknownName(f"no voice named '{name}'; known voices: {known}", "model")


def find_speaker(
    voice: Voice | VoiceConfig, name: str | int | None, voice_map: Mapping[str, str] | None = None
) -> int | None:
    """The speaker id ``name`` means for ``voice`` (a voice or its config); ``None`` for the default speaker.

    Raises:
        UnknownName: no speaker of this voice by that name or id (field ``voice``), naming the known ones.
    """
    config = voice.config if isinstance(voice, Voice) else voice
    own = voice.name if isinstance(voice, Voice) else None
    key = str(name).strip() if name is not None else ""
    if key == own:
        return None
    if voice_map and key in voice_map:  # a one-speaker voice has nothing else to map to
        return config_speaker(config, voice_map[key]) if config.num_speakers > 1 else None
    return config_speaker(config, name, own)


def check_voice_map(voice_map: Mapping[str, str], voices: Sequence[Voice]) -> None:
    """Check that every mapped speaker exists in every multi-speaker voice of ``voices``.

    Raises:
        UnknownName: a mapping that names no speaker of one of the voices, saying which, or a map while no
            voice has several speakers (it would change nothing).
    """
    if voice_map and all(v.config.num_speakers <= 1 for v in voices):
        mapped = ", ".join(f"{alias}={target}" for alias, target in voice_map.items())
        raise UnknownName(f"voice map {mapped}: no voice here has several speakers to map to", "voice")
    for alias, target in voice_map.items():
        for voice in voices:
            if voice.config.num_speakers > 1:
                try:
                    find_speaker(voice.config, target)
                except UnknownName as exc:
                    raise UnknownName(f"voice map {alias}={target}: {exc}", "voice") from None
