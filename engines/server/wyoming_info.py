"""What the Wyoming server says it is (its answer to ``describe``): one TTS program, ``voice-studio``, with a voice
per model the speech server serves (``SpeechService.model_ids``: each voice by name, ``ENGINE/VOICE`` for the other
engines) and the speakers of the multi-speaker ones.

Each voice carries what Home Assistant shows and picks by: its languages (the ``.onnx.json``'s ``language.code``,
``en_US``, else its espeak voice written the same way), a description with its quality, its version (the
config's ``piper_version``) and its attribution (the dataset's name and, where the voice's ``MODEL_CARD`` gives
one, its URL).
"""

from __future__ import annotations

import re

from wyoming.info import Attribution, Info, TtsProgram, TtsVoice, TtsVoiceSpeaker

from engines import __version__
from engines.languages import voice_language
from engines.server.service import SpeechService
from engines.voice import Voice

PROGRAM = "voice-studio"
HOME = Attribution(name="Voice Studio", url="")
"""The program's attribution (no project page is published yet)."""
_CARD_URL = re.compile(r"^\*\s*URL:\s*(\S+)", re.MULTILINE)
"""The dataset URL line of a Piper ``MODEL_CARD`` (``* URL: https://...``)."""


def service_info(service: SpeechService) -> Info:
    """The ``info`` event's content for ``service``'s voices; streaming text in is supported."""
    voices = [tts_voice(model_id, voice) for model_id, _, voice in service.model_ids()]
    program = TtsProgram(
        name=PROGRAM,
        description="Voice Studio: Piper voices, streamed as they are synthesized",
        attribution=HOME,
        installed=True,
        version=__version__,
        voices=voices,
        supports_synthesize_streaming=True,
    )
    return Info(tts=[program])


def tts_voice(model_id: str, voice: Voice) -> TtsVoice:
    """The Wyoming voice ``model_id`` (a name ``SpeechService.resolve`` takes) for ``voice``."""
    raw = voice.config.raw
    quality = raw.get("audio", {}).get("quality")
    speakers = voice.config.speakers if voice.config.num_speakers > 1 else []
    return TtsVoice(
        name=model_id,
        description=f"{model_id} ({quality})" if quality else model_id,
        attribution=attribution(voice),
        installed=True,
        version=raw.get("piper_version"),
        languages=[voice_language(voice.config)],
        speakers=[TtsVoiceSpeaker(name=s) for s in speakers] or None,
    )


def attribution(voice: Voice) -> Attribution:
    """The voice's dataset (its config's ``dataset``, else the voice's name) and the URL its ``MODEL_CARD`` names
    (``""`` without one)."""
    name = str(voice.config.raw.get("dataset") or voice.name)
    card = voice.model_path.parent / "MODEL_CARD"
    try:
        found = _CARD_URL.search(card.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        found = None
    return Attribution(name=name, url=found.group(1) if found else "")
