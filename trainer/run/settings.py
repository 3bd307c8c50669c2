"""``--set NAME=VALUE``: a ``TrainingConfig`` setting a new run takes instead of its preset's.

The benches' ablations (docs/benchmarks.md: ``--set inference_anchor=0``, ``--set stft_loss=0``…) as
``voice-studio train`` flags, so a user can run what a table measured. Only the settings of how a run learns can be
set (:data:`SETTABLE`); the voice's shape and audio front end (``model``, ``sample_rate``, ``hop_length``, the mel
settings) follow the start voice and the dataset, and ``epochs`` and ``batch_size`` have flags of their own. The
run's ``training.json`` keeps the values in its ``config``, so a resume trains on with them. No torch is imported.
"""

from __future__ import annotations

import math
import types
import typing
from dataclasses import fields
from typing import Any

from trainer.run.presets import TrainingConfig

FIXED = (
    "model",
    "discriminator_width",
    "sample_rate",
    "n_fft",
    "hop_length",
    "win_length",
    "n_mels",
    "mel_fmin",
    "mel_fmax",
    "batch_size",
    "epochs",
)
"""``TrainingConfig`` fields ``--set`` refuses: the network's and the audio front end's shape (they follow the start
and the dataset) and those with a flag of their own (``--epochs``, ``--batch-size``)."""
SETTABLE = tuple(f.name for f in fields(TrainingConfig) if f.name not in FIXED)
"""The settings ``--set`` takes, in ``TrainingConfig``'s order."""
SIGNED = ("seed",)
"""Settable numbers that may be negative; every other one is at least 0."""
_HINTS = typing.get_type_hints(TrainingConfig)
OWN_FLAGS = {"epochs": "--epochs", "batch_size": "--batch-size"}
"""Settings with a ``voice-studio train`` flag of their own."""


def _kind(hint: Any) -> tuple[Any, bool]:
    """A field's type without ``None``, and whether it may be ``None`` (``float | None`` -> ``(float, True)``)."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        kinds = [k for k in typing.get_args(hint) if k is not type(None)]
        return kinds[0], len(kinds) < len(typing.get_args(hint))
    return hint, False


def parse_setting(text: str) -> tuple[str, Any]:
    """``"stft_loss=0"`` -> ``("stft_loss", 0.0)``: the setting's name and its value in the field's type
    (``float``, ``int``, ``bool`` as true/false, a pair as ``0.8,0.99``, ``none`` where the field may be
    ``None``).

    Raises:
        ValueError: no ``=``, a name not in :data:`SETTABLE` (naming the ones that are), or a value the field
            cannot take (naming the field and what it takes).
    """
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name:
        raise ValueError(f"'{text}': give NAME=VALUE, e.g. stft_loss=0")
    if name in OWN_FLAGS:
        raise ValueError(f"'{name}' has a flag of its own: {OWN_FLAGS[name]}")
    if name not in SETTABLE:
        why = "follows the start voice and the dataset" if name in FIXED else "is not a training setting"
        raise ValueError(f"'{name}' {why}: --set takes {', '.join(SETTABLE)}")
    return name, _value(name, value)


def _value(name: str, text: str) -> Any:
    """``text`` as the value of setting ``name`` (:func:`parse_setting`)."""
    kind, nullable = _kind(_HINTS[name])
    if nullable and text.lower() == "none":
        return None
    try:
        if kind is bool:
            return {"true": True, "1": True, "false": False, "0": False}[text.lower()]
        if typing.get_origin(kind) is tuple:
            value: Any = tuple(_number(name, float(part)) for part in text.split(","))
            if len(value) != len(typing.get_args(kind)):
                raise ValueError
            return value
        return _number(name, kind(text))
    except (KeyError, ValueError):
        raise ValueError(f"{name}={text}: {name} takes {_takes(name)}") from None


def _number(name: str, value: float) -> Any:
    """``value`` if it is finite and (but for :data:`SIGNED`) at least 0."""
    if not math.isfinite(value) or (value < 0 and name not in SIGNED):
        raise ValueError
    return value


def _takes(name: str) -> str:
    """What setting ``name`` takes, in words: ``a number at least 0``, ``true or false``, ``2 numbers …``."""
    kind, nullable = _kind(_HINTS[name])
    sign = "" if name in SIGNED else " at least 0"
    if kind is bool:
        words = "true or false"
    elif typing.get_origin(kind) is tuple:
        words = f"{len(typing.get_args(kind))} numbers{sign}, comma-separated (e.g. 0.8,0.99)"
    else:
        words = f"{'a whole number' if kind is int else 'a number'}{sign}"
    return words + (", or none" if nullable else "")


def apply_settings(config: TrainingConfig, settings: tuple[str, ...]) -> TrainingConfig:
    """``config`` with each ``NAME=VALUE`` of ``settings`` (:func:`parse_setting`; a later one wins).

    Raises:
        ValueError: as :func:`parse_setting`.
    """
    from dataclasses import replace

    return replace(config, **dict(parse_setting(text) for text in settings))
