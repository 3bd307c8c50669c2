"""``voice-studio serve --wyoming`` on 127.0.0.1 (a free port), asked with the ``wyoming`` package's own client as
Home Assistant asks it: describe, synthesize, text streamed in, errors, a client that goes away."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import time

import httpx
import numpy as np
import pytest
import soundfile
from conftest import assert_same_speech
from wyoming.audio import AudioChunk, AudioStart
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import Synthesize, SynthesizeChunk, SynthesizeStart, SynthesizeStop, SynthesizeVoice

from engines.server.text_stream import SentenceStream
from studio.cli import main

NOISE_OFF = ("--noise-scale", "0", "--noise-w", "0")
LINE = "The first sentence is here. And then a second one follows it. The third ends it."
CHUNKS = ("The first sentence is here. And then", " a second one follows", " it. The third ends it.")
"""``LINE`` in three pieces, as an LLM's answer arrives: the first already holds a complete sentence."""
MAX_CHARS = 300
TIMEOUT_S = 60.0
"""Longest wait for one event (a loaded 2-core machine may run the server late)."""


class WyomingProcess:
    """A ``voice-studio serve --wyoming tcp://127.0.0.1:0`` process; ``port`` its Wyoming port, ``url`` its HTTP
    API's (``None`` with ``--no-http``)."""

    def __init__(self, *args: str) -> None:
        command = [sys.executable, "-m", "studio", "serve", "--port", "0", "--wyoming", "tcp://127.0.0.1:0", *args]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy()
        )
        line = self.process.stdout.readline()
        if "(Wyoming)" not in line:
            self.stop()
            raise RuntimeError(f"the server did not start: {line}{self.process.stderr.read()}")
        self.port = int(line.split("tcp://127.0.0.1:")[1].split()[0])
        self.url = line.split(" on ")[1].split()[0] if " on http" in line else None

    def stop(self) -> str:
        """End the server; returns what it wrote on stderr."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.stderr.read()


@pytest.fixture(scope="module")
def server():
    """joe over HTTP and Wyoming from one process, noise 0, 2 workers, at most ``MAX_CHARS`` characters."""
    process = WyomingProcess(*NOISE_OFF, "--workers", "2", "--max-chars", str(MAX_CHARS), "--no-warm-up")
    yield process
    printed = process.stop()
    assert "Traceback" not in printed, printed  # clients gone, refused or reset are no faults of the server


@pytest.fixture(scope="module")
def said(tmp_path_factory) -> np.ndarray:
    """``say LINE`` at noise 0, as 16-bit samples read back as float."""
    path = tmp_path_factory.mktemp("say") / "line.wav"
    command = [sys.executable, "-m", "studio", "say", LINE, "-o", str(path), "--quiet", *NOISE_OFF]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    audio, rate = soundfile.read(path, dtype="float32")
    assert rate == 22050
    return audio


class Heard:
    """What a client read: the events in order (audio chunks counted, not kept), and the audio as float."""

    def __init__(self) -> None:
        self.types: list[str] = []
        self.pieces: list[bytes] = []
        self.start: AudioStart | None = None
        self.error: Error | None = None

    def take(self, event: Event) -> None:
        if not self.types or self.types[-1] != event.type or event.type != "audio-chunk":
            self.types.append(event.type)
        if AudioChunk.is_type(event.type):
            self.pieces.append(AudioChunk.from_event(event).audio)
        elif AudioStart.is_type(event.type):
            self.start = AudioStart.from_event(event)
        elif Error.is_type(event.type):
            self.error = Error.from_event(event)

    @property
    def audio(self) -> np.ndarray:
        return np.frombuffer(b"".join(self.pieces), "<i2").astype(np.float32) / 32768.0


async def read(client: AsyncTcpClient) -> Event | None:
    return await asyncio.wait_for(client.read_event(), TIMEOUT_S)


async def exchange(port: int, *events: Event, until: str = "audio-stop") -> Heard:
    """Send ``events`` on a new connection; read until an ``until`` or ``error`` event, or the connection's end."""
    heard = Heard()
    async with AsyncTcpClient("127.0.0.1", port) as client:
        for event in events:
            await client.write_event(event)
        while (event := await read(client)) is not None:
            heard.take(event)
            if event.type in (until, "error"):
                break
    return heard


def describe(port: int) -> Info:
    async def ask() -> Info:
        async with AsyncTcpClient("127.0.0.1", port) as client:
            await client.write_event(Describe().event())
            return Info.from_event(await read(client))

    return asyncio.run(ask())


def test_describe_lists_the_voice_and_http_is_served_by_the_same_process(server):
    """info: one TTS program that streams, joe with its language, quality, version and dataset; /health answers."""
    (program,) = describe(server.port).tts
    assert program.name == "voice-studio" and program.supports_synthesize_streaming
    (voice,) = program.voices
    assert (voice.name, voice.languages, voice.version) == ("en_US-joe-medium", ["en_US"], "1.0.0")
    assert "medium" in voice.description and voice.attribution.name == "joe" and voice.speakers is None
    assert httpx.get(f"{server.url}/health", timeout=10).json()["voices"] == ["en_US-joe-medium"]


def test_synthesize_is_says_audio(server, said):
    """synthesize (voice by its short name): audio-start at 22,050 Hz 16-bit mono, chunks, audio-stop; say's audio."""
    voice = SynthesizeVoice(name="joe")
    heard = asyncio.run(exchange(server.port, Synthesize(text=LINE, voice=voice).event()))
    assert heard.types == ["audio-start", "audio-chunk", "audio-stop"]
    assert (heard.start.rate, heard.start.width, heard.start.channels) == (22050, 2, 1)
    assert_same_speech(heard.audio, said)


def test_streamed_text_is_spoken_before_it_has_all_arrived(server, said):
    """Three chunks: audio of the first sentence comes before the second chunk is sent; then audio-stop and
    synthesize-stopped; Home Assistant's whole-text synthesize inside the stream is not spoken again."""

    async def stream() -> tuple[Heard, bool]:
        heard = Heard()
        async with AsyncTcpClient("127.0.0.1", server.port) as client:
            await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name="en_US-joe-medium")).event())
            await client.write_event(SynthesizeChunk(text=CHUNKS[0]).event())
            while not heard.pieces:
                heard.take(await read(client))
            for chunk in CHUNKS[1:]:
                await client.write_event(SynthesizeChunk(text=chunk).event())
            await client.write_event(Synthesize(text=LINE).event())
            await client.write_event(SynthesizeStop().event())
            while (event := await read(client)) is not None:
                heard.take(event)
                if event.type in ("synthesize-stopped", "error"):
                    break
            return heard, event is not None

    heard, open_after = asyncio.run(stream())
    assert heard.types == ["audio-start", "audio-chunk", "audio-stop", "synthesize-stopped"]
    assert open_after
    assert_same_speech(heard.audio, said)


def test_a_client_gone_mid_stream_leaves_the_server_serving_the_next(server):
    """Clients that close after their first audio chunk, streaming or not: their synthesis stops (of their 16
    sentences, fewer than 16 are spoken), the next client is answered, and nothing is printed as a fault."""
    before = httpx.get(f"{server.url}/health", timeout=10).json()["sentences"]

    async def leave_early(*events: Event) -> None:
        client = AsyncTcpClient("127.0.0.1", server.port)
        await client.connect()
        for event in events:
            await client.write_event(event)
        while (event := await read(client)) is not None and not AudioChunk.is_type(event.type):
            pass
        await client.disconnect()

    sentences = "One sentence is spoken now. " * 8
    asyncio.run(leave_early(SynthesizeStart().event(), SynthesizeChunk(text=sentences + "And more").event()))
    asyncio.run(leave_early(Synthesize(text=sentences).event()))
    heard = asyncio.run(exchange(server.port, Synthesize(text="Still here.").event()))
    assert heard.types == ["audio-start", "audio-chunk", "audio-stop"] and len(heard.audio) > 8000
    deadline = time.monotonic() + TIMEOUT_S
    while (health := httpx.get(f"{server.url}/health", timeout=10).json())["active"] and time.monotonic() < deadline:
        time.sleep(0.05)
    assert health["active"] == 0 and health["sentences"] - before < 16 + 1


@pytest.mark.parametrize(
    ("events", "code"),
    [
        ([Synthesize(text="Hi.", voice=SynthesizeVoice(name="nobody"))], "voice_not_found"),
        ([Synthesize(text="Hi.", voice=SynthesizeVoice(name="joe", speaker="bob"))], "speaker_not_found"),
        ([SynthesizeStart(voice=SynthesizeVoice(name="nobody"))], "voice_not_found"),
        ([SynthesizeStart(), SynthesizeChunk(text="Long words. " * (MAX_CHARS // 12 + 1))], "input_too_long"),
        ([SynthesizeChunk(text="Hi.")], "no_stream"),
        ([Synthesize(text="<speak><p>Unclosed.</speak>", text_format="ssml")], "invalid_markup"),
        ([SynthesizeStart(), SynthesizeChunk(text="Too [pause: 1s] long. And then")], "invalid_markup"),
        ([Synthesize(text="")], "empty_input"),
        ([Synthesize(text=" \n\t ")], "empty_input"),
        ([SynthesizeStart(), SynthesizeStop()], "empty_input"),
        (
            [SynthesizeStart(), SynthesizeChunk(text=" "), SynthesizeChunk(text="** \U0001f600\n"), SynthesizeStop()],
            "empty_input",
        ),
    ],
)
def test_a_refused_request_is_an_error_event_then_the_connection_ends(server, events, code):
    """Unknown voice or speaker, too much text, a chunk outside a stream, malformed markup (found when a sentence of
    an open stream is spoken), a text or stream with nothing to speak (empty, spaces, marks and emoji): an error
    event, the connection closed."""
    heard = asyncio.run(exchange(server.port, *(e.event() for e in events)))
    assert heard.error is not None and heard.error.code == code, heard.types
    assert heard.types == ["error"]
    assert describe(server.port).tts  # and the server answers the next client


def test_the_servers_noise_settings_apply_to_http_requests_that_give_none(server):
    """--noise-scale 0 --noise-w 0: an HTTP request without noise fields is the same twice (noise would vary it)."""
    body = {"model": "joe", "input": "Twice the same.", "response_format": "pcm"}
    first, second = (httpx.post(f"{server.url}/v1/audio/speech", json=body, timeout=60).content for _ in range(2))
    assert len(first) > 8000 and first == second


def _taken_port() -> tuple[socket.socket, int]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock, sock.getsockname()[1]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--no-http"], "--no-http is about the Wyoming server: give --wyoming too"),
        (["--zeroconf"], "--zeroconf is about the Wyoming server: give --wyoming too"),
        (["--wyoming", "http://127.0.0.1:10200"], "give tcp://HOST:PORT (e.g. tcp://0.0.0.0:10200) or unix://PATH"),
        (["--wyoming", "tcp://127.0.0.1:{taken}"], "cannot listen on tcp://127.0.0.1:{taken}"),
        (["--wyoming", "--zeroconf"], "--zeroconf needs zeroconf (not installed): pip install 'voice-studio[zeroconf]"),
        (["--wyoming", "unix:///tmp/w.sock", "--zeroconf"], "--zeroconf announces a tcp:// address on the network"),
        (["--wyoming", "unix://w.sock"], "give the socket's absolute path, three slashes: unix:///run/wyoming.sock"),
        (["--wyoming", "tcp://name.invalid:10200"], "cannot listen on tcp://name.invalid:10200: "),
    ],
)
def test_wyoming_options_that_cannot_work_stop_serve_in_one_line(args, said, monkeypatch, capsys):
    """Options without --wyoming, a URI of another scheme, a taken port, --zeroconf without its package: one line,
    exit 2, before any voice loads."""
    monkeypatch.setitem(sys.modules, "zeroconf", None)  # not installed, as importlib.util.find_spec then sees it
    sock, taken = _taken_port()
    with sock:
        status = main(["serve", "--port", "0", *(a.format(taken=taken) for a in args)])
    error = capsys.readouterr().err
    assert status == 2 and error.count("\n") == 1, error
    assert said.format(taken=taken) in error
    assert ("another server" in error) == ("{taken}" in said)  # the hint only where the port is taken


@pytest.fixture(scope="module")
def trio_server(trio_voice):
    """The tiny 3-speaker voice over Wyoming alone (no HTTP), noise 0."""
    process = WyomingProcess("--no-http", "--voice", str(trio_voice), *NOISE_OFF, "--workers", "1", "--no-warm-up")
    yield process
    process.stop()


def test_speakers_are_described_and_chosen_by_name_or_id(trio_server):
    """describe lists ana, ben, cleo; speaker ben (or "1") speaks another voice than the default (ana)."""
    assert trio_server.url is None
    (voice,) = describe(trio_server.port).tts[0].voices
    assert voice.name == "en_US-trio-low" and [s.name for s in voice.speakers] == ["ana", "ben", "cleo"]

    def speak(speaker: str | None) -> np.ndarray:
        request = Synthesize(text="Three voices.", voice=SynthesizeVoice(name="trio", speaker=speaker))
        heard = asyncio.run(exchange(trio_server.port, request.event()))
        assert heard.start.rate == 16000 and len(heard.audio) > 0, heard.types
        return heard.audio

    ben = speak("ben")
    assert np.array_equal(speak("1"), ben)
    assert not np.array_equal(speak(None), ben)


def test_a_checkpoint_speaks_on_the_torch_engine(tmp_path, make_tiny_checkpoint):
    """serve --engine torch --voice tiny.ckpt --wyoming: the checkpoint is described and speaks."""
    checkpoint = make_tiny_checkpoint(tmp_path / "tiny.ckpt")
    process = WyomingProcess("--no-http", "--engine", "torch", "--device", "cpu", "--voice", str(checkpoint))
    try:
        (voice,) = describe(process.port).tts[0].voices
        request = Synthesize(text="A checkpoint.", voice=SynthesizeVoice(name=voice.name))
        heard = asyncio.run(exchange(process.port, request.event()))
    finally:
        process.stop()
    assert heard.types == ["audio-start", "audio-chunk", "audio-stop"]
    assert heard.start.rate == 16000 and len(heard.audio) > 1600


def test_sentences_come_out_once_the_word_after_them_is_whole():
    """The text stream gives each run of complete sentences once the word after it is whole (``St. Louis`` /
    ``St. The``: the end may depend on it), a blank line ending none and a list item's line ending one (as the
    cleaner reads them); all of the text, in order."""
    stream = SentenceStream()
    given = [stream.add(piece) for piece in ("I met Dr.", " Smith today. H", "e was there! T", "hen on Main St. T")]
    assert given == ["", "", "I met Dr. Smith today. ", "He was there! "]
    assert stream.add("he end") == "Then on Main St. "
    assert stream.finish() == "The end"
    stream = SentenceStream()
    assert stream.add("A paragraph without an end\n\nThe next ") == ""
    assert stream.add("one.\n- Apples\n- Pe") == "A paragraph without an end\n\nThe next one.\n"
    assert stream.add("ars\n") == "- Apples\n" and stream.finish() == "- Pears\n"
    text = "Hello there. I live on Main St. The house is blue! Is it?  Yes."
    for size in (1, 2, 5):
        stream = SentenceStream()
        pieces = [stream.add(text[i : i + size]) for i in range(0, len(text), size)]
        expected = ["Hello there. ", "I live on Main St. ", "The house is blue! "]
        assert [p for p in pieces if p] == expected
        assert "".join(pieces) + stream.finish() == text


def test_ssml_is_held_whole_until_the_stream_ends():
    """A stream of SSML is spoken whole at its end (markup is never cut): asked for, or (not said) when it starts
    with ``<``, as a request reads ``<speak>``; plain text is not held."""
    for ssml in (True, None):
        stream = SentenceStream(ssml=ssml)
        assert stream.add("<speak>One. Two. ") == "" and stream.add("Three.</speak>") == ""
        assert stream.finish() == "<speak>One. Two. Three.</speak>"
    stream = SentenceStream(ssml=None)
    assert stream.add("One. Two. Three ") == "One. Two. "


def test_a_stream_that_starts_with_a_less_than_sign_but_not_speak_is_cut_as_plain_text():
    """Only ``<speak>`` (or a prolog's ``<?``/``<!``) makes a stream SSML, held whole: ``<3`` or ``<b>`` at the start
    is plain text, cut into sentences as it comes and its first clause given ahead; ``<spe`` waits for its next
    character to say."""
    for start in ("<3 ", "<b>"):
        stream = SentenceStream(ssml=None)
        stream.add(f"{start}the weather in Paris today is mild, with ")
        assert stream.first_clause() == f"{start}the weather in Paris today is mild, ", start
        assert stream.add("a high. Then rain ") == "with a high. "
    for held in ("<spe", "<?xml ", "<!DOCTYPE speak> "):
        stream = SentenceStream(ssml=None)
        assert stream.add(f"{held}").strip() == "" and stream.first_clause() == "", held
    stream = SentenceStream(ssml=None)
    assert stream.add("<spe") == "" and stream.add("ak>One. Two. Three ") == "" and stream.first_clause() == ""


def test_what_is_no_event_ends_only_its_connection_and_a_refused_synthesize_leaves_nothing_running():
    """Lines that are no Wyoming event, an event cut short by its client, and a synthesize refused (too long, text
    not text): each ends its own connection, nothing is reported as a fault of the server (no task exception, no
    synthesis task left waiting for text), and the next client is answered."""
    import gc

    from engines import registry
    from engines.server.service import ServiceConfig, SpeechService
    from engines.server.wyoming_listener import bind
    from engines.server.wyoming_server import run_wyoming

    service = SpeechService(ServiceConfig([registry.find_voice(None)], workers=1, max_chars=MAX_CHARS))
    listener = bind("tcp://127.0.0.1:0")

    async def send_raw(raw: bytes, *, wait_for_close: bool) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", listener.port)
        writer.write(raw)
        await writer.drain()
        said = await asyncio.wait_for(reader.read(), TIMEOUT_S) if wait_for_close else b""
        writer.close()
        return said

    async def scenario() -> tuple[list[str], list[Heard], Heard]:
        faults: list[str] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, context: faults.append(context["message"]))
        server = asyncio.create_task(run_wyoming(service, listener))
        for line in (b'{"x": 1}\n', b"[1, 2]\n", b'{"type": "describe", "data_length": "x"}\n'):
            assert await send_raw(line, wait_for_close=True) == b""
        await send_raw(b'{"type": "synthesize", "data_length": 40}\n{"text": "cut', wait_for_close=False)
        too_long = Synthesize(text="Long words. " * (MAX_CHARS // 12 + 1)).event()
        refused = [await exchange(listener.port, e) for e in (too_long, Event("synthesize", {"text": 5}))]
        answered = await exchange(listener.port, Synthesize(text="Still here.").event())
        server.cancel()
        await asyncio.gather(server, return_exceptions=True)
        gc.collect()  # tasks destroyed pending, or with an exception never retrieved, are reported now
        return faults, refused, answered

    try:
        faults, refused, answered = asyncio.run(scenario())
    finally:
        service.shutdown()
    assert [h.error.code for h in refused] == ["input_too_long", "bad_event"]
    assert answered.types == ["audio-start", "audio-chunk", "audio-stop"]
    assert faults == []  # a refused synthesize's task left waiting is reported when destroyed


def test_a_unix_socket_path_is_checked_at_start_and_what_is_there_is_kept(tmp_path, capsys):
    """unix://: a missing folder, a file that is no socket (left as it was) and a path a server listens on are each
    one line, exit 2, before any voice loads; a socket left by a server that has gone is taken over."""
    kept = tmp_path / "my-voice.onnx"
    kept.write_bytes(b"not a socket")
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(str(tmp_path / "taken.sock"))
    listening.listen()
    with listening:
        for path, said in (
            (tmp_path / "missing" / "w.sock", "No such file or directory"),
            (kept, "a file that is no socket is there (give a new path)"),
            (tmp_path / "taken.sock", "a server listens there already"),
        ):
            assert main(["serve", "--wyoming", f"unix://{path}", "--no-http"]) == 2
            error = capsys.readouterr().err
            assert error.count("\n") == 1 and f"cannot listen on unix://{path}: {said}" in error, error
    assert kept.read_bytes() == b"not a socket"
    from engines.server.wyoming_listener import bind

    left = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    left.bind(str(tmp_path / "left.sock"))
    left.close()  # its file stays, as after a server killed
    listener = bind(f"unix://{tmp_path / 'left.sock'}")
    listener.close()
    assert not (tmp_path / "left.sock").exists()


def test_a_unix_socket_serves_and_is_removed_at_the_end(tmp_path):
    """serve --wyoming unix://PATH --no-http: describe answers through the socket; the socket file goes at exit."""
    from wyoming.client import AsyncClient

    path = tmp_path / "wyoming.sock"
    command = [sys.executable, "-m", "studio", "serve", "--wyoming", f"unix://{path}", "--no-http", "--no-warm-up"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert "(Wyoming)" in process.stdout.readline()

        async def ask() -> Info:
            async with AsyncClient.from_uri(f"unix://{path}") as client:
                await client.write_event(Describe().event())
                return Info.from_event(await read(client))

        assert asyncio.run(ask()).tts[0].voices[0].name == "en_US-joe-medium"
    finally:
        process.terminate()
        process.wait(10)
    assert "Traceback" not in process.stderr.read() and not path.exists()


def test_the_wyoming_server_failing_beside_http_stops_serve_with_its_error():
    """What runs beside the HTTP API (the Wyoming server, its zeroconf announcement) and fails stops the server and
    is raised by ``serve`` (the CLI's one line and exit 2), not said on stderr with exit 0."""
    from engines import registry
    from engines.server.app import serve
    from engines.server.service import ServiceConfig, SpeechService

    async def fails() -> None:
        raise OSError("the announcement failed")

    service = SpeechService(ServiceConfig([registry.find_voice(None)], workers=1))
    with pytest.raises(OSError, match="the announcement failed"):
        serve(service, "127.0.0.1", 0, alongside=fails)


STREAMED_TEXTS = [
    "list:\n\n- Apples",
    "A paragraph without an end\n\nThe next one. Two.",
    "Here is a list:\n\n- Apples\n- Pears\n- Plums\n\nThat is all.",
    "Here:\n- apples\n- pears\n- Plums",
    "# Shopping\n\nBuy milk. Then go home.\n## Step two\nDone.",
    "- First. Second\n- Third.",
    "> Quoted. Still quoted\nNot quoted.",
    "**Important. Read this.** Then go. *Wait. Stop* now.",
    "Note: **this is bold.** And this is not. Use `a. b` here. See [the docs. Here](http://x.y/z) now. Done.",
    "```\ncode here. More\n```\nDone.",
    "Wait... what? Ok. It ended... Then it began. And now?\n\nOk.",
    "I went home. then I slept. Then I woke.",
    "1. First item\n2. Second item\nThat is all.",
    "Here are the steps:\n1. Open the door\n2. Turn on the light\n3. Sit down",
    "1.\nOpen the door. Done.",
    "The U.S. team won. Great! I live in the U.S. The end. So... I met Dr. Smith.",
    "Bring fruit, e.g. apples. Now go. I live on Main St. The house is blue.",
    "Call me at 9 a.m. Tomorrow works. At 5 p.m. we eat. It costs $3.50. Then 2. Version 2.0 is out.",
    "[rate:1.5] One. Two. [/rate] Three. Say [[ hɛlˈoʊ. wɜːld ]] now. Then go.",
    "Really...? No way. Wait…! Stop it. So—! Go now.",
    "Here are the steps. 1. Open the door. 2. Close it.",
    "Hello. # world. I said so. > Quoted text here. Wait. * Item one.",
]
"""Texts where a splitter that reads the text as it comes and the cleaner that reads it whole may disagree:
blank lines, Markdown's line and inline marks, ellipses, lower-case after a period, numbers, abbreviations,
inline tags."""


@pytest.fixture(scope="module")
def phonemizer(joe):
    from engines.phonemes import Phonemizer

    return Phonemizer(joe.config)


def spoken(phonemizer, texts: list[str]) -> list[list[str]]:
    """The sentences (phonemes) of ``texts``, each cleaned and spoken as a request is."""
    from engines.cleaning import clean_text
    from engines.phonemes import sentences

    return [s.phonemes for text in texts for s in sentences(phonemizer, clean_text(text))]


@pytest.mark.parametrize("text", STREAMED_TEXTS)
def test_text_streamed_in_is_spoken_in_the_sentences_of_the_whole_text(phonemizer, text):
    """Streamed in pieces of 1, 2, 3 and 7 characters, each run the stream gives cleaned and spoken as a request:
    the sentences are the whole request's (a blank line joined, a list item's line ended, never a cut inside
    ``**bold**`` or ``[rate:…]``, none after ``Wait...``, ``1.`` or before a lower-case word)."""
    whole = spoken(phonemizer, [text])
    for size in (1, 2, 3, 7):
        stream = SentenceStream()
        pieces = [p for p in (*(stream.add(text[i : i + size]) for i in range(0, len(text), size)), stream.finish())]
        assert spoken(phonemizer, [p for p in pieces if p]) == whole, (size, pieces)
        assert "".join(pieces) == text


@pytest.mark.parametrize(
    ("voice", "text"),
    [("cmn", "你好。今天天气很好！我们走吧？「好。」他说。"), ("ja", "こんにちは。元気です。はい、そうです。")],
)
def test_cjk_text_streamed_in_comes_out_at_its_sentence_ends_without_spaces(voice, text):
    """CJK writes no space after a sentence: streamed in pieces of 1, 2 and 5 characters, each sentence is given
    out once the next has begun (it was held whole until synthesize-stop), and spoken run by run by espeak-ng it
    is the whole text's sentences (less the empty clause espeak-ng reads after a closing mark alone)."""
    from piper.phonemize_espeak import ESPEAK_DATA_DIR, EspeakPhonemizer

    espeak = EspeakPhonemizer(ESPEAK_DATA_DIR)
    for size in (1, 2, 5):
        stream = SentenceStream()
        before_end = [stream.add(text[i : i + size]) for i in range(0, len(text), size)]
        pieces = [p for p in (*before_end, stream.finish()) if p]
        assert len([p for p in before_end if p]) >= 2, (size, pieces)
        assert "".join(pieces) == text
        said = [s for p in pieces for s in espeak.phonemize(voice, p) if s]  # ``」`` alone: an empty clause
        assert said == espeak.phonemize(voice, text), pieces


@pytest.mark.parametrize(
    ("voice", "clause", "rest"),
    [("cmn", "今天天气很好，", "我们去公园吧。"), ("ja", "今日はとても暑いですね、", "早く帰りましょう。")],
)
def test_a_cjk_comma_gives_no_first_clause_as_espeak_reads_no_pause_there(voice, clause, rest):
    """espeak-ng reads a CJK sentence's comma as no clause end (its syllables run on across it, where the clause
    alone would end one), so a stream's first clause is never cut there: it waits for the sentence's end."""
    from piper.phonemize_espeak import ESPEAK_DATA_DIR, EspeakPhonemizer

    espeak = EspeakPhonemizer(ESPEAK_DATA_DIR)
    (whole,) = espeak.phonemize(voice, clause + rest)
    (alone,), (after,) = espeak.phonemize(voice, clause), espeak.phonemize(voice, rest)
    assert whole == alone + after  # no pause or word gap in the whole where the comma is: one run
    stream = SentenceStream()
    assert stream.add(clause + rest[:2]) == "" and stream.first_clause() == ""
    assert stream.add(rest[2:] + "好") == clause + rest


@pytest.mark.parametrize(
    ("text", "early"),
    [
        ("“你好。”“你吃饭了吗？”“吃了。”“那我们走吧。”", 3),
        ("会议在明天。2024年的计划已定。2025年的也定了。好。", 3),
        ("你好。abc很好。再见。", 2),
        ("1. 打开门。\n2. 开灯。\n3. 坐下。\n4. 休息。", 3),
        ("真的……？我不信。走吧！——好的。你好。# 再见", 2),
        ("什么？！真的吗？？太好了！！！「他说『好。』」然后走了。好。", 5),
    ],
)
def test_cjk_streams_go_out_sentence_by_sentence_as_espeak_ng_reads_them(text, early):
    """Streamed one character at a time, a CJK sentence goes out once the next has begun with anything that
    opens no Markdown mark (a quote, a digit, a letter; they were held to synthesize-stop), never where espeak-ng
    reads on (after an ellipsis or a dash, before a mark that the piece after would be read with), and the
    pieces, spoken apart, are the whole text's sentences."""
    from piper.phonemize_espeak import ESPEAK_DATA_DIR, EspeakPhonemizer

    from engines.cleaning import clean_text

    espeak = EspeakPhonemizer(ESPEAK_DATA_DIR)
    stream = SentenceStream()
    before_end = [piece for piece in (stream.add(c) for c in text) if piece]
    pieces = [*before_end, stream.finish()]
    assert "".join(pieces) == text and len(before_end) == early, pieces

    def said(texts):
        return [s for t in texts for s in espeak.phonemize("cmn", clean_text(t, ssml=False)) if s]

    assert said(pieces) == said([text]), pieces


def test_ssml_sent_without_its_format_is_read_whole_as_ssml(server):
    """A synthesize whose text starts with ``<speak>`` and says no ``text_format`` is SSML, as an HTTP request's
    ``input`` is: read whole, its pause heard (cut at its first sentence, it was malformed markup)."""
    text = '<speak>Hello there. <break time="700ms"/> Goodbye now.</speak>'
    heard = asyncio.run(exchange(server.port, Synthesize(text=text).event()))
    body = {"model": "joe", "input": text, "response_format": "pcm", "sample_rate": "native"}
    answer = httpx.post(f"{server.url}/v1/audio/speech", json=body, timeout=60)
    assert heard.error is None and heard.types == ["audio-start", "audio-chunk", "audio-stop"]
    assert_same_speech(heard.audio, np.frombuffer(answer.content, "<i2").astype(np.float32) / 32768.0)


def test_text_streamed_in_and_sent_whole_sound_as_the_http_apis(server):
    """``list:\n\n- Apples\n- Pears`` streamed one character at a time, and in one ``synthesize``, is the audio the
    HTTP API gives the same text (the cleaner joins the paragraphs: no sentence's pause after ``list:``)."""
    text = "Here is the list:\n\n- Apples\n- Pears"
    body = {"model": "joe", "input": text, "response_format": "pcm", "sample_rate": "native"}
    answer = httpx.post(f"{server.url}/v1/audio/speech", json=body, timeout=60)
    expected = np.frombuffer(answer.content, "<i2").astype(np.float32) / 32768.0
    events = [SynthesizeStart().event(), *(SynthesizeChunk(text=c).event() for c in text), SynthesizeStop().event()]
    streamed = asyncio.run(exchange(server.port, *events, until="synthesize-stopped"))
    whole = asyncio.run(exchange(server.port, Synthesize(text=text).event()))
    assert_same_speech(streamed.audio, expected)
    assert_same_speech(whole.audio, expected)


def test_a_voice_without_a_language_block_is_listed_in_the_language_its_export_is_named(tmp_path, capsys):
    """A voice whose config has no ``language`` block: describe, ``voices --json`` and ``/v1/models`` all give the
    code the export names it by (``engines.languages.espeak_language``: espeak ``de`` -> ``de_DE``), not the espeak
    voice (``de``), which the last two give as ``espeak_voice``."""
    import json

    from engines.registry import default_voice
    from engines.server.model_list import model_list
    from engines.server.service import ServiceConfig, SpeechService
    from engines.server.wyoming_info import tts_voice
    from engines.voice import load_voice

    joe = default_voice()
    config = json.loads(joe.model_path.with_name(joe.model_path.name + ".json").read_text(encoding="utf-8"))
    del config["language"]
    config["espeak"]["voice"] = "de"
    model = tmp_path / "x-medium.onnx"
    model.symlink_to(joe.model_path)
    model.with_name(model.name + ".json").write_text(json.dumps(config), encoding="utf-8")
    voice = load_voice(model)
    assert tts_voice("x-medium", voice).languages == ["de_DE"]
    assert main(["voices", "--json", str(model)]) == 0
    listed = next(v for v in json.loads(capsys.readouterr().out)["voices"] if v["name"] == "x-medium")
    (served,) = model_list(SpeechService(ServiceConfig([voice], workers=1)))["data"]
    for entry in (listed, served):
        assert (entry["language"], entry["espeak_voice"]) == ("de_DE", "de")


def test_a_first_clause_goes_ahead_of_its_sentence():
    """Before anything is given out, the text up to a comma or semicolon after 4 words or more goes ahead once the
    word after it is whole (the listener would wait for the first sentence's end); never ``Yes,`` alone, a
    number's comma, or a cut inside ``**bold**``; the pieces still make the whole text."""
    stream = SentenceStream()
    assert stream.add("The weather in Paris ") == "" and stream.first_clause() == ""
    assert stream.add("today is mild, wi") == "" and stream.first_clause() == ""  # "with" not yet whole
    assert stream.add("th a high ") == "" and stream.first_clause() == "The weather in Paris today is mild, "
    assert stream.add("of 18. And ") == "with a high of 18. " and stream.finish() == "And "
    for held in ("Yes, I know that ", "It costs 1,000 dollars and more ", "**Hello there my friend, how** are "):
        stream = SentenceStream()
        assert stream.add(held) == "" and stream.first_clause() == "", held
    assert SentenceStream(ssml=True).first_clause() == ""


def test_a_streamed_answer_speaks_its_first_clause_before_its_first_sentence_has_arrived(server):
    """An answer streamed in 3-word chunks: audio comes before the first sentence's end is sent (its first clause
    spoken alone), and the whole answer is the clause's speech then the rest's, with no sentence silence between
    (noise 0: each as the HTTP API speaks it)."""
    clause, rest = "The weather in Paris today is mild,", "with a high of eighteen degrees. It may rain later."
    words = f"{clause} {rest}".split(" ")
    chunks = [" ".join(words[i : i + 3]) + " " for i in range(0, len(words), 3)]

    async def stream() -> tuple[Heard, int]:
        heard, sent = Heard(), 0
        async with AsyncTcpClient("127.0.0.1", server.port) as client:
            await client.write_event(SynthesizeStart(voice=SynthesizeVoice(name="en_US-joe-medium")).event())
            while not heard.pieces:
                await client.write_event(SynthesizeChunk(text=chunks[sent]).event())
                sent += 1
                with contextlib.suppress(asyncio.TimeoutError):
                    heard.take(await asyncio.wait_for(client.read_event(), 1.0))
            first_audio_after = sent
            for chunk in chunks[sent:]:
                await client.write_event(SynthesizeChunk(text=chunk).event())
            await client.write_event(SynthesizeStop().event())
            while (event := await read(client)) is not None and event.type not in ("synthesize-stopped", "error"):
                heard.take(event)
            return heard, first_audio_after

    heard, first_audio_after = asyncio.run(stream())
    assert " ".join(chunks[:first_audio_after]).count(".") == 0  # the first sentence's end had not been sent
    pieces = [_http_speech(server, clause), _http_speech(server, rest)]
    assert_same_speech(heard.audio, np.concatenate(pieces))


def _http_speech(server, text: str) -> np.ndarray:
    """``text`` as the HTTP API speaks it (pcm at the voice's rate), as float."""
    body = {"model": "joe", "input": text, "response_format": "pcm", "sample_rate": "native"}
    answer = httpx.post(f"{server.url}/v1/audio/speech", json=body, timeout=60)
    return np.frombuffer(answer.content, "<i2").astype(np.float32) / 32768.0


@pytest.mark.parametrize("opening", ["🙂. ", "## 🌤️\n"])
def test_a_first_sentence_with_nothing_to_say_leaves_the_first_clause_its_head_start(server, opening):
    """A stream that opens with a sentence that says nothing (an emoji, a heading of emoji alone) still speaks its
    first clause before its first spoken sentence's end is sent: the listener has heard nothing yet."""
    head = [opening, "The weather in Paris ", "today is mild, ", "with a high "]

    async def stream() -> tuple[Event, Heard]:
        heard = Heard()
        async with AsyncTcpClient("127.0.0.1", server.port) as client:
            await client.write_event(SynthesizeStart().event())
            for chunk in head:
                await client.write_event(SynthesizeChunk(text=chunk).event())
            first = await read(client)  # before the sentence's end is sent
            for event in (SynthesizeChunk(text="of ten. Ok.").event(), SynthesizeStop().event()):
                await client.write_event(event)
            while (event := await read(client)) is not None and event.type not in ("synthesize-stopped", "error"):
                heard.take(event)
            return first, heard

    first, heard = asyncio.run(stream())
    assert first.type == "audio-start"
    assert heard.error is None and heard.types[-1] == "audio-stop"


@pytest.mark.parametrize("text", ["Hello there. <speak>Hi you</speak> Ok.", "<3 you so much. Ok then."])
def test_plain_text_with_markup_in_it_is_read_as_plain_text(server, text):
    """Plain text is SSML only when the whole of it starts with ``<speak>``: a later sentence that starts with
    ``<speak>``, or a text that starts with ``<`` alone, sent whole or streamed in, is read as the HTTP API reads
    the whole text (plain, never refused as malformed SSML once the text before it has been spoken)."""
    expected = _http_speech(server, text)
    events = [SynthesizeStart().event(), *(SynthesizeChunk(text=c).event() for c in text), SynthesizeStop().event()]
    for heard in (
        asyncio.run(exchange(server.port, Synthesize(text=text).event())),
        asyncio.run(exchange(server.port, *events, until="synthesize-stopped")),
    ):
        assert heard.error is None, heard.error
        assert_same_speech(heard.audio, expected)
