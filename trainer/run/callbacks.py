"""What a training run does besides training: events, checkpoints, previews (Lightning callbacks).

- :class:`EventsCallback` writes the run's JSON-lines events (``trainer.events.schema``):
  run start, progress, one record per epoch with its wall time split into train,
  validation, previews and checkpoint wait (and the training steps' own split, from the
  module's ``step_timer`` when it has one: ``trainer.gan.step_timer``), and the finish.
- :class:`CheckpointCallback` saves the resume checkpoint (``last.ckpt``: weights,
  optimizers, schedulers, loops, RNG) through the background writer
  (``trainer.checkpoints.best``), and small generator-only checkpoints ranked by val_mel
  (best k), which ``voice-studio export`` turns into voices.
- :class:`PreviewCallback` speaks fixed lines with the current generator on the preview
  schedule (``trainer.events.preview_schedule``: early epochs, then every N, and the last) and when
  asked (``trainer.events.run_state.request_preview``).

Only global rank 0 writes files and events.
"""

from __future__ import annotations

import random
import socket
import time
from pathlib import Path
from typing import Any

import lightning as L
import numpy as np
import torch
from lightning.pytorch.plugins.io import CheckpointIO, TorchCheckpointIO

from engines.voice import DEFAULT_LENGTH_SCALE, DEFAULT_NOISE_SCALE, DEFAULT_NOISE_W
from engines.words import count
from trainer.checkpoints.best import BestK
from trainer.checkpoints.writer import CheckpointError, CheckpointWriter
from trainer.events.log import EventLog
from trainer.events.preview_lines import PREVIEW_LINES
from trainer.events.preview_schedule import epochs_to_next, preview_due
from trainer.events.schema import Checkpoint, Epoch, Eta, Finish, Preview, Progress, RunStart, Stage
from trainer.run.document import CHECKPOINTS_FOLDER
from trainer.time_left import TimeLeft


class Timing:
    """Wall time per part of the current epoch (seconds), shared by the callbacks."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.start = time.perf_counter()
        self.parts = {"val_s": 0.0, "preview_s": 0.0, "checkpoint_wait_s": 0.0}

    def add(self, part: str, seconds: float) -> None:
        self.parts[part] += seconds


class WriterCheckpointIO(CheckpointIO):
    """Lightning's checkpoint saving through :class:`trainer.checkpoints.best.CheckpointWriter` (background, atomic)."""

    def __init__(self, writer: CheckpointWriter) -> None:
        self.writer = writer
        self._torch = TorchCheckpointIO()

    def save_checkpoint(self, checkpoint, path, storage_options=None) -> None:
        """Queue ``checkpoint``; ``storage_options`` may name ``on_written(path)``, run once the file is in place."""
        self.writer.save(path, checkpoint, on_written=(storage_options or {}).get("on_written"))

    def load_checkpoint(self, path, map_location=None, weights_only=None):
        """The checkpoint at ``path`` (a resume's ``last.ckpt``, checked whole before: ``check_resumable``).

        Raises:
            CheckpointError: it cannot be read after all, naming the file rather than torch's zip reader.
        """
        try:
            return self._torch.load_checkpoint(path, map_location=map_location, weights_only=False)
        except Exception as exc:  # noqa: BLE001 - torch's reader raises RuntimeError, EOFError, UnpicklingError ...
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise CheckpointError(f"{path}: cannot be read to resume from ({first})") from exc

    def remove_checkpoint(self, path) -> None:
        Path(path).unlink(missing_ok=True)


PROGRESS_INTERVAL_S = 1.0
"""Most seconds between two ``Progress`` records within an epoch (each batch's, when batches are slower)."""


class EventsCallback(L.Callback):
    """Writes the run's events; the epoch record is written once validation and the other callbacks are done.

    Within an epoch: a ``Progress`` record at its start (``batches`` 0; for the session's first epoch a
    ``Stage`` saying what happens before the first step instead), after its first batch, then after a batch
    whenever ``progress_interval_s`` have passed since the last one, and after its last batch; a ``Stage``
    when validation (then previews and checkpoints) begins.
    """

    def __init__(
        self,
        log: EventLog,
        timing: Timing,
        start: str,
        num_utterances: int,
        progress_interval_s: float = PROGRESS_INTERVAL_S,
        started: float | None = None,
        preset: str | None = None,
    ):
        self.events, self.timing, self.start, self.num_utterances = log, timing, start, num_utterances
        self.progress_interval_s, self.preset = progress_interval_s, preset
        self._fit_start = time.perf_counter() if started is None else started  # perf_counter() at the session's start
        self._setup_s = 0.0
        self._step_clock: tuple[float, int] = (time.perf_counter(), 0)
        self._left = TimeLeft()
        """The epoch's training steps left (``trainer.time_left``: none said until their rate settles)."""
        self._epoch_seconds: list[tuple[float, float]] = []  # (seconds, share of it warming up), this session
        self._first_epoch = True

    def on_fit_start(self, trainer, module) -> None:
        if trainer.is_global_zero:
            config = module.config.to_dict()
            device = str(module.device)
            epochs = trainer.max_epochs or 0
            self.events.emit(
                RunStart(
                    config=config,
                    num_utterances=self.num_utterances,
                    device=device,
                    epochs=epochs,
                    start=self.start,
                    precision=str(trainer.precision),
                    batch_size=int(getattr(trainer.datamodule, "batch_size", 0) or 0),
                    host=socket.gethostname(),
                )
            )

    def on_train_epoch_start(self, trainer, module) -> None:
        if not self._setup_s:
            self._setup_s = time.perf_counter() - self._fit_start
        self.timing.reset()
        self._step_clock = (time.perf_counter(), 0)
        self._left.new_phase()
        self._left.report(0, _batches(trainer), self.timing.start)
        if not trainer.is_global_zero:
            return
        epoch, total = trainer.current_epoch, _batches(trainer)
        if self._first_epoch:  # the data loader starts and the first step warms up: say so
            workers = getattr(trainer.datamodule, "num_workers", 0)
            loader = f"starting {count(workers, 'data-loading worker')}" if workers else "loading the first batch"
            self.events.emit(
                Stage(
                    name="epoch",
                    message=f"epoch {epoch + 1}: {loader}, then the first training step",
                    step=0,
                    steps=total,
                    elapsed_s=0.0,
                )
            )
        else:
            self.events.emit(
                Progress(epoch=epoch, step=trainer.global_step, batches=0, items_per_s=0.0, batches_total=total)
            )

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
        started, done = self._step_clock
        now = time.perf_counter()
        total, batches = _batches(trainer), batch_idx + 1
        self._left.report(batches, total, now)
        due = batches == 1 or batches == total or now - started >= self.progress_interval_s
        if not (trainer.is_global_zero and due):
            return
        self._first_epoch = False
        rate = (batches - done) * len(batch) * trainer.world_size / max(now - started, 1e-9)  # every rank's batches
        self._step_clock = (now, batches)
        elapsed = now - self.timing.start
        left = self._left.seconds(now) if total else None
        self.events.emit(
            Progress(
                epoch=trainer.current_epoch,
                step=trainer.global_step,
                batches=batches,
                items_per_s=rate,
                batches_total=total or None,
                elapsed_s=elapsed,
                seconds_left=left,
            )
        )

    def on_validation_start(self, trainer, module) -> None:
        self._val_start = time.perf_counter()
        if trainer.is_global_zero and not trainer.sanity_checking:
            message = f"epoch {trainer.current_epoch + 1}: validating, then previews and checkpoints as due"
            self.events.emit(Stage(name="validation", message=message, elapsed_s=0.0))

    def on_validation_end(self, trainer, module) -> None:
        self.timing.add("val_s", time.perf_counter() - self._val_start)

    def on_train_epoch_end(self, trainer, module) -> None:
        if not trainer.is_global_zero:
            return
        seconds = time.perf_counter() - self.timing.start
        parts = self.timing.parts
        metrics = {k: float(v) for k, v in trainer.callback_metrics.items()}
        self.events.emit(
            Epoch(
                epoch=trainer.current_epoch,
                step=trainer.global_step,
                seconds=seconds,
                train_s=max(0.0, seconds - sum(parts.values())),
                losses={k: v for k, v in metrics.items() if k.startswith(("train_", "val_"))},
                learning_rates={
                    name: float(s.get_last_lr()[0])
                    for name, s in zip(("generator", "discriminator"), module.lr_schedulers(), strict=True)
                },
                val_s=parts["val_s"],
                preview_s=parts["preview_s"],
                checkpoint_wait_s=parts["checkpoint_wait_s"],
                max_memory_gib=_gpu_memory(module.device),
                step_s=_step_split(module),
            )
        )
        self._emit_eta(trainer, seconds, metrics.get("train_d_warmup", 0.0))

    def _emit_eta(self, trainer, seconds: float, warming: float = 0.0) -> None:
        """Time left, from the epochs so far (:func:`epoch_estimate`); next preview and checkpoint in seconds.
        ``warming``: the share of this epoch spent in the discriminator warm-up (0-1)."""
        self._epoch_seconds.append((seconds, warming))
        mean = epoch_estimate(self._epoch_seconds)
        epoch, config = trainer.current_epoch, trainer.lightning_module.config
        total = trainer.max_epochs or 0
        left = max(0, total - epoch - 1)
        every = config.checkpoint_every  # the last epoch always checkpoints
        self.events.emit(
            Eta(
                epoch=epoch,
                seconds_left=mean * left,
                next_preview_s=mean * epochs_to_next(epoch, total, config.preview_every),
                next_checkpoint_s=mean * min(every - (epoch + 1) % every, left),
            )
        )

    def on_fit_end(self, trainer, module) -> None:
        if trainer.is_global_zero:
            status = "stopped" if trainer.should_stop and trainer.current_epoch < (trainer.max_epochs or 0) else "done"
            seconds = time.perf_counter() - self._fit_start
            self.events.emit(
                Finish(
                    epochs=trainer.current_epoch,
                    seconds=seconds,
                    setup_s=self._setup_s,
                    status=status,
                    preset=self.preset,
                )
            )


def epoch_estimate(history: list[tuple[float, float]]) -> float:
    """Seconds an epoch still to come will take: the mean of the epochs so far whose generator trained all epoch
    long, else (all in the discriminator warm-up so far) of every epoch. From the third such epoch on, as
    ``trainer.time_left`` counts items, the first is left out (it carries the warm-up: compiling, caches filling,
    the first previews) and the mean is of the later half of the rest (the rate now, under today's load).

    Args:
        history: ``(seconds, warm-up share)`` per epoch of this session, the share (0-1) from the epoch's
            ``train_d_warmup``. A warm-up epoch freezes the generator and takes about half as long (2-vCPU
            bench, medium: 1 min 09 s against 2 min 45 s), so counting it made the estimates a third short.

    Raises:
        ValueError: ``history`` is empty.
    """
    if not history:
        raise ValueError("no epoch to estimate from")
    trained = [seconds for seconds, warming in history if warming <= 0.0]
    chosen = trained or [seconds for seconds, _ in history]
    if len(chosen) >= 3:
        settled = chosen[1:]
        chosen = settled[len(settled) // 2 :]
    return sum(chosen) / len(chosen)


def _batches(trainer) -> int:
    """Training batches in this epoch (0 when the loader cannot tell, e.g. an iterable dataset)."""
    total = trainer.num_training_batches
    return int(total) if isinstance(total, int | float) and total != float("inf") else 0


def _step_split(module) -> dict[str, float] | None:
    """The epoch's step split from the module's ``trainer.gan.step_timer.StepTimer`` (``None`` without one)."""
    timer = getattr(module, "step_timer", None)
    return timer.read() if timer is not None else None


def _gpu_memory(device: torch.device) -> float | None:
    """The most CUDA memory the epoch held (GiB), then the peak is reset; ``None`` on the CPU."""
    if device.type != "cuda":
        return None
    peak = torch.cuda.max_memory_allocated(device) / 2**30
    torch.cuda.reset_peak_memory_stats(device)
    return peak


def _plain_numpy_state(state: Any) -> tuple:
    """numpy's legacy RNG state with its key array as a list of ints: plain data, so the resume checkpoint
    reads with ``torch.load(weights_only=True)`` without numpy globals (``np.random.set_state`` takes both)."""
    name, keys, pos, has_gauss, cached_gaussian = state
    return name, keys.tolist(), int(pos), int(has_gauss), float(cached_gaussian)


class CheckpointCallback(L.Callback):
    """``last.ckpt`` every ``every`` epochs (resume) and the best ``k`` generator checkpoints by val_mel."""

    def __init__(
        self, run_dir: Path, writer: CheckpointWriter, timing: Timing, log: EventLog, every: int = 1, k: int = 5
    ):
        self.run_dir, self.writer, self.timing, self.events, self.every = Path(run_dir), writer, timing, log, every
        self.best = BestK(self.run_dir / CHECKPOINTS_FOLDER, writer, k)
        self.resume_epoch: int | None = None
        """The epoch (from 0) of the ``last.ckpt`` this session put in place, once it has."""

    def on_save_checkpoint(self, trainer, module, checkpoint) -> None:
        checkpoint["voice_studio_rng"] = {
            "python": random.getstate(),
            "numpy": _plain_numpy_state(np.random.get_state()),
            "torch": torch.get_rng_state(),
            "cuda": torch.cuda.get_rng_state_all() if torch.cuda.is_available() else [],
        }

    def on_load_checkpoint(self, trainer, module, checkpoint) -> None:
        state = checkpoint.get("voice_studio_rng")
        if state:
            random.setstate(state["python"])
            np.random.set_state(state["numpy"])
            torch.set_rng_state(state["torch"])
            if state["cuda"] and torch.cuda.is_available():
                torch.cuda.set_rng_state_all(state["cuda"])

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
        """A checkpoint write that failed since (a full disk) stops the run at once, saying why."""
        self.writer.check()

    def on_train_epoch_end(self, trainer, module) -> None:
        started = time.perf_counter()
        epoch = trainer.current_epoch
        val_mel = trainer.callback_metrics.get("val_mel")
        if trainer.is_global_zero and val_mel is not None:
            state = generator_checkpoint(module, epoch, trainer.global_step, float(val_mel))
            self.best.consider(epoch, float(val_mel), state, on_written=self._announce(epoch, "best"))
        stopping = self._stop_requested(trainer)
        if stopping or (epoch + 1) % self.every == 0 or epoch + 1 == trainer.max_epochs:
            # a snapshot now, written in the background; said to be saved once it is in place
            trainer.save_checkpoint(self.run_dir / "last.ckpt", storage_options={"on_written": self._announce(epoch)})
        self.timing.add("checkpoint_wait_s", time.perf_counter() - started)

    def _announce(self, epoch: int, role: str = "resume"):
        """``on_written(path)`` for the writer: the ``Checkpoint`` event of a file now in place (writer thread)."""

        def written(path: Path) -> None:
            if role == "resume":
                self.resume_epoch = epoch
            self.events.emit(Checkpoint(epoch=epoch, path=str(path), role=role))

        return written

    def _stop_requested(self, trainer) -> bool:
        """A stop file in the run folder (``trainer.events.run_state.request_stop``): this epoch is the last. Rank 0's
        view is every rank's (a shared folder may show the file to one machine sooner than to another, and DDP
        hangs if one rank stops alone)."""
        from trainer.events.run_state import STOP_FILE

        requested = bool(trainer.strategy.broadcast((self.run_dir / STOP_FILE).exists()))
        if requested and trainer.is_global_zero:
            self.events.emit(Stage(name="stopping", message="stopping: writing the resume checkpoint"))
        if requested:
            trainer.should_stop = True
        return requested

    def on_fit_end(self, trainer, module) -> None:
        self.writer.flush()


def generator_checkpoint(module, epoch: int, step: int, val_mel: float | None = None) -> dict:
    """A small Piper-style checkpoint with the generator only (``model_g.*``) and the hyperparameters; with
    ``val_mel``, the validation loss it was saved at (full precision; the file name rounds it)."""
    return {
        **({"val_mel": val_mel} if val_mel is not None else {}),
        "epoch": epoch,
        "global_step": step,
        "state_dict": {f"model_g.{k}": v for k, v in module.model_g.state_dict().items()},
        "hyper_parameters": dict(module.hparams),
    }


class PreviewCallback(L.Callback):
    """Speaks ``PREVIEW_LINES`` into ``previews/epoch=EEEE/N.wav`` at the end of the epochs the schedule names
    (``trainer.events.preview_schedule.preview_due``: early, then every ``every``, and the last), and on request
    (``trainer.events.run_state.request_preview``): after the training step that sees the request file, into
    ``previews/epoch=EEEE-batch=BBBB/N.wav`` (that step of the epoch, from 1; a few seconds, against minutes
    for an epoch on a CPU), or at the epoch's end when it comes during validation. Only global rank 0 looks
    and speaks. ``scales``: ``(noise_scale, length_scale, noise_w)`` the lines are spoken with, the run's voice
    config's (``inference``: what its checkpoints and exports speak with), so a preview sounds as the voice will
    (Piper's defaults, ``engines.voice``'s, if not given)."""

    def __init__(
        self,
        run_dir: Path,
        phonemizer,
        timing: Timing,
        log: EventLog,
        every: int = 25,
        *,
        scales: tuple[float, float, float] = (DEFAULT_NOISE_SCALE, DEFAULT_LENGTH_SCALE, DEFAULT_NOISE_W),
    ) -> None:
        from trainer.events.run_state import PREVIEW_FILE

        self.folder, self.phonemizer, self.timing, self.events, self.every = (
            Path(run_dir) / "previews",
            phonemizer,
            timing,
            log,
            every,
        )
        self.request, self.scales = Path(run_dir) / PREVIEW_FILE, scales

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
        if trainer.is_global_zero and self._take_request():
            folder = self.folder / f"epoch={trainer.current_epoch:04d}-batch={batch_idx + 1:04d}"
            self._speak(trainer, module, folder, requested=True)

    def due(self, trainer) -> bool:
        """Whether the epoch now ending previews by the schedule (``trainer.events.preview_schedule.preview_due``:
        early, then every ``every`` epochs, and the last); the canary evaluations follow it by default
        (``trainer.run.canary_callback``)."""
        epoch = trainer.current_epoch
        return preview_due(epoch, trainer.max_epochs or epoch + 1, self.every)

    def on_train_epoch_end(self, trainer, module) -> None:
        if not trainer.is_global_zero:
            return
        epoch = trainer.current_epoch
        requested = self._take_request()
        if requested or self.due(trainer):
            self._speak(trainer, module, self.folder / f"epoch={epoch:04d}", requested=requested)

    def _take_request(self) -> bool:
        """Whether previews were asked for (the request file exists); the file is removed, so one request
        brings one set (a request made while they are spoken brings the next)."""
        if not self.request.exists():
            return False
        self.request.unlink(missing_ok=True)
        return True

    def _speak(self, trainer, module, folder: Path, requested: bool) -> None:
        """Each preview line spoken by the generator as it is now, written to ``folder/N.wav``, one ``Preview``
        event each; the generator's train/eval mode is restored."""
        started = time.perf_counter()
        from engines.audio import write_audio
        from trainer.data.preprocess import training_phoneme_ids

        folder.mkdir(parents=True, exist_ok=True)
        was_training = module.model_g.training
        module.model_g.eval()
        try:
            for number, line in enumerate(PREVIEW_LINES, start=1):
                ids = torch.tensor([training_phoneme_ids(self.phonemizer, line)], device=module.device)
                with torch.inference_mode():
                    lengths = torch.tensor([ids.shape[1]], device=module.device)
                    audio = module.model_g.infer(ids, lengths, scales=self.scales)
                path = write_audio(
                    folder / f"{number}.wav", audio.float().reshape(-1).cpu().numpy(), module.config.sample_rate
                )
                self.events.emit(
                    Preview(
                        epoch=trainer.current_epoch,
                        path=str(path),
                        text=line,
                        step=trainer.global_step,
                        requested=requested or None,
                    )
                )
        finally:
            module.model_g.train(was_training)
        self.timing.add("preview_s", time.perf_counter() - started)
