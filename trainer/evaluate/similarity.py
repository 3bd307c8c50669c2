"""Speaker similarity: how much synthesized speech sounds like the recorded speaker.

Each clip becomes a d-vector from resemblyzer's pretrained speaker encoder (a 3-layer LSTM trained with the
generalized end-to-end loss, Wan et al., ICASSP 2018, "Generalized End-to-End Loss for Speaker
Verification"; the weights ship in the ``resemblyzer`` wheel). A speaker's embedding is the normalised mean
of its clips' embeddings (as ``VoiceEncoder.embed_speaker``); similarity is the cosine of two of them:
1.0 for the same audio, lower for different speakers.

``resemblyzer`` (the ``compare`` extra) needs ``webrtcvad``, which has no wheels (a C compiler on Windows);
where it is missing every function here raises :class:`~trainer.evaluate.measures.MeasureUnavailable`.
The encoder is loaded once per process, on the CPU, at first use.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

import numpy as np

from engines.imports import importing
from trainer.evaluate.measures import MeasureError, MeasureUnavailable

ENCODER_RATE = 16000
"""Hz: resemblyzer's sampling rate (``resemblyzer.hparams.sampling_rate``); clips are resampled to it with soxr."""

MISSING = "speaker similarity needs resemblyzer: pip install resemblyzer (needs a C compiler on Windows)"
"""Why similarity is not measured where resemblyzer is not installed."""

_encoder: Any = None
_lock = threading.Lock()


def _resemblyzer():
    """The ``resemblyzer`` module; raises MeasureUnavailable when it (or webrtcvad) is not installed."""
    try:
        with warnings.catch_warnings():  # webrtcvad imports pkg_resources, which warns it is deprecated
            warnings.simplefilter("ignore")
            with importing("resemblyzer"):
                import resemblyzer
    except ImportError:
        raise MeasureUnavailable(MISSING) from None
    return resemblyzer


def _voice_encoder():
    """The process's one ``resemblyzer.VoiceEncoder`` (CPU), loaded at first use (about 2 s)."""
    global _encoder
    resemblyzer = _resemblyzer()
    with _lock:
        if _encoder is None:
            _encoder = resemblyzer.VoiceEncoder(device="cpu", verbose=False)
    return _encoder


def utterance_embedding(audio: np.ndarray, rate: int) -> np.ndarray:
    """The d-vector of one clip (float ``[N]`` mono at ``rate`` Hz): float32 ``[256]``, unit norm.

    The clip is resampled to ``ENCODER_RATE`` with soxr, then ``resemblyzer.preprocess_wav`` normalises its
    loudness and trims long silences (webrtcvad) before ``VoiceEncoder.embed_utterance``. ``preprocess_wav`` is
    given no ``source_sr``: with one it calls ``librosa.resample`` even from 16 kHz to 16 kHz, which loads
    librosa's resampling stack (about 2 CPU-s, outside the import lock, on the scoring thread) to change nothing.

    Raises:
        MeasureError: the clip is empty or silent, or nothing is left after trimming its silences.
        MeasureUnavailable: resemblyzer is not installed.
    """
    with importing("soxr"):
        import soxr

    encoder = _voice_encoder()
    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    if not np.any(samples):
        raise MeasureError(f"speaker similarity: the audio is empty or silent ({samples.size} samples)")
    if rate != ENCODER_RATE:
        samples = soxr.resample(samples, rate, ENCODER_RATE, quality="HQ")
    wav = _resemblyzer().preprocess_wav(samples)  # at its rate already: a source_sr would resample again (librosa)
    if wav.size == 0:
        raise MeasureError("speaker similarity: no speech left after trimming silences")
    with _lock:  # one encoder, one caller at a time
        return np.asarray(encoder.embed_utterance(wav), dtype=np.float32)


def mean_embedding(embeddings: list[np.ndarray]) -> np.ndarray:
    """The normalised mean of utterance embeddings ``[256]`` each: float32 ``[256]``, unit norm.

    Raises:
        MeasureError: no embedding given.
    """
    if not embeddings:
        raise MeasureError("speaker similarity: no clip to embed")
    mean = np.mean(np.stack(embeddings), axis=0)
    return (mean / np.linalg.norm(mean)).astype(np.float32)


def speaker_embedding(clips: list[tuple[np.ndarray, int]]) -> np.ndarray:
    """One speaker's embedding from ``(audio [N] float, rate Hz)`` clips: float32 ``[256]``, unit norm.

    Raises:
        MeasureError: no clips, or a clip is empty or silent.
        MeasureUnavailable: resemblyzer is not installed.
    """
    return mean_embedding([utterance_embedding(audio, rate) for audio, rate in clips])


def cosine(a: np.ndarray, b: np.ndarray) -> float:
    """Cosine similarity of two vectors ``[D]``, in [-1, 1]."""
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


def speaker_similarity(references: list[tuple[np.ndarray, int]], synthesized: list[tuple[np.ndarray, int]]) -> float:
    """Cosine similarity of the speaker embeddings of ``references`` and ``synthesized`` (``(audio, Hz)`` clips).

    1.0 for identical audio; two different speakers score clearly lower than two clips of one speaker.

    Raises:
        MeasureError: either list is empty, or a clip is empty or silent.
        MeasureUnavailable: resemblyzer is not installed.
    """
    return cosine(speaker_embedding(references), speaker_embedding(synthesized))
