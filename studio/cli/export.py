"""``voice-studio export``: a Piper checkpoint, a run's recommended one, or a voice as a Piper ONNX voice (no Qt).

Of a run folder it takes the recommended checkpoint where the run was measured (``trainer.evaluate.choice``),
else the lowest val_mel, and says which, why, what the other choice is, and when the one taken is measurably
worse than the start voice.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from engines.extras import explain
from engines.imports import importing
from engines.shell_command import shell_command
from studio.cli.export_naming import add_naming, named_output, naming_notes, send

if TYPE_CHECKING:
    from trainer.checkpoints.sherpa_bundle import SherpaBundle

TAKES = ("recommended", "val_mel")
"""``--take``'s choices (``trainer.evaluate.choice.TAKES``, repeated so the parser imports nothing heavy)."""


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
        "(its recommended checkpoint where the run was measured, else its lowest val_mel; see --take)",
    )
    export.add_argument(
        "--take",
        choices=TAKES,
        default="recommended",
        help="of a run folder: the recommended checkpoint (the highest speaker similarity among the measured "
        "checkpoints whose WER and DNSMOS are within their noise bands of the best; the lowest val_mel where "
        "nothing was measured), or the lowest val_mel (default: recommended)",
    )
    export.add_argument(
        "-o",
        "--output",  # kept as typed: a trailing / says a folder is meant (export_naming.named_output)
        help="a folder, where the voice is named as Home Assistant expects (LL_RR-NAME-QUALITY.onnx, from --name, "
        "--language and --quality), or a file NAME.onnx, kept as named (NAME.onnx.json is written too)",
    )
    export.add_argument(
        "--strength",
        type=float,
        help="export the checkpoint moved back towards the voice its run started from: 1 as trained (the default), "
        "0 the start voice, 0.7 keeps 70%% of what the fine-tune changed (likeness to the recordings traded for "
        "the start voice's clarity; docs/train.md)",
    )
    add_naming(export)
    export.add_argument("--config", type=Path, help="a Piper config.json for the phoneme map (default: looked up)")
    export.add_argument("--espeak-voice", help="espeak-ng voice name to record in the config")
    export.add_argument(
        "--sherpa-onnx",
        type=Path,
        metavar="DIR",
        help="also (or, without -o, only) write a sherpa-onnx bundle in DIR: the voice with sherpa-onnx's metadata, "
        "tokens.txt and espeak-ng-data (docs/formats.md); an .onnx voice is bundled as it is, without torch",
    )


def run(args: argparse.Namespace) -> int:
    """Write ``NAME.onnx`` and ``NAME.onnx.json``, and/or a sherpa-onnx bundle in ``--sherpa-onnx DIR``.

    Raises:
        VoiceError: an unreadable checkpoint, voice or config. CheckpointError: a folder that is not a run, a run
        with no ranked checkpoint, or a garbled ranking. ValueError: an output path that is not ``.onnx``.
        ExtraMissing: torch is not installed (an ONNX-only install), with how to add it. EspeakVoiceError:
        ``--espeak-voice`` names a voice espeak-ng does not have (the voice's own ``espeak.voice``: VoiceError).
        SherpaBundleError: ``--sherpa-onnx DIR`` is a file or not writable, or the voice has what sherpa-onnx cannot
        read. ValueError: neither ``-o`` nor ``--sherpa-onnx`` given, or ``--send-to``/``--copy-to`` or
        ``--name``/``--language``/``--quality`` without ``-o``; a folder ``-o`` that does not exist.
        NamingError: ``--name``, ``--language`` or ``--quality`` Home Assistant would not accept, or a file ``-o``
        they disagree with. HomeAssistantError: ``--send-to``/``--copy-to`` could not send or copy the voice.
    """
    if args.output is None and args.sherpa_onnx is None:
        raise ValueError("export: give -o FOLDER (or NAME.onnx), --sherpa-onnx DIR, or both")
    if args.output is None and (args.send_to or args.copy_to):
        raise ValueError("export: --send-to and --copy-to send the Piper voice: give -o FOLDER too")
    if args.output is None and (named := _naming_flags(args)):
        verb = "names" if len(named) == 1 else "name"
        raise ValueError(
            f"export: {', '.join(named)} {verb} the Piper voice -o writes: give -o FOLDER too (the sherpa-onnx bundle "
            "then holds that voice)"
        )
    _check_copy_folder(args)
    _check_strength(args)
    if args.output is None and _is_onnx_voice(args.checkpoint):
        return _bundle_voice(args)  # no export: the voice's own graph, without torch
    from engines import registry
    from engines.extras import require

    require("torch", "Exporting a voice")
    from engines.voice import load_config

    with importing("trainer.checkpoints.export"):
        from trainer.checkpoints.export import export_voice

    _check_bundle_folder(args)
    _check_espeak_voice(args)
    config = load_config(args.config) if args.config else None
    source = args.checkpoint
    if registry.is_voice_name(source):  # a voice name, resolved as say --voice and train --from resolve it
        voice = registry.find_voice(str(source))
        source, config = voice.model_path, config or voice.config
    elif source.is_dir():  # a run folder: the recommended checkpoint, as the Train page's Export voice
        source = _run_checkpoint(source, args.take, _target(args))
    elif source.suffix.lower() == ".ckpt":
        _check_whole(source, _target(args))
        _say_file(source)
    if args.strength is not None:
        source = _at_strength(source, args.strength)
    if args.output is None:
        with importing("trainer.checkpoints.sherpa_bundle"):
            from trainer.checkpoints.sherpa_bundle import bundle_checkpoint

        _said_bundle(bundle_checkpoint(source, args.sherpa_onnx, config, args.espeak_voice))
        return 0
    output, naming = named_output(args, source, config)
    onnx_path, json_path = export_voice(source, output, config, args.espeak_voice, naming=naming)
    print(f"wrote {onnx_path} and {json_path}", file=sys.stderr)
    for note in naming_notes(onnx_path, naming):
        print(note, file=sys.stderr)
    send(args, onnx_path)
    from trainer.run.presets import SMOKE_TEST, smoke_note

    if smoke_note(json.loads(Path(json_path).read_text(encoding="utf-8"))):
        print(f"note: trained with the test preset: a {SMOKE_TEST}", file=sys.stderr)
    if args.sherpa_onnx is not None:
        from trainer.checkpoints.sherpa_bundle import write_bundle

        _said_bundle(write_bundle(onnx_path, args.sherpa_onnx, espeak_voice=args.espeak_voice))
    return 0


def _check_strength(args: argparse.Namespace) -> None:
    """``--strength``, where given, is a strength (0-1) and the source can be taken to one (not a voice: a voice name
    or an ``.onnx``, which a bundle would otherwise take as it is), before any work.

    Raises:
        StrengthError: either, naming ``--strength``.
    """
    from trainer.checkpoints.strength import StrengthError, named_strength

    if args.strength is None:
        return
    named_strength(args.strength)
    if _is_onnx_voice(args.checkpoint):
        raise StrengthError(
            f"--strength: {args.checkpoint} is a voice, not a run's checkpoint (give a run folder or a .ckpt)"
        )


def _at_strength(source: Path, strength: float) -> Path:
    """``source`` (a checkpoint) taken to ``strength`` against its run's start, written in the run's
    ``strengths/`` folder and said on stderr.

    Raises:
        StrengthError: not a checkpoint, a checkpoint of no run, a run from scratch, a strength outside 0-1.
    """
    from trainer.checkpoints.strength import StrengthError, named_strength, run_start, write_at_strength

    strength = named_strength(strength)  # as written and named: 0.333 is 0.33
    if source.suffix.lower() != ".ckpt":
        raise StrengthError(f"--strength: {source} is a voice, not a run's checkpoint (give a run folder or a .ckpt)")
    path = write_at_strength(source, strength)
    start = run_start(source)
    said = f"At strength {strength:g}: {source.name} moved back towards the start voice {start}"
    print(f"{said}, written as {path}.", file=sys.stderr)
    return path


def _naming_flags(args: argparse.Namespace) -> list[str]:
    """The naming flags given (``--name``, ``--language``, ``--quality``; an empty value counts as given)."""
    return [f"--{k}" for k in ("name", "language", "quality") if getattr(args, k) is not None]


def _is_onnx_voice(source: Path) -> bool:
    """``source`` names an ONNX voice (a voice name, or a ``.onnx`` file), which a bundle takes as it is."""
    from engines import registry

    return registry.is_voice_name(source) or source.suffix.lower() == ".onnx"


def _bundle_voice(args: argparse.Namespace) -> int:
    """Bundle an ONNX voice (a name or a file) for sherpa-onnx as it is: no export, no torch."""
    from engines import registry
    from engines.voice import load_config
    from trainer.checkpoints.sherpa_bundle import write_bundle

    _check_bundle_folder(args)
    _check_espeak_voice(args)
    config = load_config(args.config) if args.config else None
    source = args.checkpoint
    if registry.is_voice_name(source):
        voice = registry.find_voice(str(source))
        source, config = voice.model_path, config or voice.config
    _said_bundle(write_bundle(source, args.sherpa_onnx, config, args.espeak_voice))
    return 0


def _check_bundle_folder(args: argparse.Namespace) -> None:
    """``--sherpa-onnx DIR``, where given, can be written (``sherpa_bundle.check_folder``), before any work."""
    if args.sherpa_onnx is not None:
        from trainer.checkpoints.sherpa_bundle import check_folder

        check_folder(args.sherpa_onnx)


def _check_copy_folder(args: argparse.Namespace) -> None:
    """``--copy-to FOLDER``, where given, is a folder (``home_assistant.copy_voice`` says it again), before any
    work.

    Raises:
        HomeAssistantError: it is missing or a file.
    """
    if args.copy_to is not None and not args.copy_to.is_dir():
        from trainer.checkpoints.home_assistant import HomeAssistantError

        raise HomeAssistantError("folder", f"--copy-to {args.copy_to}: not a folder")


def _check_espeak_voice(args: argparse.Namespace) -> None:
    """``--espeak-voice``, where given, is a voice espeak-ng has (``engines.espeak.check_name``)."""
    if args.espeak_voice is not None:
        from engines.espeak import check_name

        check_name(args.espeak_voice, "--espeak-voice")


def _said_bundle(bundle: SherpaBundle) -> None:
    """Say on stderr what the bundle holds and where its use is told."""
    files = f"{bundle.model.name}, {bundle.config.name}, {bundle.tokens.name}, {bundle.espeak_data.name}/"
    print(
        f"wrote the sherpa-onnx bundle {bundle.folder} ({files}); docs/formats.md says how to load it", file=sys.stderr
    )
    if bundle.options:
        print(f"note: {bundle.options_note()}", file=sys.stderr)


def _target(args: argparse.Namespace) -> tuple[str, Path]:
    """Where the export goes, as the command's options (``-o NAME.onnx``, else ``--sherpa-onnx DIR``)."""
    return ("-o", args.output) if args.output is not None else ("--sherpa-onnx", args.sherpa_onnx)


def _run_checkpoint(run_dir: Path, take: str, target: tuple[str, Path]) -> Path:
    """The checkpoint of ``run_dir`` to export (``trainer.evaluate.choice.run_choice``), said on stderr: which and
    why, the other choice and how to take it, and the warning where there is one.

    Raises:
        DamagedCheckpoint: that checkpoint is damaged (:func:`_check_whole`), before anything is said.
    """
    from trainer.evaluate.choice import run_choice

    choice = run_choice(run_dir, take)
    _check_whole(choice.checkpoint.path, target)
    for line in choice.lines():
        print(line, file=sys.stderr)
    if choice.beside and take == "recommended":
        print("(--take val_mel exports the lowest val_mel instead)", file=sys.stderr)
    elif choice.beside:
        print("(--take recommended exports the recommended one)", file=sys.stderr)
    return choice.checkpoint.path


def _check_whole(path: Path, target: tuple[str, Path]) -> None:
    """Refuse a damaged checkpoint of a run (``trainer.checkpoints.damage``), naming the run's best intact one and
    the command that exports it; a file outside any run is read as it is (``read_checkpoint`` names its damage).

    Raises:
        DamagedCheckpoint: ``path`` is one of a run's checkpoints and is damaged.
    """
    from trainer.checkpoints.damage import best_intact, check_whole
    from trainer.run.document import run_of

    run_dir = run_of(path)
    if run_dir is None:
        return
    best = best_intact(run_dir)
    way_on = "the run has no intact checkpoint to export"
    if best is not None:
        command = shell_command("voice-studio", "export", best.path, *target)
        way_on = f"export its best intact checkpoint ({best.label()}): {command}"
    check_whole(path, way_on)


def _say_file(path: Path) -> None:
    """Warn, naming it, where the run of a checkpoint given outright measured it worse than the start voice (a file
    the user named needs no other word: an unreadable one then fails in one line)."""
    from trainer.evaluate.choice import file_warning

    if warning := file_warning(path):
        print(f"Exporting {path} (the checkpoint named).", file=sys.stderr)
        print(warning, file=sys.stderr)
