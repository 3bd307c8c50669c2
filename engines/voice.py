"""Piper voice bundles: ``NAME.onnx`` plus ``NAME.onnx.json``, read and validated.

The config schema is Piper's (``piper.config.PiperConfig.from_dict`` in the
``piper-tts`` package): ``num_symbols``, ``num_speakers``, ``audio.sample_rate``,
``espeak.voice``, ``phoneme_id_map``, ``speaker_id_map``, ``inference``.
Every field we read is checked here, and every error names the file and the
field at fault. ``piper-tts`` requires ``num_symbols`` and ``num_speakers``; we
default them from the maps as Piper's trainer sizes them (``num_symbols`` above
the largest phoneme id, ``piper.train.vits.dataset``; ``num_speakers`` one more
than the largest speaker id, 1 without speakers).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines.base import VoiceError
from engines.speakers import config_speaker

PAD, BOS, EOS = "_", "^", "$"
"""Piper's padding, beginning- and end-of-sentence symbols (``piper.const``)."""

DEFAULT_NOISE_SCALE = 0.667
DEFAULT_LENGTH_SCALE = 1.0
DEFAULT_NOISE_W = 0.8
DEFAULT_HOP_LENGTH = 256
"""Piper's inference defaults and STFT hop (``piper.config``), in samples."""

PHONEME_TYPES = ("espeak", "text", "pinyin", "hebrew", "japanese", "thai")


@dataclass(frozen=True)
class VoiceConfig:
    """A validated Piper ``.onnx.json`` voice config.

    Attributes:
        path: the config file.
        num_symbols: rows of the phoneme embedding; every id is below this.
        num_speakers: 1 for single-speaker voices.
        sample_rate: output rate in Hz.
        espeak_voice: espeak-ng voice name, e.g. ``en-us``.
        phoneme_type: ``espeak``, ``text``, ... (Piper's ``PhonemeType``).
        phoneme_id_map: phoneme -> list of ids.
        speaker_id_map: speaker name -> id (empty for one speaker).
        length_scale, noise_scale, noise_w: inference defaults.
        hop_length: decoder samples per frame.
        default_speaker_id: the speaker when none is asked for.
        raw: the whole JSON document, as read.
    """

    path: Path
    num_symbols: int
    num_speakers: int
    sample_rate: int
    espeak_voice: str
    phoneme_type: str
    phoneme_id_map: Mapping[str, list[int]]
    speaker_id_map: Mapping[str, int] = field(default_factory=dict)
    length_scale: float = DEFAULT_LENGTH_SCALE
    noise_scale: float = DEFAULT_NOISE_SCALE
    noise_w: float = DEFAULT_NOISE_W
    hop_length: int = DEFAULT_HOP_LENGTH
    default_speaker_id: int = 0
    raw: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def scales(self) -> tuple[float, float, float]:
        """``(noise_scale, length_scale, noise_w)``: the inference defaults in the order of Piper's ``scales``
        input (float32 ``[3]`` in the ONNX graph)."""
        return (self.noise_scale, self.length_scale, self.noise_w)

    @property
    def speakers(self) -> list[str]:
        """Speaker names ordered by id (empty for single-speaker voices)."""
        return [name for name, _ in sorted(self.speaker_id_map.items(), key=lambda kv: kv[1])]

    def speaker_id(self, speaker: str | int | None) -> int | None:
        """Resolve a speaker name or id to an id; ``None`` for single-speaker voices. A name (or an id as text)
        is read as everywhere else, by ``engines.speakers.config_speaker``.

        Raises:
            ValueError: unknown speaker name or id out of range (``engines.speakers.UnknownName`` for a name).
        """
        if isinstance(speaker, str):
            speaker = config_speaker(self, speaker)
        if self.num_speakers <= 1:
            return None
        if speaker is None:
            return self.default_speaker_id
        sid = int(speaker)
        if not 0 <= sid < self.num_speakers:
            raise ValueError(f"speaker id {sid} out of range 0..{self.num_speakers - 1}")
        return sid

    def piper_document(self) -> dict[str, Any]:
        """The document with every field ``piper.config.PiperConfig.from_dict`` reads set from the checked values."""
        return {
            **self.raw,
            "num_symbols": self.num_symbols,
            "num_speakers": self.num_speakers,
            "audio": {**self.raw.get("audio", {}), "sample_rate": self.sample_rate},
            "espeak": {**(self.raw.get("espeak") or {}), "voice": self.espeak_voice},
            "phoneme_type": self.phoneme_type,
            "phoneme_id_map": dict(self.phoneme_id_map),
            "speaker_id_map": dict(self.speaker_id_map),
            "inference": {"noise_scale": self.noise_scale, "length_scale": self.length_scale, "noise_w": self.noise_w},
            "hop_length": self.hop_length,
            "default_speaker_id": self.default_speaker_id,
        }


def config_path_for(model_path: Path) -> Path:
    """The config beside a model: ``NAME.onnx.json``, else ``NAME.json``.

    Raises:
        VoiceError: neither file exists.
    """
    model_path = Path(model_path)
    for candidate in (model_path.with_name(model_path.name + ".json"), model_path.with_suffix(".json")):
        if candidate.is_file():
            return candidate
    raise VoiceError(
        model_path.with_name(model_path.name + ".json"),
        f"voice config not found for model {model_path.name} (expected it beside the model)",
    )


def load_config(path: Path) -> VoiceConfig:
    """Read and validate a Piper voice config.

    Raises:
        VoiceError: unreadable file, invalid JSON, or a missing or invalid field.
    """
    from engines.records import read_json_object

    path = Path(path)
    return parse_config(path, read_json_object(path))


def parse_config(path: Path, raw: dict[str, Any]) -> VoiceConfig:
    """Validate a config document (as read from ``path``, which errors name).

    Raises:
        VoiceError: a missing or invalid field.
    """
    id_map = _phoneme_id_map(path, raw)
    num_symbols = _positive_int(path, raw, "num_symbols", default=max(i for ids in id_map.values() for i in ids) + 1)
    speaker_id_map = _speaker_id_map(path, raw)
    num_speakers = _positive_int(path, raw, "num_speakers", default=max(speaker_id_map.values(), default=0) + 1)
    audio = raw.get("audio")
    if not isinstance(audio, dict):
        raise VoiceError(path, "missing or not an object", "audio")
    sample_rate = _positive_int(path, audio, "sample_rate", prefix="audio.")
    if not isinstance(audio.get("quality", ""), str):
        raise VoiceError(path, f"must be a quality name such as 'medium', got {audio['quality']!r}", "audio.quality")
    too_big = sorted({i for ids in id_map.values() for i in ids if i >= num_symbols})
    if too_big:
        raise VoiceError(path, f"ids {too_big[:5]} are not below num_symbols={num_symbols}", "phoneme_id_map")
    _check_speakers(path, raw, speaker_id_map, num_speakers)
    _check_vowel_clusters(path, raw)
    inference = raw.get("inference", {})
    if not isinstance(inference, dict):
        raise VoiceError(path, "not an object", "inference")
    phoneme_type = raw.get("phoneme_type", "espeak")
    if not isinstance(phoneme_type, str) or phoneme_type not in PHONEME_TYPES:
        raise VoiceError(path, f"'{phoneme_type}' is not one of {PHONEME_TYPES}", "phoneme_type")
    espeak = raw.get("espeak", {})
    espeak_voice = espeak.get("voice") if isinstance(espeak, dict) else None
    if phoneme_type == "espeak" and not isinstance(espeak_voice, str):
        raise VoiceError(path, "missing espeak-ng voice name", "espeak.voice")
    return VoiceConfig(
        path=path,
        num_symbols=num_symbols,
        num_speakers=num_speakers,
        sample_rate=sample_rate,
        espeak_voice=espeak_voice or "",
        phoneme_type=phoneme_type,
        phoneme_id_map=id_map,
        speaker_id_map=speaker_id_map,
        length_scale=_scale(path, inference, "length_scale", DEFAULT_LENGTH_SCALE, positive=True),
        noise_scale=_scale(path, inference, "noise_scale", DEFAULT_NOISE_SCALE),
        noise_w=_scale(path, inference, "noise_w", DEFAULT_NOISE_W),
        hop_length=_positive_int(path, raw, "hop_length", default=DEFAULT_HOP_LENGTH),
        default_speaker_id=raw.get("default_speaker_id", 0),
        raw=raw,
    )


def _phoneme_id_map(path: Path, raw: dict[str, Any]) -> dict[str, list[int]]:
    id_map = raw.get("phoneme_id_map")
    if not isinstance(id_map, dict) or not id_map:
        raise VoiceError(path, "missing or empty", "phoneme_id_map")
    for symbol, ids in id_map.items():
        if not isinstance(ids, list) or not ids or not all(isinstance(i, int) and i >= 0 for i in ids):
            raise VoiceError(path, f"symbol {symbol!r} must map to a list of ids >= 0", "phoneme_id_map")
    for symbol in (PAD, BOS, EOS):
        if symbol not in id_map:
            raise VoiceError(path, f"required symbol {symbol!r} is missing", "phoneme_id_map")
    return id_map


def _speaker_id_map(path: Path, raw: dict[str, Any]) -> dict[str, int]:
    speaker_id_map = raw.get("speaker_id_map") or {}
    if not isinstance(speaker_id_map, dict):
        raise VoiceError(path, "not an object", "speaker_id_map")
    for name, sid in speaker_id_map.items():
        if isinstance(sid, bool) or not isinstance(sid, int) or sid < 0:
            raise VoiceError(path, f"speaker {name!r} has id {sid!r}, not an integer >= 0", "speaker_id_map")
    return speaker_id_map


def _check_speakers(path: Path, raw: dict[str, Any], speaker_id_map: dict[str, int], num_speakers: int) -> None:
    """Speaker ids and ``default_speaker_id`` below ``num_speakers``."""
    for name, sid in speaker_id_map.items():
        if sid >= num_speakers:
            raise VoiceError(path, f"speaker {name!r} has id {sid}, outside 0..{num_speakers - 1}", "speaker_id_map")
    default = raw.get("default_speaker_id", 0)
    if isinstance(default, bool) or not isinstance(default, int) or not 0 <= default < num_speakers:
        raise VoiceError(path, f"must be a speaker id in 0..{num_speakers - 1}, got {default!r}", "default_speaker_id")


def _check_vowel_clusters(path: Path, raw: dict[str, Any]) -> None:
    """``vowel_clusters`` (read by piper-tts): a list of lists of phonemes, when present."""
    clusters = raw.get("vowel_clusters") or []
    if not isinstance(clusters, list) or not all(
        isinstance(c, list) and all(isinstance(p, str) for p in c) for c in clusters
    ):
        raise VoiceError(path, "must be a list of lists of phonemes", "vowel_clusters")


def _positive_int(path: Path, obj: dict[str, Any], key: str, default: int | None = None, prefix: str = "") -> int:
    value = obj.get(key, default)
    if value is None:
        raise VoiceError(path, "missing", prefix + key)
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise VoiceError(path, f"must be a positive integer, got {value!r}", prefix + key)
    return value


def _scale(path: Path, inference: dict[str, Any], key: str, default: float, positive: bool = False) -> float:
    value = inference.get(key, default)
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or value < 0 or (positive and value == 0):
        bound = "> 0" if positive else ">= 0"
        raise VoiceError(path, f"must be a number {bound}, got {value!r}", f"inference.{key}")
    return float(value)


@dataclass(frozen=True)
class Voice:
    """A Piper voice on disk: model, config and where it was found.

    Attributes:
        name: display name (the model's file stem, e.g. ``en_US-joe-medium``).
        model_path: the ``.onnx`` file.
        config: the validated config.
        origin: ``embedded``, ``user`` (the user's voice folder) or ``added``.
    """

    name: str
    model_path: Path
    config: VoiceConfig
    origin: str = "added"

    @property
    def sample_rate(self) -> int:
        """Output rate in Hz."""
        return self.config.sample_rate


def load_voice(model_path: Path, config_path: Path | None = None, origin: str = "added") -> Voice:
    """Locate and validate a voice's config; the model itself is checked by the engine.

    Raises:
        VoiceError: the model or config is missing or the config is invalid.
    """
    model_path = Path(model_path)
    if not model_path.is_file():
        raise VoiceError(model_path, "voice model file not found")
    config = load_config(Path(config_path) if config_path else config_path_for(model_path))
    return Voice(name=model_path.name.removesuffix(".onnx"), model_path=model_path, config=config, origin=origin)
