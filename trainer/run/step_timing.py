"""A run's training step timed on this machine before the run starts, and the time its epochs will take.

:func:`step_key` names what a step's time depends on (this machine, the device, the generator's size, the precision,
whether the decoder's own losses are computed: a fine-tune's, not a run's from scratch). :func:`time_steps` builds
the run's networks, takes the first clips of its dataset as one batch (their features computed as the training cache
computes them) and trains on that batch through ``lightning.Trainer``: one warm-up step (oneDNN and cuDNN choose
their kernels then: on a 2-vCPU VM a medium warm-up step took 1.7x a later one), then steps until ``TIMED_S``
seconds or ``MAX_TIMED`` steps have passed; the figure is their median. :func:`time_in_child` runs it in a child
process (``python -m trainer.run.step_timing``) with the thread and device settings a trainer process gets, so a
studio keeps neither its memory nor its threads, and cancelling ends it.

What it costs (2-vCPU AMD EPYC VM, float32): medium about 35 s when the VM was quiet (imports 5 s, warm-up
18 s, one timed step 10.5 s) and 68 s with other work on it (load 4); the ``test`` preset about 13 s, most of
it imports. :func:`estimate_run` times a step only where nothing better is known (``trainer.run.epoch_time``:
earlier runs, a step timed before).
"""

from __future__ import annotations

import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, replace
from pathlib import Path

from engines.imports import importing
from trainer.run.epoch_time import (
    StepFigure,
    StepKey,
    TimeEstimate,
    estimate,
    figure_from_runs,
    has_decoder_losses,
    held_out,
    preset_figure,
    remember,
    remembered,
)
from trainer.run.options import RunOptions

TIMED_S = 8.0
"""Seconds of timed steps after which timing stops (after the step that passes them)."""
MAX_TIMED = 3
"""Most steps timed after the warm-up step."""
TIMED_HERE = "a step timed on this machine"
"""The source of a figure :func:`time_steps` measured, in words."""


def step_key(options: RunOptions) -> StepKey:
    """What a step of the run ``options`` ask for depends on (imports torch to see the device).

    Raises:
        RunError: a CUDA device asked for but absent (``trainer.run.hardware.check_device``).
    """
    from trainer.run.disk import run_quality
    from trainer.run.hardware import planned_precision
    from trainer.run.presets import preset
    from trainer.run.settings import as_run

    quality = run_quality(options)
    config = as_run(preset(quality), options.start, options.settings)
    cuda, precision = planned_precision(options.device, config, options.precision)
    device = _gpu_name(options.device) if cuda else "cpu"
    generator = _start_generator(options) if quality == "test" else ""
    losses = has_decoder_losses(config.to_dict())
    return StepKey(
        host=socket.gethostname(),
        device=device,
        quality=quality,
        precision=precision,
        generator=generator,
        decoder_losses=losses,
    )


def _start_generator(options: RunOptions) -> str:
    """The quality of the start voice whose generator a ``test`` run trains ("" from scratch, or a start that names
    none): its size wins over the preset's (``trainer.start.shape``), and with it a step's time."""
    from trainer.start.points import start_voice

    voice = start_voice(options.start)
    quality = voice.config.raw.get("audio", {}).get("quality") if voice is not None else None
    return str(quality).replace("_", "-") if quality else ""


def _gpu_name(device: str) -> str:
    """The name torch gives the GPU ``device`` (``cuda``: GPU 0)."""
    with importing("torch"):
        import torch

    index = int(device.split(":", 1)[1]) if device.startswith("cuda:") else 0
    return torch.cuda.get_device_name(index)


def estimate_run(
    options: RunOptions,
    clips: int,
    *,
    time_now: bool = False,
    cancel: threading.Event | None = None,
    more: bool = False,
    timing: Callable[[StepKey], None] | None = None,
) -> TimeEstimate | None:
    """How long the epochs ``options`` ask for take over ``clips`` usable clips on this machine, from the best
    figure there is (``trainer.run.epoch_time``); with ``time_now``, a step is timed in a child process when
    neither an earlier run nor an earlier timing knows (and remembered). A run with ``--set`` settings (which may
    change a step's cost: the decoder's losses, more discriminators) takes neither other runs' figures nor the
    remembered one, and its timing is not remembered for runs without them. ``more``: the epochs follow ones done
    (a resume; the run's own events are the first figure); ``timing(key)`` is called as a step starts being timed.
    ``None`` when no figure is known.

    Raises:
        RunError: a CUDA device asked for but absent.
        Cancelled: ``cancel`` was set while a step was being timed.
    """
    from trainer.run.presets import preset
    from trainer.run.settings import as_run

    key = step_key(options)
    config = as_run(preset(key.quality), options.start, options.settings)
    model = config.model.to_dict()
    shared = not options.settings  # a run with --set is timed on its own: other runs' and remembered figures are not
    own = figure_from_runs([Path(options.out)], key, model) if more else None  # a resume: its own epochs first
    others = (figure_from_runs(_neighbours(options.out), key, model) or remembered(key)) if shared else None
    figure = own or others
    if figure is None and time_now:
        if timing is not None:
            timing(key)
        figure = time_in_child(options, cancel)
        if shared:
            remember(key, figure)
    figure = figure or preset_figure(key)
    if figure is None:
        return None
    batch = options.batch_size or (figure.batch_size if not key.cpu else config.batch_size or 8)
    train = clips - held_out(clips, config.val_fraction, config.max_val)
    epochs = options.epochs or config.epochs
    return estimate(figure, epochs=epochs, train_clips=train, batch_size=batch, cpu=key.cpu, more=more)


def _neighbours(run_dir: Path) -> list[Path]:
    """The run folder ``run_dir`` (a resume's own events) and the folders beside it (earlier runs)."""
    parent = Path(run_dir).parent
    try:
        return [folder for folder in parent.iterdir() if folder.is_dir()]
    except OSError:
        return []


def time_in_child(options: RunOptions, cancel: threading.Event | None = None) -> StepFigure:
    """:func:`time_steps` in a child process (this Python, ``-m trainer.run.step_timing``), with a trainer's thread
    waits (``trainer.run.hardware.thread_environment``) and GPU choice (``cuda:N``: only GPU N visible).

    Raises:
        Cancelled: ``cancel`` was set (the child is ended).
        RunError: the child failed (its last line of output says why).
    """
    from trainer.run.errors import RunError
    from trainer.run.hardware import thread_environment
    from trainer.run.options import device_environment
    from trainer.tasks import Cancelled

    env = {**os.environ, **thread_environment(), **device_environment(options.device)}
    wanted = replace(options, device="cuda" if options.device.startswith("cuda:") else options.device)
    argument = json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in asdict(wanted).items()})
    command = [sys.executable, "-m", "trainer.run.step_timing", argument]
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as child:
        while True:
            try:
                out, err = child.communicate(timeout=0.2)  # retried: no output is lost
                break
            except subprocess.TimeoutExpired:
                if cancel is not None and cancel.is_set():
                    child.kill()
                    child.communicate()
                    raise Cancelled("timing a training step cancelled") from None
    if child.returncode:
        said = (err.strip().splitlines() or [f"exit code {child.returncode}"])[-1]
        raise RunError(f"timing a training step failed: {said}")
    return StepFigure(**json.loads(out.strip().splitlines()[-1]))


def time_steps(options: RunOptions) -> StepFigure:
    """One warm-up step, then steps until ``TIMED_S`` seconds or ``MAX_TIMED`` steps, of the run ``options``
    ask for on its dataset's first clips (module docstring); the median timed step, with the batch size.

    Raises:
        RunError: the dataset or start cannot be used, or the device is absent.
    """
    import logging

    with importing("lightning"):
        import lightning as L
    with importing("torch.utils.data"):
        from torch.utils.data import DataLoader
    with importing("trainer.gan.system"):
        from trainer.gan.system import VitsSystem
    from trainer.run.hardware import hardware

    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)
    config, make_batch = _config_and_batch(options)
    accelerator, precision, batch_size = hardware(options.device, config, options.precision)
    batch = make_batch(batch_size)
    clock = _step_clock()
    trainer = L.Trainer(
        max_epochs=1,
        accelerator=accelerator,
        devices=1,
        precision=precision,  # type: ignore[arg-type]
        limit_val_batches=0,
        num_sanity_val_steps=0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[clock],
    )
    batches: list = [batch] * (1 + MAX_TIMED)  # a list of batches stands for a map-style dataset
    loader: DataLoader = DataLoader(batches, batch_size=None, collate_fn=_same)  # type: ignore[arg-type]
    trainer.fit(VitsSystem(config.to_dict()), train_dataloaders=loader)
    return StepFigure(step_s=statistics.median(clock.seconds[1:]), batch_size=batch_size, source=TIMED_HERE)


def _same(batch):
    return batch


def _config_and_batch(options: RunOptions):
    """The run's ``TrainingConfig`` (the start's generator size, the dataset's symbols and speakers) and a
    function of the batch size giving one batch of the dataset's first clips (repeated where it has fewer)."""
    from engines.voice import load_config

    with importing("trainer.data.datamodule"):
        from trainer.data.datamodule import collate
    from trainer.run.disk import run_quality
    from trainer.run.preflight import default_voice_config, summarize
    from trainer.run.presets import preset
    from trainer.run.settings import as_run
    from trainer.start.points import run_rate

    rate = run_rate(options.start, options.dataset, options.preset)
    summary = summarize(options.dataset)
    voice_config = summary.voice_config or default_voice_config()
    symbols = load_config(Path(voice_config)).num_symbols
    overrides = {"batch_size": options.batch_size} if options.batch_size else {}
    config = preset(run_quality(options), symbols, max(1, len(summary.speakers)), sample_rate=rate, **overrides)
    config = as_run(config, options.start, options.settings)  # the run's step, its --set too

    def batch(size: int):
        items = first_items(options.dataset, size, voice_config, rate, multi_speaker=len(summary.speakers) > 1)
        return collate([items[i % len(items)] for i in range(size)])

    return config, batch


def first_items(dataset: Path, count: int, voice_config: str, rate: int, multi_speaker: bool) -> list[tuple]:
    """Up to ``count`` of ``dataset``'s first usable clips as ``trainer.data.datamodule.CacheDataset`` items
    (``(phoneme_ids, spec [C, T], audio [N], speaker id or None, index)``): read from a training cache, or
    computed as the cache computes them (``trainer.data.preprocess.build.preprocess_clip``) at ``rate`` Hz.

    Raises:
        RunError: no usable clip.
    """
    with importing("torch"):
        import torch

    from trainer.data.preprocess import CacheSettings
    from trainer.data.preprocess.build import preprocess_clip
    from trainer.run.errors import RunError

    if (Path(dataset) / "cache.json").is_file():
        return _cache_items(Path(dataset), count)
    settings = CacheSettings(sample_rate=rate)
    items = []
    for index, (path, text) in enumerate(_first_clips(Path(dataset), count)):
        arrays = preprocess_clip((str(path), text, voice_config, settings, None))
        ids, spec, audio = (torch.from_numpy(arrays[k].copy()) for k in ("phoneme_ids", "spec", "audio"))
        items.append((ids, spec.T.contiguous(), audio, 0 if multi_speaker else None, index))
    if not items:
        raise RunError(f"{dataset}: no usable clip to time a training step with")
    return items


def _cache_items(folder: Path, count: int) -> list[tuple]:
    from trainer.data.preprocess import PreprocessedCache

    with importing("trainer.data.datamodule"):
        from trainer.data.datamodule import CacheDataset

    cache = PreprocessedCache(folder)
    usable = [i for i, u in enumerate(cache.utterances) if u.alignable][:count]
    dataset = CacheDataset(folder, usable, cache.speakers, ram_bytes=0)
    return [dataset[i] for i in range(len(usable))]


def _first_clips(dataset: Path, count: int) -> list[tuple[Path, str]]:
    """``(audio path, text)`` of a project's first trainable clips, or a Piper folder's first lines."""
    if (dataset / "manifest.json").is_file():
        from trainer.dataset.export import trainable
        from trainer.dataset.project import DatasetProject

        project = DatasetProject(dataset)
        return [(project.clip_path(c.id), c.text) for c in trainable(project)[:count]]
    from trainer.dataset.sources import scan

    return [(c.audio, c.text) for c in scan([dataset]).clips if c.text][:count]


def _step_clock():
    """A Lightning callback keeping each training step's wall seconds (``seconds``, the warm-up step first); it
    stops the fit once the timed steps (after the warm-up) pass ``TIMED_S`` seconds or number ``MAX_TIMED``."""
    with importing("lightning"):
        import lightning as L

    class StepClock(L.Callback):
        def __init__(self) -> None:
            self.seconds: list[float] = []

        def on_train_batch_start(self, trainer, module, batch, batch_idx) -> None:
            self._start = time.perf_counter()

        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
            if module.device.type == "cuda":  # the step's kernels are done
                with importing("torch"):
                    import torch

                torch.cuda.synchronize(module.device)
            self.seconds.append(time.perf_counter() - self._start)
            timed = self.seconds[1:]
            if len(timed) >= MAX_TIMED or sum(timed) >= TIMED_S:
                trainer.should_stop = True

    return StepClock()


def main(argv: list[str] | None = None) -> None:
    """``python -m trainer.run.step_timing OPTIONS_JSON``: print the timed figure as one JSON line."""
    values = json.loads((argv or sys.argv[1:])[0])
    options = RunOptions(**{**values, "dataset": Path(values["dataset"]), "out": Path(values["out"])})
    print(json.dumps(asdict(time_steps(options))), flush=True)


if __name__ == "__main__":
    main()
