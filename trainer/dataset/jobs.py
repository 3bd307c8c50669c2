"""Work done in the dataset's worker processes: import, fix, measure and slice clips.

Each function takes and returns plain picklable values, so it runs in a worker
process (``trainer.dataset.workers.worker_pool``; ``DatasetProject`` starts them). Silero VAD and the
phonemizer are loaded once per worker process. Errors a user can act on come back
as values (a status and a message), never as exceptions that would end a batch.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from engines.files import atomic_path
from engines.imports import importing

_VAD = None
_PHONEMIZERS: dict[str, Any] = {}


def vad():
    """One Silero VAD (``trainer.dataset.vad.BatchVad``) per worker process."""
    global _VAD
    if _VAD is None:
        from trainer.dataset.vad import BatchVad

        _VAD = BatchVad()
    return _VAD


def phonemizer(config_path: str, lexicon=None):
    """One phonemizer per voice config and ``engines.frontend.lexicon.Lexicon`` (``None``: none) per worker
    process."""
    key = f"{config_path}\0{lexicon.digest if lexicon else ''}"
    if key not in _PHONEMIZERS:
        from engines.phonemes import Phonemizer
        from engines.voice import load_config

        _PHONEMIZERS[key] = Phonemizer(load_config(Path(config_path)), lexicon)
    return _PHONEMIZERS[key]


def write_float_wav(path: Path, audio: np.ndarray, rate: int) -> None:
    """Curated copies keep full precision: mono float32 WAV, written atomically."""
    with importing("soundfile"):
        import soundfile

    with atomic_path(path) as tmp:
        soundfile.write(str(tmp), audio, rate, subtype="FLOAT", format="WAV")


def audio_digest(mono: np.ndarray) -> str:
    """SHA-256 of the decoded samples (float32), to find duplicate audio."""
    return hashlib.sha256(np.ascontiguousarray(mono, dtype=np.float32).tobytes()).hexdigest()


def measure(audio: np.ndarray, rate: int, text: str | None, voice_config: str, speech=None) -> dict[str, Any]:
    """``trainer.dataset.analysis.analyze`` of a clip (``[N]`` or ``[N, channels]``), as a dict.

    ``speech``: the clip's VAD windows when already found (see :func:`process_group`).
    """
    from trainer.dataset.analysis import analyze

    return asdict(analyze(audio, rate, text, phonemizer(voice_config) if text else None, vad(), speech))


def measure_new_text(analysis: dict[str, Any], text: str, phonemes) -> dict[str, Any]:
    """A clip's measurements (a ``ClipAnalysis`` dict) with the text fields measured again for ``text`` by the
    ``engines.phonemes.Phonemizer`` ``phonemes``; the audio's stay as they were."""
    from trainer.dataset.analysis import ClipAnalysis, measure_text

    result = ClipAnalysis(**analysis)
    result.num_phoneme_ids, result.phonemes_per_second = None, None
    result.missing_symbols, result.phoneme_counts = {}, {}
    measure_text(result, text, phonemes)
    return asdict(result)


def process(job: tuple[str, str, str, str | None, str]) -> dict[str, Any]:
    """Read, measure and copy one clip: ``(id, source, target, text, voice_config)`` -> manifest fields."""
    return process_group([job])[0]


GROUP_SAMPLES = 1 << 25
"""Decoded samples (all channels, float32: 128 MiB) a worker reads before it measures them; one clip
longer than that is measured alone."""


def process_group(group: list[tuple[str, str, str, str | None, str]]) -> list[dict[str, Any]]:
    """:func:`process` for several clips, their Silero VAD passes batched (a quarter of the CPU time).

    Clips are read in order and measured in batches of at most ``GROUP_SAMPLES``
    decoded samples (by their headers), so a folder of long recordings costs no more
    memory than its longest one. A clip that fails in any way becomes an error
    outcome naming it; the others are measured as if alone.
    """
    from trainer.dataset.probe import ClipError, ClipInfo, load, probe

    outcomes: list[dict[str, Any] | None] = [None] * len(group)
    pending: list[tuple[int, np.ndarray, ClipInfo]] = []
    held = 0
    for index, (_, source, *_) in enumerate(group):
        try:
            info = probe(source)
            size = info.frames * info.channels
            if pending and held + size > GROUP_SAMPLES:
                _measure_and_copy(group, pending, outcomes)
                pending, held = [], 0
            audio, info = load(source, allow_nonfinite=True)  # measured: the health report names them
        except ClipError as exc:
            outcomes[index] = _error(str(exc))
            continue
        except Exception as exc:  # noqa: BLE001 - one clip's surprise must not end the others' import
            outcomes[index] = _error(f"{source}: unexpected error: {type(exc).__name__}: {exc}")
            continue
        pending.append((index, audio, info))
        held += audio.size
    _measure_and_copy(group, pending, outcomes)
    done = [outcome for outcome in outcomes if outcome is not None]
    assert len(done) == len(outcomes)  # every clip got its outcome above
    return done


def _measure_and_copy(group, pending, outcomes) -> None:
    """Measure the read clips ``pending`` (one VAD batch), write their curated copies, fill ``outcomes``."""
    from trainer.dataset.analysis import as_measured, speech_windows_many
    from trainer.dataset.fixes import downmix

    if not pending:
        return
    monos = [downmix(audio) for _, audio, _ in pending]
    heard = [
        (as_measured(mono, info.sample_rate), info.sample_rate)
        for mono, (_, _, info) in zip(monos, pending, strict=True)
    ]
    speech = speech_windows_many(heard, vad())  # the VAD hears what analysis measures: NaN as 0, spikes repaired
    for mono, windows, (index, audio, info) in zip(monos, speech, pending, strict=True):
        _, source, target, text, voice_config = group[index]
        try:
            analysis = measure(audio, info.sample_rate, text, voice_config, windows)
            write_float_wav(Path(target), mono, info.sample_rate)
            outcomes[index] = {"status": "ok", "analysis": analysis, "audio_sha256": audio_digest(mono)}
        except Exception as exc:  # noqa: BLE001 - as in process_group
            outcomes[index] = _error(f"{source}: unexpected error: {type(exc).__name__}: {exc}")


def _error(message: str) -> dict[str, Any]:
    return {"status": "error", "error": message}


def fix(job) -> tuple[dict[str, Any], list[str]]:
    """Fix one curated copy in place (atomically) and measure it again; returns (analysis, edits)."""
    from trainer.dataset import fixes
    from trainer.dataset.probe import load

    path, text, analysis, resample_to, trim, normalize, voice_config = job
    audio, info = load(path, allow_nonfinite=True)  # a NaN clip stays NaN unless normalized (repaired)
    mono, rate = fixes.downmix(audio), info.sample_rate
    edits: list[str] = []
    resampling = bool(resample_to and resample_to != rate)
    if normalize or resampling:  # NaN/inf, corrupt values, isolated spikes, denormals and DC offset first: the gain
        mono, edits = fixes.repair(mono, rate)  # is the speech's, and a resampled spike rings over its neighbours
    if trim and analysis and analysis.get("speech_start_s") is not None:
        trimmed = fixes.trim(mono, rate, analysis["speech_start_s"], analysis["speech_end_s"])
        if len(trimmed) < len(mono):  # a clip trimmed before, or without silence to cut, is left as it is
            mono = trimmed
            edits.append("trim")
    if normalize:
        mono, gain_db = fixes.normalize_loudness(mono, rate)
        edits.append(f"normalize {gain_db:+.1f} dB")
    if resampling:
        mono, rate = fixes.resample(mono, rate, resample_to), resample_to
        edits.append(f"resample {info.sample_rate:,} → {rate:,} Hz")
        mono, held_db = fixes.hold_peak(mono)  # resampling rings over full scale where the clip peaked at it
        if held_db:
            edits.append(f"hold peak {held_db:+.1f} dB")
    write_float_wav(Path(path), mono, rate)
    return measure(mono, rate, text, voice_config), edits


def remeasure(job: tuple[str, str | None, str]) -> dict[str, Any]:
    """Measure a curated copy again: ``(path, text, voice_config)`` -> manifest fields."""
    from trainer.dataset.probe import load

    path, text, voice_config = job
    audio, info = load(path, allow_nonfinite=True)
    mono = audio[:, 0]
    return {"analysis": measure(mono, info.sample_rate, text, voice_config), "audio_sha256": audio_digest(mono)}


def find_utterances(job: tuple[str, Any]) -> dict[str, Any]:
    """Where to cut one long recording: ``(source, options)`` -> ``{"spans": [[start_s, end_s], ...],
    "duration_s": s}`` (``trainer.dataset.slicing.find_spans``), or ``{"error": message}`` naming the file."""
    from trainer.dataset.analysis import as_measured
    from trainer.dataset.fixes import downmix
    from trainer.dataset.probe import ClipError, load
    from trainer.dataset.slicing import find_spans

    source, options = job
    try:
        audio, info = load(source)
    except ClipError as exc:
        return {"error": str(exc)}
    heard = as_measured(downmix(audio), info.sample_rate)  # pauses found without spikes; the pieces keep them
    spans = find_spans(heard, info.sample_rate, options, vad())
    return {"spans": [list(span) for span in spans], "duration_s": len(heard) / info.sample_rate}


_RECOGNIZERS: dict[tuple, Any] = {}


def draft_clip(job: tuple) -> dict[str, Any]:
    """Cut one utterance from a recording, draft its text and write its curated copy.

    ``job``: ``(source, target, clip_id, (start_s, end_s), (recognizer, model, language), voice_config)``;
    returns the clip's manifest fields, or ``{"error": message}``. The recognizer (``None``: no draft) is
    loaded once per worker process.
    """
    with importing("soundfile", "soxr"):
        import soundfile
        import soxr

    from trainer.dataset import recognizers
    from trainer.dataset.analysis import as_measured
    from trainer.dataset.fixes import downmix

    source, target, clip_id, (start_s, end_s), how, voice_config = job
    try:
        if how[0] and how not in _RECOGNIZERS:
            _RECOGNIZERS[how] = recognizers.create(*how)
        rate = soundfile.info(source).samplerate
        first = round(start_s * rate)  # the span's length in whole samples, never one more (max_s is a hard limit)
        audio, _ = soundfile.read(
            source, start=first, stop=first + int(round((end_s - start_s) * rate, 6)), dtype="float32"
        )
    except (recognizers.RecognizerError, RuntimeError, OSError) as exc:
        return {"error": f"{source}: {exc}"}
    piece = downmix(audio)
    heard = soxr.resample(as_measured(piece, rate), rate, recognizers.RATE)
    text = _RECOGNIZERS[how].transcribe(heard) if how[0] else ""
    write_float_wav(Path(target), piece, rate)
    return {
        "id": clip_id,
        "text": text or None,
        "span": [round(start_s, 3), round(end_s, 3)],
        "analysis": measure(piece, rate, text or None, voice_config),
        "audio_sha256": audio_digest(piece),
    }
