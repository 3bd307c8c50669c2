"""The trainer's preprocessed cache: phoneme_ids, audio at the training rate, and linear spectrograms.

Built from a dataset project's trainable clips (the ones ``export_piper`` writes),
in worker processes, into one folder::

    cache.json          version, STFT settings, the voice's map digest, and per utterance:
                        id, speaker, text and where its arrays lie in the files below
    phoneme_ids.i64     all utterances' phoneme_ids, int64, end to end
    audio.f32           all audio at ``sample_rate``, float32 in [-1, 1], end to end
    spec.f32            all spectrograms, float32, frame-major (``[frames, n_fft // 2 + 1]`` each)

Flat files are memory-mapped by :class:`PreprocessedCache`, so a training run
holds the whole dataset in RAM (the page cache) with no per-item file opens.
Audio is the curated copy resampled with soxr (no trimming here: trimming is a
dataset fix the user sees); spectrograms are ``trainer.mel.spectrogram``'s, computed in
NumPy (:func:`spectrogram`). The
folder is built beside its destination and swapped in whole, so a crash never
leaves a half-written cache where a good one was.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engines.base import VoiceError
from engines.records import read_json_object, record
from trainer.tasks import Cancelled, TaskState

CACHE_VERSION = 1
FILES = {
    "phoneme_ids": ("phoneme_ids.i64", np.int64),
    "audio": ("audio.f32", np.float32),
    "spec": ("spec.f32", np.float32),
}


@dataclass(frozen=True)
class CacheSettings:
    """Audio and STFT settings (Piper's defaults): sample_rate in Hz; n_fft, hop_length, win_length in samples."""

    sample_rate: int = 22050
    n_fft: int = 1024
    hop_length: int = 256
    win_length: int = 1024


@dataclass
class Utterance:
    """One cached utterance: ``phoneme_ids`` / ``audio`` / ``spec`` are ``[offset, length]`` in their files
    (in elements; spec in frames)."""

    id: str
    speaker: str | None
    text: str
    phoneme_ids: list[int]
    audio: list[int]
    spec: list[int]


@dataclass(kw_only=True)
class _Manifest:
    """The fields of ``cache.json`` (:func:`_write_manifest`)."""

    version: int
    settings: dict[str, Any]
    spec_channels: int
    voice_config: str
    phoneme_id_map_sha256: str
    speakers: list[str]
    utterances: list[Any]


def map_digest(phoneme_id_map: dict) -> str:
    """SHA-256 of a ``phoneme_id_map`` (sorted JSON): a cache is only valid for the map it was built with."""
    return hashlib.sha256(json.dumps(phoneme_id_map, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def build_cache(
    project,
    out_dir: Path | str,
    settings: CacheSettings | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    state: TaskState | None = None,
) -> Path:
    """Preprocess a ``trainer.dataset.project.DatasetProject``'s trainable clips into ``out_dir``.

    Texts become phoneme_ids with the project's target voice (its ``phoneme_id_map``), as Piper's trainer
    builds them (:func:`training_phoneme_ids`).

    ``progress(done, total)`` (or ``state.progress``) counts clips.

    Returns:
        ``out_dir``.
    Raises:
        Cancelled: ``state`` was cancelled; nothing is written (a cache already in ``out_dir`` stays).
        ValueError: no clip is trainable (``trainer.dataset.export.NothingToTrain``, saying why), or PyTorch
            is missing.
    """
    import importlib.util

    from trainer.dataset.export import nothing_to_train, trainable

    if importlib.util.find_spec("torch") is None:
        raise ValueError("building the training cache needs PyTorch: pip install torch")
    settings = settings or CacheSettings()
    out = Path(out_dir)
    clips = trainable(project)
    if not clips:
        raise nothing_to_train(project)
    work = [(str(project.clip_path(c.id)), c.text, project.target_config, settings) for c in clips]
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        utterances = _write_arrays(staging, clips, work, workers, TaskState.of(state, progress))
        _write_manifest(staging, utterances, settings, project.target_config)
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out


def _write_arrays(staging: Path, clips, work, workers, state: TaskState) -> list[Utterance]:
    from trainer.dataset.workers import run_jobs

    handles = {key: (staging / name).open("wb") for key, (name, _) in FILES.items()}
    offsets = dict.fromkeys(FILES, 0)
    utterances = []
    try:
        state.progress(0, len(work))
        for index, arrays in run_jobs(preprocess_clip, work, workers, state):
            if state.is_cancelled():  # the arrays of a cache cut short are of no use
                break
            spans = {}
            for key, array in arrays.items():
                handles[key].write(np.ascontiguousarray(array, dtype=FILES[key][1]).tobytes())
                spans[key] = [offsets[key], len(array)]
                offsets[key] += len(array)
            clip = clips[index]
            utterances.append(Utterance(clip.id, clip.speaker, clip.text, **spans))
            state.progress(len(utterances), len(work))
    finally:
        for handle in handles.values():
            handle.close()
    if len(utterances) < len(work):
        raise Cancelled(f"Training cache cancelled after {len(utterances)} of {len(work)} clips; nothing written")
    return utterances


def _write_manifest(staging: Path, utterances: list[Utterance], settings: CacheSettings, config_path: str) -> None:
    from engines.voice import load_config

    config = load_config(Path(config_path))
    document = {
        "version": CACHE_VERSION,
        "settings": asdict(settings),
        "spec_channels": settings.n_fft // 2 + 1,
        "voice_config": config_path,
        "phoneme_id_map_sha256": map_digest(config.phoneme_id_map),
        "speakers": sorted({u.speaker for u in utterances if u.speaker}),
        "utterances": [asdict(u) for u in utterances],
    }
    (staging / "cache.json").write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")


def _swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` with ``staging``: the old cache is moved aside first and removed last."""
    aside = None
    if out.exists():
        aside = out.with_name(f".{out.name}.old")
        shutil.rmtree(aside, ignore_errors=True)
        out.rename(aside)
    staging.rename(out)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def preprocess_clip(job) -> dict[str, np.ndarray]:
    """Worker process: ``(curated wav, text, voice config, settings)`` -> phoneme_ids, audio, spec (frame-major)."""
    from trainer.dataset import jobs
    from trainer.dataset.fixes import resample
    from trainer.dataset.probe import load

    path, text, config_path, settings = job
    audio, info = load(path)
    audio = resample(audio[:, 0], info.sample_rate, settings.sample_rate)
    phoneme_ids = training_phoneme_ids(jobs.phonemizer(config_path), text)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused just below, naming the clip
        spec = spectrogram(audio, settings.n_fft, settings.hop_length, settings.win_length)
    _check_finite(path, audio, spec)
    return {"phoneme_ids": np.asarray(phoneme_ids, np.int64), "audio": audio, "spec": spec}


def _check_finite(path: str, audio: np.ndarray, spec: np.ndarray) -> None:
    """Training never sees NaN or inf: a clip whose audio or spectrogram holds any is refused.

    Raises:
        ValueError: names the clip and the count (samples far over full scale overflow float32 in the spectrogram).
    """
    for name, array in (("audio", audio), ("spectrogram", spec)):
        bad = int(array.size - np.count_nonzero(np.isfinite(array)))
        if bad:
            raise ValueError(
                f"{path}: {bad:,} NaN or infinite values in its {name} (samples far over full scale?); "
                "the training cache is not built: see the dataset report (out_of_range, non_finite)"
            )


def spectrogram(audio: np.ndarray, n_fft: int, hop_length: int, win_length: int) -> np.ndarray:
    """``trainer.mel.spectrogram`` (Piper's ``spectrogram_torch``) in NumPy, so cache workers need no PyTorch.

    Reflect padding of ``(n_fft - hop_length) // 2`` on each side, a periodic Hann window
    of ``win_length`` centred in ``n_fft``, no centring, magnitude ``sqrt(re^2 + im^2 + 1e-6)``.

    Args:
        audio: float32 ``[N]`` samples.
        n_fft, hop_length, win_length: samples.
    Returns:
        float32 ``[frames, n_fft // 2 + 1]`` (frame-major, as the cache stores it),
        ``frames = (N + 2 * pad - n_fft) // hop_length + 1``.
    Raises:
        ValueError: ``N <= pad``, where reflect padding is undefined (PyTorch refuses it too).
    """
    import scipy.fft

    pad = (n_fft - hop_length) // 2
    if len(audio) <= pad:
        raise ValueError(f"{len(audio)} samples is too short for a spectrogram (reflect padding of {pad})")
    padded = np.pad(np.asarray(audio, dtype=np.float32), (pad, pad), mode="reflect")
    window = np.zeros(n_fft, dtype=np.float32)
    left = (n_fft - win_length) // 2
    window[left : left + win_length] = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(win_length) / win_length)
    frames = np.lib.stride_tricks.sliding_window_view(padded, n_fft)[::hop_length]
    spectrum = scipy.fft.rfft(frames * window, axis=1)
    return np.sqrt(spectrum.real**2 + spectrum.imag**2 + 1e-6).astype(np.float32)


def training_phoneme_ids(phonemizer, text: str) -> list[int]:
    """A transcript's phoneme_ids exactly as piper-tts's trainer builds them (``VitsDataModule.prepare_data``).

    For espeak voices that is piper's own ``EspeakPhonemizer`` sentence by
    sentence, each sentence through ``phonemes_to_ids`` with the voice's map, end
    to end. It differs from inference (``engines.phonemes``) in one way Piper's
    checkpoints were trained with: a text ending in a closing quote yields an
    extra empty sentence, which adds ``^ _ $`` (BOS, PAD, EOS). Other phoneme
    types use the inference frontend's sentences.

    Args:
        phonemizer: an ``engines.phonemes.Phonemizer`` for the target voice.
    """
    config = phonemizer.config
    if config.phoneme_type == "espeak":
        from piper.phoneme_ids import phonemes_to_ids

        sentences = _espeak().phonemize(config.espeak_voice, text)
        return [i for sentence in sentences for i in phonemes_to_ids(sentence, id_map=config.phoneme_id_map)]
    from engines.phonemes import sentences

    return [i for sentence in sentences(phonemizer, text) for i in sentence.phoneme_ids]


_ESPEAK = None


def _espeak():
    """piper-tts's espeak phonemizer, one per process."""
    global _ESPEAK
    if _ESPEAK is None:
        from piper.phonemize_espeak import EspeakPhonemizer

        _ESPEAK = EspeakPhonemizer()
    return _ESPEAK


class PreprocessedCache:
    """A cache folder opened for reading (arrays memory-mapped).

    Raises:
        ValueError: not a cache, or a version this code does not read.
    """

    def __init__(self, folder: Path | str) -> None:
        self.folder = Path(folder)
        manifest = self.folder / "cache.json"
        if not manifest.exists():
            raise ValueError(f"{self.folder}: not a preprocessed cache (no cache.json)")
        document = read_json_object(manifest)
        if document.get("version") != CACHE_VERSION:
            raise ValueError(f"{manifest}: cache version {document.get('version')!r} is not {CACHE_VERSION}")
        header = record(_Manifest, document, manifest, "cache")
        self.settings = record(CacheSettings, header.settings, manifest, "settings")
        self.spec_channels: int = header.spec_channels
        self.phoneme_id_map_sha256: str = header.phoneme_id_map_sha256
        self.voice_config: str = str(self.folder / header.voice_config)  # a relative path is in the cache
        """The voice config (``.onnx.json``) whose phoneme map built the phoneme_ids."""
        self.speakers: list[str] = header.speakers
        self.utterances = [record(Utterance, u, manifest, f"utterances[{i}]") for i, u in enumerate(header.utterances)]
        self._arrays = {key: self._map(name, dtype) for key, (name, dtype) in FILES.items()}
        self._check_spans(manifest)
        self._check_speakers(manifest)

    def _check_speakers(self, manifest: Path) -> None:
        """Every utterance's speaker is one of ``speakers``; only a cache of at most one speaker may hold
        utterances without one (a multi-speaker cache built before ``no_speaker`` findings existed).

        Raises:
            VoiceError: naming ``utterances[i].speaker`` and the clip.
        """
        for i, u in enumerate(self.utterances):
            if u.speaker in self.speakers or (u.speaker is None and len(self.speakers) <= 1):
                continue
            message = f"clip {u.id}: speaker {u.speaker!r} is not one of the cache's speakers {self.speakers}"
            raise VoiceError(
                manifest, message + "; rebuild the cache (voice-studio dataset cache)", f"utterances[{i}].speaker"
            )

    def _check_spans(self, manifest: Path) -> None:
        """Every ``[offset, length]`` is a pair inside its file (a truncated array file is refused here).

        Raises:
            VoiceError: naming ``utterances[i].KEY``.
        """
        if self.spec_channels <= 0:
            raise VoiceError(manifest, f"must be a positive integer, got {self.spec_channels}", "cache.spec_channels")
        sizes = {key: len(array) // (self.spec_channels if key == "spec" else 1) for key, array in self._arrays.items()}
        for i, utterance in enumerate(self.utterances):
            for key, size in sizes.items():
                span = getattr(utterance, key)
                if len(span) != 2 or min(span) < 0 or span[0] + span[1] > size:
                    message = f"[offset, length] {span} does not lie in {FILES[key][0]} ({size} long)"
                    raise VoiceError(manifest, message, f"utterances[{i}].{key}")

    def _map(self, name: str, dtype) -> np.ndarray:
        path = self.folder / name
        if path.stat().st_size == 0:
            return np.zeros(0, dtype)
        return np.memmap(path, dtype=dtype, mode="r")

    def __len__(self) -> int:
        return len(self.utterances)

    def phoneme_ids(self, index: int) -> np.ndarray:
        """``[L]`` int64."""
        offset, length = self.utterances[index].phoneme_ids
        return self._arrays["phoneme_ids"][offset : offset + length]

    def audio(self, index: int) -> np.ndarray:
        """``[N]`` float32 at ``settings.sample_rate``."""
        offset, length = self.utterances[index].audio
        return self._arrays["audio"][offset : offset + length]

    def spec(self, index: int) -> np.ndarray:
        """``[n_fft // 2 + 1, frames]`` float32 (a transposed view of the frame-major file)."""
        offset, frames = self.utterances[index].spec
        flat = self._arrays["spec"][offset * self.spec_channels : (offset + frames) * self.spec_channels]
        return flat.reshape(frames, self.spec_channels).T
