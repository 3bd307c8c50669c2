"""The words and figures of a followed training run: the status line and the stats line (no widgets).

Both take ``now`` (Unix seconds): between two events their clocks move on from the latest
event's ``elapsed_s`` and ``seconds_left`` (``trainer.events.schema.Stage``/``Progress``), so the
Train page redraws them every second (``TrainPage``'s ticker) and the figure never freezes
while the trainer works on a long step.

One rule for time, so that the two lines never give two figures for one thing: "elapsed" is the time of what
the status line names now (a stage, the epoch under way, a launch before its first event), "train time" the
run's epochs (the stats line, the Runs tab and the milestones), shown once it has trained at all; a count of
steps whose rate has not settled (``trainer.time_left``) says it is estimating the time left.
"""

from __future__ import annotations

import time

from studio.widgets.runs_table import duration
from trainer.events.run_state import RunState
from trainer.events.schema import Progress, Stage
from trainer.gan.lr_schedule import end_rate, rate_words, words
from trainer.time_left import ESTIMATING


def clock(event: Stage | Progress, now: float) -> tuple[float, float | None]:
    """``(elapsed, left)`` seconds of what ``event`` reports, at ``now``: its ``elapsed_s`` (0 when absent) plus the
    time since it was written, and its ``seconds_left`` less that time (never below 0; ``None`` when unknown)."""
    since = max(0.0, now - event.time)
    left = None if event.seconds_left is None else max(0.0, event.seconds_left - since)
    return (event.elapsed_s or 0.0) + since, left


def clock_words(event: Stage | Progress, now: float, left_of: str = "") -> str:
    """``12.0 s elapsed · about 4.0 s left`` (``left_of``, e.g. ``in this epoch``, follows ``left``); a count of
    steps under way without a figure yet: ``12.0 s elapsed · estimating the time left…``."""
    elapsed, left = clock(event, now)
    words = f"{duration(elapsed)} elapsed"
    if left is not None:
        words += f" · about {duration(left)} left" + (f" {left_of}" if left_of else "")
    elif _counting(event):
        words += f" · {ESTIMATING}"
    return words


def _counting(event: Stage | Progress) -> bool:
    """Whether ``event`` counts steps still to come (so a time left will be given once their rate settles)."""
    if isinstance(event, Progress):
        return bool(event.batches and event.batches_total and event.batches < event.batches_total)
    return event.step is not None and bool(event.steps) and event.step < (event.steps or 0)


def following_line(state: RunState, now: float | None = None) -> str:
    """The status line while a trainer works: its stage (what, step n of m, elapsed, remaining), its epoch and
    step in the epoch, or the epochs done (empty before any event of the session followed); led by the
    discriminator warm-up's step and loss while it goes on (its epochs run meanwhile)."""
    line = _doing(state, time.time() if now is None else now)
    if state.warmup is None or not line:
        return line
    return f"{state.warmup.message[:1].upper()}{state.warmup.message[1:]} · {line}"


def _doing(state: RunState, now: float) -> str:
    """The status line without the warm-up."""
    activity, name = state.activity, state.folder.name
    if isinstance(activity, Stage):
        message = activity.message[:1].upper() + activity.message[1:]
        return f"{message} · {clock_words(activity, now)}"
    if isinstance(activity, Progress) and activity.epoch >= state.epochs_done:
        return f"Training {name}: epoch {activity.epoch + 1} of {state.epochs_total}, {step_words(activity, now)}"
    if state.epochs and state.epochs[max(state.epochs)].time >= state.session_since:  # this session's
        ended = state.epochs[max(state.epochs)].time
        done = f"epoch {state.epochs_done} of {state.epochs_total} finished"
        return f"Training {name}: {done} · {duration(max(0.0, now - ended))} ago"
    return state.stage


def step_words(progress: Progress, now: float) -> str:
    """``step 3 of 5 · 12.0 s elapsed · about 8.0 s left in this epoch`` (``starting`` before the first step)."""
    of = f" of {progress.batches_total}" if progress.batches_total else ""
    step = f"step {progress.batches}{of}" if progress.batches else "starting"
    return f"{step} · {clock_words(progress, now, 'in this epoch')}"


def current_epoch(state: RunState, now: float) -> tuple[float, float | None]:
    """``(elapsed, left)`` seconds of the epoch under way, from its start stage or its latest step (its
    validation included); ``(0, None)`` between epochs."""
    progress, activity = state.progress, state.activity
    if state.status != "running":
        return 0.0, None
    if isinstance(activity, Stage) and activity.name == "epoch":  # before the session's first step
        return clock(activity, now)[0], None
    if progress is None or progress.epoch < state.epochs_done:
        return 0.0, None
    return clock(progress, now)


def stats_line(state: RunState, now: float | None = None) -> str:
    """Epoch, speed, train time (moving on within an epoch; once it has trained at all), ETAs, learning rate (and
    its schedule) and GPU memory, in one line."""
    now = time.time() if now is None else now
    shown = f"epoch {state.epoch_shown} of {state.epochs_total}" if state.epoch_shown else "no epoch yet"
    parts = [shown if state.epochs_total else "no epoch yet"]
    last = state.epochs[max(state.epochs)] if state.epochs else None
    if state.progress and state.progress.items_per_s > 0:
        parts.append(f"{state.progress.items_per_s:.1f} it/s")
    elif last and last.train_s > 0:  # no step measured yet: the last epoch's rate
        parts.append(f"{state.num_utterances / last.train_s:.1f} it/s")
    elapsed, left = current_epoch(state, now)
    if state.epochs or elapsed > 0:  # before the first epoch (setup, recovery) the status line says the time
        parts.append(f"train time {duration(state.train_seconds + elapsed)}")
    if state.eta and state.status == "running":  # counted down from the end of the epoch that said it
        eta, since = state.eta, max(0.0, now - state.eta.time)
        parts.append(f"ETA {duration(max(0.0, eta.seconds_left - since))}")
        parts.append(f"next preview {duration(max(0.0, eta.next_preview_s - since))}")
        parts.append(f"next checkpoint {duration(max(0.0, eta.next_checkpoint_s - since))}")
    elif left is not None and state.progress is not None:  # the first epoch: from its steps so far
        epochs_after = max(0, state.epochs_total - state.progress.epoch - 1)
        parts.append(f"ETA about {duration(left + (elapsed + left) * epochs_after)} (training steps only)")
    if lr := lr_words(state):
        parts.append(lr)
    if last:
        parts.append(f"GPU {last.max_memory_gib:.1f} GiB" if last.max_memory_gib is not None else "GPU —")
    recovered = [f"KL {state.recovery_kl:.3g} on held-out lines"] if state.recovery_kl is not None else []
    if state.recovery or recovered:
        parts.append("Recovery: " + ", ".join(recovered + ([state.recovery] if state.recovery else [])))
    return " · ".join(parts)


def lr_words(state: RunState) -> str:
    """The generator's learning rate of the latest epoch and where the schedule takes it at the last epoch:
    ``lr 1.99e-4 → 1e-5`` (one notation: the end reached reads ``lr 1e-5 → 1e-5``); before any epoch its start,
    ``lr 2e-4 → 1e-5``; a run made before the schedule, ``lr 1.99e-4``; ``""`` when neither is known
    (``trainer.gan.lr_schedule``)."""
    last = state.epochs[max(state.epochs)] if state.epochs else None
    rate = last.learning_rates.get("generator") if last else None
    end = end_rate(state.config)
    to = f" → {rate_words(end)}" if end is not None else ""
    if rate is not None:
        return f"lr {rate_words(rate, digits=3)}{to}"
    return f"lr {rate_words(state.config['learning_rate'])}{to}" if to else ""


def lr_tooltip(state: RunState) -> str:
    """The stats line's tooltip: the run's learning-rate schedule in a sentence (``""`` when unknown)."""
    said = words(state.config)
    return f"Learning rate: {said}" if said else ""
