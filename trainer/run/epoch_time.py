"""How long a run's epochs will take on this machine, said before it starts (no torch here).

The figure for one training step comes from, in the order it is trusted:

1. **earlier runs on this machine** (``figure_from_runs``): the runs beside the new one (and, for a resume, the
   run itself) whose generator, precision and device kind are the new run's, read from their events: the
   median training time of an epoch over its steps, and the median time around the steps (validation,
   checkpoint wait). What runs here really took.
2. **a step timed on this machine** (``trainer.run.step_timing``: Check on the Train page, ``train --check``),
   remembered in the user's data folder (``remembered``, ``remember``).
3. **the preset's figure** for a 2-core CPU (``PRESET_STEP_S``), on the CPU only; for a GPU there is none.

An epoch is ``ceil(training clips / batch size)`` steps of that time (scaled by the batch size where the
figure's batch differs) plus the time around them. Without a GPU, when the chosen epochs take longer than an
evening (``EVENING_S``, 4 h), the sentence suggests the largest count that fits one, rounded down to two
significant figures (``evening_epochs``).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from trainer.events.schema import RunStart
from trainer.events.words import duration

EVENING_S = 4 * 3600
"""An evening of training, seconds: what a CPU run is suggested to fit (issue 27: "a count that fits an
evening")."""
PRESET_STEP_S = {
    ("test", "32-true"): 0.56,
    ("test", "bf16-mixed"): 0.53,
    ("x-low", "32-true"): 6.95,
    ("x-low", "bf16-mixed"): 4.15,
    ("medium", "32-true"): 7.9,
    ("medium", "bf16-mixed"): 5.2,
}
"""Seconds per training step of 8 clips on a quiet 2-vCPU Intel Xeon VM (AMX), passive thread waits, by
preset and precision (docs/benchmarks.md "Training speed", ``tests/bench/train_step.py``, 2026-12-02). ``low`` trains
medium's generator (``VitsConfig.preset``), so it takes medium's figure; ``high`` has none measured."""
PRESET_BATCH = 8
"""The batch size of ``PRESET_STEP_S``."""
SAME_GENERATOR = {"low": "medium"}
"""Presets that train another preset's generator, whose step figure they take."""
DECODER_LOSSES_COST = 1.35
"""A step with the decoder's own losses (``trainer.gan.decoder_losses``: a second decoder pass on the prior's
latents and three STFTs; a fine-tune's default) against one without: medium generator epochs of 105-113 s against
76-83 s on a 2-vCPU AMD EPYC VM, bf16 (docs/benchmarks.md "Fine-tuning quality"). ``PRESET_STEP_S`` was timed
without them."""
FIGURES_VERSION = 2
"""``version`` of the remembered step figures' file (``figures_file``). 2: keys say whether the step computes the
decoder's own losses (version 1's figures, from steps timed with them whatever the run's start, are not read)."""


@dataclass(frozen=True, kw_only=True)
class StepKey:
    """What one training step's time depends on besides the clips.

    Attributes:
        host: the machine's name (``socket.gethostname()``).
        device: ``cpu``, or the GPU's name as torch gives it.
        quality: the preset whose generator the run trains (a start voice's own quality when it has one).
        precision: the Lightning precision the run will train in (``trainer.run.hardware``).
        generator: the start voice's quality where its generator replaces a ``test`` preset's small one (a
            smoke test from joe trains joe's ``medium`` generator: ``trainer.start.shape``); "" otherwise.
        decoder_losses: the step computes the decoder's own losses (:func:`has_decoder_losses`; a fine-tune's, not
            a run's from scratch), about ``DECODER_LOSSES_COST`` times a step without them.
    """

    host: str
    device: str
    quality: str
    precision: str
    generator: str = ""
    decoder_losses: bool = False

    @property
    def cpu(self) -> bool:
        """Whether the run trains on the CPU."""
        return self.device == "cpu"

    def text(self) -> str:
        """The key as one string (how the remembered figures' file names it)."""
        quality = f"{self.quality}+{self.generator}-generator" if self.generator else self.quality
        losses = ("decoder-losses",) if self.decoder_losses else ()
        return "|".join((self.host, self.device, quality, self.precision, *losses))


def has_decoder_losses(config: dict) -> bool:
    """Whether a ``TrainingConfig.to_dict()`` (or a run's ``training.json`` ``config``) trains the decoder with its
    own losses (``stft_loss`` or ``prior_mel`` above 0; a config written before them has neither)."""
    return any(float(config.get(name) or 0) > 0 for name in ("stft_loss", "prior_mel"))


@dataclass(frozen=True, kw_only=True)
class StepFigure:
    """One training step of ``batch_size`` clips takes ``step_s`` seconds; ``around_s`` seconds an epoch go to
    validation and checkpoint waits (0 where not known); ``source`` says where the figure comes from, in words
    that follow "from" (``a step timed on this machine``)."""

    step_s: float
    batch_size: int
    source: str
    around_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class TimeEstimate:
    """How long ``epochs`` epochs of ``steps`` training steps each take: ``epoch_s`` an epoch and ``total_s`` in
    all (seconds); ``cpu`` when there is no GPU; ``evening`` the epochs that fit ``EVENING_S`` when there is no
    GPU and the chosen ones take longer (``None`` otherwise); ``more`` when they follow epochs already done (a
    resume)."""

    epochs: int
    steps: int
    epoch_s: float
    total_s: float
    cpu: bool
    figure: StepFigure
    evening: int | None = None
    more: bool = False


def held_out(clips: int, val_fraction: float, max_val: int) -> int:
    """Clips held out for validation of ``clips`` usable ones: the count ``trainer.data.datamodule.split`` holds
    out (at least one of two or more, at most ``max_val``)."""
    return min(max_val, max(1, round(clips * val_fraction))) if clips >= 2 else 0


def steps_per_epoch(train_clips: int, batch_size: int) -> int:
    """Training steps an epoch takes on one device: every training clip once, in batches of ``batch_size``."""
    return max(1, math.ceil(train_clips / max(1, batch_size)))


def estimate(
    figure: StepFigure, *, epochs: int, train_clips: int, batch_size: int, cpu: bool, more: bool = False
) -> TimeEstimate:
    """The time of ``epochs`` epochs over ``train_clips`` in batches of ``batch_size``, from ``figure`` (its
    step time scaled by ``batch_size / figure.batch_size``: a step's work grows with its clips)."""
    steps = steps_per_epoch(train_clips, batch_size)
    epoch_s = steps * figure.step_s * batch_size / figure.batch_size + figure.around_s
    total_s = epochs * epoch_s
    evening = evening_epochs(epoch_s) if cpu and total_s > EVENING_S else None
    return TimeEstimate(
        epochs=epochs, steps=steps, epoch_s=epoch_s, total_s=total_s, cpu=cpu, figure=figure, evening=evening, more=more
    )


def evening_epochs(epoch_s: float, evening_s: float = EVENING_S) -> int:
    """The most epochs of ``epoch_s`` seconds that fit ``evening_s``, rounded down to two significant figures
    (337 -> 330, 1,937 -> 1,900, 48 -> 48); 0 when one epoch takes longer."""
    fits = int(evening_s // epoch_s) if epoch_s > 0 else 0
    unit = 10 ** max(0, len(str(fits)) - 2)
    return fits // unit * unit


def estimate_sentence(e: TimeEstimate, flag: bool = False) -> str:
    """``1,000 epochs ≈ 11 h 50 min on this CPU; 330 epochs fit an evening (4 h).`` (``flag``: the suggestion
    ends with ``: --epochs 330``, for the terminal)."""
    noun = "more epoch" if e.more else "epoch"
    said = f"{e.epochs:,} {noun if e.epochs == 1 else noun + 's'} ≈ {duration(e.total_s)} on this {_where(e)}"
    if e.evening is None:
        return f"{said}."
    hours = f"{EVENING_S / 3600:g} h"
    if e.evening == 0:
        return f"{said}; one epoch takes longer than an evening ({hours})."
    how = f": --epochs {e.evening}" if flag and not e.more else ""
    return f"{said}; {e.evening:,} epochs fit an evening ({hours}){how}."


def estimate_basis(e: TimeEstimate) -> str:
    """What the estimate rests on: ``42.6 s an epoch: 5 steps of 8.5 s and 0.7 s of validation and checkpoints,
    from a step timed on this machine.``"""
    step_s = (e.epoch_s - e.figure.around_s) / e.steps
    steps = f"{e.steps:,} {'step' if e.steps == 1 else 'steps'} of {duration(step_s)}"
    around = f" and {duration(e.figure.around_s)} of validation and checkpoints" if e.figure.around_s else ""
    return f"{duration(e.epoch_s)} an epoch: {steps}{around}, from {e.figure.source}."


def _where(e: TimeEstimate) -> str:
    return "CPU" if e.cpu else "GPU"


def preset_figure(key: StepKey) -> StepFigure | None:
    """The preset's figure for a 2-core CPU (``PRESET_STEP_S``, times ``DECODER_LOSSES_COST`` for a step with the
    decoder's own losses); ``None`` on a GPU, for a preset without one, or where a start voice's generator replaces
    the preset's (``StepKey.generator``)."""
    quality = SAME_GENERATOR.get(key.quality, key.quality)
    step_s = PRESET_STEP_S.get((quality, key.precision)) if key.cpu and not key.generator else None
    if step_s is None:
        return None
    with_losses = " with the decoder's own losses" if key.decoder_losses else ""
    source = f"the preset's figure for a 2-core CPU{with_losses} (no step timed on this one yet)"
    cost = DECODER_LOSSES_COST if key.decoder_losses else 1.0
    return StepFigure(step_s=step_s * cost, batch_size=PRESET_BATCH, source=source)


def figures_file() -> Path:
    """``cache/step-times.json`` in the user's data folder (``engines.registry.user_data_dir``)."""
    from engines.registry import user_data_dir

    return user_data_dir() / "cache" / "step-times.json"


def remembered(key: StepKey, path: Path | None = None) -> StepFigure | None:
    """The step timed for ``key`` on this machine before (``path``: the figures' file, ``figures_file()`` by
    default); ``None`` when there is none, or the file cannot be read (it is only a cache)."""
    try:
        document = json.loads((path or figures_file()).read_text(encoding="utf-8"))
        figure = document["figures"][key.text()] if document.get("version") == FIGURES_VERSION else None
        return StepFigure(**figure) if figure else None
    except (OSError, ValueError, KeyError, TypeError):
        return None


def remember(key: StepKey, figure: StepFigure, path: Path | None = None) -> Path:
    """Keep ``figure`` as the step timed for ``key`` (replacing an earlier one); returns the file (written
    atomically)."""
    from engines.files import write_text

    path = path or figures_file()
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        figures = document["figures"] if document.get("version") == FIGURES_VERSION else {}
    except (OSError, ValueError, KeyError, TypeError):
        figures = {}
    figures[key.text()] = asdict(figure)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_text(path, json.dumps({"version": FIGURES_VERSION, "figures": figures}, indent=1))


def figure_from_runs(folders: Iterable[Path], key: StepKey, model: dict) -> StepFigure | None:
    """The newest of ``folders`` (run folders, by their events' time) that trained ``model`` (a generator's
    ``VitsConfig.to_dict()``; symbols and speakers aside) on ``key``'s machine, device kind and precision, with or
    without the decoder's own losses as ``key`` says, as a figure: the median training seconds of its epochs per
    step, and the median seconds around the steps. Runs without a finished epoch, or that cannot be read, are passed
    over; ``None`` when none is left."""
    candidates = [f for f in folders if (f / "events.jsonl").is_file() and _same_step(f, model, key)]
    for folder in sorted(candidates, key=lambda f: (f / "events.jsonl").stat().st_mtime, reverse=True):
        figure = _run_figure(folder, key)
        if figure is not None:
            return figure
    return None


SHAPE_ASIDE = ("num_symbols", "num_speakers", "gin_channels")
"""Generator settings that follow the dataset, not the preset, and barely change a step's time."""


def _same_step(folder: Path, model: dict, key: StepKey) -> bool:
    """Whether the run in ``folder`` trains a generator of ``model``'s shape, with the decoder's own losses where
    ``key`` has them (its ``training.json``)."""
    try:
        config = json.loads((folder / "training.json").read_text(encoding="utf-8"))["config"]
        losses = has_decoder_losses(config)
        config = config["model"]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return False
    shape = lambda m: {k: v for k, v in json.loads(json.dumps(m)).items() if k not in SHAPE_ASIDE}  # noqa: E731
    return shape(config) == shape(model) and losses == key.decoder_losses  # as JSON both: tuples are lists


def _run_figure(folder: Path, key: StepKey) -> StepFigure | None:
    """The figure of one run's epochs (``figure_from_runs``), or ``None``."""
    from trainer.events.log import read_events
    from trainer.events.schema import Epoch, Progress

    start, epochs, batches = None, [], 0
    try:
        for event in read_events(folder / "events.jsonl"):
            if isinstance(event, RunStart):
                start = event
            elif isinstance(event, Epoch):
                epochs.append(event)
            elif isinstance(event, Progress) and event.batches_total:
                batches = max(batches, event.batches_total)
    except (OSError, ValueError):
        return None
    if start is None or not epochs or not batches or not _same_machine(start, key):
        return None
    step_s = statistics.median(e.train_s for e in epochs) / batches
    around_s = statistics.median(e.val_s + e.checkpoint_wait_s for e in epochs)
    said = f"run {folder.name}'s {len(epochs):,} {'epoch' if len(epochs) == 1 else 'epochs'} on this machine"
    return StepFigure(step_s=step_s, batch_size=start.batch_size or PRESET_BATCH, source=said, around_s=around_s)


def _same_machine(start: RunStart, key: StepKey) -> bool:
    """Whether a run's ``RunStart`` was on ``key``'s machine (runs from before hosts were recorded count as
    this machine's), device kind and precision."""
    return (
        start.host in (None, key.host)
        and start.device.startswith("cuda") != key.cpu
        and (start.precision or "32-true") == key.precision
    )
