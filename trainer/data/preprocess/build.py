"""Building the trainer's preprocessed cache from a dataset project's trainable clips.

Clips are the ones ``export_piper`` writes, preprocessed in worker processes
(``trainer.dataset.workers.run_jobs``): audio is the curated copy resampled with
soxr (no trimming here: trimming is a dataset fix the user sees), texts become
phoneme_ids and audio a spectrogram (``trainer.data.preprocess.features``). The folder
(``trainer.data.preprocess.cache``) is built beside its destination and swapped in
whole (``trainer.out_folder.replace_folder``), so a crash or a cancel never leaves a half-written
cache where a good one was; the destination must be absent, empty or an earlier cache, and never
the project, its sources, or a folder holding them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np

from engines.espeak import check_config
from engines.extras import require
from engines.frontend import frontend_id
from engines.frontend.lexicon import PROJECT_LEXICON, Lexicon, read_lexicon
from engines.phonemes import language_of
from engines.voice import load_config
from engines.words import count
from trainer.data.preprocess.cache import CACHE_VERSION, FILES, CacheSettings, Utterance, is_cache
from trainer.data.preprocess.features import map_digest, spectrogram, training_phoneme_ids
from trainer.data.preprocess.status import remember
from trainer.out_folder import replace_folder
from trainer.tasks import Cancelled, TaskState


def build_cache(
    project,
    out_dir: Path | str,
    settings: CacheSettings | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    *,
    state: TaskState | None = None,
    record: bool = True,
) -> Path:
    """Preprocess a ``trainer.dataset.project.DatasetProject``'s trainable clips into ``out_dir``.

    Texts become phoneme_ids with the project's target voice (its ``phoneme_id_map``), normalized by the text
    front end with the project's lexicon (``engines.frontend.lexicon.PROJECT_LEXICON``) and then as Piper's
    trainer builds them (:func:`training_phoneme_ids`); ``cache.json`` records the front end and the lexicon's
    digest (``frontend``), the lexicon's path (``lexicon``) and its entries (``lexicon_entries``), so a cache
    made with another front end or before a lexicon edit is known to be out of date, and which clips the edit
    changes.

    ``progress(done, total)`` (or ``state.progress``) counts clips.

    Returns:
        ``out_dir`` (created when missing), recorded as the project's cache (``trainer.data.preprocess.status``)
        where ``record`` (a cache the user builds; a training run's own cache in its run folder is not recorded:
        the project's status keeps describing the cache the user built).
    Raises:
        Cancelled: ``state`` was cancelled; nothing is written (a cache already in ``out_dir`` stays).
        OutFolderError: ``out_dir`` is a file, holds files that are not an earlier cache, or is (or holds, or
            lies in) the project or a source recording; checked before any work.
        ValueError: no clip is trainable (``trainer.dataset.export.NothingToTrain``, saying why).
        VoiceError: the project's voice config cannot phonemize (an ``espeak.voice`` espeak-ng does not have).
        EspeakDataError: piper-tts's espeak-ng data is missing or damaged.
        LexiconError: the project's lexicon has a bad line (naming it).
        ExtraMissing: PyTorch is missing (an ONNX-only install), with how to add training.
    """
    from trainer.dataset.export import nothing_to_train, project_inputs, trainable

    require("train", "Building the training cache")
    settings = settings or CacheSettings()
    out = Path(out_dir)
    clips = trainable(project)
    if not clips:
        raise nothing_to_train(project)
    check_config(load_config(Path(project.target_config)))  # here, in one line, not in each worker
    lexicon_path = Path(project.folder) / PROJECT_LEXICON
    lexicon = read_lexicon(lexicon_path, missing_ok=True)
    work = [(str(project.clip_path(c.id)), c.text, project.target_config, settings, lexicon) for c in clips]
    with replace_folder(out, is_cache, project_inputs(project), "training cache folder") as staging:
        utterances = _write_arrays(staging, clips, work, workers, TaskState.of(state, progress))
        _write_manifest(staging, utterances, settings, project, (lexicon_path, lexicon))
    if record:
        remember(project, out)  # the Dataset page and the CLI say where it is and whether it is up to date
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
        raise Cancelled(
            f"Training cache cancelled after {len(utterances)} of {count(len(work), 'clip')}; nothing written"
        )
    return utterances


def _write_manifest(
    staging: Path, utterances: list[Utterance], settings: CacheSettings, project, lexicon: tuple[Path, Lexicon]
) -> None:
    """``cache.json`` (``trainer.data.preprocess.cache``) of ``project``'s ``utterances``: with the teacher of a
    project distilled from a voice server, so that a voice trained on the cache alone still names it."""
    from trainer.dataset.distil.record import teacher_note

    config_path = project.target_config
    config = load_config(Path(config_path))
    document = {
        "version": CACHE_VERSION,
        "settings": asdict(settings),
        "spec_channels": settings.n_fft // 2 + 1,
        "voice_config": config_path,
        "phoneme_id_map_sha256": map_digest(config.phoneme_id_map),
        "frontend": frontend_id(language_of(config), lexicon[1]),
        "lexicon": str(lexicon[0].resolve()),
        "lexicon_entries": {word.lower(): said for word, said in lexicon[1].entries.items()},
        "speakers": sorted({u.speaker for u in utterances if u.speaker}),
        "teacher": teacher_note(project.folder),
        "utterances": [asdict(u) for u in utterances],
    }
    (staging / "cache.json").write_text(json.dumps(document, ensure_ascii=False, indent=1), encoding="utf-8")


def preprocess_clip(job) -> dict[str, np.ndarray]:
    """Worker process: ``(curated wav, text, voice config, settings, lexicon or None)`` -> phoneme_ids, audio, spec
    (frame-major)."""
    from trainer.dataset import jobs
    from trainer.dataset.fixes import resample
    from trainer.dataset.probe import load

    path, text, config_path, settings, lexicon = job
    audio, info = load(path)
    audio = resample(audio[:, 0], info.sample_rate, settings.sample_rate)
    phoneme_ids = training_phoneme_ids(jobs.phonemizer(config_path, lexicon), text)
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
