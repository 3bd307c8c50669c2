"""A training run: its folder, its start point, and the Lightning fit.

Run folder layout::

    training.json       everything needed to run or resume: the RunOptions, cache, config (``trainer.run.document``)
    config.json         the voice config (Piper's .onnx.json format) checkpoints are spoken and exported with
    events.jsonl        the event stream (``trainer.events.schema``, written by ``trainer.events.log``)
    cache/              the preprocessed dataset, when the run was given a project or a Piper folder
    last.ckpt           resume checkpoint (weights, optimizers, schedulers, loops, RNG)
    checkpoints/        the best generator checkpoints by val_mel, and best.json
    previews/           preview lines per epoch
    evaluations/        canary evaluations: each evaluated epoch's result (``epoch=EEEE.json``, an ``Evaluation``
                        record), and while it is measured its checkpoint and output (``trainer.evaluate.canary``)

A run starts from scratch, a Piper ``.ckpt`` or a Piper ONNX voice
(``trainer.start.points``), or resumes exactly from ``last.ckpt`` (``trainer.run.resume``: what a
resume may change). With a start voice or checkpoint, the generator's size is the
start's and its speakers the dataset's (``trainer.start.shape``: the conversions, kept
in ``training.json`` and emitted as warnings when training starts); the preset sets the rest.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import sys
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from engines.files import write_text
from engines.imports import importing
from engines.shell_command import shell_command
from engines.words import count
from trainer.events.live import clear_training, mark_training
from trainer.events.run_state import STOP_FILE
from trainer.events.schema import ErrorEvent, Stage, WarningEvent
from trainer.out_folder import check_folder_path, check_replaceable
from trainer.run.document import CHECKPOINTS_FOLDER, RunDocument, is_run, read_run, write_run
from trainer.run.errors import RunError
from trainer.run.hardware import check_device, hardware
from trainer.run.options import DEVICES, PRECISIONS, RunOptions
from trainer.run.presets import TrainingConfig, preset
from trainer.run.ranks import check_launcher, rank_zero, wait_for_run
from trainer.run.settings import as_run
from trainer.start.points import load_start, resolve_start, run_rate
from trainer.start.shape import fit_to_start

__all__ = ["DEVICES", "PRECISIONS", "RunError", "RunOptions", "create_run", "extend_run", "fit"]


def create_run(options: RunOptions, echo=None) -> Path:
    """Prepare the run folder (cache, training.json, config.json); returns it.

    A folder this call created is removed again if preparing fails, so a failed
    command leaves nothing behind; the preset, dataset, start and device are checked first. A run
    folder whose start failed before any epoch (no checkpoint) is replaced, saying so. Only global rank 0
    prepares the folder; another rank of a DDP run waits for it (``trainer.run.ranks.wait_for_run``).

    Raises:
        RunError: the folder already holds a run that started, an unusable dataset or start point, or a device
            this machine lacks (all checked before the folder is written).
        OutFolderError: ``out`` is a file, a folder holding other files, or the dataset (or in or around it).
        ValueError: an unknown preset.
    """
    echo = echo or sys.stderr  # progress lines: stderr as it is now, not as it was at import
    out = Path(options.out)
    check_launcher(options.num_nodes)
    if not rank_zero():  # another process of a DDP run (this machine's or another's): rank 0 makes the run
        _check_out(out, Path(options.dataset))  # a run that started: refused as rank 0 refuses it, not trained
        return wait_for_run(out, is_run, echo=echo)
    _check_out(out, Path(options.dataset))
    preset(options.preset)  # an unknown preset fails before any work
    resolve_start(options.start)
    if options.precision not in ("auto", *PRECISIONS):
        raise RunError(f"precision {options.precision!r}: use auto, {', '.join(PRECISIONS)}")
    if not Path(options.dataset).is_dir():
        raise RunError(f"{options.dataset}: no such dataset folder")
    check_device(options.device, options.precision, options.devices)  # before the folder is written
    _check_space(options, echo)
    if is_run(out):  # one that never started (_check_out): made again from scratch
        print(f"replacing {out}, a run that never started", file=echo)
        shutil.rmtree(out)
    created = not out.exists()
    out.mkdir(parents=True, exist_ok=True)
    try:
        _prepare(out, options, echo)
    except BaseException:
        if created:
            shutil.rmtree(out, ignore_errors=True)
        raise
    return out


def _check_space(options: RunOptions, echo) -> None:
    """Refuse a run whose disk cannot hold what it will write (``trainer.run.disk``: checkpoints, the cache,
    previews), as the Train page's Check does; say so where it is short, and say the clips too narrow for the
    voice's rate (``trainer.run.preflight.band_findings``).

    Raises:
        RunError: too little free space, naming the folder and both sizes.
    """
    from trainer.run.disk import check_run_space
    from trainer.run.preflight import band_findings, summarize

    try:
        summary = summarize(Path(options.dataset))
    except ValueError:  # not a dataset: preparing the run says so (_cache_for)
        return
    rate = run_rate(options.start, options.dataset, options.preset)
    warning = check_run_space(options, summary.seconds, rate, summary.kind)
    if warning:
        print(f"warning: {warning}", file=echo)
    for finding in band_findings(options, summary, rate):  # as Check says them: the voice learns an empty band
        print(f"warning: {finding.message}", file=echo)


def _check_out(out: Path, dataset: Path) -> None:
    """``out`` may become the run folder: absent, empty, or a run that never started (no epoch, no
    checkpoint); never a file, the dataset, inside it or holding it.

    Raises:
        RunError: ``out`` holds a run that started. OutFolderError: any other reason, naming ``out``.
    """
    from trainer.events.run_state import load_run

    check_folder_path(out, "run folder (--out)")
    if is_run(out) and not load_run(out).never_started:
        raise RunError(f"{out} already holds a run: resume it with --resume, or choose another --out")
    check_replaceable(out, is_run, [dataset], "run folder (--out)")


def _prepare(out: Path, options: RunOptions, echo) -> None:
    """The cache, ``config.json`` and ``training.json`` of a new run in ``out``."""
    from trainer.data.preprocess import PreprocessedCache

    cache_dir = _cache_for(Path(options.dataset), out, run_rate(options.start, options.dataset, options.preset), echo)
    cache = PreprocessedCache(cache_dir)
    voice = _voice_config(cache)
    num_speakers = max(1, len(cache.speakers))
    overrides = {k: v for k, v in (("epochs", options.epochs), ("batch_size", options.batch_size)) if v is not None}
    config = preset(
        options.preset, voice["num_symbols"], num_speakers, sample_rate=cache.settings.sample_rate, **overrides
    )
    config, conversions = fit_to_start(
        options.start, config, cache, preset_name=options.preset, dataset_label=str(options.dataset)
    )
    config = as_run(config, options.start, options.settings)  # from scratch all of it learns; the user's --set over
    dataset = Path(options.dataset).resolve()
    chosen = replace(options, dataset=dataset, out=out, epochs=config.epochs, batch_size=config.batch_size)
    document = RunDocument(options=chosen, cache=cache_dir.resolve(), config=config.to_dict(), conversions=conversions)
    voice["training"] = _training_note(options, cache)  # kept by export: a smoke test's voice says it is one
    if config.voice_noise_scale is not None:  # what the checkpoints and exports are spoken with
        voice["inference"] = {**voice.get("inference", {}), "noise_scale": config.voice_noise_scale}
    write_text(out / "config.json", json.dumps(voice, ensure_ascii=False, indent=2))
    write_run(document)


def _training_note(options: RunOptions, cache) -> dict:
    """What the voice's config says of its training (``training``, kept by export): the preset, and the teacher
    of a dataset distilled from a voice server (server, model, voice, date, consent, licence) as the training
    ``cache`` (a ``PreprocessedCache``) records it: the run's own cache of a project, or a cache the user built,
    given as the dataset."""
    note: dict = {"preset": options.preset}
    if cache.teacher:
        note["teacher"] = cache.teacher
    return note


def _cache_for(dataset: Path, out: Path, rate: int, echo) -> Path:
    """The dataset as a preprocessed cache: used as it is, or built from a project or a Piper folder at
    ``rate`` Hz (``trainer.start.points.run_rate``: the start voice's; from scratch, the preset's)."""
    from trainer.data.preprocess import CacheSettings, build_cache
    from trainer.dataset.project import DatasetProject

    if (dataset / "cache.json").exists():
        return dataset
    if (dataset / "manifest.json").exists():
        project = DatasetProject(dataset)
    elif (dataset / "metadata.csv").exists():
        project = DatasetProject.create(out / "dataset")
        result = project.import_sources([dataset])
        if not result.added and not result.unchanged:
            raise RunError(f"{dataset}: no clip could be imported")
    else:
        raise RunError(f"{dataset}: not a dataset (no cache.json, manifest.json or metadata.csv)")
    print(f"preprocessing {dataset} ...", file=echo)
    _echo_left_out(project, echo)
    # the run's own cache, not the project's
    return build_cache(project, out / "cache", CacheSettings(sample_rate=rate), record=False)


def _echo_left_out(project, echo) -> None:
    """Say how many clips the cache leaves out and why (by finding kind), as the pre-flight does."""
    from collections import Counter

    from trainer.dataset.export import WHY_LEFT_OUT, left_out

    kinds = Counter(left_out(project).values())
    if kinds:
        reasons = "; ".join(f"{n} {WHY_LEFT_OUT.get(kind, kind)}" for kind, n in kinds.most_common())
        total = sum(kinds.values())
        clips = count(len(project.clips), "clip")
        print(f"{total} of {clips} left out: {reasons} (voice-studio dataset report)", file=echo)


def _voice_config(cache) -> dict:
    """Piper's voice config for what this run trains: the cache's voice (phoneme map, an espeak voice espeak-ng
    has), its rate, its speakers."""
    from engines.espeak import check_config
    from engines.voice import load_config
    from trainer.data.preprocess import map_digest

    source = load_config(Path(cache.voice_config))
    check_config(source)  # a cache built before its voice's espeak.voice was changed: said before any training
    if map_digest(dict(source.phoneme_id_map)) != cache.phoneme_id_map_sha256:
        raise RunError(f"{cache.folder}: built for another phoneme map than {cache.voice_config}; rebuild the cache")
    stale = cache.stale_frontend()  # a cache of texts read as written: the voice would learn "dollar five"
    if stale:
        raise RunError(stale)
    raw = dict(source.raw)
    raw["audio"] = {**raw.get("audio", {}), "sample_rate": cache.settings.sample_rate}
    raw["num_speakers"] = max(1, len(cache.speakers))
    raw["speaker_id_map"] = {name: i for i, name in enumerate(cache.speakers)}
    return raw


def fit(run_dir: Path | str, resume: bool = False, echo=None, document: RunDocument | None = None) -> Path:
    """Train (or resume) the run in ``run_dir``; returns the path of the best generator checkpoint.

    ``document`` stands for ``training.json`` where a rank other than 0 resumes with settings rank 0 is
    writing into it (``trainer.run.resume.resume_plan``). Only global rank 0 writes files and events.

    Raises:
        RunError: not a run folder, nothing to resume, or a dataset with no usable utterance.
        CheckpointError: a checkpoint could not be written.
    """
    echo = echo or sys.stderr  # the events echoed: stderr as it is now, not as it was at import
    import logging

    with importing("lightning"):
        import lightning as L

    from engines.phonemes import Phonemizer
    from engines.voice import load_config

    with importing("trainer.run.callbacks"):
        from trainer.run.callbacks import (
            CheckpointCallback,
            EventsCallback,
            PreviewCallback,
            Timing,
            WriterCheckpointIO,
        )
    with importing("trainer.data.seen_utterances"):
        from trainer.data.seen_utterances import seen_utterances
    from trainer.checkpoints.writer import CheckpointWriter
    from trainer.data.preprocess import PreprocessedCache
    from trainer.events.log import EventLog, NoLog
    from trainer.run.disk import stopped_by_write

    with importing("trainer.gan.system"):
        from trainer.gan.system import VitsSystem
    with importing("trainer.gan.d_warmup"):
        from trainer.gan.d_warmup import WarmupEvents

    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)  # the run's events say what matters
    warnings.filterwarnings("ignore", message=".*LeafSpec.*")  # Lightning's own, on every run
    run_dir = Path(run_dir)
    document = document or read_run(run_dir)
    options, config = document.options, TrainingConfig.from_dict(document.config)
    check_launcher(options.num_nodes)  # a resume too: the run's own --num-nodes
    if resume:
        check_resumable(run_dir, config.epochs)
    resolve_start(options.start)  # a start point gone since the run was made is refused, resumed or not
    if rank_zero():
        _clean(run_dir)
    accelerator, precision, batch_size = hardware(options.device, config, options.precision)
    started = time.perf_counter()  # the session's setup, a start's recovery included, counts from here
    log = EventLog(run_dir / "events.jsonl", echo) if rank_zero() else NoLog()
    if rank_zero():
        mark_training(run_dir)  # a studio showing the run sees a trainer at work (trainer.events.live)
    log.emit(Stage(name="setup", message="setting up: reading the training cache and building the model"))
    try:
        data = _data(document, config, batch_size)
    except BaseException:
        log.close()
        raise
    L.seed_everything(config.seed, workers=True, verbose=False)
    system = VitsSystem(config.to_dict())
    lexicon = PreprocessedCache(document.cache).read_lexicon()  # previews say the words as the cache's texts do
    voice = load_config(run_dir / "config.json")
    phonemizer = Phonemizer(voice, lexicon)
    skipped = count(len(data.skipped), "utterance")
    notes = [f"{skipped} shorter than a training segment left out"] if data.skipped else []
    if data.unalignable:
        unalignable = count(len(data.unalignable), "utterance")
        examples = ", ".join(data.unalignable[:3]) + (" …" if len(data.unalignable) > 3 else "")
        notes.append(
            f"{unalignable} with more phoneme_ids than spectrogram frames left out ({examples}): "
            "the text is too long for its audio; check those clips' text and audio on the Dataset page"
        )
    if not resume:
        notes += _apply_start(document, system, data, phonemizer, log, accelerator, precision)
    for message in notes:
        log.emit(WarningEvent(message=message))
    _compile(system, options.compile, accelerator, log)
    timing, writer = Timing(), CheckpointWriter()
    checkpoints = CheckpointCallback(run_dir, writer, timing, log, config.checkpoint_every, config.keep_best)
    previews = PreviewCallback(run_dir, phonemizer, timing, log, config.preview_every, scales=voice.scales)
    callbacks = [
        previews,
        checkpoints,
        *_canary(run_dir, options, writer, log, timing, previews),  # before the events: its last ones precede finish
        EventsCallback(
            log,
            timing,
            "resume" if resume else options.start,
            len(data.train_set),
            started=started,
            preset=options.preset,
        ),
        *seen_utterances(data),
        WarmupEvents(log),
    ]
    trainer = L.Trainer(
        max_epochs=config.epochs,
        accelerator=accelerator,
        devices=options.devices,  # per machine; the cluster environment (torchrun, SLURM) gives the ranks
        num_nodes=options.num_nodes,
        # each backward leaves one network without gradients (the GAN's two steps): DDP must expect that
        strategy="ddp_find_unused_parameters_true" if options.devices * options.num_nodes > 1 else "auto",
        use_distributed_sampler=False,  # the training batches shard by rank themselves (trainer.data.batching)
        precision=cast(Any, precision),  # one of PRECISIONS (checked by create_run), Lightning's Literal
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        num_sanity_val_steps=0,
        callbacks=callbacks,
        plugins=[WriterCheckpointIO(writer)],
    )
    last = run_dir / "last.ckpt"
    try:
        trainer.fit(system, datamodule=data, ckpt_path=str(last) if resume else None)
    except (KeyboardInterrupt, SystemExit):  # Ctrl+C twice (Lightning turns it into exit(1))
        resume_with = shell_command("voice-studio", "train", "--resume", run_dir)
        log.emit(WarningEvent(message=f"interrupted: resume with {resume_with}"))
        raise KeyboardInterrupt from None
    except BaseException as exc:
        stopped = stopped_by_write(exc, run_dir, checkpoints.resume_epoch)
        with contextlib.suppress(OSError):  # a full disk may refuse the error's own line (echoed all the same)
            log.emit(ErrorEvent(message=str(stopped) if stopped else f"{type(exc).__name__}: {exc}"))
        if _compile_failed(exc):
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise RunError(
                f"torch.compile failed ({first}); resume with: "
                + shell_command("voice-studio", "train", "--resume", run_dir, "--compile", "off")
            ) from None
        if stopped is not None:
            raise stopped from exc
        raise
    finally:
        writer.close(raise_errors=False)
        log.close()
        if rank_zero():
            clear_training(run_dir)
    files = checkpoints.best.files()
    return files[0] if files else last


def _canary(run_dir: Path, options: RunOptions, writer, log, timing, previews) -> list:
    """The canary evaluations' callback (``trainer.run.canary_callback``): every ``eval_every`` epochs and the last,
    or by default on the epochs ``previews`` speaks; none with ``--eval-every 0``, nor by default for the
    ``test`` preset (a smoke test previews every epoch, which would start an evaluation each epoch), nor without
    the ``compare`` extra's measures (a warning says how to add them)."""
    from trainer.evaluate.best_row import missing_measures, not_installed
    from trainer.run.presets import is_smoke_test

    if options.eval_every == 0 or (options.eval_every is None and is_smoke_test(options.preset)):
        return []
    if missing := missing_measures():  # said once, rather than a process per evaluation that measures nothing
        log.emit(WarningEvent(message=f"no quality measures during training: {not_installed(', '.join(missing))}"))
        return []
    with importing("trainer.run.canary_callback"):
        from trainer.run.canary_callback import CanaryCallback, schedule
    from trainer.evaluate.canary import CANARY_LINES
    from trainer.evaluate.render import default_cache_dir

    due, lines = schedule(options.eval_every, previews.due), options.eval_lines or CANARY_LINES
    return [CanaryCallback(run_dir, writer, log, timing, due=due, lines=lines, cache_dir=default_cache_dir())]


def _compile(system, choice: str, accelerator: str, log) -> None:
    """``torch.compile`` the system's decoder, discriminators and GAN losses where ``--compile`` asks for it
    (``trainer.gan.compile``); says so, since the first steps then take longer."""
    from trainer.gan.compile import compile_parts, wanted

    if not wanted(choice, accelerator):
        return
    parts = compile_parts(system)
    if log is not None:
        names = ", ".join(parts[:-1]) + f" and {parts[-1]}"
        message = f"compiling the {names} with torch.compile: the first steps (and validation) take minutes longer"
        log.emit(Stage(name="compile", message=message))


def _compile_failed(exc: BaseException) -> bool:
    """Whether ``exc`` (or what caused it) was raised by ``torch.compile``'s dynamo or inductor (a missing C++
    compiler, an unsupported op), which ``--compile off`` avoids."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:  # a chain may loop back (an error raised from itself)
        if type(exc).__module__.startswith(("torch._dynamo", "torch._inductor")):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__  # type: ignore[assignment]
    return False


def _clean(run_dir: Path) -> None:
    """Remove what an earlier session left: half-written checkpoint temps and a stop request (a preview request
    stays: it is answered after the first training step)."""
    from trainer.checkpoints.writer import remove_stale_temps

    for folder in (run_dir, run_dir / CHECKPOINTS_FOLDER):
        if folder.exists():
            remove_stale_temps(folder)
    (run_dir / STOP_FILE).unlink(missing_ok=True)


def _data(document: RunDocument, config: TrainingConfig, batch_size: int):
    """The run's ``CacheDataModule``, set up.

    Raises:
        RunError: the cache has no usable utterance.
    """
    with importing("trainer.data.datamodule"):
        from trainer.data.datamodule import CacheDataModule

    data = CacheDataModule(
        document.cache,
        batch_size,
        config.segment_frames,
        config.val_fraction,
        config.max_val,
        config.seed,
        document.options.workers,
        multi_speaker=config.model.num_speakers > 1,
    )
    try:
        data.setup()
    except ValueError as exc:
        raise RunError(str(exc)) from None
    return data


def _apply_start(document: RunDocument, system, data, phonemizer, log, accelerator: str, precision: str) -> list[str]:
    """Load a new run's start point into ``system``; returns the warnings to emit (conversions, tensors kept
    fresh). An ONNX start's recovered parts come from the recovery cache unless the run says not to."""
    kind, start_path = resolve_start(document.options.start)
    notes = [f"converting the start: {note}" for note in document.conversions]
    if kind == "ckpt" and start_path is not None:
        notes += load_start(system, start_path)
    if kind == "onnx" and start_path is not None:
        from trainer.start.recovery_cache import recovery_cache_dir
        from trainer.start.recovery_stage import recover_onnx_start

        options = document.options
        cache_dir = None if options.no_recovery_cache else recovery_cache_dir()
        notes += recover_onnx_start(
            system, start_path, data, phonemizer, log, accelerator, precision, cache_dir, keep=rank_zero()
        )
    return notes


def check_resumable(run_dir: Path, epochs: int) -> None:
    """Refuse a resume that cannot train: no ``last.ckpt`` yet, a finished run asked for no more epochs, a
    damaged ``last.ckpt`` (read whole against its checksums: ``trainer.checkpoints.damage``), or a disk without
    room for a new one beside it (``trainer.run.disk.check_resume_space``).

    Raises:
        RunError: saying which, and what to do instead.
        DamagedCheckpoint: naming ``last.ckpt``, how it is damaged, and the way on (``trainer.run.from_best``).
    """
    from trainer.checkpoints.damage import DamagedCheckpoint, why_damaged
    from trainer.events.run_state import load_run
    from trainer.run.disk import check_resume_space
    from trainer.run.from_best import resume_way_on

    state = load_run(run_dir)
    if not (run_dir / "last.ckpt").exists():
        again = f": it never started; start it again with train --out {run_dir}" if state.never_started else ""
        raise RunError(f"{run_dir}: nothing to resume yet (no last.ckpt){again}")
    if state.status == "done" and state.epochs_done >= epochs:
        raise RunError(
            f"{run_dir}: the run finished all its {count(epochs, 'epoch')}; give --epochs N (more) to train on"
        )
    written = read_run(run_dir).config
    why = why_damaged(run_dir / "last.ckpt")
    if why is None:
        why = _misfit(run_dir / "last.ckpt", written.get("model") or {})
    if why is not None:
        raise DamagedCheckpoint(run_dir / "last.ckpt", why, resume_way_on(run_dir))
    config = TrainingConfig.from_dict(written)
    check_resume_space(run_dir, state.epochs_done, epochs, config.preview_every, config.sample_rate)


RESUME_KEYS = ("pytorch-lightning_version", "state_dict", "optimizer_states", "hyper_parameters")
"""What a resume checkpoint (Lightning's ``last.ckpt``) holds besides the weights: a whole file without them was
not written by a training run (a ``torch.save`` of weights alone, a generator-only file)."""


def _misfit(path: Path, model: dict) -> str | None:
    """Why the whole file ``path`` cannot resume a run whose ``training.json`` model is ``model``, else None: not a
    training run's resume checkpoint, or one of another network (its ``hyper_parameters`` differ: a file copied
    from another run). Read memory-mapped under the allow-list (``engines.torch.vits.safe_load``)."""
    from engines.base import VoiceError
    from engines.torch.vits.safe_load import load_safely

    try:
        held = load_safely(path)
    except VoiceError as exc:
        return exc.reason
    missing = [key for key in RESUME_KEYS if key not in held] if isinstance(held, dict) else list(RESUME_KEYS)
    if missing:
        return f"not a training run's resume checkpoint (it lacks {', '.join(missing)})"
    theirs = held["hyper_parameters"]
    differ = [k for k, v in model.items() if k in theirs and _plain(theirs[k]) != _plain(v)]
    if differ:
        said = ", ".join(f"{k} {_plain(theirs[k])} where the run has {_plain(model[k])}" for k in differ[:3])
        return f"the checkpoint of another network ({said}): copied from another run?"
    return None


def _plain(value):
    """``value`` with tuples as lists (hyper_parameters keep tuples, ``training.json`` lists)."""
    return [_plain(v) for v in value] if isinstance(value, (list, tuple)) else value


def extend_run(run_dir: Path | str, epochs: int) -> None:
    """Set a run's epoch count (to train on after it finished, or to end it sooner when resumed).

    Raises:
        RunError: not a run folder, or fewer epochs than it has done.
    """
    write_run(more_epochs(read_run(run_dir), epochs))


def more_epochs(document: RunDocument, epochs: int) -> RunDocument:
    """``document`` set to train ``epochs`` epochs in all, not written.

    Raises:
        RunError: fewer epochs than the run has done.
    """
    from trainer.events.run_state import load_run

    run_dir = document.options.out
    done = load_run(run_dir).epochs_done
    if epochs <= done:
        raise RunError(f"{run_dir}: {count(done, 'epoch')} done already; give --epochs more than {done}")
    return document.with_epochs(epochs)
