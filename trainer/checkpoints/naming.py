"""What an exported voice says about itself: its Home Assistant name and the fields of its ``.onnx.json`` that
describe it (``dataset``, ``language``, ``audio.quality``, ``training``).

A checkpoint's config (the run's ``config.json``) starts as a copy of the start voice's: its ``dataset`` and
``language`` name the start voice (a fine-tune of joe says ``"dataset": "joe"``). Those fields are therefore never
copied into an export of a checkpoint; they are written from the naming (``engines.voice_naming``) and the run.
A voice re-exported under its own file name keeps its own fields (they still describe it).

Defaults, where nothing is asked for (:func:`default_naming`):

- language: a voice's own ``language.code``; a checkpoint's dataset language, from the run's espeak voice
  (``engines.languages.espeak_language``);
- quality: the start voice's (a fine-tune keeps its size and rate), the preset of a run from scratch, else by rate;
- name: the output file's, else the run folder's, else the source file's, as a slug (``engines.voice_naming.slug``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engines.languages import espeak_language, is_known, language_block
from engines.names import short_name
from engines.voice_naming import QUALITIES, NamingError, VoiceNaming, parse_stem, quality_for_rate, slug


def default_naming(source: Path, config, output: Path | None = None, *, language: str | None = None) -> VoiceNaming:
    """The naming an export of ``source`` (a ``.ckpt`` or ``.onnx``, spoken with ``config``, a ``VoiceConfig``;
    ``None``: none is known) gets where none is asked for; ``output`` is an explicit output file, whose stem gives
    the name; ``language``, where given, is taken as it is (nothing is told from the voice).

    Raises:
        NamingError: no ``language`` given, and it cannot be told from the voice's espeak voice (``--language``).
    """
    source = Path(source)
    own = parse_stem(source.name.removesuffix(".onnx")) if source.suffix.lower() == ".onnx" else None
    if output is not None and (named := parse_stem(output.name.removesuffix(".onnx"))):
        return named
    if language is None:
        language = own.language if own else _language(source, config)
    return VoiceNaming(
        language=language,
        name=_name(source, output) or (own.name if own else "voice"),
        quality=own.quality if own else _quality(source, config),
    )


def run_naming(run_dir: Path) -> VoiceNaming:
    """The default naming of an export of run ``run_dir`` (:func:`default_naming` of its checkpoints), read from
    its ``config.json`` (without one, as ``engines.torch.vits.checkpoint.voice_config_for`` speaks it: espeak
    ``en-us``); a language that cannot be told is left empty, for the user to give.

    Raises:
        VoiceError: a garbled ``config.json``.
    """
    from engines.voice import load_config

    path = Path(run_dir) / "config.json"
    source, config = Path(run_dir) / "last.ckpt", load_config(path) if path.is_file() else None
    try:
        return default_naming(source, config)
    except NamingError:
        return default_naming(source, config, language="")


def _language(source: Path, config) -> str:
    """The language of the voice's data: a voice's own ``language.code``, else its espeak voice's (no config:
    ``en-us``, the espeak voice a checkpoint without one is spoken with)."""
    raw = config.raw if config is not None else {}
    espeak = config.espeak_voice if config is not None else "en-us"
    code = (raw.get("language") or {}).get("code") if source.suffix.lower() == ".onnx" else None
    found = code or espeak_language(espeak)
    if not found:
        raise NamingError("--language", f"cannot tell the language of espeak voice {espeak!r}: give it (ll_RR)")
    return found


def _name(source: Path, output: Path | None) -> str:
    """The name from the output file, else the run folder, else the source file (a voice: its short name)."""
    if output is not None:
        return slug(short_name(output.name.removesuffix(".onnx")))
    from trainer.run.document import run_of

    run = run_of(source)
    if run is not None:
        return slug(run.name)
    return slug(short_name(source.name.removesuffix(".onnx").removesuffix(".ckpt")))


def _quality(source: Path, config) -> str:
    """A checkpoint's quality: the preset of a run from scratch, else the start voice's ``audio.quality``
    (kept in the run's config: a fine-tune keeps the start's size and rate), else by sample rate."""
    run = _run(source)
    raw = config.raw if config is not None else {}
    preset = run.options.preset if run else (raw.get("training") or {}).get("preset")
    start = run.options.start if run else None
    kept = (raw.get("audio") or {}).get("quality")
    if start == "scratch" and preset in QUALITIES:
        return preset
    if kept in QUALITIES:
        return kept
    if preset in QUALITIES:
        return preset
    return quality_for_rate(config.sample_rate) if config is not None else "medium"


def _run(source: Path):
    """The ``RunDocument`` of the run a checkpoint belongs to, else ``None`` (also where it cannot be read)."""
    from engines.errors import VoiceStudioError
    from trainer.run.document import read_run, run_of

    run = run_of(source)
    try:
        return read_run(run) if run is not None else None
    except VoiceStudioError:  # a run of another version, or garbled: its export says nothing of it
        return None


def described(
    document: dict[str, Any],
    naming: VoiceNaming,
    *,
    source: Path,
    config,
    stem: str,
    raw_epoch: int | None = None,
    strength: float | None = None,
) -> dict[str, Any]:
    """``document`` (an export's ``.onnx.json``) with the fields that describe the voice written from ``naming``:
    ``dataset`` (the file ``stem``), ``language`` (the block of ``naming.language``), ``audio.quality`` and,
    for a checkpoint, ``training`` (:func:`training_note`). A voice re-exported under its own stem keeps its
    own fields, those it lacks written as for any other. ``raw_epoch``: the checkpoint's Lightning ``epoch``
    (0-based), where it has one; ``strength``: the strength a checkpoint was taken to
    (``trainer.checkpoints.strength``), where it was."""
    source = Path(source)
    own = dict(config.raw)
    if source.suffix.lower() == ".onnx" and source.name.removesuffix(".onnx") == stem:  # its own fields first
        kept = {k: own[k] for k in ("dataset", "language", "training") if k in own}
        audio = {"quality": naming.quality, **(own.get("audio") or {}), **document.get("audio", {})}
        fresh = {"dataset": stem, "language": language_block(naming.language)}
        return {**document, **fresh, **kept, "audio": audio}
    written = {
        **document,
        "dataset": stem,
        "language": language_block(naming.language),
        "audio": {**document.get("audio", {}), "quality": naming.quality},
    }
    if source.suffix.lower() == ".ckpt":
        written["training"] = training_note(source, config, raw_epoch, strength)
    elif "training" in own:
        written["training"] = own["training"]
    return written


def training_note(checkpoint: Path, config, raw_epoch: int | None, strength: float | None = None) -> dict[str, Any]:
    """The ``training`` block of a checkpoint's export: ``preset`` (read by ``trainer.run.presets.smoke_note``),
    ``start_voice``, ``epochs`` (trained, 1-based), ``dataset_utterances`` and ``dataset_minutes``, each where
    it is known (a checkpoint outside a run knows its epoch only), and the ``teacher`` of a distilled dataset
    as the run's ``config.json`` says it (``trainer.run.train``); ``strength`` for a checkpoint taken to one
    (``trainer.checkpoints.strength``: its generator moved back towards ``start_voice``, so not as trained)."""
    own = config.raw.get("training") or {}
    note: dict[str, Any] = {k: own[k] for k in ("preset", "teacher") if k in own}
    run = _run(checkpoint)
    if run is not None:
        note["preset"] = run.options.preset
        note["start_voice"] = _start_name(run.options.start)
        note |= _dataset_size(run.cache)
    if raw_epoch is not None:
        note["epochs"] = int(raw_epoch) + 1
    if strength is not None:
        note["strength"] = float(strength)
    return note


def _start_name(start: str) -> str:
    """A run's ``start`` as a voice name: a voice's file stem (``en_US-joe-medium``), ``scratch`` as it is."""
    from engines.base import VoiceError
    from engines.registry import find_voice

    if start == "scratch":
        return start
    if start.lower().endswith(".ckpt"):
        return Path(start).name
    try:
        return find_voice(start).name
    except VoiceError:  # a start voice gone since: its name as the run recorded it
        return Path(start).name.removesuffix(".onnx")


def _dataset_size(cache: Path) -> dict[str, Any]:
    """``dataset_utterances`` and ``dataset_minutes`` of a run's training cache; ``{}`` where it is gone."""
    from trainer.data.preprocess.cache import PreprocessedCache

    try:
        opened = PreprocessedCache(cache)
    except (OSError, ValueError):
        return {}
    samples = sum(u.audio[1] for u in opened.utterances)
    minutes = samples / opened.settings.sample_rate / 60
    return {"dataset_utterances": len(opened.utterances), "dataset_minutes": round(minutes, 1)}


def unknown_language_note(naming: VoiceNaming) -> str:
    """A line saying the language's names were left out (``engines.languages`` lacks them), else ``""``."""
    if is_known(naming.language):
        return ""
    return f"note: {naming.language} is not a language of Piper's catalog: its names are left out of the config"
