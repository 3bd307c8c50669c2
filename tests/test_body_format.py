"""The remote engine decodes what a server sent (bytes, Content-Type), not what it asked for: a small real HTTP
server on 127.0.0.1 answers with bodies in other formats than requested."""

from __future__ import annotations

import base64
import io
import json
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest
import soundfile

from engines.base import EngineError
from engines.remote.body_format import SniffingDecoder, body_format
from engines.remote.engine import RemoteEngine
from engines.remote.settings import RemoteSettings

RATE = 22050


def _tone(seconds: float = 1.0, rate: int = RATE) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def _encoded(audio: np.ndarray, file_format: str, subtype: str, rate: int = RATE) -> bytes:
    body = io.BytesIO()
    soundfile.write(body, audio, rate, format=file_format, subtype=subtype)
    return body.getvalue()


class OddServer:
    """An OpenAI-style speech endpoint that answers every request with ``body`` and ``content_type``,
    whatever format was asked for, except the ``refused`` formats: 400 in OpenAI's error shape
    (``requests`` records the JSON bodies)."""

    def __init__(self) -> None:
        self.body, self.content_type, self.requests, self.refused = b"", "", [], ()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                owner.requests.append(self.rfile.read(int(self.headers["Content-Length"])))
                asked = json.loads(owner.requests[-1]).get("response_format")
                if asked in owner.refused:
                    error = {"error": {"message": f"unsupported response_format '{asked}'"}}
                    return self._send(400, json.dumps(error).encode(), "application/json")
                self._send(200, owner.body, owner.content_type)

            def _send(self, status: int, body: bytes, content_type: str) -> None:
                self.send_response(status)
                if content_type:
                    self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def answer(self, body: bytes, content_type: str, refused: tuple[str, ...] = ()) -> None:
        self.body, self.content_type, self.refused = body, content_type, refused

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def odd_server():
    server = OddServer()
    yield server
    server.close()


def _speak(server: OddServer, response_format: str) -> tuple[np.ndarray, RemoteEngine]:
    engine = RemoteEngine(RemoteSettings(url=server.url, response_format=response_format, retries=0))
    chunks = list(engine.synthesize("Hello."))
    engine.close()
    return np.concatenate([c.audio for c in chunks]), engine


@pytest.mark.parametrize("subtype", ["PCM_16", "FLOAT"])
@pytest.mark.parametrize("content_type", ["audio/wav", "audio/pcm", ""])
def test_a_pcm_request_answered_with_a_wav_plays_the_wav(odd_server, subtype, content_type):
    """1 s of s16 or float32 WAV sent for pcm (labelled wav, pcm or nothing): 1 s at the WAV's rate, and a notice."""
    odd_server.answer(_encoded(_tone(), "WAV", subtype), content_type)
    audio, engine = _speak(odd_server, "pcm")
    expected, _ = soundfile.read(io.BytesIO(odd_server.body), dtype="float32")
    assert engine.sample_rate == RATE and len(audio) == RATE
    assert np.array_equal(audio, expected)
    assert "asked for pcm, the server sent wav" in engine.notice


@pytest.mark.parametrize(
    ("asked", "file_format", "subtype", "content_type", "found"),
    [
        ("pcm", "FLAC", "PCM_16", "audio/flac", "flac"),
        ("wav", "FLAC", "PCM_16", "application/octet-stream", "flac"),
        ("wav", "MP3", "MPEG_LAYER_III", "audio/mpeg", "mp3"),
        ("pcm", "OGG", "VORBIS", "audio/ogg", "ogg"),
    ],
)
def test_compressed_bodies_are_decoded_as_what_they_are(odd_server, asked, file_format, subtype, content_type, found):
    """FLAC, MP3 and Ogg sent for pcm or wav: decoded by libsndfile at their own rate, about 1 s long."""
    odd_server.answer(_encoded(_tone(), file_format, subtype), content_type)
    audio, engine = _speak(odd_server, asked)
    assert engine.sample_rate == RATE and abs(len(audio) - RATE) < 0.1 * RATE
    assert f"asked for {asked}, the server sent {found}" in engine.notice


def test_raw_pcm_labelled_as_pcm_is_played_as_pcm_for_a_wav_request(odd_server):
    """A wav request answered with headerless pcm (audio/pcm;rate=16000): 16 kHz samples, and a notice."""
    tone = _tone(rate=16000)
    odd_server.answer(np.rint(tone * 32767).astype("<i2").tobytes(), "audio/pcm;rate=16000")
    audio, engine = _speak(odd_server, "wav")
    assert engine.sample_rate == 16000 and len(audio) == 16000
    assert np.abs(audio - tone).max() < 1e-4
    assert "asked for wav, the server sent pcm" in engine.notice


def test_pcm_that_looks_like_an_mpeg_frame_stays_pcm_and_says_nothing(odd_server):
    """Samples -1, 144 (bytes FF FF 90 00) begin like an MPEG frame header: a pcm answer stays pcm, no notice."""
    samples = np.concatenate([[-1, 144], np.rint(_tone(0.5) * 32767)]).astype("<i2")
    odd_server.answer(samples.tobytes(), "audio/pcm")
    audio, engine = _speak(odd_server, "pcm")
    assert len(audio) == len(samples) and engine.notice == ""
    assert body_format(samples.tobytes()[:12], "", "pcm") == "pcm"
    assert body_format(samples.tobytes()[:12], "", "wav") == "mp3"  # only a pcm request keeps the weak guess off


def test_a_float_wav_fed_a_byte_at_a_time_decodes_exactly():
    """The format is decided from the first 12 bytes whatever the pieces; float32 samples stay float32."""
    tone = _tone(0.25)
    body = _encoded(tone, "WAV", "FLOAT")
    decoder = SniffingDecoder("pcm", "", 24000)
    audio = np.concatenate([decoder.feed(body[i : i + 1]) for i in range(len(body))] + [decoder.finish()])
    assert decoder.found == "wav" and decoder.sample_rate == RATE
    assert np.array_equal(audio, tone)


def test_a_refused_format_falls_back_to_wav(odd_server):
    """A server that refuses opus (400 naming the format): the engine says so and asks for wav instead."""
    odd_server.answer(_encoded(_tone(), "WAV", "PCM_16"), "audio/wav", refused=("opus",))
    audio, engine = _speak(odd_server, "opus")
    asked = [json.loads(r)["response_format"] for r in odd_server.requests[-2:]]
    assert asked == ["opus", "wav"] and len(audio) == RATE
    assert "refused opus" in engine.notice


@pytest.mark.parametrize(
    ("asked", "content_type", "rate"),
    [("wav", "audio/wav", 22050), ("pcm", "audio/pcm", 22050), ("pcm", "audio/pcm", 44100), ("pcm", "", 8000)],
)
def test_an_mp3_without_id3_is_recognised_by_its_frames_whatever_its_label(odd_server, asked, content_type, rate):
    """MPEG-2, -1 and -2.5 Layer III frames (FF F3, FF FB, FF E3; no ID3 tag) sent as wav or pcm: decoded as mp3."""
    body = _encoded(_tone(rate=rate), "MP3", "MPEG_LAYER_III", rate)
    assert body[:3] != b"ID3" and body[0] == 0xFF
    odd_server.answer(body, content_type)
    audio, engine = _speak(odd_server, asked)
    assert engine.sample_rate == rate and abs(len(audio) - rate) < 0.1 * rate
    assert f"asked for {asked}, the server sent mp3" in engine.notice


def test_an_mp3_in_server_sent_events_for_a_pcm_request_is_decoded_as_mp3(odd_server):
    """Base64 deltas of an MP3 without ID3 in an SSE stream asked as pcm (no label inside): 1 s of mp3, not noise."""
    body = _encoded(_tone(), "MP3", "MPEG_LAYER_III")
    parts = np.array_split(np.frombuffer(body, np.uint8), 5)
    events = [{"type": "speech.audio.delta", "audio": base64.b64encode(p.tobytes()).decode()} for p in parts]
    odd_server.answer("".join(f"data: {json.dumps(e)}\n\n" for e in events).encode(), "text/event-stream")
    audio, engine = _speak(odd_server, "pcm")
    assert engine.sample_rate == RATE and abs(len(audio) - RATE) < 0.1 * RATE
    assert "asked for pcm, the server sent mp3" in engine.notice


@pytest.mark.parametrize(("file_format", "subtype"), [("RF64", "PCM_16"), ("AIFF", "PCM_16")])
def test_wave_containers_labelled_pcm_are_decoded_as_what_they_are(odd_server, file_format, subtype):
    """An RF64 (a WAV past 4 GB: RF64....WAVE) or AIFF body labelled audio/pcm for a pcm request: its samples."""
    odd_server.answer(_encoded(_tone(), file_format, subtype), "audio/pcm")
    audio, engine = _speak(odd_server, "pcm")
    expected, _ = soundfile.read(io.BytesIO(odd_server.body), dtype="float32")
    assert engine.sample_rate == RATE and np.array_equal(audio, expected)
    assert "asked for pcm, the server sent" in engine.notice


def _adts(frames: int = 12, payload: int = 180) -> bytes:
    """AAC-LC in ADTS frames (ISO/IEC 13818-7, 6.2): 44.1 kHz mono, no CRC; the payloads are seeded noise."""
    length = 7 + payload
    header = bytes(
        [0xFF, 0xF1, (1 << 6) | (4 << 2), (1 << 6) | (length >> 11), (length >> 3) & 0xFF, ((length & 7) << 5) | 0x1F]
    )
    noise = np.random.default_rng(0).integers(0, 256, (frames, payload), dtype=np.uint8)
    return b"".join(header + b"\xfc" + row.tobytes() for row in noise)


@pytest.mark.parametrize(("asked", "content_type"), [("pcm", "audio/pcm"), ("wav", "audio/wav")])
def test_aac_in_adts_frames_is_refused_naming_it(odd_server, asked, content_type):
    """ADTS (AAC) sent as pcm or wav: one error naming AAC and what to ask for, never samples."""
    odd_server.answer(_adts(), content_type)
    with pytest.raises(EngineError, match=f"AAC audio in ADTS frames, labelled {content_type},.*cannot decode AAC"):
        _speak(odd_server, asked)


@pytest.mark.parametrize(
    ("body", "content_type", "words"),
    [
        (b'{"error": {"message": "model piper not loaded"}}', "audio/pcm", "model piper not loaded"),
        (b"<!DOCTYPE html><html><title>502 Bad Gateway</title></html>", "", "502 Bad Gateway"),
        (b"Service temporarily unavailable, try later\n", "text/plain", "Service temporarily unavailable"),
    ],
)
def test_a_text_answer_is_refused_with_its_words(odd_server, body, content_type, words):
    """A 200 answer of JSON, HTML or plain text for a pcm request (labelled audio/pcm, nothing, text/plain):
    an error quoting it, not noise."""
    odd_server.answer(body, content_type)
    with pytest.raises(EngineError, match=f"not audio.*{words}"):
        _speak(odd_server, "pcm")


def test_say_refuses_an_aac_body_sent_as_pcm_in_one_line(odd_server, tmp_path):
    """voice-studio say --engine remote --format pcm answered with ADTS labelled audio/pcm: exit 2, one line."""
    odd_server.answer(_adts(), "audio/pcm")
    command = [sys.executable, "-m", "studio", "say", "--engine", "remote", "--url", odd_server.url, "--format", "pcm"]
    result = subprocess.run([*command, "-o", str(tmp_path / "out.wav"), "Hello."], capture_output=True, text=True)
    assert result.returncode == 2 and "AAC" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and not (tmp_path / "out.wav").exists()


@pytest.mark.parametrize("content_type", ["text/event-stream", "audio/wav"])
def test_an_sse_request_answered_with_audio_itself_plays_it(odd_server, content_type):
    """Asked for server-sent events, a server sends the audio itself (a FLAC, or a WAV), labelled an event stream or
    audio: the body is recognised as audio and played, not read as events (it used to end in a UTF-8 error)."""
    odd_server.answer(_encoded(_tone(), "FLAC", "PCM_16"), content_type)
    engine = RemoteEngine(RemoteSettings(url=odd_server.url, response_format="wav", stream_format="sse", retries=0))
    audio = np.concatenate([c.audio for c in engine.synthesize("Hello.")])
    engine.close()
    assert engine.sample_rate == RATE and len(audio) == RATE and "the server sent flac" in engine.notice
    events = b"data: " + json.dumps({"type": "speech.audio.delta", "audio": "\xff"}).encode() + b"\n\n"
    odd_server.answer(events.replace(b"\\u00ff", b"\xff\xfe"), "text/event-stream")
    with pytest.raises(EngineError, match="event stream holds bytes that are not UTF-8 text"):
        list(RemoteEngine(RemoteSettings(url=odd_server.url, stream_format="sse", retries=0)).synthesize("Hi."))
