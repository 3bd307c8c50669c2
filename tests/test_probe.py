"""Opening recordings: every format we accept, and a clear message for each broken file."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
import soundfile
from conftest import shared_path

from trainer.dataset.probe import ClipError, load, probe


def _tone(seconds: float, rate: int, channels: int = 1) -> np.ndarray:
    t = np.arange(int(seconds * rate)) / rate
    return np.repeat((0.3 * np.sin(2 * np.pi * 220 * t))[:, None], channels, axis=1).astype(np.float32)


@pytest.mark.parametrize(
    ("name", "subtype", "rate", "channels"),
    [
        ("u8.wav", "PCM_U8", 8000, 1),
        ("s16.wav", "PCM_16", 22050, 1),
        ("s24.wav", "PCM_24", 44100, 2),
        ("s32.wav", "PCM_32", 48000, 1),
        ("f32.wav", "FLOAT", 16000, 1),
        ("six channels 96k.wav", "PCM_16", 96000, 6),
        ("clip.flac", "PCM_16", 32000, 1),
        ("clip.ogg", "VORBIS", 22050, 1),
    ],
)
def test_formats_read_with_their_rate_and_channels(tmp_path, name, subtype, rate, channels):
    """WAV of every sample width, FLAC and OGG read as float32 frames x channels."""
    path = tmp_path / name
    soundfile.write(str(path), _tone(0.5, rate, channels), rate, subtype=subtype)
    audio, info = load(path)
    assert (info.sample_rate, info.channels) == (rate, channels)
    assert audio.dtype == np.float32 and audio.shape[1] == channels
    assert abs(info.duration_s - 0.5) < 0.01 and 0.2 < np.abs(audio).max() <= 1.0


def test_shared_corpus_clip_probes(tmp_path):
    """A real 32 kHz FLAC from the corpus probes and loads without being modified."""
    path = shared_path("corpus", "target-voice", "wavs", "slt_0001.flac")
    before = hashlib.sha256(path.read_bytes()).hexdigest()
    audio, info = load(path)
    assert info.sample_rate == 32000 and info.channels == 1 and len(audio) == info.frames
    assert hashlib.sha256(path.read_bytes()).hexdigest() == before


def _broken(tmp_path, kind: str):
    path = tmp_path / f"{kind}.wav"
    if kind == "empty":
        path.write_bytes(b"")
    elif kind == "text":
        path.write_text("this is a transcript, not audio\n")
    elif kind == "truncated":
        soundfile.write(str(path), _tone(1.0, 22050), 22050, subtype="PCM_16")
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "nan":
        audio = _tone(0.5, 22050)
        audio[100:200] = np.nan
        soundfile.write(str(path), audio, 22050, subtype="FLOAT")
    return path


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("empty", "empty file"),
        ("text", "not a readable audio file"),
        ("truncated", "truncated"),
        ("nan", "NaN"),
    ],
)
def test_broken_files_give_a_clear_message(tmp_path, kind, message):
    """0-byte, text named .wav, truncated and NaN-filled files each name the file and the problem."""
    path = _broken(tmp_path, kind)
    before = path.read_bytes()
    with pytest.raises(ClipError, match=message) as err:
        load(path)
    assert err.value.path == path
    assert path.read_bytes() == before


def test_missing_file(tmp_path):
    """A missing file says so."""
    with pytest.raises(ClipError, match="file not found"):
        probe(tmp_path / "nope.wav")
