"""The speech server's models as OpenAI's ``/v1/models`` lists them and ``/v1/models/{id}`` retrieves them.

A model id is a voice name (spoken by the first configured engine) or ``ENGINE/VOICE``
(``engines.server.service.SpeechService.model_ids``); retrieving accepts every name a
speech request's ``model`` accepts (``joe``, ``tts-1``, ``torch/joe``: ``engines.names``)
and answers with the entry the list shows for it.
"""

from __future__ import annotations

from engines.languages import voice_language
from engines.server.encode import response_formats
from engines.server.service import SpeechService
from engines.voice import Voice


def model_entry(service: SpeechService, model_id: str, engine: str, voice: Voice) -> dict:
    """A ``/v1/models`` entry: OpenAI's fields, then ours. ``language`` is the voice's language code as Piper's
    catalog writes it (``en_US``: ``engines.languages.voice_language``), ``espeak_voice`` the espeak-ng voice that
    phonemizes it (``en-us``). ``sample_rate`` is the voice's own rate;
    ``pcm_sample_rate`` the rate of its ``pcm`` responses (24 kHz unless ``--pcm-rate native``), and
    ``response_sample_rates`` each format's rate when the request does not ask for one."""
    return {
        "id": model_id,
        "object": "model",
        "created": 0,
        "owned_by": "voice-studio",
        "engine": engine,
        "sample_rate": voice.config.sample_rate,
        "pcm_sample_rate": service.output_rate(voice, "pcm"),
        "response_sample_rates": {f: service.output_rate(voice, f) for f in response_formats()},
        "language": voice_language(voice.config),
        "espeak_voice": voice.config.espeak_voice,
        "voices": service.speaker_ids(voice),
    }


def model_list(service: SpeechService) -> dict:
    """``GET /v1/models``'s body: ``{"object": "list", "data": [entry, ...]}``."""
    return {"object": "list", "data": [model_entry(service, *ids) for ids in service.model_ids()]}


def find_model(service: SpeechService, model_id: str) -> dict:
    """``GET /v1/models/{model_id}``'s body: the listed entry ``model_id`` names (its ``id`` is the listed one).

    Raises:
        ApiError: 404 ``model_not_found`` in OpenAI's error shape for a name that matches no model.
    """
    listed = service.model_ids()
    exact = [ids for ids in listed if ids[0] == model_id]
    if not exact:
        target = service.resolve(model_id, None)
        exact = [ids for ids in listed if ids[1] == target.engine and ids[2] is target.voice]
    return model_entry(service, *exact[0])
