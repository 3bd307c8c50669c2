"""Does a start point fit a dataset? Speakers, symbols, sample rate and size, compared before a run.

A start (a Piper ``.ckpt`` or ONNX voice) and a dataset can disagree in shape:

- speakers: a single-speaker start with a multi-speaker dataset becomes a
  multi-speaker generator (Piper's single-speaker fine-tune, piper1-gpl
  ``train/checkpoint.py``): every weight whose name and shape match is copied,
  the speaker embedding ``emb_g`` and the conditioning layers (``dp.cond``, the
  flow's and ``enc_q``'s ``cond_layer``, ``dec.cond``) start freshly initialised.
  A multi-speaker start with another number of speakers keeps its conditioning
  layers; only ``emb_g`` starts fresh. A multi-speaker start with a dataset of
  one unnamed speaker is refused (nothing says which of its speakers to train).
- symbols and phoneme map: refused (phoneme_ids would mean other phonemes).
- sample rate: refused, with the command that rebuilds the cache at the start's rate.
- size: the start's generator size wins over the preset's; said when they differ.

:func:`check_fit` returns the conversions in words (the pre-flight shows them, the
run echoes and records them) or raises :class:`RunError` naming both sides; :func:`fit_to_start` makes the
preset take the start's size and the dataset's speakers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from engines.imports import importing
from trainer.run.errors import RunError
from trainer.run.presets import TrainingConfig
from trainer.start.points import resolve_start

if TYPE_CHECKING:
    from engines.torch.vits.config import VitsConfig
    from engines.voice import Voice

FRESH_LAYERS = "the speaker embedding (emb_g) and the conditioning layers (dp.cond, flow/enc_q cond_layer, dec.cond)"
SIZE_FIELDS = ("hidden_channels", "inter_channels", "filter_channels", "n_layers", "upsample_initial_channel")
"""Generator sizes named when a preset and a start differ."""


@dataclass(frozen=True, kw_only=True)
class StartShape:
    """What a start point speaks: ``label`` (its file name), ``sample_rate`` (Hz), ``num_symbols``,
    ``num_speakers``, the digest of its ``phoneme_id_map``
    (``None`` for a ``.ckpt``, which holds no map) and ``model``, its generator's ``VitsConfig`` (for an
    ONNX voice, its quality's preset, read without the graph; ``None`` when it names no quality)."""

    label: str
    sample_rate: int
    num_symbols: int
    num_speakers: int
    map_digest: str | None = None
    model: Any = None


@dataclass(frozen=True, kw_only=True)
class DataShape:
    """What a dataset holds: ``label`` (its folder), ``speakers`` (names; empty for one unnamed speaker),
    ``num_symbols`` and ``map_digest`` of the voice map its phoneme_ids come from, and ``sample_rate``
    (Hz; ``None`` when the run builds the cache at the start's rate)."""

    label: str
    speakers: list[str]
    num_symbols: int
    map_digest: str
    sample_rate: int | None = None


def start_shape(start: str) -> StartShape | None:
    """The shape of ``start`` (``None`` for scratch), read without building the generator.

    Raises:
        RunError: see ``trainer.start.points.resolve_start``.
        VoiceError: an unreadable checkpoint or voice.
    """
    from engines.voice import load_voice
    from trainer.data.preprocess import map_digest

    kind, path = resolve_start(start)
    if path is None:  # scratch
        return None
    if kind == "ckpt":
        from engines.torch.vits.checkpoint import read_checkpoint

        checkpoint = read_checkpoint(path)
        model = checkpoint.config
        return StartShape(
            label=path.name,
            sample_rate=checkpoint.sample_rate,
            num_symbols=model.num_symbols,
            num_speakers=model.num_speakers,
            model=model,
        )
    voice = load_voice(path)  # as start_voice loads it, without resolving the start again
    c = voice.config
    quality = c.raw.get("audio", {}).get("quality")
    return StartShape(
        label=path.name,
        sample_rate=c.sample_rate,
        num_symbols=_embedding_rows(voice) if "num_symbols" not in c.raw else c.num_symbols,
        num_speakers=c.num_speakers,
        map_digest=map_digest(c.phoneme_id_map),
        model=_quality_model(quality),
    )


def _embedding_rows(voice: Voice) -> int:
    """Phoneme embedding rows of an ONNX voice's graph: its symbols when its config leaves ``num_symbols`` out
    (the config's default, the largest phoneme id + 1, is only a lower bound; ``engines.model_fit``). A graph
    whose embedding is not found (no ``Gather`` of ``input``) gives that default, as the ONNX engine trusts it."""
    from engines.onnx.prepared import graph_info

    rows = graph_info(voice.model_path).embedding_rows
    return voice.config.num_symbols if rows is None else rows


def _quality_model(quality: str | None):
    """Piper's ``VitsConfig`` for a voice's quality name, or ``None``."""
    from engines.torch.vits.config import VitsConfig

    try:
        return VitsConfig.preset(quality) if quality else None
    except ValueError:
        return None


def data_shape(label: str, speakers: list[str], voice_config: str, sample_rate: int | None = None) -> DataShape:
    """A :class:`DataShape` from the dataset's speakers and the voice config whose map builds its phoneme_ids.

    Raises:
        VoiceError: the voice config cannot be read.
    """
    from pathlib import Path

    from engines.voice import load_config
    from trainer.data.preprocess import map_digest

    config = load_config(Path(voice_config))
    return DataShape(
        label=label,
        speakers=list(speakers),
        num_symbols=config.num_symbols,
        map_digest=map_digest(config.phoneme_id_map),
        sample_rate=sample_rate,
    )


def check_fit(start: StartShape, data: DataShape) -> list[str]:
    """The conversions that make ``start`` train on ``data``, in words; refuses what cannot convert.

    Raises:
        RunError: other sample rate, other symbols or phoneme map, or a multi-speaker start with a
            single-speaker dataset; the message names both sides.
    """
    if data.sample_rate is not None and data.sample_rate != start.sample_rate:
        raise RunError(
            f"{start.label} speaks at {start.sample_rate} Hz but the dataset is prepared at {data.sample_rate} Hz: "
            f"rebuild it with `voice-studio dataset cache PROJECT --out DIR --rate {start.sample_rate}`"
        )
    if start.num_symbols != data.num_symbols:
        raise RunError(
            f"{start.label} has {start.num_symbols} symbols, but {data.label}'s voice map has {data.num_symbols}: "
            "start from a voice of the dataset's language, or from scratch"
        )
    if start.map_digest is not None and start.map_digest != data.map_digest:
        raise RunError(
            f"{start.label}'s phoneme_id_map is not the one {data.label}'s phoneme_ids are built with: "
            "set the project's target voice to the start voice, or start from scratch"
        )
    return _speaker_notes(start, data)


def _speaker_notes(start: StartShape, data: DataShape) -> list[str]:
    wanted = max(1, len(data.speakers))
    if wanted == start.num_speakers:
        return []
    names = ", ".join(data.speakers[:5]) + (", ..." if len(data.speakers) > 5 else "")
    if wanted == 1:
        raise RunError(
            f"{start.label} has {start.num_speakers} speakers but {data.label} has one unnamed speaker: name the "
            "speaker in the metadata (id|speaker|text), or start from a single-speaker voice"
        )
    if start.num_speakers == 1:
        return [
            f"{start.label} has one speaker, {data.label} has {wanted} ({names}): the generator becomes a "
            f"{wanted}-speaker one; its weights are copied and {FRESH_LAYERS} start fresh"
        ]
    return [
        f"{start.label} has {start.num_speakers} speakers, {data.label} has {wanted} ({names}): the generator "
        f"gets {wanted} speakers; the speaker embedding (emb_g) starts fresh, the other weights are copied"
    ]


def size_notes(start_label: str, start_model, preset_model, preset_name: str) -> list[str]:
    """Say that the start's generator size replaces the preset's where they differ (``VitsConfig`` each)."""
    differ = [f for f in SIZE_FIELDS if getattr(start_model, f) != getattr(preset_model, f)]
    if start_model.resblock != preset_model.resblock:
        differ.append("resblock")
    if not differ:
        return []
    sizes = ", ".join(f"{f} {getattr(start_model, f)} (preset: {getattr(preset_model, f)})" for f in differ[:3])
    return [f"the generator keeps {start_label}'s size, not the {preset_name} preset's: {sizes}"]


def fit_to_start(
    start: str, config: TrainingConfig, cache, *, preset_name: str = "", dataset_label: str = ""
) -> tuple[TrainingConfig, list[str]]:
    """The preset with the start's generator size and the dataset's speakers, and the conversions made
    (:func:`check_fit`, :func:`size_notes`), in words.

    Raises:
        RunError: a start that does not fit the dataset (the message names both sides).
    """
    shape = start_shape(start)
    if shape is None:
        return config, []
    label = dataset_label or str(cache.folder)
    notes = check_fit(shape, data_shape(label, cache.speakers, cache.voice_config, cache.settings.sample_rate))
    model = _start_model(start, shape.num_speakers)
    notes += size_notes(shape.label, model, config.model, preset_name or "chosen")
    speakers = config.model.num_speakers
    model = replace(
        model,
        num_speakers=speakers,
        gin_channels=(model.gin_channels or config.model.gin_channels) if speakers > 1 else 0,
        segment_size=config.model.segment_size,
    )
    return replace(config, model=model), notes


def _start_model(start: str, num_speakers: int) -> VitsConfig:
    """The ``VitsConfig`` of a ``.ckpt`` or ONNX start, as it is (``num_speakers`` for an ONNX graph)."""
    kind, path = resolve_start(start)
    assert path is not None  # fit_to_start calls this for a start with a shape, never scratch
    if kind == "ckpt":
        from engines.torch.vits.checkpoint import read_checkpoint

        return read_checkpoint(path).config
    with importing("engines.torch.vits.onnx_import"):
        from engines.torch.vits.onnx_import import load_onnx_generator

    return load_onnx_generator(path, num_speakers)[0].config
