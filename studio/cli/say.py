"""``voice-studio say``: speak text, streaming to the speakers or into a file (no Qt).

voice-studio say "Hello." -o hello.wav [--voice V] [--length-scale 1.2] ...   # or .flac, .ogg; -o - streams WAV
voice-studio say "Hello."          # plays as it streams
voice-studio say --engine remote --url http://host:5050 --model M --voice V "Hello."
voice-studio say 'It costs $49.95.' -o out.wav --timestamps out.srt   # or .vtt, .json: when each word is heard
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from studio.cli.arg_types import bounded, non_negative_float, positive_float
from studio.cli.serve import API_KEY_ENV

if TYPE_CHECKING:
    from engines.base import Engine, StreamStats, SynthesisOptions


REMOTE_OPTIONS = ("url", "api_key", "model", "format", "sse", "pcm_rate")
"""``say``'s options only ``--engine remote`` uses (their parser default is ``None``/``False``, so one given
to a local engine is pointed out)."""
SUBTYPE_WORDS = {"PCM_16": "16-bit", "VORBIS": "Vorbis"}
"""How ``say --help`` names the soundfile subtypes of ``engines.audio.FORMATS``."""
DEFAULT_MODEL, DEFAULT_FORMAT = "tts-1", "pcm"
"""``--model`` and ``--format`` when not given."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``say`` to the CLI's subparsers; engines, file and response formats come from their owners."""
    from engines import audio, registry
    from engines.remote.engine import RemoteEngine

    files = ", ".join(f"{ext} ({name} {SUBTYPE_WORDS.get(sub, sub)})" for ext, (name, sub) in audio.FORMATS.items())
    say = sub.add_parser(
        "say",
        help="speak text, streaming to the speakers or into an audio file (WAV, FLAC or Ogg Vorbis)",
        description=f"Speak text: played as it streams, or written with -o. A file's format is its extension: "
        f"{files}, written whole once synthesized. '-' (standard output), a named pipe or a device get a 16-bit WAV "
        "streamed as it is synthesized (--raw: headerless s16le PCM at the voice's sample_rate).",
    )
    say.add_argument("text", help="text to speak; '-' reads standard input")
    say.add_argument(
        "-o",
        "--output",
        type=Path,
        help=f"write an audio file ({', '.join(audio.FORMATS)}) instead of playing; '-' (stdout), a pipe or a "
        "device: WAV streamed as it is synthesized",
    )
    say.add_argument("--raw", action="store_true", help="with -o -, a pipe or a device: raw s16le PCM, no WAV header")
    say.add_argument(
        "--voice",
        help="voice name, NAME.onnx or a Piper .ckpt (default: the embedded voice); remote: the server's voice",
    )
    say.add_argument(
        "--engine",
        default="onnx",
        choices=(*registry.ENGINES, RemoteEngine.name),
        help="synthesis engine (default: onnx)",
    )
    say.add_argument("--device", default="auto", help="torch engine device: auto, cpu, cuda, cuda:N")
    say.add_argument("--speaker", help="speaker name or id of a multi-speaker voice (default: its default speaker)")
    pace = say.add_mutually_exclusive_group()
    pace.add_argument("--length-scale", type=positive_float, help="phoneme durations x this (> 1 is slower)")
    pace.add_argument(
        "--speed", type=positive_float, help="speaking rate, the studio's Speed (> 1 is faster): length_scale 1/speed"
    )
    say.add_argument("--noise-scale", type=non_negative_float, help="generator noise (0 is deterministic)")
    say.add_argument("--noise-w", type=non_negative_float, help="duration noise (0 is deterministic)")
    say.add_argument(
        "--sentence-silence", type=non_negative_float, default=0.0, help="extra seconds of silence between sentences"
    )
    say.add_argument(
        "--no-normalize",
        dest="normalize",
        action="store_false",
        help="read the text as written, as Piper does: no numbers, money, times, abbreviations or symbols said as "
        "words (see docs/text.md)",
    )
    say.add_argument(
        "--lexicon",
        type=Path,
        metavar="FILE",
        help="a pronunciation lexicon to add to the voice's own (VOICE.onnx.lexicon.txt, used always); its entries "
        "win (see docs/text.md)",
    )
    say.add_argument(
        "--timestamps",
        type=Path,
        metavar="FILE",
        help="also write when each word is heard: FILE.srt or FILE.vtt (a cue per word) or FILE.json (words and "
        "phonemes with start and end seconds); see docs/synthesize.md",
    )
    markup = say.add_mutually_exclusive_group()
    markup.add_argument(
        "--ssml",
        dest="ssml",
        action="store_const",
        const=True,
        help="read the text as SSML, with or without its speak root element (default: SSML only when the text "
        "starts with the speak tag; see docs/text.md)",
    )
    markup.add_argument(
        "--no-ssml",
        dest="ssml",
        action="store_const",
        const=False,
        help="read the text as plain text, markup as written (inline [pause:1s] and [rate:1.2] tags still count)",
    )
    say.add_argument("--quiet", action="store_true", help="print no timing")
    _add_remote_arguments(say)


def _add_remote_arguments(say: argparse.ArgumentParser) -> None:
    """``say``'s options for ``--engine remote``."""
    from engines.remote.settings import OPENAI_PCM_RATE, RESPONSE_FORMATS

    group = say.add_argument_group("remote engine (--engine remote)")
    group.add_argument("--url", help="base URL of an OpenAI-compatible speech server")
    group.add_argument("--api-key", help=f"bearer key (default: ${API_KEY_ENV}, then $OPENAI_API_KEY)")
    group.add_argument("--model", help=f"the server's model (default: {DEFAULT_MODEL}; ours: a voice name)")
    group.add_argument(
        "--format",
        choices=RESPONSE_FORMATS,
        help=f"audio format (default: {DEFAULT_FORMAT}; pcm and wav play as they stream; opus where offered)",
    )
    group.add_argument("--sse", action="store_true", help="ask for server-sent events (stream_format: sse)")
    group.add_argument(
        "--pcm-rate",
        type=bounded(int, 8000, 96000),
        help=f"Hz of pcm when the server does not say (8000-96000; default: {OPENAI_PCM_RATE})",
    )


def run(args: argparse.Namespace) -> int:
    """Speak ``args.text``: into ``-o`` (a file written at the end, or a stream as it comes) or to the speakers.

    Raises:
        VoiceError, EngineError: no such voice or engine; NoOutputDevice: nothing to play on;
        PlaybackStopped: the device failed while playing (after how many seconds, and why).
        ValueError: a bad option or output path. MarkupError: malformed SSML or an inline tag out of range.
    """
    from engines import audio, audio_out
    from engines.base import StreamStats
    from engines.cleaning import clean_text
    from engines.frontend.markup import parse_markup

    text = sys.stdin.read() if args.text == "-" else args.text
    parse_markup(clean_text(text, ssml=args.ssml), args.ssml)  # malformed markup: one line before any work
    if args.raw and args.output is None:
        raise ValueError("--raw writes raw PCM into -o - (standard output), a pipe or a device; give one")
    streaming = args.output is not None and audio_out.check_output(args.output, args.raw)  # before any work
    timeline = _timeline(args.timestamps)
    started = time.perf_counter()
    if args.engine == "remote":  # the server cleans the text and resolves the speaker
        engine, speaker = remote_engine(args), args.speaker
    else:
        engine, speaker = _local_engine(args)
        text = clean_text(text, ssml=args.ssml)
    load_s = time.perf_counter() - started
    options = _options(args, speaker)
    if args.output is None:
        _check_output_device()
    chunks, stats, cancel, player = [], StreamStats(), threading.Event(), None
    stream = audio_out.StreamWriter(args.output, args.raw) if streaming else None
    try:
        for chunk in engine.synthesize(text, options, cancel):
            stats.add(chunk)
            if timeline is not None:
                timeline.add(chunk)
            if stream is not None:
                stream.write(chunk.audio, chunk.sample_rate)
            elif args.output is None:
                player = player or _open_player(chunk.sample_rate)
                player.write(chunk.audio)
                player.check()  # the device failed: nothing more will be heard, so synthesis stops too
            else:
                chunks.append(chunk.audio)
    except BaseException:  # Ctrl+C, or the device failed
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
        player.check()
    if stats.audio_s == 0:  # a refusal, as for any bad input
        print("voice-studio: error: nothing to say: the text has no speakable words", file=sys.stderr)
        return 2
    if args.output is not None and not streaming:
        audio.write_audio(args.output, audio.concat(chunks), engine.sample_rate)
    if timeline is not None:
        _write_timestamps(args.timestamps, timeline)
    _report(args, engine, stats, load_s)
    return 0


def _timeline(path: Path | None):
    """A ``Timeline`` to gather the timestamps ``--timestamps`` asks for (its path checked before any work), or
    ``None`` without it.

    Raises:
        ValueError: not a ``.srt``, ``.vtt`` or ``.json`` path, or one that cannot be written.
    """
    if path is None:
        return None
    from engines.timing.formats import check_timestamps_path
    from engines.timing.timeline import Timeline

    check_timestamps_path(path)
    return Timeline()


def _write_timestamps(path: Path, timeline) -> None:
    """Write the timestamps file; say so where the engine gave no timings (the file then has no words)."""
    from engines.timing.formats import write_timestamps

    if not timeline.timings:
        print(
            f"voice-studio: note: {path}: no timestamps: the engine told no durations (a server that is not "
            "Voice Studio's, or a voice whose graph runs whole)",
            file=sys.stderr,
        )
    write_timestamps(path, timeline)


def _options(args: argparse.Namespace, speaker: int | str | None) -> SynthesisOptions:
    """The ``SynthesisOptions`` of ``say``'s arguments, for ``speaker`` (an id, a name for a remote, or None)."""
    from engines.base import SynthesisOptions

    return SynthesisOptions(
        speaker=speaker,
        length_scale=1.0 / args.speed if getattr(args, "speed", None) else args.length_scale,
        noise_scale=args.noise_scale,
        noise_w=args.noise_w,
        sentence_silence=args.sentence_silence,
        normalize=args.normalize,
        timestamps=getattr(args, "timestamps", None) is not None,
        ssml=args.ssml,
    )


def _check_output_device() -> None:
    """Fail before synthesizing when nothing can play.

    Raises:
        NoOutputDevice: no PortAudio library or no output device (the message says to give -o instead).
    """
    from engines.output_device import NoOutputDevice, output_available

    ok, reason = output_available()
    if not ok:
        raise NoOutputDevice(f"Cannot play audio: {reason}. Give -o FILE.wav to write a file instead.")


def _report(args: argparse.Namespace, engine: Engine, stats: StreamStats, load_s: float) -> None:
    """The engine's notice, and (unless ``--quiet``) seconds of audio, the engine's load time (``load_s``; a remote
    server: its answer time), time to first audio (from the start of synthesis, after the load) and RTF, on
    stderr."""
    notice = getattr(engine, "notice", "")  # what the remote engine noticed (e.g. a body in another format)
    if notice:
        print(f"voice-studio: note: {notice}", file=sys.stderr)
    if args.quiet:
        return
    from studio.speaking import ENGINE_LABELS

    answered = getattr(engine, "answered_s", None)
    if answered is not None:
        waited = f"server answered in {answered:.3f} s"
    else:
        waited = f"{ENGINE_LABELS.get(args.engine, args.engine)} engine loaded in {load_s:.2f} s"
    print(
        f"{stats.audio_s:.2f} s of audio; {waited}; time to first audio {stats.first_audio_s:.3f} s; "
        f"RTF {stats.rtf:.3f}",
        file=sys.stderr,
    )


def _check_run_checkpoint(voice: str | None) -> None:
    """Refuse a damaged checkpoint of a run in one line naming the run's best intact one, as ``export`` does
    (``trainer.checkpoints.damage``); anything else is left to loading, which names its own faults.

    Raises:
        DamagedCheckpoint: ``voice`` is one of a run's checkpoints and is damaged.
    """
    if not voice or not voice.lower().endswith(".ckpt") or not Path(voice).is_file():
        return
    from engines.shell_command import shell_command
    from trainer.checkpoints.damage import best_intact, check_whole
    from trainer.run.document import run_of

    run_dir = run_of(Path(voice))
    if run_dir is None:
        return
    best = best_intact(run_dir)
    way_on = "the run has no intact checkpoint to speak with"
    if best is not None and best.path != Path(voice):
        way_on = f"speak with its best intact checkpoint ({best.label()}): give --voice {shell_command(best.path)}"
    check_whole(Path(voice), way_on)


def _local_engine(args: argparse.Namespace) -> tuple[object, int | None]:
    """The engine for ``--engine``/``--voice`` and the speaker id ``--speaker`` names (``engines.names``).

    Raises:
        VoiceError: no such voice. ValueError: no such speaker of it (``UnknownName``).
    """
    from engines import names, registry
    from engines.frontend.lexicon import read_lexicon
    from engines.onnx.engine import use_shared_thread_pool

    _check_run_checkpoint(args.voice)
    use_shared_thread_pool()
    voice = registry.find_voice(args.voice)
    speaker = names.find_speaker(voice, args.speaker)
    if args.engine != "torch" and args.device != "auto":
        print(
            f"voice-studio: note: --device is for the torch engine; the {args.engine} engine runs on the CPU",
            file=sys.stderr,
        )
    unused = ["--" + name.replace("_", "-") for name in REMOTE_OPTIONS if getattr(args, name) not in (None, False)]
    if unused:
        print(f"voice-studio: note: {', '.join(unused)}: only for --engine remote; not used", file=sys.stderr)
    kwargs = {"device": args.device} if args.engine == "torch" else {}
    engine = registry.create_engine(args.engine, voice, **kwargs)
    if args.lexicon is not None:  # the voice's own lexicon is the engine's already
        engine.added_lexicon = read_lexicon(args.lexicon)
    return engine, speaker


def _open_player(sample_rate: int):
    """A ``Playback`` at ``sample_rate`` Hz; a device that plays at its own rate is said once, on stderr.

    Raises:
        NoOutputDevice: nothing to play on, or it takes no rate.
    """
    from engines.playback import Playback

    player = Playback(sample_rate)
    if player.note:
        print(f"voice-studio: note: {player.note}", file=sys.stderr)
    return player


def remote_engine(args: argparse.Namespace):
    """A ``RemoteEngine`` from ``say``'s arguments (``--voice`` is the server's voice).

    Raises:
        ValueError: no ``--url``, or a bad setting.
    """
    from engines.remote.engine import RemoteEngine
    from engines.remote.settings import OPENAI_PCM_RATE, RemoteSettings

    if not args.url:
        raise ValueError("--engine remote needs --url (the server's address)")
    if args.lexicon is not None:
        raise ValueError("--lexicon is for local engines; the server applies its voice's own lexicon")
    if args.device != "auto":
        print("voice-studio: note: --device is for the torch engine; the server chooses its own", file=sys.stderr)
    key = args.api_key or os.environ.get(API_KEY_ENV) or os.environ.get("OPENAI_API_KEY") or None
    settings = RemoteSettings(
        url=args.url,
        api_key=key,
        model=args.model or DEFAULT_MODEL,
        voice=args.voice or "default",
        response_format=args.format or DEFAULT_FORMAT,
        stream_format="sse" if args.sse else None,
        sample_rate=args.pcm_rate or OPENAI_PCM_RATE,
        # Piper-only options ask for Piper's settings (an OpenAI server refuses unknown fields, ours takes them)
        piper_params=args.noise_scale is not None
        or args.noise_w is not None
        or bool(args.sentence_silence)
        or not args.normalize
        or args.timestamps is not None
        or args.ssml is not None,
    )
    return RemoteEngine(settings)
