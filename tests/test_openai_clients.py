"""Stock OpenAI clients against ``voice-studio serve``: the ``openai`` package with its defaults, OpenAI's voice
names, 24 kHz ``pcm``, voice and speaker names resolved one way (``engines.names``)."""

from __future__ import annotations

import base64
import io
import json

import httpx
import numpy as np
import openai
import pytest
import soundfile
import soxr
from conftest import SpeechServer

from engines.audio import snr_db
from engines.base import SynthesisOptions
from engines.remote.engine import RemoteEngine
from engines.remote.settings import RemoteSettings
from engines.speakers import OPENAI_VOICES

DETERMINISTIC = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
NOISE_OFF = {"noise_scale": 0, "noise_w": 0}


def client_for(server: SpeechServer):
    """OpenAI's own client, pointed at ``server`` (it insists on some key)."""
    return openai.OpenAI(base_url=f"{server.url}/v1", api_key="not-needed", max_retries=0)


def local(engine, text: str, options: SynthesisOptions = DETERMINISTIC) -> np.ndarray:
    return np.concatenate([c.audio for c in engine.synthesize(text, options)])


def test_the_openai_sdk_with_its_defaults_gets_mp3_speech(speech_server, engine):
    """tts-1, alloy, no format (mp3): real speech as long as the line spoken in process (noise makes it vary)."""
    text = "Hello there. This is a stock client."
    response = client_for(speech_server).audio.speech.create(model="tts-1", voice="alloy", input=text)
    audio, rate = soundfile.read(io.BytesIO(response.content), dtype="float32")
    expected = len(local(engine, text, SynthesisOptions())) / engine.sample_rate
    assert rate == engine.sample_rate
    assert abs(len(audio) / rate - expected) < 0.2 * expected
    assert np.sqrt(np.mean(audio**2)) > 0.02


@pytest.mark.parametrize("voice", ["alloy", "nova", "verse"])
def test_streamed_pcm_is_24khz_s16_as_openai_clients_play_it(speech_server, engine, voice):
    """with_streaming_response, pcm: 24 kHz samples equal to our line resampled to 24 kHz."""
    text = "Streaming at twenty four kilohertz."
    client = client_for(speech_server)
    with client.audio.speech.with_streaming_response.create(
        model="tts-1", voice=voice, input=text, response_format="pcm", extra_body=NOISE_OFF
    ) as response:
        assert response.headers["x-sample-rate"] == "24000"
        body = b"".join(response.iter_bytes())
    served = np.frombuffer(body, "<i2").astype(np.float32) / 32768.0
    expected = soxr.resample(local(engine, text), engine.sample_rate, 24000)
    assert abs(len(served) - len(expected)) <= 2
    n = min(len(served), len(expected))
    assert snr_db(expected[:n], served[:n]) > 30


def test_24khz_pcm_is_the_same_streamed_or_whole(speech_server):
    """The resampler runs chunk by chunk: a streamed and a whole (stream false) 24 kHz body are byte-equal."""
    body = {"model": "tts-1", "voice": "alloy", "input": "One. Two, three.", "response_format": "pcm", **NOISE_OFF}
    streamed = httpx.post(f"{speech_server.url}/v1/audio/speech", json=body, timeout=30)
    whole = httpx.post(f"{speech_server.url}/v1/audio/speech", json={**body, "stream": False}, timeout=30)
    assert streamed.headers["content-type"] == whole.headers["content-type"] == "audio/pcm;rate=24000"
    assert len(streamed.content) > 24000 and streamed.content == whole.content


def test_the_issue_request_and_every_openai_voice_name_are_answered(speech_server):
    """The request from the issue (tts-1, alloy, wav) and each of OpenAI's voice names: 200 with a WAV."""
    for voice in OPENAI_VOICES:
        body = {"model": "tts-1", "input": "Hello there.", "voice": voice, "response_format": "wav"}
        response = httpx.post(f"{speech_server.url}/v1/audio/speech", json=body, timeout=30)
        assert response.status_code == 200, (voice, response.text)
        audio, rate = soundfile.read(io.BytesIO(response.content), dtype="float32")
        assert rate == 22050 and 0.5 < len(audio) / rate < 2.0


def test_our_remote_engine_plays_the_24khz_pcm_at_its_rate(speech_server, engine):
    """Our own client asks for pcm without extensions: it reads 24 kHz from the headers, duration intact."""
    text = "Our own client, at the server's rate."
    settings = RemoteSettings(url=speech_server.url, model="tts-1", voice="alloy", extra=NOISE_OFF)
    chunks = list(RemoteEngine(settings).synthesize(text))
    assert {c.sample_rate for c in chunks} == {24000}
    served = np.concatenate([c.audio for c in chunks])
    assert abs(len(served) / 24000 - len(local(engine, text)) / engine.sample_rate) < 0.001


@pytest.fixture(scope="module")
def trio_server(trio_voice):
    """A server with a tiny 3-speaker voice (ana, ben, cleo) first, then joe; alloy maps to cleo, pcm native."""
    server = SpeechServer(
        "--voice",
        str(trio_voice),
        "--voice",
        "joe",
        "--map-voice",
        "alloy=cleo",
        "--pcm-rate",
        "native",
        "--workers",
        "1",
        "--no-warm-up",
    )
    yield server
    server.stop()


def _pcm(server: SpeechServer, **fields) -> tuple[np.ndarray, int]:
    body = {"input": "Three voices.", "response_format": "pcm", **NOISE_OFF, **fields}
    response = httpx.post(f"{server.url}/v1/audio/speech", json=body, timeout=30)
    assert response.status_code == 200, response.text
    return np.frombuffer(response.content, "<i2"), int(response.headers["x-sample-rate"])


def test_speaker_ids_names_and_mapped_openai_voices_are_one_speaker(trio_server):
    """voice "1" is ben, "alloy" is cleo (mapped), "echo" the default (ana); model "trio" is the short name."""
    ben, rate = _pcm(trio_server, model="en_US-trio-low", voice="ben")
    assert rate == 16000  # --pcm-rate native
    assert np.array_equal(_pcm(trio_server, model="trio", voice="1")[0], ben)
    cleo = _pcm(trio_server, model="tts-1", voice="cleo")[0]
    assert np.array_equal(_pcm(trio_server, model="tts-1", voice="alloy")[0], cleo)
    ana = _pcm(trio_server, model="tts-1", voice="default")[0]
    assert np.array_equal(_pcm(trio_server, voice="echo")[0], ana)
    assert not np.array_equal(ana, cleo) and not np.array_equal(ana, ben)


def test_model_joe_and_the_voice_map_are_listed(trio_server):
    """model "joe" (as serve --voice joe) speaks joe; /v1/audio/voices lists alloy -> cleo, echo -> default."""
    joe, rate = _pcm(trio_server, model="joe", voice="alloy", input="Joe speaks.")
    assert rate == 22050 and len(joe) > 0.3 * rate
    listing = httpx.get(f"{trio_server.url}/v1/audio/voices", params={"model": "trio"}, timeout=10).json()
    mapping = {e["voice"]: e["speaker"] for e in listing["voice_map"]}
    assert mapping["alloy"] == "cleo" and mapping["echo"] == "default" and set(OPENAI_VOICES) <= set(mapping)
    assert [v["id"] for v in listing["voices"]] == ["default", "ana", "ben", "cleo"]
    wrong = httpx.post(
        f"{trio_server.url}/v1/audio/speech", json={"model": "trio", "voice": "7", "input": "No."}, timeout=10
    )
    assert wrong.status_code == 404 and "unknown speaker '7'" in wrong.json()["error"]["message"]


def _decoded(body: bytes) -> tuple[np.ndarray, int, str]:
    """A body decoded by libsndfile: samples, rate and subtype (``OPUS``, ``MPEG_LAYER_III``…)."""
    info = soundfile.info(io.BytesIO(body))
    audio, rate = soundfile.read(io.BytesIO(body), dtype="float32")
    return audio, rate, info.subtype


def test_the_openai_sdk_gets_ogg_opus_as_long_as_the_local_line(speech_server, engine):
    """response_format opus: an Ogg Opus file at 48 kHz (joe is 22,050 Hz) that decodes to the local line's
    duration and waveform."""
    text = "Opus, as stock clients ask for it."
    response = client_for(speech_server).audio.speech.create(
        model="tts-1", voice="alloy", input=text, response_format="opus", extra_body=NOISE_OFF
    )
    assert response.response.headers["content-type"] == "audio/ogg; codecs=opus"
    audio, rate, subtype = _decoded(response.content)
    spoken = local(engine, text)
    assert (rate, subtype) == (48000, "OPUS")
    assert abs(len(audio) / rate - len(spoken) / engine.sample_rate) < 0.002
    expected = soxr.resample(spoken, engine.sample_rate, rate)
    n = min(len(audio), len(expected))
    assert np.corrcoef(audio[:n], expected[:n])[0, 1] > 0.97


@pytest.mark.parametrize("stream_format", [None, "sse"])
def test_our_remote_engine_plays_an_ogg_opus_body(speech_server, engine, stream_format):
    """Our client asks for opus (plain, or as server-sent events): it plays the 48 kHz Ogg Opus file at its
    rate, as long as the local line, without a notice."""
    text = "Our client, playing Opus."
    settings = RemoteSettings(
        url=speech_server.url, response_format="opus", stream_format=stream_format, retries=0, extra=NOISE_OFF
    )
    remote = RemoteEngine(settings)
    chunks = list(remote.synthesize(text))
    assert {c.sample_rate for c in chunks} == {48000} and remote.notice == ""
    served = np.concatenate([c.audio for c in chunks])
    assert abs(len(served) / 48000 - len(local(engine, text)) / engine.sample_rate) < 0.002


@pytest.mark.parametrize(("response_format", "subtype"), [("mp3", "MPEG_LAYER_III"), ("flac", "PCM_16")])
def test_sse_deltas_of_a_whole_format_are_that_file(speech_server, response_format, subtype):
    """stream_format sse with mp3 or flac: the base64 deltas put together are an mp3 or flac file (they were
    raw pcm labelled as the format)."""
    body = {"input": "Events carry the file.", "response_format": response_format, "stream_format": "sse"}
    response = httpx.post(f"{speech_server.url}/v1/audio/speech", json=body, timeout=30)
    events = [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]
    deltas = b"".join(base64.b64decode(e["audio"]) for e in events if e["type"] == "speech.audio.delta")
    audio, rate, found = _decoded(deltas)
    assert events[-1]["type"] == "speech.audio.done" and (rate, found) == (22050, subtype)
    assert len(audio) > 0.8 * rate


@pytest.mark.parametrize(("response_format", "asked", "carried"), [("mp3", 96000, 48000), ("opus", 44100, 48000)])
def test_a_rate_the_format_cannot_carry_is_resampled_not_a_500(speech_server, response_format, asked, carried):
    """sample_rate 96000 for mp3 (MPEG audio stops at 48 kHz) was a 500 with a traceback: it comes at the
    rate the format carries, stated in X-Sample-Rate and in the file."""
    body = {"input": "Any rate.", "response_format": response_format, "sample_rate": asked}
    response = httpx.post(f"{speech_server.url}/v1/audio/speech", json=body, timeout=30)
    assert response.status_code == 200, response.text
    audio, rate, _ = _decoded(response.content)
    assert rate == int(response.headers["x-sample-rate"]) == carried and len(audio) > 0.4 * rate


def test_opus_keeps_a_rate_opus_carries(trio_server):
    """A 16 kHz voice's opus stays at 16 kHz (an Opus input rate): nothing is resampled."""
    body = {"model": "trio", "input": "Sixteen kilohertz.", "response_format": "opus", **NOISE_OFF}
    response = httpx.post(f"{trio_server.url}/v1/audio/speech", json=body, timeout=30)
    audio, rate, subtype = _decoded(response.content)
    pcm, pcm_rate = _pcm(trio_server, model="trio", input="Sixteen kilohertz.")
    assert (rate, subtype, response.headers["x-sample-rate"]) == (16000, "OPUS", "16000")
    assert pcm_rate == 16000 and abs(len(audio) - len(pcm)) <= 1


def test_models_say_the_rate_each_format_comes_at(speech_server):
    """/v1/models: sample_rate is joe's own 22,050 Hz, pcm_sample_rate the 24 kHz its pcm comes at, and
    response_sample_rates the X-Sample-Rate each format's response really has."""
    entry = httpx.get(f"{speech_server.url}/v1/models", timeout=10).json()["data"][0]
    assert (entry["sample_rate"], entry["pcm_sample_rate"]) == (22050, 24000)
    assert entry["response_sample_rates"]["opus"] == 48000
    for response_format, rate in entry["response_sample_rates"].items():
        body = {"input": "Rate.", "response_format": response_format, "stream": False}
        response = httpx.post(f"{speech_server.url}/v1/audio/speech", json=body, timeout=30)
        assert int(response.headers["x-sample-rate"]) == rate, response_format


def test_models_with_native_pcm_say_each_voice_rate(trio_server):
    """--pcm-rate native: each model's pcm_sample_rate is its voice's own rate (trio 16 kHz, joe 22,050 Hz)."""
    entries = httpx.get(f"{trio_server.url}/v1/models", timeout=10).json()["data"]
    assert {e["id"]: e["pcm_sample_rate"] for e in entries} == {"en_US-trio-low": 16000, "en_US-joe-medium": 22050}
    assert _pcm(trio_server, model="trio")[1] == 16000


def test_the_openai_sdk_retrieves_each_model_by_every_name_a_request_takes(trio_voice):
    """client.models.retrieve: each listed id gives its listed entry; joe, tts-1, a name in other case and
    torch/joe give the entry they mean; unknown models and engines are 404 model_not_found in OpenAI's shape."""
    server = SpeechServer(
        "--voice", str(trio_voice), "--voice", "joe", "--engine", "onnx", "--engine", "torch", "--no-warm-up"
    )
    try:
        client = client_for(server)
        listed = {m.id: m.model_dump() for m in client.models.list()}
        assert set(listed) == {
            "en_US-trio-low",
            "en_US-joe-medium",
            "torch/en_US-trio-low",
            "torch/en_US-joe-medium",
        }
        for model_id, entry in listed.items():
            assert client.models.retrieve(model_id).model_dump() == entry
        named = {"joe": "en_US-joe-medium", "tts-1": "en_US-trio-low", "EN_US-JOE-MEDIUM": "en_US-joe-medium"}
        named |= {"torch/joe": "torch/en_US-joe-medium", "onnx/trio": "en_US-trio-low"}
        assert {name: client.models.retrieve(name).id for name in named} == named
        for unknown, said in [("nobody", "unknown model 'nobody'"), ("cuda/joe", "unknown engine 'cuda'")]:
            with pytest.raises(openai.NotFoundError) as error:
                client.models.retrieve(unknown)
            assert error.value.code == "model_not_found" and said in error.value.message
            assert error.value.body["type"] == "invalid_request_error"
    finally:
        server.stop()
