"""Does a voice config fit its model? The checks the engines make at load (and export, for checkpoints).

A config that belongs to another model would give wrong phonemes, speakers or
timing; each disagreement is a :class:`engines.base.VoiceError` naming the
config and the field.
"""

from __future__ import annotations

from engines.base import VoiceError
from engines.voice import VoiceConfig


def check_num_symbols(config: VoiceConfig, rows: int, model_name: str) -> None:
    """Check a config against a model with ``rows`` phoneme embedding rows.

    A stated ``num_symbols`` must equal ``rows``; a defaulted one (no ``num_symbols``
    in the file) only needs every phoneme id below ``rows``.

    Raises:
        VoiceError: naming the config and ``num_symbols`` (or ``phoneme_id_map``).
    """
    if "num_symbols" not in config.raw:
        if config.num_symbols > rows:
            message = f"has ids up to {config.num_symbols - 1} but {model_name} has {rows} phoneme embedding rows"
            raise VoiceError(config.path, message, "phoneme_id_map")
    elif config.num_symbols != rows:
        message = f"num_symbols is {config.num_symbols} but {model_name} has {rows} phoneme embedding rows"
        raise VoiceError(config.path, f"{message}: this config belongs to another model", "num_symbols")


def check_model_fits(
    config: VoiceConfig,
    model_name: str,
    *,
    symbols: int | None = None,
    speaker_input: bool | None = None,
    speakers: int | None = None,
    hop_length: int | None = None,
) -> None:
    """Check a config against what its model holds; ``None`` is not checked.

    Args:
        symbols: the model's phoneme embedding rows (see :func:`check_num_symbols`).
        speaker_input: whether the model takes a speaker id.
        speakers: the model's speaker embedding rows.
        hop_length: samples the model makes per frame.

    Raises:
        VoiceError: naming the config and the field that disagrees with the model.
    """
    if symbols is not None:
        check_num_symbols(config, symbols, model_name)
    if speaker_input is not None and speaker_input != (config.num_speakers > 1):
        takes = "takes" if speaker_input else "has no"
        message = f"num_speakers is {config.num_speakers} but {model_name} {takes} a speaker input"
        raise VoiceError(config.path, f"{message}: this config belongs to another model", "num_speakers")
    if speakers is not None and speakers < config.num_speakers:
        raise VoiceError(config.path, f"{model_name} has only {speakers} speakers", "num_speakers")
    if hop_length is not None and hop_length != config.hop_length:
        message = f"hop_length is {config.hop_length} but {model_name} makes {hop_length} samples per frame"
        raise VoiceError(config.path, message, "hop_length")
