"""Offline speech recognizers that draft transcripts for sliced recordings.

A draft is never trusted: clips sliced from long recordings stay unreviewed until
a person confirms their text (``trainer.dataset.project``).

Back-ends are registered by name with the module that provides them and an install
hint, and loaded only when asked for:

- ``pocketsphinx`` (default): CMU PocketSphinx; its PyPI package bundles a US English
  acoustic model, language model and dictionary, so it works with no download.
- ``faster-whisper``: CTranslate2 Whisper; needs the ``faster-whisper`` package and a
  model the user supplies (a folder or a model name already in its cache).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from engines.errors import VoiceStudioError

RATE = 16000
"""Sample rate, Hz, that every recognizer here is given."""

BACKENDS = {
    "pocketsphinx": ("pocketsphinx", "pip install pocketsphinx"),
    "faster-whisper": ("faster_whisper", "pip install faster-whisper (and give a model with --model)"),
}


class RecognizerError(VoiceStudioError, RuntimeError):
    """A recognizer is unknown, not installed, or cannot load its model."""


class Recognizer(Protocol):
    """Turns one utterance into draft text."""

    name: str

    def transcribe(self, audio: np.ndarray) -> str:
        """``audio`` float32 ``[N]`` mono at ``RATE`` Hz -> text ('' when nothing was recognised)."""
        ...


def available() -> list[str]:
    """Names of the back-ends whose package is installed."""
    import importlib.util

    return [name for name, (module, _) in BACKENDS.items() if importlib.util.find_spec(module) is not None]


def create(name: str = "pocketsphinx", model: str | None = None) -> Recognizer:
    """A recognizer by back-end name.

    Raises:
        RecognizerError: unknown name, package missing (with the install hint), or no model given
            where one is needed.
    """
    if name not in BACKENDS:
        raise RecognizerError(f"unknown recognizer {name!r}; choose one of: {', '.join(BACKENDS)}")
    if name not in available():
        raise RecognizerError(f"the {name} recognizer is not installed: {BACKENDS[name][1]}")
    if name == "pocketsphinx":
        return PocketSphinx()
    if not model:
        raise RecognizerError("faster-whisper needs a model: a folder or a model name (e.g. --model small.en)")
    return FasterWhisper(model)


def _int16_bytes(audio: np.ndarray) -> bytes:
    return (np.clip(audio, -1.0, 1.0) * 32767).astype("<i2").tobytes()


class PocketSphinx:
    """PocketSphinx with its bundled US English model (about 0.4x real time on one core).

    Each utterance is decoded from the same start: the feature extraction, whose state (the
    cepstral mean among it) pocketsphinx carries from one utterance to the next, is reinitialised
    before each one (``Decoder.reinit_feat``, about 0.1 ms), so a transcript does not depend on
    what was transcribed before.
    """

    name = "pocketsphinx"

    def __init__(self) -> None:
        from pocketsphinx import Decoder

        self._decoder = Decoder(samprate=RATE, loglevel="FATAL")

    def transcribe(self, audio: np.ndarray) -> str:
        decoder = self._decoder
        decoder.reinit_feat()
        decoder.start_utt()
        decoder.process_raw(_int16_bytes(audio), full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        return hypothesis.hypstr.strip() if hypothesis else ""


class FasterWhisper:
    """faster-whisper on the CPU with a user-supplied model."""

    name = "faster-whisper"

    def __init__(self, model: str) -> None:
        from faster_whisper import WhisperModel

        try:
            self._model = WhisperModel(model, device="cpu", compute_type="int8")
        except Exception as exc:  # the library raises many kinds for a missing or broken model
            raise RecognizerError(f"faster-whisper could not load model {model!r}: {exc}") from exc

    def transcribe(self, audio: np.ndarray) -> str:
        segments, _ = self._model.transcribe(audio.astype(np.float32), beam_size=1)
        return " ".join(s.text.strip() for s in segments).strip()
