"""Reading Piper ``.ckpt`` files (Lightning checkpoints) safely.

Both piper1-gpl's trainer and the older rhasspy/piper one save a Lightning
checkpoint: ``state_dict`` holds the generator under ``model_g.`` (and the
discriminator under ``model_d.``), ``hyper_parameters`` the model's settings.
Files are unpickled by ``engines.torch.vits.safe_load``: tensors, plain
containers and an allow-list of harmless classes; anything else is refused
before it can run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engines.base import VoiceError
from engines.imports import importing
from engines.torch.vits.config import VitsConfig
from engines.torch.vits.safe_load import load_safely

if TYPE_CHECKING:
    from engines.torch.vits.models import Synthesizer

_LOGGER = logging.getLogger(__name__)

GENERATOR_PREFIX = "model_g."
DISCRIMINATOR_PREFIX = "model_d."


@dataclass
class PiperCheckpoint:
    """A Piper checkpoint's parts.

    Attributes:
        path: the file.
        config: generator hyperparameters.
        generator: ``Synthesizer`` state dict (``model_g.`` prefix removed).
        discriminator: discriminator state dict (``model_d.`` prefix removed), may be empty.
        hyper_parameters: everything stored, as read.
        sample_rate: Hz, from the hyperparameters (22,050 when absent).
        ignored: hyperparameters we do not use (noted, not an error).
        raw: the whole checkpoint dict (optimizer states etc., for resuming).
    """

    path: Path
    config: VitsConfig
    generator: dict[str, Any]
    discriminator: dict[str, Any]
    hyper_parameters: dict[str, Any]
    sample_rate: int = 22050
    ignored: list[str] = field(default_factory=list)
    raw: dict[str, Any] = field(default_factory=dict, repr=False)


def read_checkpoint(path: Path | str) -> PiperCheckpoint:
    """Read a Piper ``.ckpt``.

    Raises:
        VoiceError: missing, truncated or unsafe file (a pickle that would run code),
            or a checkpoint without a Piper generator; the message says which.
    """
    path = Path(path)
    if not path.is_file():
        raise VoiceError(path, "checkpoint file not found")
    raw = load_safely(path)
    if not isinstance(raw, dict) or "state_dict" not in raw:
        raise VoiceError(path, "not a Lightning checkpoint: no 'state_dict'")
    state = raw["state_dict"]
    generator = {k[len(GENERATOR_PREFIX) :]: v for k, v in state.items() if k.startswith(GENERATOR_PREFIX)}
    if not generator:
        raise VoiceError(path, "no Piper generator in the checkpoint (no 'model_g.' weights)")
    discriminator = {k[len(DISCRIMINATOR_PREFIX) :]: v for k, v in state.items() if k.startswith(DISCRIMINATOR_PREFIX)}
    hparams = raw.get("hyper_parameters") or {}
    if not isinstance(hparams, dict):
        raise VoiceError(path, f"must be a mapping, got {type(hparams).__name__}", "hyper_parameters")
    hparams = dict(hparams)
    config, ignored = config_from_hparams(hparams, generator, path)
    sample_rate = _positive(hparams.get("sample_rate", 22050), path, "sample_rate")
    return PiperCheckpoint(path, config, generator, discriminator, hparams, sample_rate, ignored, raw)


def config_from_hparams(hparams: dict[str, Any], generator: dict[str, Any], path: Path) -> tuple[VitsConfig, list]:
    """Build the generator config from stored hyperparameters, checked against the weights.

    Raises:
        VoiceError: a hyperparameter disagrees with the weights (e.g. num_symbols).
    """
    defaults = {f.name: f.default for f in fields(VitsConfig)}
    values = {k: _checked(k, _plain(v, path, k), defaults[k], path) for k, v in hparams.items() if k in defaults}
    if "filter_length" in hparams:
        values["spec_channels"] = _positive(hparams["filter_length"], path, "filter_length") // 2 + 1
    emb = generator.get("enc_p.emb.weight")
    if emb is None:
        raise VoiceError(path, "the generator has no phoneme embedding (enc_p.emb.weight)")
    if "num_symbols" in values and values["num_symbols"] != emb.shape[0]:
        raise VoiceError(
            path, f"num_symbols is {values['num_symbols']} but the weights have {emb.shape[0]} symbols", "num_symbols"
        )
    values["num_symbols"] = emb.shape[0]
    if "emb_g.weight" in generator:
        values.setdefault("num_speakers", generator["emb_g.weight"].shape[0])
    known = set(defaults) | {"filter_length", "sample_rate", "hop_length", "win_length", "mel_channels"}
    ignored = sorted(k for k in hparams if k not in known)
    if ignored:
        _LOGGER.info("%s: hyperparameters not used by the generator: %s", path.name, ", ".join(ignored))
    try:
        return VitsConfig(**values), ignored
    except TypeError as exc:
        raise VoiceError(path, f"unusable hyperparameters: {exc}") from None


def _plain(value: Any, path: Path, name: str) -> Any:
    """Lists (and strings of Python literals, as old checkpoints hold them) to tuples.

    Raises:
        VoiceError: a string that starts like a literal but is not one.
    """
    if isinstance(value, str) and value[:1] in "([":
        import ast

        try:
            value = ast.literal_eval(value)  # literals only: numbers, tuples, lists
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise VoiceError(path, f"not a list of numbers: {value[:60]!r}", f"hyper_parameters.{name}") from None
    if isinstance(value, list | tuple):
        return tuple(_plain(v, path, name) for v in value)
    return value


def _checked(name: str, value: Any, default: Any, path: Path) -> Any:
    """A hyperparameter of the type of its :class:`VitsConfig` default (``resblock`` 1 or 2 as a string).

    Raises:
        VoiceError: naming ``hyper_parameters.NAME`` and the value.
    """
    if name == "resblock" and str(value) in ("1", "2"):
        return str(value)
    if isinstance(default, bool):
        ok = isinstance(value, bool)
    elif isinstance(default, int | float):
        ok = isinstance(value, type(default) | int) and not isinstance(value, bool) and value >= 0
    elif isinstance(default, tuple):
        ok = isinstance(value, tuple) and len(value) > 0 and _all_ints(value)
    else:
        ok = False  # resblock, the only string, was handled above
    if not ok:
        kind = "1 or 2" if name == "resblock" else f"like {default!r}"
        raise VoiceError(path, f"must be {kind}, got {value!r}", f"hyper_parameters.{name}")
    return value


def _all_ints(value: Any) -> bool:
    if isinstance(value, tuple):
        return all(_all_ints(v) for v in value)
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _positive(value: Any, path: Path, name: str) -> int:
    """A positive integer hyperparameter (``sample_rate``, ``filter_length``).

    Raises:
        VoiceError: naming ``hyper_parameters.NAME``.
    """
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise VoiceError(path, f"must be a positive integer, got {value!r}", f"hyper_parameters.{name}")
    return value


def load_generator(path: Path | str) -> tuple[Synthesizer, PiperCheckpoint]:
    """A ``Synthesizer`` with a checkpoint's generator weights loaded strictly, and the checkpoint.

    Raises:
        VoiceError: see :func:`read_checkpoint`; also when the weights do not fit the
            hyperparameters (names the first mismatching parameters).
    """
    with importing("engines.torch.vits.models"):
        from engines.torch.vits.models import Synthesizer

    checkpoint = read_checkpoint(path)
    try:
        model = Synthesizer(checkpoint.config)
        result = model.load_state_dict(checkpoint.generator, strict=False)
    except (ValueError, TypeError, IndexError, RuntimeError) as exc:  # sizes that do not fit together
        detail = " ".join(str(exc).split())[:300]
        raise VoiceError(checkpoint.path, f"unusable hyperparameters{_defaults_note(checkpoint)}: {detail}") from None
    problems = [f"missing {k}" for k in result.missing_keys[:3]] + [
        f"unexpected {k}" for k in result.unexpected_keys[:3]
    ]
    if problems:
        message = f"generator weights do not match its hyperparameters{_defaults_note(checkpoint)}: "
        raise VoiceError(checkpoint.path, message + "; ".join(problems))
    return model.eval(), checkpoint


def _defaults_note(checkpoint: PiperCheckpoint) -> str:
    """`` (its hyper_parameters lack ...: Piper's medium defaults were taken)``, or nothing."""
    from_weights = {"num_symbols", "num_speakers", "spec_channels"}
    absent = [f.name for f in fields(VitsConfig) if f.name not in {*checkpoint.hyper_parameters, *from_weights}]
    return f" (its hyper_parameters lack {', '.join(absent)}: Piper's medium defaults were taken)" if absent else ""


def voice_config_for(checkpoint: PiperCheckpoint):
    """The voice config (phoneme map, espeak voice, rate) to speak with a checkpoint.

    Piper's trainer writes ``config.json`` in the training folder; it is looked
    for beside the checkpoint (``NAME.ckpt.json`` first) and up to three folders
    up. Without one, Piper's default phoneme map with espeak-ng ``en-us`` and the
    checkpoint's sample rate are used.

    Raises:
        VoiceError: a found config is invalid or does not fit the checkpoint.
    """
    from engines.model_fit import check_num_symbols
    from engines.voice import load_config, parse_config

    path = checkpoint.path
    candidates = [path.with_name(path.name + ".json")]
    candidates += [folder / "config.json" for folder in list(path.parents)[:4]]
    for candidate in candidates:
        if candidate.is_file():
            config = load_config(candidate)
            check_num_symbols(config, checkpoint.config.num_symbols, path.name)
            return config
    with importing("piper.phoneme_ids"):
        from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP

    raw = {
        "audio": {"sample_rate": checkpoint.sample_rate},
        "espeak": {"voice": "en-us"},
        "num_symbols": checkpoint.config.num_symbols,
        "num_speakers": checkpoint.config.num_speakers,
        "phoneme_id_map": {k: list(v) for k, v in DEFAULT_PHONEME_ID_MAP.items()},
        "speaker_id_map": {},
    }
    return parse_config(path.with_name(path.name + ".json"), raw)


def load_checkpoint_voice(path: Path | str, origin: str = "added"):
    """A ``Voice`` for a ``.ckpt`` (spoken by the torch engine).

    Raises:
        VoiceError: see :func:`read_checkpoint` and :func:`voice_config_for`.
    """
    from engines.voice import Voice

    checkpoint = read_checkpoint(path)
    return Voice(
        name=checkpoint.path.stem, model_path=checkpoint.path, config=voice_config_for(checkpoint), origin=origin
    )
