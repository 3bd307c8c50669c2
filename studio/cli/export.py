"""``voice-studio export``: a Piper checkpoint, a run's best one, or a voice as a Piper ONNX voice (no Qt)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from engines.extras import explain
from engines.imports import importing


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``export`` to the CLI's subparsers."""
    export = sub.add_parser(
        "export",
        help="export a Piper checkpoint (or a voice) to a Piper ONNX voice",
        description=explain("torch", "Exporting a voice") or None,
    )
    export.add_argument(
        "checkpoint",
        type=Path,
        help="a Piper .ckpt, an .onnx voice or a voice name (joe) to re-export, or a training run folder "
        "(its best-ranked checkpoint)",
    )
    export.add_argument("-o", "--output", type=Path, required=True, help="NAME.onnx (NAME.onnx.json is written too)")
    export.add_argument("--config", type=Path, help="a Piper config.json for the phoneme map (default: looked up)")
    export.add_argument("--espeak-voice", help="espeak-ng voice name to record in the config")


def run(args: argparse.Namespace) -> int:
    """Write ``NAME.onnx`` and ``NAME.onnx.json``.

    Raises:
        VoiceError: an unreadable checkpoint, voice or config. CheckpointError: a run folder with no ranked
        checkpoint, or a garbled ranking. ValueError: an output path that is not ``.onnx``. ExtraMissing: torch
        is not installed (an ONNX-only install), with how to add it.
    """
    from engines import registry
    from engines.extras import require

    require("torch", "Exporting a voice")
    from engines.files import check_output_path
    from engines.voice import load_config

    with importing("trainer.export"):
        from trainer.export import export_voice

    check_output_path(args.output, (".onnx",), "voice file")
    config = load_config(args.config) if args.config else None
    source = args.checkpoint
    if registry.is_voice_name(source):  # a voice name, resolved as say --voice and train --from resolve it
        voice = registry.find_voice(str(source))
        source, config = voice.model_path, config or voice.config
    elif source.is_dir():  # a run folder: the checkpoint it ranks best, as the Train page's Export voice
        from trainer.checkpoints import best_checkpoint

        best = best_checkpoint(source)
        print(f"exporting the best checkpoint {best.describe()}", file=sys.stderr)
        source = best.path
    onnx_path, json_path = export_voice(source, args.output, config, args.espeak_voice)
    print(f"wrote {onnx_path} and {json_path}", file=sys.stderr)
    from trainer.presets import SMOKE_TEST, smoke_note

    if smoke_note(json.loads(Path(json_path).read_text(encoding="utf-8"))):
        print(f"note: trained with the test preset: a {SMOKE_TEST}", file=sys.stderr)
    return 0
