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

from engines.extras import explain
from engines.imports import importing
from engines.shell_command import shell_command

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
        "--output",
        type=Path,
        default=Path("."),
        help="a folder, where the voice is named as Home Assistant expects (LL_RR-NAME-QUALITY.onnx, from --name, "
        "--language and --quality), or a file NAME.onnx, kept as named (NAME.onnx.json is written too; default: "
        "the current folder)",
    )
    _add_naming(export)
    export.add_argument("--config", type=Path, help="a Piper config.json for the phoneme map (default: looked up)")
    export.add_argument("--espeak-voice", help="espeak-ng voice name to record in the config")


def _add_naming(export: argparse.ArgumentParser) -> None:
    """``--name``, ``--language``, ``--quality`` (``engines.voice_naming``) and the Home Assistant ways out."""
    from engines.voice_naming import QUALITIES

    export.add_argument(
        "--name",
        help="the voice's name: letters, digits and _ (default: the output file's, run folder's or source's, slugged)",
    )
    export.add_argument(
        "--language",
        help="the dataset's language as LL_RR, e.g. en_US (default: the voice's own, or the run's espeak voice's)",
    )
    export.add_argument(
        "--quality",
        choices=QUALITIES,
        help="Piper's quality (default: the start voice's, a run from scratch's preset, else by sample rate)",
    )
    export.add_argument(
        "--send-to",
        metavar="URL",
        help="then upload the voice to a wyoming-piper server's voice API (its --web-server, e.g. "
        "http://homeassistant.local:5000)",
    )
    export.add_argument(
        "--copy-to",
        metavar="FOLDER",
        type=Path,
        help="then copy the voice into a wyoming-piper / Home Assistant data folder (e.g. /share/piper)",
    )


def run(args: argparse.Namespace) -> int:
    """Write ``NAME.onnx`` and ``NAME.onnx.json``.

    Raises:
        VoiceError: an unreadable checkpoint, voice or config. CheckpointError: a folder that is not a run, a run
        with no ranked checkpoint, or a garbled ranking. ValueError: an output path that is not ``.onnx``.
        ExtraMissing: torch is not installed (an ONNX-only install), with how to add it. EspeakVoiceError:
        ``--espeak-voice`` names a voice espeak-ng does not have (the voice's own ``espeak.voice``: VoiceError).
    """
    from engines import registry
    from engines.extras import require

    require("torch", "Exporting a voice")
    from engines.voice import load_config

    with importing("trainer.checkpoints.export"):
        from trainer.checkpoints.export import export_voice

    if args.espeak_voice is not None:
        from engines.espeak import check_name

        check_name(args.espeak_voice, "--espeak-voice")
    config = load_config(args.config) if args.config else None
    source = args.checkpoint
    if registry.is_voice_name(source):  # a voice name, resolved as say --voice and train --from resolve it
        voice = registry.find_voice(str(source))
        source, config = voice.model_path, config or voice.config
    elif source.is_dir():  # a run folder: the recommended checkpoint, as the Train page's Export voice
        source = _run_checkpoint(source, args.take, args.output)
    elif source.suffix.lower() == ".ckpt":
        _check_whole(source, args.output)
        _say_file(source)
    output, naming = _named_output(args, source, config)
    onnx_path, json_path = export_voice(source, output, config, args.espeak_voice, naming=naming)
    print(f"wrote {onnx_path} and {json_path}", file=sys.stderr)
    for note in _naming_notes(onnx_path, naming):
        print(note, file=sys.stderr)
    _send(args, onnx_path)
    from trainer.run.presets import SMOKE_TEST, smoke_note

    if smoke_note(json.loads(Path(json_path).read_text(encoding="utf-8"))):
        print(f"note: trained with the test preset: a {SMOKE_TEST}", file=sys.stderr)
    return 0


def _run_checkpoint(run_dir: Path, take: str, output: Path) -> Path:
    """The checkpoint of ``run_dir`` to export (``trainer.evaluate.choice.run_choice``), said on stderr: which and
    why, the other choice and how to take it, and the warning where there is one.

    Raises:
        DamagedCheckpoint: that checkpoint is damaged (:func:`_check_whole`), before anything is said.
    """
    from trainer.evaluate.choice import run_choice

    choice = run_choice(run_dir, take)
    _check_whole(choice.checkpoint.path, output)
    for line in choice.lines():
        print(line, file=sys.stderr)
    if choice.beside and take == "recommended":
        print("(--take val_mel exports the lowest val_mel instead)", file=sys.stderr)
    elif choice.beside:
        print("(--take recommended exports the recommended one)", file=sys.stderr)
    return choice.checkpoint.path


def _check_whole(path: Path, output: Path) -> None:
    """Refuse a damaged checkpoint of a run (``trainer.checkpoints.damage``), naming the run's best intact one and
    the command that exports it; a file outside any run is read as it is (``read_checkpoint`` names its damage).

    Raises:
        DamagedCheckpoint: ``path`` is one of a run's checkpoints and is damaged.
    """
    from trainer.checkpoints.damage import best_intact, check_whole
    from trainer.evaluate.lines import run_of

    run_dir = run_of(path)
    if run_dir is None:
        return
    best = best_intact(run_dir)
    way_on = "the run has no intact checkpoint to export"
    if best is not None:
        command = shell_command("voice-studio", "export", best.path, "-o", output)
        way_on = f"export its best intact checkpoint ({best.label()}): {command}"
    check_whole(path, way_on)


def _say_file(path: Path) -> None:
    """Warn, naming it, where the run of a checkpoint given outright measured it worse than the start voice (a file
    the user named needs no other word: an unreadable one then fails in one line)."""
    from trainer.evaluate.choice import file_warning

    if warning := file_warning(path):
        print(f"Exporting {path} (the checkpoint named).", file=sys.stderr)
        print(warning, file=sys.stderr)


def _named_output(args: argparse.Namespace, source: Path, config):
    """The voice file to write and its naming: in a folder ``-o``, the Home Assistant file name of the naming
    asked for (``--name``, ``--language``, ``--quality``) over the defaults (``trainer.checkpoints.naming``); a file
    ``-o`` is kept as named, and must agree with the naming flags where a flag is given.

    Raises:
        NamingError: a flag's value Home Assistant would not accept, or a file name the flags disagree with.
        ValueError: the output cannot be written (``engines.files.check_output_path``).
    """
    from dataclasses import replace

    from engines.files import check_output_path
    from engines.voice_naming import NamingError
    from trainer.checkpoints.naming import default_naming

    folder = args.output.is_dir() or str(args.output).endswith(("/", "\\"))
    default = default_naming(source, _naming_config(source, config), None if folder else args.output)
    asked = {k: v for k, v in (("name", args.name), ("language", args.language), ("quality", args.quality)) if v}
    naming = replace(default, **asked).checked()
    if folder:
        output = args.output / f"{naming.stem}.onnx"
    else:
        output = args.output
        if asked and output.name != f"{naming.stem}.onnx":
            flags = ", ".join(f"--{k}" for k in asked)
            verb = "names" if len(asked) == 1 else "name"
            raise NamingError("-o", f"{output}: {flags} {verb} the file {naming.stem}.onnx; give a folder for -o")
    return check_output_path(output, (".onnx",), "voice file"), naming


def _naming_notes(output: Path, naming) -> list[str]:
    """What is said after writing: a language whose names were left out, a file not named as Home Assistant
    expects."""
    from engines.voice_naming import parse_stem
    from trainer.checkpoints.naming import unknown_language_note

    notes = [unknown_language_note(naming)]
    if parse_stem(output.name.removesuffix(".onnx")) is None:
        expected = f"{naming.stem}.onnx"
        notes.append(f"note: {output.name} is not named as Home Assistant expects ({expected}); -o FOLDER names it so")
    return [note for note in notes if note]


def _naming_config(source: Path, config):
    """The config an export of ``source`` is named from: ``config`` where given, else the voice's or the
    checkpoint's own (looked up beside it without loading its weights)."""
    from engines.voice import load_voice

    if config is not None:
        return config
    if source.suffix.lower() == ".onnx":
        return load_voice(source).config
    from engines.torch.vits.checkpoint import read_checkpoint, voice_config_for

    return voice_config_for(read_checkpoint(source))


def _send(args: argparse.Namespace, onnx_path: Path) -> None:
    """Upload the written voice (``--send-to``) and copy it (``--copy-to``), saying where it went and the reminder
    to reload the Piper integration.

    Raises:
        HomeAssistantError: the server is unreachable, refused the voice, or the folder cannot take it.
    """
    if not (args.send_to or args.copy_to):
        return
    from trainer.checkpoints.home_assistant import RELOAD_REMINDER, copy_voice, send_voice

    if args.send_to:
        name = send_voice(onnx_path, args.send_to)
        print(f"sent {name} to {args.send_to}", file=sys.stderr)
    if args.copy_to:
        copied = copy_voice(onnx_path, args.copy_to)
        print(f"copied {copied.name} and its config to {args.copy_to}", file=sys.stderr)
    print(RELOAD_REMINDER, file=sys.stderr)
