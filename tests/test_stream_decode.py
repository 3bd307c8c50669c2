"""Incremental decoding of audio bodies: any byte boundaries give exactly the samples."""

from __future__ import annotations

import base64
import io
import json
import struct

import numpy as np
import pytest
import soundfile

from engines.remote.decode import DecodeError, PcmDecoder, WavDecoder, decoder_for
from engines.remote.sse import SseAudio
from engines.server.encode import encode_whole, pcm16, stream_start, wav_header


def _audio(n: int = 5001, seed: int = 0) -> np.ndarray:
    """Float32 samples that survive our 16-bit quantization (x 32767) exactly."""
    ints = np.random.default_rng(seed).integers(-32767, 32767, n)
    return (ints / 32767.0).astype(np.float32)


def _played(audio: np.ndarray) -> np.ndarray:
    """What a decoder must give for ``pcm16(audio)``: the 16-bit values / 32768, as libsndfile reads them."""
    return np.frombuffer(pcm16(audio), "<i2").astype(np.float32) / 32768.0


def _feed_in_pieces(decoder, body: bytes, seed: int = 1) -> np.ndarray:
    """Feed ``body`` in random 1- to 7-byte pieces, then finish."""
    rng = np.random.default_rng(seed)
    out, at = [], 0
    while at < len(body):
        step = int(rng.integers(1, 8))
        out.append(decoder.feed(body[at : at + step]))
        at += step
    out.append(decoder.finish())
    return np.concatenate(out)


def _chunk(chunk_id: bytes, payload: bytes) -> bytes:
    return chunk_id + struct.pack("<I", len(payload)) + payload + b"\0" * (len(payload) % 2)


def _list_chunk() -> bytes:
    return _chunk(b"LIST", b"INFOISFT" + struct.pack("<I", 13) + b"voice-studio\0")


def test_pcm_in_tiny_pieces_gives_exact_samples():
    """Raw s16le split at every odd byte still decodes to the same samples."""
    audio = _audio()
    assert np.array_equal(_feed_in_pieces(PcmDecoder(22050), pcm16(audio)), _played(audio))


def test_streamed_wav_with_placeholder_sizes_gives_exact_samples():
    """A streamed header (sizes 0xFFFFFFFF) means: audio to the end of the body."""
    audio = _audio()
    decoder = WavDecoder()
    assert np.array_equal(_feed_in_pieces(decoder, stream_start("wav", 24000) + pcm16(audio)), _played(audio))
    assert decoder.sample_rate == 24000


def test_wav_with_zero_data_size_reads_to_the_end():
    """Python's wave module on a pipe writes 0 for the unknown size."""
    audio = _audio(999)
    header = bytearray(wav_header(16000, 0))
    assert np.array_equal(_feed_in_pieces(WavDecoder(), bytes(header) + pcm16(audio)), _played(audio))


@pytest.mark.parametrize("where", ["after", "before", "both"])
def test_wav_list_chunks_are_never_played(where):
    """LIST chunks before or after data are skipped; the data size is honoured."""
    audio = _audio(4001)
    data = pcm16(audio)
    fmt = wav_header(22050, len(data))[12:36]
    before = _list_chunk() if where in ("before", "both") else b""
    after = _list_chunk() if where in ("after", "both") else b""
    body_chunks = fmt + before + _chunk(b"data", data) + after
    body = b"RIFF" + struct.pack("<I", 4 + len(body_chunks)) + b"WAVE" + body_chunks
    for seed in range(5):
        assert np.array_equal(_feed_in_pieces(WavDecoder(), body, seed), _played(audio))


def test_wav_odd_sized_data_chunk_and_trailing_chunk():
    """8-bit audio with an odd data size: the pad byte is not mistaken for the next chunk."""
    samples = np.arange(0, 255, 2, dtype=np.uint8)  # 128 ... odd count below
    samples = samples[:127]
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body_chunks = _chunk(b"fmt ", fmt) + _chunk(b"data", samples.tobytes()) + _list_chunk()
    body = b"RIFF" + struct.pack("<I", 4 + len(body_chunks)) + b"WAVE" + body_chunks
    decoded = _feed_in_pieces(WavDecoder(), body)
    assert np.array_equal(decoded, (samples.astype(np.float32) - 128) / 128)


@pytest.mark.parametrize("subtype", ["PCM_24", "PCM_32", "FLOAT", "DOUBLE"])
def test_wav_sample_formats_match_libsndfile(subtype):
    """24/32-bit and float stereo WAVs (extensible headers) decode as libsndfile reads them."""
    stereo = np.stack([_audio(3000, 1), _audio(3000, 2)], axis=1) * 0.5
    body = io.BytesIO()
    soundfile.write(body, stereo, 48000, subtype=subtype, format="WAV")
    expected = soundfile.read(io.BytesIO(body.getvalue()), dtype="float32")[0].mean(axis=1, dtype=np.float32)
    decoded = _feed_in_pieces(WavDecoder(), body.getvalue())
    np.testing.assert_allclose(decoded, expected, atol=1e-7)


def test_wav_truncated_and_foreign_bodies_are_errors():
    """A body ending inside the header (its size said, not the bytes left unparsed) or short of its data size, or
    not a WAV at all, raises."""
    whole = encode_whole("wav", _audio(100), 22050)
    with pytest.raises(DecodeError, match=r"ended inside its header \(30 bytes received\)"):  # not what is left
        _feed_in_pieces(WavDecoder(), whole[:30])
    with pytest.raises(DecodeError, match="before the end of its data"):
        _feed_in_pieces(WavDecoder(), whole[:-10])
    with pytest.raises(DecodeError, match="not a RIFF/WAVE"):
        WavDecoder().feed(b"ID3\x04" + b"\0" * 20)


def _sse(body_format: str, audio: np.ndarray, pieces: int = 7, line_end: str = "\n") -> bytes:
    raw = encode_whole(body_format, audio, 22050) if body_format == "wav" else pcm16(audio)
    parts = np.array_split(np.frombuffer(raw, np.uint8), pieces)
    events = [{"type": "speech.audio.delta", "audio": base64.b64encode(p.tobytes()).decode()} for p in parts]
    events.append({"type": "speech.audio.done", "usage": {"input_tokens": 3, "output_tokens": 9, "total_tokens": 12}})
    return "".join(f"data: {json.dumps(e)}{line_end}{line_end}" for e in events).encode()


@pytest.mark.parametrize("line_end", ["\n", "\r\n"])
@pytest.mark.parametrize("body_format", ["pcm", "wav"])
def test_sse_deltas_in_tiny_pieces_give_exact_samples(body_format, line_end):
    """Base64 deltas split anywhere (even inside an event or a CRLF) decode to the samples."""
    audio = _audio(3001)
    decoder = SseAudio(decoder_for(body_format, 22050))
    assert np.array_equal(_feed_in_pieces(decoder, _sse(body_format, audio, line_end=line_end)), _played(audio))
    assert decoder.done


def test_sse_error_event_raises_with_the_server_message():
    """An error event names what the server said."""
    body = b'data: {"type": "error", "error": {"message": "voice not loaded"}}\n\n'
    with pytest.raises(DecodeError, match="voice not loaded"):
        SseAudio(decoder_for("pcm", 24000)).feed(body)


@pytest.mark.parametrize("body_format", ["flac", "mp3"])
def test_compressed_bodies_decode_when_complete(body_format):
    """FLAC decodes exactly; MP3 within its codec's error, at the right length and rate."""
    audio = _audio(22050) * 0.5
    decoder = decoder_for(body_format, 0)
    decoded = _feed_in_pieces(decoder, encode_whole(body_format, audio, 22050))
    assert decoder.sample_rate == 22050
    assert len(decoded) == len(audio)
    if body_format == "flac":
        np.testing.assert_allclose(decoded, audio, atol=1 / 32767)


def test_unknown_format_is_refused():
    """aac cannot be decoded here; the message lists what can."""
    with pytest.raises(DecodeError, match="pcm, wav"):
        decoder_for("aac", 24000)


def test_ogg_opus_body_decodes():
    """OpenAI's opus format (Ogg Opus) decodes when libsndfile can, at its stated rate."""
    audio = (np.sin(np.arange(24000) * 0.05) * 0.5).astype(np.float32)
    body = io.BytesIO()
    soundfile.write(body, audio, 24000, format="OGG", subtype="OPUS")
    decoder = decoder_for("opus", 0)
    decoded = _feed_in_pieces(decoder, body.getvalue())
    assert decoder.sample_rate == 24000 and abs(len(decoded) - len(audio)) < 960
    assert np.corrcoef(decoded[2000:20000], audio[2000:20000])[0, 1] > 0.9


@pytest.mark.parametrize("name, head", [("ogg", b"OggS"), ("flac", b"fLaC")])
def test_a_damaged_compressed_body_is_said_in_libsndfiles_words_not_a_buffers_repr(name, head):
    """A body that opens as Ogg or FLAC but is damaged: the error says the size and libsndfile's reason, never
    "Error opening <_io.BytesIO object at 0x...>"."""
    decoder = decoder_for(name, 22050)
    decoder.feed(head + bytes(range(256)) * 16)
    with pytest.raises(DecodeError, match=rf"^cannot decode the {name} body \(4,100 bytes\): [A-Z]") as raised:
        decoder.finish()
    assert "BytesIO" not in str(raised.value) and "0x" not in str(raised.value)
