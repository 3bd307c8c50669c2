"""The speech server over real HTTP on 127.0.0.1, and the remote engine against it."""

from __future__ import annotations

import dataclasses
import hashlib
import struct
import threading
import time

import httpx
import numpy as np
import pytest
from conftest import SpeechServer

from engines.audio import snr_db
from engines.base import EngineError, SynthesisOptions
from engines.cleaning import clean_text
from engines.remote.engine import RemoteEngine
from engines.remote.settings import RemoteSettings
from engines.server.encode import pcm16

DETERMINISTIC = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
FORTY_SENTENCES = " ".join(f"This is sentence number {i}, spoken slowly and clearly." for i in range(40))


def remote(server: SpeechServer, **changes) -> RemoteEngine:
    """A remote engine on ``server``'s default voice that sends Piper's noise settings (and so asks for the
    voice's own rate)."""
    settings = {"url": server.url, "model": "en_US-joe-medium", "voice": "default", "piper_params": True, **changes}
    return RemoteEngine(RemoteSettings(**settings))


def speak(engine: RemoteEngine, text: str, options: SynthesisOptions = DETERMINISTIC) -> np.ndarray:
    chunks = [c.audio for c in engine.synthesize(text, options)]
    return np.concatenate(chunks) if chunks else np.zeros(0, np.float32)


def post(server: SpeechServer, body, headers: dict | None = None, url: str | None = None) -> httpx.Response:
    content = body if isinstance(body, (bytes, str)) else None
    return httpx.post(
        f"{url or server.url}/v1/audio/speech",
        json=None if content is not None else body,
        content=content,
        headers=headers,
        timeout=30,
    )


@pytest.mark.parametrize("response_format", ["pcm", "wav", "flac", "mp3", "opus"])
def test_streamed_and_whole_responses_give_identical_audio(speech_server, response_format):
    """Noise 0: the streamed body and the whole body decode to the same samples, for every format."""
    text = "Streaming or not, the samples are the same. Twice over."
    streamed = speak(remote(speech_server, response_format=response_format), text)
    whole = speak(remote(speech_server, response_format=response_format, extra={"stream": False}), text)
    assert len(streamed) > 22050
    assert np.array_equal(streamed, whole)


def test_sse_deltas_equal_the_plain_stream(speech_server):
    """stream_format sse carries the same pcm as a plain body, as base64 deltas."""
    text = "Server sent events, one delta at a time."
    plain = speak(remote(speech_server, response_format="pcm"), text)
    sse = speak(remote(speech_server, response_format="pcm", stream_format="sse"), text)
    assert len(plain) > 0 and np.array_equal(plain, sse)


def test_remote_audio_equals_the_engine_in_process(speech_server, engine):
    """What the server streams is what our ONNX engine makes in this process (16-bit quantized)."""
    text = "The same voice, over the wire."
    served = speak(remote(speech_server, response_format="pcm"), text)
    local = np.concatenate([c.audio for c in engine.synthesize(text, DETERMINISTIC)])
    assert len(served) == len(local)
    assert snr_db(np.frombuffer(pcm16(local), "<i2") / 32768.0, served) > 40


def test_whole_wav_carries_exact_sizes_and_a_streamed_one_a_single_header(speech_server):
    """RIFF and data sizes match the body when whole; a stream has one header with unknown sizes."""
    body = {
        "model": "en_US-joe-medium",
        "input": "Exact sizes.",
        "response_format": "wav",
        "noise_scale": 0,
        "noise_w": 0,
    }
    whole = post(speech_server, {**body, "stream": False}).content
    riff, data = struct.unpack("<I", whole[4:8])[0], struct.unpack("<I", whole[40:44])[0]
    assert (riff, data) == (len(whole) - 8, len(whole) - 44)
    streamed = post(speech_server, body).content
    assert struct.unpack("<I", streamed[40:44])[0] == 0xFFFFFFFF
    assert streamed.count(b"RIFF") == 1 and streamed[44:] == whole[44:]


def test_eight_concurrent_clients_each_get_their_own_audio(speech_server):
    """8 clients x 6 rounds, distinct texts: durations track text length, no two answers are the same."""
    results: dict[str, np.ndarray] = {}
    errors: list[BaseException] = []

    def client(number: int) -> None:
        engine = remote(speech_server, response_format="pcm")
        try:
            for round_ in range(6):
                text = f"{number} by {round_}." + " Yes." * ((number + round_) % 4)
                results[text] = speak(engine, text)
        except BaseException as exc:  # reported below, on the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 48
    hashes = {hashlib.sha256(a.tobytes()).hexdigest() for a in results.values()}
    assert len(hashes) == 48
    lengths = np.array([len(t) for t in results]), np.array([len(a) for a in results.values()])
    assert min(lengths[1]) > 0
    assert np.corrcoef(*lengths)[0, 1] > 0.9


def idle(server: SpeechServer, timeout_s: float = 60.0) -> dict:
    """``server``'s health once no request is being synthesized (``active`` 0), polled; the wait is generous (a
    loaded machine may run the server late), what the test asserts is what the server counted."""
    deadline = time.monotonic() + timeout_s
    health = server.health()
    while health["active"] and time.monotonic() < deadline:
        time.sleep(0.05)
        health = server.health()
    assert health["active"] == 0, health
    return health


def test_a_client_that_disconnects_stops_its_synthesis(speech_server):
    """After the first chunk of 40 sentences the client goes: the server stops (it synthesized far fewer than
    the 40) and is free again (the next request is answered, and nothing more of the first is synthesized)."""
    body = {"model": "en_US-joe-medium", "input": FORTY_SENTENCES, "response_format": "pcm"}
    before = idle(speech_server)["sentences"]
    with httpx.Client(timeout=30) as client:
        with client.stream("POST", f"{speech_server.url}/v1/audio/speech", json=body) as response:
            next(response.iter_raw())
    settled = idle(speech_server)["sentences"]
    assert settled - before < 20, settled - before  # counted, not timed: a loaded machine makes it fewer
    with httpx.Client(timeout=30) as client:
        answer = client.post(f"{speech_server.url}/v1/audio/speech", json={**body, "input": "Next."})
    assert answer.status_code == 200 and len(answer.content) > 0
    assert idle(speech_server)["sentences"] == settled + 1


def test_cancelling_the_remote_engine_closes_the_connection(speech_server):
    """Setting cancel mid-stream ends the generator (at most the chunk in flight follows), and the server stops
    synthesizing: it synthesized far fewer than the 40 sentences (counted, not timed)."""
    engine, cancel = remote(speech_server, response_format="pcm"), threading.Event()
    before = idle(speech_server)["sentences"]
    stream = engine.synthesize(FORTY_SENTENCES, DETERMINISTIC, cancel)
    next(stream)
    cancel.set()
    rest = list(stream)
    assert len(rest) <= 1
    assert idle(speech_server)["sentences"] - before < 20


@pytest.mark.parametrize(
    ("body", "status", "words"),
    [
        (b"{not json", 400, "not valid JSON"),
        ({"input": "   "}, 400, "'input' has no speakable text"),
        ({"input": ""}, 400, "'input' has no speakable text"),
        ({"input": "\U0001f600\U0001f389\u2764\ufe0f"}, 400, "no speakable text"),
        ({"input": "a" * 1_000_000}, 413, "over"),
        ({"input": "Hello.", "voice": "nobody", "model": "en_US-joe-medium"}, 404, "unknown speaker 'nobody'"),
        ({"input": "Hello.", "voice": "1", "model": "en_US-joe-medium"}, 404, "unknown speaker '1'"),
        ({"input": "Hello.", "sample_rate": 100}, 400, "'sample_rate' must be 'native' or a whole number"),
        ({"input": "Hello.", "model": "nobody"}, 404, "unknown model 'nobody'"),
        ({"input": "Hello.", "response_format": "aac"}, 400, "'aac' (this server has no AAC encoder); supported: pcm"),
        ({"input": "Hello.", "response_format": "ogg"}, 400, "'ogg'; supported: pcm, wav, flac, mp3, opus"),
        ({"input": "Hello.", "speed": 9}, 400, "'speed' must be a number from 0.25 to 4"),
        ({"input": "Hello.", "sentence_silence": -1}, 400, "'sentence_silence' must be a number from 0 to 10"),
    ],
)
def test_bad_requests_get_the_right_status_and_a_json_message(speech_server, body, status, words):
    """Each refusal has its status and OpenAI's error shape, with a message that says why."""
    response = post(speech_server, body)
    assert response.status_code == status
    assert words in response.json()["error"]["message"]


def test_texts_arrive_exactly_as_meant(speech_server, engine):
    """URL-special characters, newlines, entities decoded once, CJK: the server speaks what the client meant."""
    texts = [
        "Is 5 + 3 = 8? Check #42 & 50% off / now!",
        "First line.\nSecond line.\r\nThird.",
        "Tom &amp; Jerry say &quot;hi&quot; &amp;lt;3",
        "Tokyo 東京 and 北京 are cities.",
    ]
    for text in texts:
        served = speak(remote(speech_server, response_format="pcm"), text)
        local = np.concatenate([c.audio for c in engine.synthesize(clean_text(text), DETERMINISTIC)])
        assert len(served) == len(local), text
        assert snr_db(np.frombuffer(pcm16(local), "<i2") / 32768.0, served) > 40, text
    assert clean_text("Tom &amp;lt;3") == "Tom &lt;3"
    assert clean_text("東京\U0001f600 ok") == "東京 ok"


def test_the_server_speaks_through_the_same_front_end(speech_server, engine):
    """The server normalizes as the engines do ("$3.50 for 2 kg on Jan. 5th" in dollars, cents, kilograms and a
    date: the engine's audio for the line in words); a request with 'normalize': false reads the text as
    written, as the engine with normalization off."""
    text, words = (
        "I paid $3.50 for 2 kg on Jan. 5th.",
        "I paid three dollars and fifty cents for two kilograms on January fifth.",
    )
    literal_options = dataclasses.replace(DETERMINISTIC, normalize=False)
    served = speak(remote(speech_server, response_format="pcm"), text)
    literal = speak(remote(speech_server, response_format="pcm"), text, literal_options)
    for heard, local in (
        (served, engine.synthesize(words, DETERMINISTIC)),
        (literal, engine.synthesize(text, literal_options)),
    ):
        local_audio = np.concatenate([c.audio for c in local])
        assert len(heard) == len(local_audio)
        assert snr_db(np.frombuffer(pcm16(local_audio), "<i2") / 32768.0, heard) > 40
    assert len(served) != len(literal)


def test_models_and_voices_are_listed(speech_server):
    """GET /v1/models and /v1/audio/voices name the served voice; the engine reads them."""
    engine = remote(speech_server)
    assert [m["id"] for m in engine.models()] == ["en_US-joe-medium"]
    assert engine.voices("en_US-joe-medium") == ["default"]


def test_unreachable_server_is_a_clear_error():
    """Nothing listens on the port: one message naming the address, after the bounded retries."""
    with httpx.Client() as probe:
        port = _free_port()
        engine = RemoteEngine(RemoteSettings(url=f"http://127.0.0.1:{port}", retries=1), probe)
        start = time.perf_counter()
        with pytest.raises(EngineError, match=f"127.0.0.1:{port}.*cannot connect"):
            speak(engine, "Hello.")
        assert time.perf_counter() - start < 5


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_non_loopback_bind_needs_a_key_and_checks_it():
    """0.0.0.0 without a key does not start; with one, requests without it get 401, and a full queue 503."""
    import subprocess
    import sys

    refused = subprocess.run(
        [sys.executable, "-m", "studio", "serve", "--host", "0.0.0.0", "--port", "0", "--no-warm-up"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 2 and "--api-key KEY" in refused.stderr
    server = SpeechServer(
        "--host", "0.0.0.0", "--workers", "1", "--queue", "0", "--no-warm-up", env={"VOICE_STUDIO_API_KEY": "k3y"}
    )
    try:
        url = server.url.replace("0.0.0.0", "127.0.0.1")
        body = {"input": "Hello.", "response_format": "pcm"}
        assert post(server, body, url=url).status_code == 401
        assert post(server, body, {"Authorization": "Bearer wrong"}, url=url).status_code == 401
        assert post(server, body, {"Authorization": "Bearer k3y"}, url=url).status_code == 200
        assert httpx.get(f"{url}/health").json() == {"status": "ok"}  # no details without the key
        with httpx.Client(timeout=30) as client:
            long = {**body, "input": FORTY_SENTENCES}
            with client.stream("POST", f"{url}/v1/audio/speech", json=long, headers={"Authorization": "Bearer k3y"}):
                busy = post(server, body, {"Authorization": "Bearer k3y"}, url=url)
        assert busy.status_code == 503 and busy.headers["retry-after"] == "1"
        assert "busy" in busy.json()["error"]["message"]
    finally:
        server.stop()


def test_say_remote_writes_a_wav_with_exact_sizes(speech_server, tmp_path):
    """voice-studio say --engine remote -o FILE: a streamed line saved with exact RIFF and data sizes."""
    import subprocess
    import sys

    out = tmp_path / "remote.wav"
    command = [sys.executable, "-m", "studio", "say", "--engine", "remote", "--url", speech_server.url]
    command += ["--model", "en_US-joe-medium", "--voice", "default", "--format", "wav", "Saved from a stream.", "-o"]
    result = subprocess.run([*command, str(out)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    body = out.read_bytes()
    assert struct.unpack("<I", body[4:8])[0] == len(body) - 8
    assert struct.unpack("<I", body[40:44])[0] == len(body) - 44 > 22050


def test_say_remote_sentence_silence_is_sent_to_our_server(speech_server, tmp_path):
    """say --engine remote --sentence-silence 0.5 asks for Piper's settings, so our server puts the silence in
    (it said "not applied" and dropped it unless a noise option was also given)."""
    import subprocess
    import sys

    import soundfile

    command = [sys.executable, "-m", "studio", "say", "--engine", "remote", "--url", speech_server.url]
    command += ["--model", "en_US-joe-medium", "--format", "wav", "--sentence-silence", "0.5", "One. Two.", "-o"]
    result = subprocess.run([*command, str(tmp_path / "gap.wav")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and "not applied" not in result.stderr, result.stderr
    audio, rate = soundfile.read(tmp_path / "gap.wav", dtype="float32")
    quiet = np.abs(audio) < 1e-4
    longest = max(len(run) for run in np.split(quiet, np.flatnonzero(np.diff(quiet.astype(np.int8))) + 1) if run[0])
    assert longest >= 0.5 * rate


def test_cancel_wakes_a_read_blocked_on_a_silent_server():
    """A server that sends one piece and then nothing: cancel ends the stream at once, not at the read timeout."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    gone = threading.Event()

    def stall() -> None:
        connection, _ = listener.accept()
        with connection:
            request = b""
            while b"\r\n\r\n" not in request:  # headers, then the body they announce
                request += connection.recv(65536)
            head, _, body = request.partition(b"\r\n\r\n")
            length = int(
                next(
                    v for k, _, v in (h.partition(b":") for h in head.split(b"\r\n")) if k.lower() == b"content-length"
                )
            )
            while len(body) < length:
                body += connection.recv(65536)
            connection.sendall(
                b"HTTP/1.1 200 OK\r\nContent-Type: audio/pcm\r\nX-Sample-Rate: 16000\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n" + b"640\r\n" + b"\0\1" * 800 + b"\r\n"
            )
            connection.settimeout(30)
            if connection.recv(1) == b"":  # the client's FIN arrives on cancel
                gone.set()

    server = threading.Thread(target=stall, daemon=True)
    server.start()
    url = f"http://127.0.0.1:{listener.getsockname()[1]}"
    engine, cancel = RemoteEngine(RemoteSettings(url=url, timeout_s=30)), threading.Event()
    stream = engine.synthesize("Hello.", cancel=cancel)
    assert len(next(stream).audio) == 800
    threading.Timer(0.2, cancel.set).start()
    start = time.perf_counter()
    assert list(stream) == []
    assert time.perf_counter() - start < 10  # a third of the 30 s read timeout the bug waited (a loaded machine: slack)
    assert gone.wait(20)
    listener.close()


def test_one_server_speaks_with_two_engines():
    """--engine onnx --engine torch: the voice by name is ONNX, torch/VOICE is the torch engine; both agree."""
    pytest.importorskip("torch")
    server = SpeechServer("--engine", "onnx", "--engine", "torch", "--workers", "1", "--no-warm-up")
    try:
        models = {m["id"]: m["engine"] for m in remote(server).models()}
        assert models == {"en_US-joe-medium": "onnx", "torch/en_US-joe-medium": "torch"}
        text = "Two engines, one voice."
        onnx = speak(remote(server, model="en_US-joe-medium"), text)
        torch_audio = speak(remote(server, model="torch/en_US-joe-medium"), text)
        assert len(onnx) == len(torch_audio) > 0 and snr_db(onnx, torch_audio) > 30
        assert post(server, {"input": "Hi.", "model": "cuda/en_US-joe-medium"}).status_code == 404
    finally:
        server.stop()


def test_wrong_method_and_unknown_route_answer_in_openai_shape(speech_server):
    """405 and 404 from the router are JSON errors like every other refusal."""
    wrong = httpx.get(f"{speech_server.url}/v1/audio/speech")
    assert wrong.status_code == 405 and "GET /v1/audio/speech" in wrong.json()["error"]["message"]
    assert httpx.get(f"{speech_server.url}/v1/nothing").json()["error"]["message"].startswith("GET /v1/nothing")


def test_remote_text_without_speech_is_an_empty_stream(speech_server):
    """Emoji only, as the punctuation-only texts of the conformance suite: no chunk and no error (the server's
    400 'no speakable text' was raised as an EngineError, where the local engines give an empty stream)."""
    assert list(remote(speech_server).synthesize("\U0001f600\U0001f389 \u2764\ufe0f", DETERMINISTIC)) == []


def test_sentence_silence_an_openai_request_cannot_carry_is_told(speech_server):
    """Without Piper's settings (an OpenAI-style request) sentence_silence cannot be sent: the engine says so
    instead of dropping it silently (our server applies it: ``tests/engine_conformance.py``)."""
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, sentence_silence=0.5)
    engine = RemoteEngine(RemoteSettings(url=speech_server.url, model="tts-1", voice="alloy"))
    assert len(speak(engine, "One sentence. Another one.", options)) > 0
    assert "sentence_silence is not applied" in engine.notice
    assert len(speak(engine, "One sentence.")) > 0 and engine.notice == ""


def test_length_scale_means_the_same_remotely_on_a_voice_with_its_own_rate(tmp_path):
    """On a voice whose config says length_scale 1.5, length_scale 1.0 is 1.0 on the remote engine as on the
    local ones (it was sent as speed 1.0 and became the voice's 1.5); OpenAI's speed stays relative to the
    voice's rate, and a body with both is a 400 naming the field."""
    import json
    import shutil

    from engines.registry import create_engine, default_voice
    from engines.voice import config_path_for, load_voice

    joe = default_voice()
    model = shutil.copy(joe.model_path, tmp_path / "slow.onnx")
    config = json.loads(config_path_for(joe.model_path).read_text())
    config["inference"]["length_scale"] = 1.5
    (tmp_path / "slow.onnx.json").write_text(json.dumps(config))
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0, length_scale=1.0)
    local = np.concatenate(
        [c.audio for c in create_engine("onnx", load_voice(model)).synthesize("Hello there.", options)]
    )
    server = SpeechServer("--voice", str(model), "--workers", "1", "--no-warm-up")
    try:
        heard = speak(remote(server, model="slow"), "Hello there.", options)
        assert len(heard) == len(local)
        openai = speak(remote(server, model="slow", piper_params=False), "Hello there.", options)
        assert len(openai) > 1.3 * len(local)  # speed 1.0: the voice's own (slower) rate
        both = post(server, {"input": "Hello.", "speed": 1.0, "length_scale": 1.0})
        assert both.status_code == 400 and both.json()["error"]["param"] == "length_scale"
    finally:
        server.stop()
