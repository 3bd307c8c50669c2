"""Export a generator to a Piper ONNX voice: ``NAME.onnx`` plus ``NAME.onnx.json``.

The graph has Piper's interface: inputs ``input`` (phoneme_ids ``[B, T_ph]`` int64),
``input_lengths`` ``[B]`` int64, ``scales`` ``[3]`` float32 (noise_scale,
length_scale, noise_w) and, only for several speakers, ``sid`` ``[B]`` int64;
output ``output`` ``[B, 1, 1, T * hop_length]`` float32. It is written with
torch's TorchScript-based exporter (the dynamo exporter fails on the
data-dependent lengths) at opset 15, as Piper's own export, so every Piper
runtime loads it. Weight normalization is folded into plain weights.
"""

from __future__ import annotations

import copy
import functools
import json
import warnings
from pathlib import Path
from typing import Any

import torch

from engines.files import atomic_path, write_text
from engines.frontend.lexicon import voice_lexicon, voice_lexicon_path, write_lexicon
from engines.imports import importing
from engines.torch.vits.models import Synthesizer
from engines.torch.vits.weight_norm import remove_weight_norm
from trainer.checkpoints.strength import held_strength

OPSET_VERSION = 15
"""Piper's export opset (``piper.train.export_onnx``)."""


def _piper_forward(model: Synthesizer, input, input_lengths, scales, sid=None):  # noqa: A002 - Piper's name
    """The generator's inference with Piper's ONNX inputs and output ``[B, 1, 1, samples]``."""
    prior = model.prior(input, input_lengths, sid, scales[0], scales[1], scales[2])
    z = model.flow_reverse(prior.z_p, prior.y_mask, prior.g)
    return model.decode(z * prior.y_mask, prior.g).unsqueeze(1)


def export_onnx(model: Synthesizer, path: Path | str) -> Path:
    """Write the generator as a Piper ONNX graph at ``path`` (atomically).

    The export is made from a CPU copy whose weight normalization is removed
    (Piper's ``export_onnx`` removes the decoder's too): every convolution's
    weight is one named initializer (``dec.resblocks.0.convs.0.weight``), which
    every engine loads, and the graph has no per-call norm computations.
    ``model`` itself is left as it was (device, mode, weight norm).

    Raises:
        OSError: the folder is not writable.
    """
    path = Path(path)
    model = remove_weight_norm(copy.deepcopy(model).cpu().eval())
    args, names, axes = _example_inputs(model)
    # Export the model itself (not a wrapper) so node names keep Piper's module paths (/dec/..., /flow/...).
    model.forward = functools.partial(_piper_forward, model)
    with atomic_path(path) as tmp, torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the exporter's tracer warnings are about shapes it keeps dynamic
        torch.onnx.export(
            model,
            args,
            str(tmp),
            dynamo=False,
            opset_version=OPSET_VERSION,
            input_names=names,
            output_names=["output"],
            dynamic_axes=axes,
            do_constant_folding=True,
        )
    return path


def _example_inputs(model: Synthesizer) -> tuple[tuple, list[str], dict[str, dict[int, str]]]:
    """Example arguments, input names and dynamic axes of Piper's graph (``sid`` only for several speakers)."""
    ids = torch.randint(1, model.config.num_symbols, (1, 50), dtype=torch.long)
    args: tuple = (ids, torch.tensor([50], dtype=torch.long), torch.tensor([0.667, 1.0, 0.8]))
    names = ["input", "input_lengths", "scales"]
    axes = {
        "input": {0: "batch_size", 1: "phonemes"},
        "input_lengths": {0: "batch_size"},
        "output": {0: "batch_size", 3: "time"},
    }
    if model.config.num_speakers > 1:
        args += (torch.tensor([0], dtype=torch.long),)
        names.append("sid")
        axes["sid"] = {0: "batch_size"}
    return args, names, axes


def voice_config(
    model: Synthesizer,
    phoneme_id_map: dict[str, list[int]],
    sample_rate: int,
    espeak_voice: str = "en-us",
    speaker_id_map: dict[str, int] | None = None,
    inference: dict[str, float] | None = None,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``.onnx.json`` document Piper reads (``piper.config.PiperConfig.from_dict``)."""
    config = model.config
    speakers = speaker_id_map or ({} if config.num_speakers <= 1 else {str(i): i for i in range(config.num_speakers)})
    document = {
        **(extra or {}),
        "audio": {"sample_rate": sample_rate, **(extra or {}).get("audio", {})},
        "espeak": {"voice": espeak_voice},
        "inference": {"noise_scale": 0.667, "length_scale": 1.0, "noise_w": 0.8, **(inference or {})},
        "phoneme_type": (extra or {}).get("phoneme_type", "espeak"),
        "num_symbols": config.num_symbols,
        "num_speakers": config.num_speakers,
        "speaker_id_map": speakers,
        "phoneme_id_map": phoneme_id_map,
        "hop_length": config.hop_length,
    }
    return document


def write_voice(model: Synthesizer, onnx_path: Path | str, config: dict[str, Any]) -> tuple[Path, Path]:
    """Export ``NAME.onnx`` and write ``NAME.onnx.json`` beside it; returns both paths."""
    onnx_path = export_onnx(model, onnx_path)
    json_path = write_text(
        onnx_path.with_name(onnx_path.name + ".json"), json.dumps(config, ensure_ascii=False, indent=2)
    )
    return onnx_path, json_path


def export_voice(
    source: Path | str, onnx_path: Path | str, config=None, espeak_voice: str | None = None, *, naming=None
):
    """Export a Piper ``.ckpt`` (or re-export an ``.onnx`` voice) as ``NAME.onnx`` + ``NAME.onnx.json``.

    ``config`` (a ``VoiceConfig``) supplies the phoneme map, espeak voice,
    speakers and inference defaults; by default the checkpoint's own config is
    looked up (``engines.torch.vits.checkpoint.voice_config_for``) or the voice's. ``naming``
    (``engines.voice_naming.VoiceNaming``; default: ``trainer.checkpoints.naming.default_naming``) gives the
    fields that describe the voice (``dataset`` = the file stem, ``language``, ``audio.quality``, ``training``:
    ``trainer.checkpoints.naming.described``); none is copied from a start voice. The source's pronunciation
    lexicon (``SOURCE.lexicon.txt``, ``engines.frontend.lexicon``) goes with it (``NAME.onnx.lexicon.txt``);
    where the source has none, a lexicon already beside ``NAME.onnx`` stays.

    Raises:
        VoiceError: unreadable source, a config that does not fit it, or whose ``espeak.voice`` espeak-ng does not
            have. EspeakVoiceError: ``espeak_voice`` is a voice espeak-ng does not have.
        ValueError: ``onnx_path`` (or its ``.json``) is the source itself (an original is never replaced).
        LexiconError: the source's lexicon has a bad line (said before any work).
        NamingError: no ``naming`` given and the language cannot be told from the espeak voice.
    """
    from engines.model_fit import check_num_symbols
    from trainer.checkpoints.naming import default_naming, described

    source = Path(source)
    target = Path(onnx_path)
    if source.resolve() in (target.resolve(), target.with_name(target.name + ".json").resolve()):
        raise ValueError(f"{target}: is the voice being exported, which stays as it is; give another output file")
    lexicon = voice_lexicon(source)
    if source.suffix.lower() == ".ckpt":
        from engines.torch.vits.checkpoint import load_generator, voice_config_for

        model, checkpoint = load_generator(source)
        config = config or voice_config_for(checkpoint)
        _check_espeak(config, espeak_voice)
        epoch = checkpoint.raw.get("epoch")
        strength = held_strength(checkpoint.raw)
    else:
        with importing("engines.torch.vits.onnx_import"):
            from engines.torch.vits.onnx_import import load_onnx_generator
        from engines.voice import load_voice

        voice = load_voice(source)
        config = config or voice.config
        _check_espeak(config, espeak_voice)  # before the model is read
        model, _ = load_onnx_generator(source, voice.config.num_speakers)
        epoch = strength = None
    check_num_symbols(config, model.config.num_symbols, source.name)
    naming = naming or default_naming(source, config, target)
    keep = {k: v for k, v in config.raw.items() if k in ("piper_version", "phoneme_map")}  # still true of it
    document = voice_config(
        model,
        dict(config.phoneme_id_map),
        config.sample_rate,
        espeak_voice or config.espeak_voice or "en-us",
        dict(config.speaker_id_map) or None,
        {"noise_scale": config.noise_scale, "length_scale": config.length_scale, "noise_w": config.noise_w},
        {**keep, "phoneme_type": config.phoneme_type, "audio": dict(config.raw.get("audio", {}))},
    )
    stem = target.name.removesuffix(".onnx")
    document = described(document, naming, source=source, config=config, stem=stem, raw_epoch=epoch, strength=strength)
    written = write_voice(model, onnx_path, document)
    if lexicon:
        write_lexicon(voice_lexicon_path(written[0]), lexicon)
    return written


def _check_espeak(config, espeak_voice: str | None) -> None:
    """The espeak voice the exported config will name is one espeak-ng has: ``espeak_voice`` where given, else the
    config's own (``engines.espeak``).

    Raises:
        EspeakVoiceError: ``espeak_voice`` is not. VoiceError: the config's ``espeak.voice`` is not.
    """
    from engines.espeak import check_config, check_name

    if espeak_voice:
        check_name(espeak_voice, "espeak voice")
    else:
        check_config(config)
