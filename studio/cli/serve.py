"""``voice-studio serve``: the studio's voices as an OpenAI-compatible speech server and a Wyoming server (no Qt).

voice-studio serve                               # 127.0.0.1:5050, the embedded voice
voice-studio serve --voice my.onnx --voice joe   # several voices; the first is the default
voice-studio serve --host 0.0.0.0 --api-key KEY  # reachable from other machines: a key is required
voice-studio serve --voice trio.onnx --map-voice alloy=ana --map-voice echo=2   # OpenAI voice names -> speakers
voice-studio serve --wyoming                     # and Wyoming on tcp://0.0.0.0:10200 (Home Assistant), one process
voice-studio serve --wyoming --no-http --zeroconf   # Wyoming alone, announced for Home Assistant's discovery
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from studio.cli.arg_types import bounded, non_negative_int, port, positive_int

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
        help="serve voices over OpenAI's /v1/audio/speech API and Wyoming (Home Assistant)",
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
    _add_wyoming_arguments(serve)
    _add_default_settings(serve)


def _add_wyoming_arguments(serve: argparse.ArgumentParser) -> None:
    """``--wyoming [URI]``, ``--no-http`` and ``--zeroconf [NAME]``."""
    from engines.server.wyoming_listener import DEFAULT_URI, ZEROCONF_NAME

    serve.add_argument(
        "--wyoming",
        nargs="?",
        const=DEFAULT_URI,
        metavar="URI",
        help=f"also serve the voices over Wyoming (Home Assistant) on URI, tcp://HOST:PORT or unix://PATH "
        f"({DEFAULT_URI} when URI is left out; no authentication: anyone who reaches it may use the voices)",
    )
    serve.add_argument("--no-http", action="store_true", help="with --wyoming: serve Wyoming only, no HTTP API")
    serve.add_argument(
        "--zeroconf",
        nargs="?",
        const=ZEROCONF_NAME,
        metavar="NAME",
        help=f"announce the Wyoming server on the network for Home Assistant's discovery (as NAME, "
        f"{ZEROCONF_NAME} when left out; needs the zeroconf extra)",
    )


def _add_default_settings(serve: argparse.ArgumentParser) -> None:
    """Synthesis settings for requests that give none (every Wyoming request; HTTP requests may give their own)."""
    given = "for requests that do not give it (Wyoming requests never do); default: the voice's own"
    serve.add_argument("--noise-scale", type=bounded(float, 0, 10), help=f"generator noise, 0-10, {given}")
    serve.add_argument("--noise-w", type=bounded(float, 0, 10), help=f"duration noise, 0-10, {given}")
    serve.add_argument(
        "--length-scale",
        type=bounded(float, 0.1, 10),
        help=f"phoneme durations x this, 0.1-10 (> 1 is slower), {given}",
    )
    serve.add_argument(
        "--sentence-silence",
        type=bounded(float, 0, 10),
        default=0.0,
        help="extra seconds of silence between sentences, 0-10, for requests that do not give it",
    )


def run(args: argparse.Namespace) -> int:
    """Load the voices, warm their engines up, and serve until Ctrl+C."""
    _check_wyoming_arguments(args)
    listener = _bind_wyoming(args.wyoming)  # before the voices load: a taken port is said at once
    engines = tuple(dict.fromkeys(args.engine or ["onnx"]))
    if "torch" not in engines and args.device != "auto":  # as `say` does: a setting not applied is said
        note = f"voice-studio: note: --device is for the torch engine; {', '.join(engines)} runs on the CPU"
        print(note, file=sys.stderr)
    if "onnx" in engines:
        from engines.onnx.engine import use_shared_thread_pool

        use_shared_thread_pool()  # concurrent requests share one pool of threads instead of oversubscribing
    service = _service(args, engines)
    if not args.no_warm_up:
        service.warm_up()
    engine_text = f"engine{'s' if len(engines) > 1 else ''} {', '.join(engines)}"
    workers = f"{args.workers} worker{'s' if args.workers != 1 else ''}"
    what, details = f"serving {', '.join(service.voices)} on", f"({engine_text}, {workers})"
    if listener is not None:
        return _serve_with_wyoming(args, service, listener, details, what)
    from engines.server.app import serve

    ready = lambda url: print(f"{what} {url} {details}", flush=True)  # noqa: E731
    serve(service, args.host, args.port, args.api_key or os.environ.get(API_KEY_ENV) or None, ready)
    return 0


def _service(args: argparse.Namespace, engines: tuple[str, ...]):
    """The speech service of the voices and settings ``args`` give.

    Raises:
        ValueError: two voices share a name (and what ``usable_voices`` and ``SpeechService`` raise).
    """
    from engines.server.service import ServiceConfig, SpeechService

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
        noise_scale=args.noise_scale,
        noise_w=args.noise_w,
        length_scale=args.length_scale,
        sentence_silence=args.sentence_silence,
    )
    return SpeechService(config)


def _check_wyoming_arguments(args: argparse.Namespace) -> None:
    """``--no-http`` and ``--zeroconf`` only with ``--wyoming``; ``--zeroconf`` only with its extra.

    Raises:
        ValueError: one of them without ``--wyoming``, or ``--zeroconf`` with a ``unix://`` address.
        ExtraMissing: ``--zeroconf`` without the zeroconf package, naming the extra to install.
    """
    from engines import extras

    for flag, given in (("--no-http", args.no_http), ("--zeroconf", args.zeroconf is not None)):
        if given and not args.wyoming:
            raise ValueError(f"{flag} is about the Wyoming server: give --wyoming too")
    if args.zeroconf is not None and args.wyoming.startswith("unix:"):
        raise ValueError("--zeroconf announces a tcp:// address on the network: give --wyoming tcp://HOST:PORT")
    if args.zeroconf is not None:
        extras.require("zeroconf", "--zeroconf")


def _bind_wyoming(uri: str | None):
    """The bound ``--wyoming`` address (``engines.server.wyoming_listener.bind``), or ``None`` without the flag.

    Raises:
        ValueError: a URI that is not ``tcp://HOST:PORT`` or ``unix://PATH``.
        OSError: the address is taken or cannot be bound.
    """
    from engines.server.wyoming_listener import bind

    return bind(uri) if uri else None


def _serve_with_wyoming(args: argparse.Namespace, service, listener, details: str, what: str) -> int:
    """Serve Wyoming on ``args.wyoming``, alone (``--no-http``) or beside the HTTP API in one event loop."""
    from engines.imports import importing
    from engines.server.app import serve

    with importing("engines.server.wyoming_server"):
        from engines.server.wyoming_server import run_wyoming, serve_wyoming
    wyoming = f"{listener.uri} (Wyoming)"
    if args.no_http:
        serve_wyoming(service, listener, args.zeroconf, lambda: print(f"{what} {wyoming} {details}", flush=True))
        return 0
    serve(
        service,
        args.host,
        args.port,
        args.api_key or os.environ.get(API_KEY_ENV) or None,
        lambda url: print(f"{what} {url} and on {wyoming} {details}", flush=True),
        alongside=lambda: run_wyoming(service, listener, args.zeroconf),
    )
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
