"""A run's events in plain words, one line each: what the terminal echoes and the Train page's log shows.

``WORDS`` maps an event ``kind`` to a function that says it; a kind without an entry is shown
generically (``kind: field value, …``). Epochs are counted from 1 here, as people count them (the
records and file names count from 0, as Lightning and Piper's checkpoint names do).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engines.words import count
from trainer.checkpoints.best import named_file
from trainer.events.preview_lines import preview_moment, preview_text
from trainer.events.schema import Event
from trainer.gan.lr_schedule import path_words
from trainer.run.presets import SMOKE_TEST, is_smoke_test


def duration(seconds: float | None) -> str:
    """``1 h 02 min``, ``3 min 05 s`` or ``12.3 s``; ``—`` for none."""
    if seconds is None:
        return "—"
    if seconds >= 3600:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    if seconds >= 60:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    return f"{seconds:.1f} s"


PRECISION_WORDS = {"32-true": "float32", "bf16-mixed": "bf16 autocast", "16-mixed": "fp16 autocast"}
"""How a run-start sentence names Lightning's precision (``--precision auto`` picks one by the hardware)."""


def _run_start(e: Any) -> str:
    verb = "Resuming" if e.start == "resume" else f"Training from {Path(e.start).name or e.start}"
    batch = f", batches of {e.batch_size}" if e.batch_size else ""
    precision = getattr(e, "precision", None)
    how = f" ({PRECISION_WORDS.get(precision, precision)})" if precision else ""
    schedule = path_words(e.config)
    lr = f", learning rate {schedule}" if schedule else ""  # the generator's (trainer.gan.lr_schedule)
    sizes = f"{count(e.num_utterances, 'utterance')}, {count(e.epochs, 'epoch')}{batch}{lr}"
    return f"{verb} on {e.device}{how}: {sizes}{decoder_words(e.config)}{noise_words(e.config)}."


def decoder_words(config: dict[str, Any]) -> str:
    """``; the decoder also trained on the prior's latents, with a multi-resolution STFT loss`` for a run whose
    ``config`` sets the decoder's own losses (``trainer.gan.decoder_losses``: ``prior_mel``, ``stft_loss``), each
    named where set; ``""`` where neither is (from scratch, or a run written before them)."""
    parts = [
        words
        for key, words in (("prior_mel", "on the prior's latents"), ("stft_loss", "with a multi-resolution STFT loss"))
        if config.get(key)
    ]
    return f"; the decoder also trained {', '.join(parts)}" if parts else ""


def noise_words(config: dict[str, Any]) -> str:
    """``; its checkpoints speak with noise_scale 0.333`` for a run whose ``config`` sets ``voice_noise_scale``
    (``trainer.run.presets.TrainingConfig``: written into the run's ``config.json``); ``""`` where it does not (the
    start voice's own: from scratch, or a run written before it)."""
    value = config.get("voice_noise_scale")
    return f"; its checkpoints speak with noise_scale {value:g}" if value is not None else ""


STEP_WORDS = {
    "data": "waiting for data",
    "generator": "in the generator",
    "alignment": "in the alignment search",
    "discriminator": "in the discriminators",
    "backward": "in backward passes",
    "optimizer": "in the optimizers",
}
"""How an epoch's sentence says its training steps' biggest part (``trainer.events.schema.STEP_PARTS``)."""


def _epoch(e: Any) -> str:
    shown = next((k for k in ("val_mel", "train_mel", *e.losses) if k in e.losses), None)
    loss = f"; {shown} {e.losses[shown]:.4f}" if shown else ""
    parts = f"train {duration(e.train_s)}{_biggest_step_part(e)}, validation {duration(e.val_s)}"
    return f"Epoch {e.epoch + 1} finished in {duration(e.seconds)} ({parts}){loss}{_warmup_share(e)}."


def _warmup_share(e: Any) -> str:
    """``; the generator frozen all epoch (discriminator warm-up…)`` or ``… for 40% of it …`` when some of the
    epoch's utterances warmed up the discriminators (its ``train_d_warmup``), else ``""``."""
    share = e.losses.get("train_d_warmup", 0.0)
    if share <= 0:
        return ""
    when = "all epoch" if share >= 1 else f"for {share:.0%} of it"
    return f"; the generator frozen {when} (discriminator warm-up: its losses measured, not learned from)"


def _biggest_step_part(e: Any) -> str:
    """``, 45% of it in the generator``: the steps' biggest part as a share of ``train_s`` ("" without a split)."""
    step_s = getattr(e, "step_s", None) or {}
    known = [name for name in STEP_WORDS if name in step_s]
    if not known or e.train_s <= 0:
        return ""
    name = max(known, key=step_s.__getitem__)
    return f", {step_s[name] / e.train_s:.0%} of it {STEP_WORDS[name]}"


def _checkpoint(e: Any) -> str:
    if e.role == "best":
        return f"Checkpoint after epoch {e.epoch + 1} saved among the best ({named_file(Path(e.path).name)})."
    return f"Resume checkpoint saved after epoch {e.epoch + 1} ({Path(e.path).name})."


def _eta(e: Any) -> str:
    if e.seconds_left <= 0:
        return "That was the last epoch."
    return (
        f"About {duration(e.seconds_left)} left; next preview in {duration(e.next_preview_s)}, "
        f"next checkpoint in {duration(e.next_checkpoint_s)}."
    )


CANARY_WORDS = (("wer", "WER {:.2f}"), ("similarity", "similarity {:.3f}"), ("dnsmos_ovrl", "DNSMOS {:.2f}"))
"""The measures an evaluation's sentence names, and how (the F0 gap follows, in Hz)."""


def _evaluation(e: Any) -> str:
    measured = [shown.format(e.values[name]) for name, shown in CANARY_WORDS if name in e.values]
    if "f0_gap_hz" in e.values:
        measured.append(f"F0 gap {e.values['f0_gap_hz']:+.1f} Hz")
    lines = count(e.lines, "held-out line")
    if not measured:
        why = (e.errors or {}).get("evaluation") or next(iter((e.errors or {}).values()), "nothing measured")
        return _ended(f"Quality of epoch {e.epoch + 1} not measured ({duration(e.seconds)}): {why}")
    bands = "; its noise bands measured" if e.bands else ""
    said = f"Quality of epoch {e.epoch + 1} on {lines}: {', '.join(measured)} ({duration(e.seconds)}{bands})."
    return f"{said} {e.verdict}" if getattr(e, "verdict", None) else said


def _finish(e: Any) -> str:
    ended = "Finished" if e.status == "done" else "Stopped"
    smoke = f" A {SMOKE_TEST} (test preset)." if is_smoke_test(getattr(e, "preset", None)) else ""
    took = f"{duration(e.seconds)} this session (setup {duration(e.setup_s)})"
    return f"{ended} after epoch {e.epochs}: {took}.{smoke}" + (" Resume any time." if e.status == "stopped" else "")


def _ended(text: str) -> str:
    """``text`` ending a sentence: a period unless it ends with one already, inside a closing quote
    (``…lazy dog.”``), not a second one after it."""
    return text if text.rstrip("”\"'").endswith((".", "!", "?", "…")) else f"{text}."


def _preview_moment(e: Any) -> str:
    """``epoch 3``, ``epoch 3 after step 4 (asked for)`` (spoken within the epoch) or ``epoch 3 (asked for)``."""
    moment = preview_moment(e.epoch, e.path).replace("Epoch", "epoch").replace(", step", " after step")
    return f"{moment} (asked for)" if e.requested else moment


def _progress(e: Any) -> str:
    of = f" of {e.batches_total}" if e.batches_total else ""
    took = f" in {duration(e.elapsed_s)}" if e.elapsed_s is not None else ""
    return f"Epoch {e.epoch + 1}: step {e.batches}{of}{took} ({e.items_per_s:.1f} utterances/s)."


def worth_a_line(event: Event) -> bool:
    """Whether the log and the terminal give ``event`` a line. Moving figures (progress within an epoch about
    once a second, a stage's step n of m) belong to the status line: the log keeps a stage's first and last
    step (``step`` counts from 0) and an epoch's last progress (older trainers' sparse progress records: all)."""
    if event.kind == "progress":
        total = getattr(event, "batches_total", None)
        return total is None or getattr(event, "batches", 0) == total
    if event.kind == "stage":
        step, steps = getattr(event, "step", None), getattr(event, "steps", None)
        return step is None or steps is None or step == 0 or step >= steps - 1
    return True


def _recovery(event) -> str:
    if event.metric == "kl_held_out":
        return f"Recovered from the voice: KL {event.value:.3g} on held-out lines."
    return f"Recovered {event.part}: {event.metric.replace('_', ' ')} {event.value:.4g}."


def _sentence_case(text: str) -> str:
    return text[:1].upper() + text[1:]


WORDS: dict[str, Callable[[Any], str]] = {
    "run_start": _run_start,
    "progress": _progress,
    "epoch": _epoch,
    "preview": lambda e: _ended(f"Preview of {_preview_moment(e)} written: “{preview_text(e.path, e.text)}”"),
    "checkpoint": _checkpoint,
    "evaluation": _evaluation,
    "eta": _eta,
    "stage": lambda e: _sentence_case(e.message) + ("" if e.message.endswith((".", "…")) else "."),
    "recovery": _recovery,
    "warning": lambda e: f"Warning: {e.message}",
    "error": lambda e: f"Error: {e.message}",
    "finish": _finish,
}
"""How each kind of event is said (a new kind: add a line here)."""


def sentence(event: Event) -> str:
    """One line of plain words for ``event``; a kind ``WORDS`` does not know: its fields, generically."""
    say = WORDS.get(event.kind)
    if say is not None:
        return say(event)
    record = event.to_record()
    shown = {k: v for k, v in record.items() if k not in ("v", "kind", "time", "config")}
    return f"{event.kind.replace('_', ' ')}: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in shown.items())
