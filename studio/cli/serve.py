"""``voice-studio serve``: the studio's voices as an OpenAI-compatible speech server (no Qt).

voice-studio serve                               # 127.0.0.1:5050, the embedded voice
voice-studio serve --voice my.onnx --voice joe   # several voices; the first is the default
voice-studio serve --host 0.0.0.0 --api-key KEY  # reachable from other machines: a key is required
voice-studio serve --voice trio.onnx --map-voice alloy=ana --map-voice echo=2   # OpenAI voice names -> speakers
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from studio.cli.arg_types import non_negative_int, port, positive_int

if TYPE_CHECKING:
    from engines.voice import Voice

API_KEY_ENV = "VOICE_STUDIO_API_KEY"
"""Environment variable read for ``--api-key`` (keeps the key out of the process list)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` to the CLI's subparsers; its engines are the registry's."""
    from engines import registry
    from engines.remote.settings import OPENAI_PCM_RATE

    serve = sub.add_parser(
        "serve",
        help="serve voices over OpenAI's /v1/audio/speech API",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (anything but loopback needs a key)")
    serve.add_argument("--port", type=port, default=5050, help="port, 0-65535 (0 picks a free one)")
    serve.add_argument("--api-key", help=f"require 'Authorization: Bearer KEY' (or set ${API_KEY_ENV})")
    serve.add_argument("--voice", action="append", help="voice name, NAME.onnx or .ckpt; repeat for several")
    serve.add_argument(
        "--engine",
        action="append",
        choices=tuple(registry.ENGINES),
        help="synthesis engine (onnx if none is given); repeat to serve both: models ENGINE/VOICE pick one",
    )
    serve.add_argument("--device", default="auto", help="torch engine device: auto, cpu, cuda, cuda:N")
    serve.add_argument("--workers", type=positive_int, default=2, help="requests synthesized at once (at least 1)")
    serve.add_argument(
        "--queue", type=non_negative_int, default=16, help="requests that may wait (0: none); more are answered 503"
    )
    serve.add_argument(
        "--max-chars",
        type=positive_int,
        default=20_000,
        help="longest input accepted (longer: 413); any input is synthesized in pieces of at most 400 phoneme_ids, "
        "so this bounds a request's time and whole-response size, not the engine's memory",
    )
    serve.add_argument(
        "--map-voice",
        action="append",
        metavar="NAME=SPEAKER",
        help="voice field NAME (e.g. OpenAI's alloy) means SPEAKER (name or id) of multi-speaker voices; "
        "repeat for several (unmapped OpenAI voice names mean the default speaker)",
    )
    serve.add_argument(
        "--pcm-rate",
        type=_pcm_rate,
        default=OPENAI_PCM_RATE,
        help="Hz of pcm responses (OpenAI's pcm is 24000); 'native' sends each voice's own rate",
    )
    serve.add_argument("--no-warm-up", action="store_true", help="skip speaking a word with each voice at start")


def run(args: argparse.Namespace) -> int:
    """Load the voices, warm their engines up, and serve until Ctrl+C."""
    from engines.server.app import serve
    from engines.server.service import ServiceConfig, SpeechService

    engines = tuple(dict.fromkeys(args.engine or ["onnx"]))
    if "torch" not in engines and args.device != "auto":  # as `say` does: a setting not applied is said
        note = f"voice-studio: note: --device is for the torch engine; {', '.join(engines)} runs on the CPU"
        print(note, file=sys.stderr)
    if "onnx" in engines:
        from engines.onnx.engine import use_shared_thread_pool

        use_shared_thread_pool()  # concurrent requests share one pool of threads instead of oversubscribing
    voices = usable_voices(args.voice or [None])
    names = [v.name for v in voices]
    if len(set(names)) != len(names):
        raise ValueError(f"two voices share a name: {', '.join(names)}")
    config = ServiceConfig(
        voices,
        engines,
        {"torch": {"device": args.device}},
        args.workers,
        args.queue,
        args.max_chars,
        voice_map=voice_map(args.map_voice or []),
        pcm_rate=args.pcm_rate,
    )
    service = SpeechService(config)
    if not args.no_warm_up:
        service.warm_up()

    def ready(url: str) -> None:
        engine_text = f"engine{'s' if len(engines) > 1 else ''} {', '.join(engines)}"
        workers = f"{args.workers} worker{'s' if args.workers != 1 else ''}"
        print(f"serving {', '.join(names)} on {url} ({engine_text}, {workers})", flush=True)

    serve(service, args.host, args.port, args.api_key or os.environ.get(API_KEY_ENV) or None, ready)
    return 0


def usable_voices(specs: list[str | None]) -> list[Voice]:
    """The voices ``--voice`` names (``None``: the default), each checked as loading it does
    (``engines.registry.check_voice``); one that fails is said on stderr in one line and left out, so the
    server starts with the others.

    Raises:
        VoiceError: a name or file that is no voice, or the one voice given failed its check.
        ValueError: each of several voices failed its check (each said on stderr first).
        EngineError: what no voice can get past (piper-tts's espeak-ng data missing).
    """
    from engines import registry
    from engines.base import VoiceError

    voices, refused = [], []
    for spec in specs:
        voice = registry.find_voice(spec)
        try:
            voices.append(registry.check_voice(voice))
        except VoiceError as exc:
            refused.append((voice.name, exc))
    if not voices and len(refused) == 1:
        raise refused[0][1]
    for name, reason in refused:
        print(f"voice-studio: not serving {name}: {reason}", file=sys.stderr)
    if not voices:
        raise ValueError("none of the voices given can be served (each one's reason is said above)")
    return voices


def _pcm_rate(value: str) -> int | None:
    if value == "native":
        return None
    if not value.isdigit() or not 8000 <= int(value) <= 96000:
        raise argparse.ArgumentTypeError(f"'{value}': give 'native' or a rate in Hz from 8000 to 96000")
    return int(value)


def voice_map(items: list[str]) -> dict[str, str]:
    """``--map-voice NAME=SPEAKER`` options as a dict.

    Raises:
        ValueError: an item without ``=`` or with an empty side, or a NAME given twice.
    """
    mapping: dict[str, str] = {}
    for item in items:
        name, _, speaker = (part.strip() for part in item.partition("="))
        if not name or not speaker:
            raise ValueError(f"--map-voice '{item}': expected NAME=SPEAKER, e.g. alloy=1")
        if name in mapping:
            raise ValueError(f"--map-voice: '{name}' is mapped twice")
        mapping[name] = speaker
    return mapping
