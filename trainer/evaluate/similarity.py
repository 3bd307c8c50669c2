"""Speaker similarity: how much synthesized speech sounds like the recorded speaker.

Each clip becomes a d-vector from resemblyzer's pretrained speaker encoder (a 3-layer LSTM trained with the
generalized end-to-end loss, Wan et al., ICASSP 2018, "Generalized End-to-End Loss for Speaker
Verification"; the weights ship in the ``resemblyzer`` wheel). A speaker's embedding is the normalised mean
of its clips' embeddings (as ``VoiceEncoder.embed_speaker``); similarity is the cosine of two of them:
1.0 for the same audio, lower for different speakers.

``resemblyzer`` (the ``compare`` extra) needs ``webrtcvad``, which has no wheels (a C compiler on Windows);
where it is missing every function here raises :class:`~trainer.evaluate.measures.MeasureUnavailable`.
The encoder is loaded once per process, on the CPU, at first use, and runs on a thread of its own with one torch
thread (``ENCODER_THREADS``): on torch's default (one per core) an embedding took 0.4 to 2.5 s on a loaded 2-core
machine against 0.02 s on one (docs/benchmarks.md, "Distilling from a voice server"). Torch's OpenMP thread count is
per thread once a thread has used torch, and new threads start from the last count set anywhere, so the encoder's
thread sets its own and the default is put back at once: no other thread's setting changes.
"""

from __future__ import annotations

import threading
import warnings
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from engines.imports import importing
from trainer.evaluate.measures import MeasureError, MeasureUnavailable

ENCODER_RATE = 16000
"""Hz: resemblyzer's sampling rate (``resemblyzer.hparams.sampling_rate``); clips are resampled to it with soxr."""

MISSING = "speaker similarity needs resemblyzer: pip install resemblyzer (needs a C compiler on Windows)"
"""Why similarity is not measured where resemblyzer is not installed."""

ENCODER_THREADS = 1
"""Torch threads the speaker encoder runs with: a 3-layer LSTM over a few seconds gains nothing from more, and
OpenMP's spinning threads lose to the other work on the machine (a voice server, the recognizer, the GUI)."""

_encoder: Any = None
_thread: ThreadPoolExecutor | None = None
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


def encoder_thread() -> ThreadPoolExecutor:
    """The one thread the speaker encoder runs on, started at first use with ``ENCODER_THREADS`` torch threads.

    ``torch.set_num_threads`` sets the calling thread's OpenMP thread count and the count new threads start with;
    the encoder's thread sets its own (:func:`_one_torch_thread`), then the caller sets the new threads' count back
    to its own (what it was: a thread that has used torch keeps its count), so threads already running and threads
    started later are unchanged.
    """
    global _thread
    with _lock:
        if _thread is None:
            with importing("torch"):
                import torch

            before = torch.get_num_threads()
            started = ThreadPoolExecutor(1, "speaker-encoder", _one_torch_thread)
            started.submit(int).result()  # the initializer has run
            torch.set_num_threads(before)
            _thread = started
    return _thread


def _one_torch_thread() -> None:
    """Give the calling thread ``ENCODER_THREADS`` torch threads for good. Torch takes a thread's count from the
    process's default at its first use there (``at::internal::lazy_init_num_threads``), even after a
    ``set_num_threads``: so that first use comes first, or the count would become the default put back after."""
    with importing("torch"):
        import torch

    torch.get_num_threads()  # the thread's first use of torch: its count from the default, now
    torch.set_num_threads(ENCODER_THREADS)


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
    embedding = encoder_thread().submit(encoder.embed_utterance, wav).result()  # one thread: one caller at a time
    return np.asarray(embedding, dtype=np.float32)


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
