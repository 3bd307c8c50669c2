"""The ``voice-studio`` command: the app without arguments, the CLI with a subcommand.

    voice-studio                       # the studio window
    voice-studio say "Hello." -o hello.wav [--voice V] [--length-scale 1.2] ...
    voice-studio say "Hello."          # plays as it streams
    voice-studio say --engine remote --url http://host:5050 --model M --voice V "Hello."
    voice-studio serve [--host H --port P --api-key KEY --voice V ...]
    voice-studio voices [--json]

Nothing here imports Qt unless the window is asked for.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

from engines.base import EngineError, StreamStats, SynthesisOptions, VoiceError
from engines.cleaning import clean_text
from studio.cli.dataset import add_dataset_parser, cmd_dataset
from studio.cli.serve import add_remote_arguments, add_serve_parser, cmd_serve, remote_engine
from studio.cli.train import add_train_parser, cmd_train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="voice-studio", description="Make and use Piper voices.")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("gui", help="open the studio window (the default)")

    say = sub.add_parser("say", help="speak text, streaming to the speakers or into a WAV file")
    say.add_argument("text", help="text to speak; '-' reads standard input")
    say.add_argument(
        "-o",
        "--output",
        type=Path,
        help="write an audio file (.wav, .flac, .ogg) instead of playing; '-' (stdout), a pipe or a device: "
        "WAV streamed as it is synthesized",
    )
    say.add_argument("--raw", action="store_true", help="with -o -, a pipe or a device: raw s16le PCM, no WAV header")
    say.add_argument(
        "--voice",
        help="voice name, NAME.onnx or a Piper .ckpt (default: the embedded voice); remote: the server's voice",
    )
    say.add_argument(
        "--engine", default="onnx", choices=["onnx", "torch", "remote"], help="synthesis engine (default: onnx)"
    )
    say.add_argument("--device", default="auto", help="torch engine device: auto, cpu, cuda, cuda:N")
    say.add_argument("--speaker", help="speaker name or id of a multi-speaker voice (default: its default speaker)")
    say.add_argument("--length-scale", type=float, help="phoneme durations x this (> 1 is slower)")
    say.add_argument("--noise-scale", type=float, help="generator noise (0 is deterministic)")
    say.add_argument("--noise-w", type=float, help="duration noise (0 is deterministic)")
    say.add_argument("--sentence-silence", type=float, default=0.0, help="extra seconds of silence between sentences")
    say.add_argument("--quiet", action="store_true", help="print no timing")
    add_remote_arguments(say)

    export = sub.add_parser("export", help="export a Piper checkpoint (or a voice) to a Piper ONNX voice")
    export.add_argument(
        "checkpoint",
        type=Path,
        help="a Piper .ckpt, an .onnx voice or a voice name (joe) to re-export, or a training run folder "
        "(its best-ranked checkpoint)",
    )
    export.add_argument("-o", "--output", type=Path, required=True, help="NAME.onnx (NAME.onnx.json is written too)")
    export.add_argument("--config", type=Path, help="a Piper config.json for the phoneme map (default: looked up)")
    export.add_argument("--espeak-voice", help="espeak-ng voice name to record in the config")

    add_dataset_parser(sub)
    add_train_parser(sub)
    add_serve_parser(sub)

    voices = sub.add_parser("voices", help="list the voices the studio finds")
    voices.add_argument("--json", action="store_true", help="machine-readable output")
    voices.add_argument("paths", nargs="*", type=Path, help="extra voice files or folders")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``voice-studio`` command; returns the exit status."""
    args = build_parser().parse_args(argv)
    if args.command in (None, "gui"):
        from studio.app import main as gui_main

        return gui_main()
    try:
        commands = {
            "say": cmd_say,
            "voices": cmd_voices,
            "export": cmd_export,
            "dataset": cmd_dataset,
            "train": cmd_train,
            "serve": cmd_serve,
        }
        return commands[args.command](args)
    except BrokenPipeError as exc:  # the reader of our output went away (`... | head`)
        _detach_stdout()
        ours = exc.errno is None  # raised with our own message (engines.audio_out)
        print(f"voice-studio: error: {exc if ours else 'standard output: the reader closed it'}", file=sys.stderr)
        return 2
    except (VoiceError, EngineError, ValueError, OSError) as exc:
        print(f"voice-studio: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def _detach_stdout() -> None:
    """Point standard output at the null device, so the interpreter's last flush into a closed pipe is silent."""
    import os

    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def cmd_say(args: argparse.Namespace) -> int:
    from engines import audio, audio_out

    text = sys.stdin.read() if args.text == "-" else args.text
    if args.raw and args.output is None:
        raise ValueError("--raw writes raw PCM into -o - (standard output), a pipe or a device; give one")
    streaming = args.output is not None and audio_out.check_output(args.output, args.raw)  # before any work
    if args.engine == "remote":  # the server cleans the text and resolves the speaker
        engine, speaker = remote_engine(args), args.speaker
    else:
        engine, speaker = _local_engine(args)
        text = clean_text(text)
    options = SynthesisOptions(
        speaker=speaker,
        length_scale=args.length_scale,
        noise_scale=args.noise_scale,
        noise_w=args.noise_w,
        sentence_silence=args.sentence_silence,
    )
    if args.output is None:
        from engines.playback import NoOutputDevice, output_available

        ok, reason = output_available()
        if not ok:  # fail before synthesizing
            raise NoOutputDevice(f"Cannot play audio: {reason}. Give -o FILE.wav to write a file instead.")
    chunks, stats, cancel, player = [], StreamStats(), threading.Event(), None
    stream = audio_out.StreamWriter(args.output, args.raw) if streaming else None
    try:
        for chunk in engine.synthesize(text, options, cancel):
            stats.add(chunk)
            if stream is not None:
                stream.write(chunk.audio, chunk.sample_rate)
            elif args.output is None:
                player = player or _open_player(chunk.sample_rate)
                player.write(chunk.audio)
            else:
                chunks.append(chunk.audio)
    except KeyboardInterrupt:
        cancel.set()
        if player is not None:
            player.abort()
        raise
    finally:
        if stream is not None:
            stream.close()
    if player is not None:
        player.close()
        player.wait()
    if stats.audio_s == 0:
        print("voice-studio: error: nothing to say: the text has no speakable words", file=sys.stderr)
        return 1
    if args.output is not None and not streaming:
        audio.write_audio(args.output, audio.concat(chunks), engine.sample_rate)
    if getattr(engine, "notice", ""):
        print(f"voice-studio: note: {engine.notice}", file=sys.stderr)
    if not args.quiet:
        print(
            f"{stats.audio_s:.2f} s of audio; time to first audio {stats.first_audio_s:.3f} s; RTF {stats.rtf:.3f}",
            file=sys.stderr,
        )
    return 0


def _local_engine(args: argparse.Namespace) -> tuple[object, int | None]:
    """The engine for ``--engine``/``--voice`` and the speaker id ``--speaker`` names (``engines.names``).

    Raises:
        VoiceError: no such voice. ValueError: no such speaker of it (``UnknownName``).
    """
    from engines import names, registry
    from engines.onnx.engine import use_shared_thread_pool

    use_shared_thread_pool()
    voice = registry.find_voice(args.voice)
    speaker = names.find_speaker(voice, args.speaker)
    if args.engine != "torch" and args.device != "auto":
        print(
            f"voice-studio: note: --device is for the torch engine; the {args.engine} engine runs on the CPU",
            file=sys.stderr,
        )
    kwargs = {"device": args.device} if args.engine == "torch" else {}
    return registry.create_engine(args.engine, voice, **kwargs), speaker


def _open_player(sample_rate: int):
    from engines.playback import Playback

    return Playback(sample_rate)


def cmd_export(args: argparse.Namespace) -> int:
    from engines import registry
    from engines.files import check_output_path
    from engines.voice import load_config
    from trainer.export import export_voice

    check_output_path(args.output, (".onnx",), "voice file")
    config = load_config(args.config) if args.config else None
    source = args.checkpoint
    if registry.is_voice_name(source):  # a voice name, resolved as say --voice and train --from resolve it
        voice = registry.find_voice(str(source))
        source, config = voice.model_path, config or voice.config
    elif source.is_dir():  # a run folder: the checkpoint it ranks best, as the Train page's Export voice
        from trainer.checkpoints import CheckpointError, best_checkpoint

        try:
            best = best_checkpoint(source)
        except CheckpointError as exc:
            raise ValueError(str(exc)) from None
        print(f"exporting the best checkpoint {best.describe()}", file=sys.stderr)
        source = best.path
    onnx_path, json_path = export_voice(source, args.output, config, args.espeak_voice)
    print(f"wrote {onnx_path} and {json_path}", file=sys.stderr)
    return 0


def cmd_voices(args: argparse.Namespace) -> int:
    from engines import registry

    found = registry.discover(args.paths, check_models=True)
    rows = [
        {
            "name": v.name,
            "origin": v.origin,
            "sample_rate": v.sample_rate,
            "speakers": v.config.num_speakers,
            "language": v.config.espeak_voice,
            "model": str(v.model_path),
        }
        for v in found.voices
    ]
    if args.json:
        print(json.dumps({"voices": rows, "errors": [str(e) for e in found.errors]}, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            print(f"{row['name']}\t{row['origin']}\t{row['sample_rate']} Hz\t{row['language']}\t{row['model']}")
        for error in found.errors:
            print(f"skipped: {error}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
