"""``voice-studio export``'s Home Assistant part (no Qt): the voice's name, language and quality
(``engines.voice_naming``; defaults: ``trainer.checkpoints.naming``), the file they name in a folder ``-o``, and
``--send-to`` / ``--copy-to`` (``trainer.checkpoints.home_assistant``)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def add_naming(export: argparse.ArgumentParser) -> None:
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


def named_output(args: argparse.Namespace, source: Path, config):
    """The voice file to write and its naming: in a folder ``-o``, the Home Assistant file name of the naming
    asked for (``--name``, ``--language``, ``--quality``) over the defaults (``trainer.checkpoints.naming``); a file
    ``-o`` is kept as named, and must agree with the naming flags where a flag is given.

    Raises:
        NamingError: a flag's value Home Assistant would not accept, or a file name the flags disagree with.
        ValueError: the output cannot be written (``engines.files.check_output_path``), or a folder is meant (a
            trailing ``/``, or no ``.onnx`` extension) that does not exist.
    """
    from dataclasses import replace

    from engines.files import check_output_path
    from engines.voice_naming import NamingError
    from trainer.checkpoints.naming import default_naming

    given = Path(args.output)
    folder = _is_folder(str(args.output))
    default = default_naming(source, naming_config(source, config), None if folder else given, language=args.language)
    given_flags = (("name", args.name), ("language", args.language), ("quality", args.quality))
    asked = {k: v for k, v in given_flags if v is not None}  # "" too: refused by checked(), not dropped
    naming = replace(default, **asked).checked()
    if folder:
        output = given / f"{naming.stem}.onnx"
    else:
        output = given
        if asked and output.name != f"{naming.stem}.onnx":
            flags = ", ".join(f"--{k}" for k in asked)
            verb = "names" if len(asked) == 1 else "name"
            raise NamingError("-o", f"{output}: {flags} {verb} the file {naming.stem}.onnx; give a folder for -o")
    return check_output_path(output, (".onnx",), "voice file"), naming


def _is_folder(output: str) -> bool:
    """Whether ``-o output`` means a folder: an existing folder, or a path with a trailing separator.

    Raises:
        ValueError: a folder is meant (a trailing separator, or a name without an extension) that does not exist.
    """
    path = Path(output)
    if path.is_dir():
        return True
    if output.endswith(("/", os.sep)) or (not path.suffix and not path.exists()):
        raise ValueError(f"-o {output}: no such folder; make it first, or give a file NAME.onnx")
    return False


def naming_notes(output: Path, naming) -> list[str]:
    """What is said after writing: a language whose names were left out, a file not named as Home Assistant
    expects."""
    from engines.voice_naming import parse_stem
    from trainer.checkpoints.naming import unknown_language_note

    notes = [unknown_language_note(naming)]
    if parse_stem(output.name.removesuffix(".onnx")) is None:
        expected = f"{naming.stem}.onnx"
        notes.append(f"note: {output.name} is not named as Home Assistant expects ({expected}); -o FOLDER names it so")
    return [note for note in notes if note]


def naming_config(source: Path, config):
    """The config an export of ``source`` is named from: ``config`` where given, else the voice's or the
    checkpoint's own (looked up beside it without loading its weights)."""
    from engines.voice import load_voice

    if config is not None:
        return config
    if source.suffix.lower() == ".onnx":
        return load_voice(source).config
    from engines.torch.vits.checkpoint import read_checkpoint, voice_config_for

    return voice_config_for(read_checkpoint(source))


def send(args: argparse.Namespace, onnx_path: Path) -> None:
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
