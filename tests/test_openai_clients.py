"""Stock OpenAI clients against ``voice-studio serve``: the ``openai`` package with its defaults, OpenAI's voice
names, 24 kHz ``pcm``, voice and speaker names resolved one way (``engines.names``)."""

from __future__ import annotations

import io

import httpx
import numpy as np
import openai
import pytest
import soundfile
import soxr
from conftest import SpeechServer

from engines.audio import snr_db
from engines.base import SynthesisOptions
from engines.http_engine import RemoteEngine, RemoteSettings
from engines.names import OPENAI_VOICES

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
def trio_server(tmp_path_factory):
    """A server with a tiny 3-speaker voice (ana, ben, cleo) first, then joe; alloy maps to cleo, pcm native."""
    torch = pytest.importorskip("torch")
    from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP

    from engines.vits import Synthesizer, VitsConfig
    from trainer.export import voice_config, write_voice

    torch.manual_seed(5)
    tiny = dict(hidden_channels=32, inter_channels=32, filter_channels=64, n_layers=2, upsample_initial_channel=32)
    model = Synthesizer(VitsConfig.preset("low", num_symbols=256, num_speakers=3, **tiny)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    id_map = {k: list(v) for k, v in DEFAULT_PHONEME_ID_MAP.items()}
    config = voice_config(model, id_map, 16000, speaker_id_map={"ana": 0, "ben": 1, "cleo": 2})
    path, _ = write_voice(model, tmp_path_factory.mktemp("trio") / "en_US-trio-low.onnx", config)
    server = SpeechServer(
        "--voice",
        str(path),
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
