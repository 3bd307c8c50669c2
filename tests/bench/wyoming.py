"""Benchmark: our Wyoming server (``voice-studio serve --wyoming``) against wyoming-piper itself, side by side.

Both serve the same voice (en_US-joe-medium, joe's own files: wyoming-piper runs on the folder they are in) on
127.0.0.1 with the voice's own settings, and both are asked as Home Assistant asks when an LLM answers: the
``wyoming`` package's client sends ``synthesize-start``, the answer in chunks of ``--words`` words
(``--delay`` seconds apart, as the tokens come; 0: all at once), the whole text again as ``synthesize`` (as Home
Assistant does), then ``synthesize-stop``, and reads the audio while it writes.

Time to first audio (TTFA): seconds from the first text chunk sent to the first ``audio-chunk`` in hand. RTF:
seconds from the first chunk sent to ``synthesize-stopped``, over the seconds of audio received (the text's own
arrival included: the same on both sides). The sides alternate, ``--runs`` times after one warm-up request each
(wyoming-piper loads its voice at the first request); the table gives medians and ours/wyoming-piper's ratios.

Needs wyoming-piper (``pip install wyoming-piper``; the dev extra has it).
Usage: ``.venv/bin/python tests/bench/wyoming.py [--runs 5] [--words 3] [--delay 0 0.05]``
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# run as a script, this file's folder comes first on the path, where this file would hide the wyoming package
sys.path[:] = [str(ROOT)] + [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]

ANSWER = (
    "The weather in Paris today is mild, with a high of eighteen degrees and a light breeze from the west. "
    "Light rain is expected in the afternoon, so you may want to take an umbrella if you go out. "
    "Tomorrow looks brighter, with sunshine through most of the day and a high of twenty one degrees."
)
"""An assistant's answer of three sentences (about 15 s of speech)."""


@dataclass
class Heard:
    """One request's timings (seconds from the first text chunk sent) and audio seconds received."""

    first_audio_s: float
    done_s: float
    audio_s: float


async def ask(port: int, words: int, delay: float) -> Heard:
    """Stream ``ANSWER`` to the server on ``port`` as Home Assistant does, reading the audio meanwhile."""
    from wyoming.audio import AudioChunk
    from wyoming.client import AsyncTcpClient
    from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop

    split = ANSWER.split(" ")
    chunks = [" ".join(split[i : i + words]) + " " for i in range(0, len(split), words)]
    async with AsyncTcpClient("127.0.0.1", port) as client:

        async def write() -> None:
            await client.write_event(SynthesizeStart().event())
            for chunk in chunks:
                await client.write_event(SynthesizeChunk(text=chunk).event())
                if delay:
                    await asyncio.sleep(delay)
            await client.write_event(Synthesize(text=ANSWER).event())
            await client.write_event(SynthesizeStop().event())

        start = time.perf_counter()
        writer = asyncio.create_task(write())
        first, samples, rate = None, 0, 1
        while (event := await asyncio.wait_for(client.read_event(), 120)) is not None:
            if AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                first = first if first is not None else time.perf_counter() - start
                samples += len(chunk.audio) // (chunk.width * chunk.channels)
                rate = chunk.rate
            elif event.type in ("synthesize-stopped", "error"):
                break
        await writer
        if first is None or event is None or event.type != "synthesize-stopped":
            raise RuntimeError(f"port {port}: no complete answer (last event: {event})")
        return Heard(first, time.perf_counter() - start, samples / rate)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_described(port: int, process: subprocess.Popen, log, timeout_s: float = 120) -> None:
    """Wait until the server on ``port`` answers ``describe`` (or fail with its ``log`` when its process has
    ended)."""
    from wyoming.client import AsyncTcpClient
    from wyoming.info import Describe

    async def describe() -> None:
        async with AsyncTcpClient("127.0.0.1", port) as client:
            await client.write_event(Describe().event())
            await asyncio.wait_for(client.read_event(), 10)

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"{' '.join(map(str, process.args[:3]))} ended: {log.read()}")
        try:
            asyncio.run(describe())
            return
        except OSError:
            time.sleep(0.2)
    raise TimeoutError(f"nothing answers on port {port}")


def start_servers(voice) -> dict[str, tuple[subprocess.Popen, int]]:
    """Our server and wyoming-piper, each on a free port of 127.0.0.1, once each answers."""
    ours, theirs = free_port(), free_port()
    commands = {
        "voice-studio": [sys.executable, "-m", "studio", "serve", "--no-http", "--voice", str(voice.model_path)]
        + ["--wyoming", f"tcp://127.0.0.1:{ours}"],
        "wyoming-piper": [sys.executable, "-m", "wyoming_piper", "--uri", f"tcp://127.0.0.1:{theirs}"]
        + ["--voice", voice.name, "--data-dir", str(voice.model_path.parent)],
    }
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    servers: dict[str, tuple[subprocess.Popen, int]] = {}
    try:
        for (side, command), port in zip(commands.items(), (ours, theirs), strict=True):
            log = tempfile.TemporaryFile("w+")  # not a pipe: a pipe nobody reads could stop a talkative server
            process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=log, text=True, env=env)
            servers[side] = (process, port)
            wait_until_described(port, process, log)
    except BaseException:
        stop(servers)
        raise
    return servers


def stop(servers: dict[str, tuple[subprocess.Popen, int]]) -> None:
    """End the servers' processes."""
    for process, _ in servers.values():
        process.terminate()
        process.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--words", type=int, default=3, help="words per synthesize-chunk")
    parser.add_argument("--delay", type=float, nargs="+", default=[0.0, 0.05], help="seconds between chunks")
    args = parser.parse_args()

    from engines.registry import default_voice

    servers = start_servers(default_voice())
    try:
        results: dict[tuple[str, float], list[Heard]] = {(s, d): [] for s in servers for d in args.delay}
        for _, port in servers.values():
            asyncio.run(ask(port, args.words, 0.0))  # warm-up: wyoming-piper loads its voice now
        for _ in range(args.runs):
            for delay in args.delay:
                for side, (_, port) in servers.items():
                    results[(side, delay)].append(asyncio.run(ask(port, args.words, delay)))
    finally:
        stop(servers)
    report(results, args)


def report(results: dict[tuple[str, float], list[Heard]], args) -> None:
    """Print the Markdown table: medians per side and chunk delay, and ours/wyoming-piper's ratios."""
    print(f"en_US-joe-medium over Wyoming on 127.0.0.1, {os.cpu_count()} cores, {args.runs} runs, ")
    print(f"{len(ANSWER)} characters in chunks of {args.words} words")
    print("| chunks every | TTFA ours | TTFA wyoming-piper | TTFA ratio | RTF ours | RTF wyoming-piper | RTF ratio |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for delay in args.delay:
        ours, theirs = results[("voice-studio", delay)], results[("wyoming-piper", delay)]
        ttfa = [statistics.median(h.first_audio_s for h in side) for side in (ours, theirs)]
        rtf = [statistics.median(h.done_s / h.audio_s for h in side) for side in (ours, theirs)]
        print(
            f"| {delay * 1000:.0f} ms | {ttfa[0] * 1000:.0f} ms | {ttfa[1] * 1000:.0f} ms | {ttfa[0] / ttfa[1]:.2f}x "
            f"| {rtf[0]:.3f} | {rtf[1]:.3f} | {rtf[0] / rtf[1]:.2f}x |"
        )
    audio = [h.audio_s for side in ("voice-studio", "wyoming-piper") for h in results[(side, args.delay[0])]]
    print(f"audio per answer: {min(audio):.2f}-{max(audio):.2f} s")


if __name__ == "__main__":
    main()
