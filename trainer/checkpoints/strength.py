"""A checkpoint's strength: its generator moved back towards the start voice, along the line between them.

A fine-tune's checkpoint ``w`` and the voice it started from ``w0`` span a straight line in weight space; the
checkpoint at strength ``s`` is ``w0 + s * (w - w0)`` for every generator weight the two share (1: the checkpoint
as trained, 0: the start voice). Interpolating a fine-tuned network with its pre-trained weights can keep more of
what the pre-trained one did well than the fine-tune's own path at the same adaptation (WiSE-FT: Wortsman et al.
2022, "Robust fine-tuning of zero-shot models", CVPR; for fine-tuned GAN generators, Pinkney and Adler 2020,
"Resolution Dependent GAN Interpolation for Controllable Image Synthesis Between Domains"). Measured on Piper
voices fine-tuned on 211 clips (docs/benchmarks.md, "Fine-tuning quality", "A checkpoint's strength"): on one run
0.1-0.27 DNSMOS OVRL cleaner than its epochs at the same speaker similarity, on the default run level with them;
on both a dial from the run's end back towards the start, likeness traded for clarity.

A tensor the start lacks or has in another shape (a speaker embedding a single- to multi-speaker conversion
added, the training-only parts an ONNX start does not hold) keeps the checkpoint's value. Weight norm's ``g`` and
``v`` are blended each, as they are stored; the start's come from ``engines.torch.vits.onnx_import`` for an ONNX
voice (which splits them as the checkpoint does) or from the ``.ckpt`` itself.

The written file is a checkpoint like the one it came from (``state_dict``, ``hyper_parameters``, its epoch and
val_mel; optimizer states left out: it is for listening and export, not for resuming), with
``voice_studio_strength``: ``{"checkpoint": file name, "start": the start as given, "strength": s}``. Its val_mel is
its checkpoint's as trained (it labels the file); the leaderboard does not take it as the strength's own
(``trainer.evaluate.leaderboard.val_mel_at_save``).
"""

from __future__ import annotations

import functools
import math
import re
from pathlib import Path
from typing import Any

from engines.errors import VoiceStudioError
from engines.imports import importing

STRENGTH_KEY = "voice_studio_strength"
"""What a checkpoint written at a strength says it is: ``{"checkpoint", "start", "strength"}``."""
KEPT = ("epoch", "global_step", "val_mel", "state_dict", "hyper_parameters")
"""The keys of a checkpoint a file at a strength keeps."""
GENERATOR_PREFIX = "model_g."
_NAMED = re.compile(r"(?P<base>.+)-strength=(?P<strength>[01]\.\d\d)\.ckpt")
"""A file :func:`strength_path` named: its checkpoint's stem and the strength."""
LAST = "last.ckpt"
"""A run's latest checkpoint, rewritten every epoch: a strength of it is named by its epoch (:func:`strength_path`)."""
_LAST_AT = re.compile(r"last-epoch=(?P<epoch>\d+)\.ckpt")
SPEAKERS = "emb_g.weight"
"""The speaker embedding: resized by a speaker conversion (``trainer.start.shape``), so kept as the checkpoint's."""


class StrengthError(VoiceStudioError, ValueError):
    """A checkpoint cannot be taken to a strength (a strength outside 0-1, no start voice to move towards)."""


def checked_strength(strength: float) -> float:
    """``strength`` when it lies in [0, 1].

    Raises:
        StrengthError: outside it, or not a number (the message names ``strength``).
    """
    if not isinstance(strength, int | float) or math.isnan(strength) or not 0 <= strength <= 1:
        raise StrengthError(f"strength: {strength!r} is not between 0 (the start voice) and 1 (the checkpoint)")
    return float(strength) + 0.0  # -0.0 is 0.0 (else a file named strength=-0.00, which no run knows as one)


def named_strength(strength: float) -> float:
    """``strength`` (:func:`checked_strength`) to the two decimals :func:`strength_path` names its file by: the
    strength written, and said."""
    return round(checked_strength(strength), 2) + 0.0


def parse_strengths(text: str) -> list[float]:
    """Strengths as typed: ``"0.6, 0.8"`` (commas or spaces between) -> ``[0.6, 0.8]``, each in [0, 1], kept to
    two decimals (as :func:`strength_path` names the file), in order, each once.

    Raises:
        StrengthError: none given, or a part that is not a number in [0, 1] (the message names it).
    """
    parts = text.replace(",", " ").split()
    if not parts:
        raise StrengthError("no strength given: type numbers between 0 (the start voice) and 1 (the checkpoint)")
    found: list[float] = []
    for part in parts:
        try:
            value = float(part)
        except ValueError:
            raise StrengthError(f"strength: {part!r} is not a number between 0 (the start voice) and 1") from None
        value = named_strength(value)
        if value not in found:
            found.append(value)
    return found


def start_weights(start: str) -> dict[str, Any]:
    """The generator weights (``Synthesizer`` names, no ``model_g.`` prefix) of a run's start: an ONNX voice's
    as imported (``engines.torch.vits.onnx_import``; the parts it holds only), a ``.ckpt``'s as stored.

    Args:
        start: as ``training.json`` keeps it (``joe``, a voice name, a path).

    Raises:
        StrengthError: a run from scratch (no start voice).
        trainer.run.errors.RunError: the start is missing (``trainer.start.points.resolve_start``).
        engines.base.VoiceError: the start's file cannot be read.
    """
    from trainer.start.points import resolve_start

    kind, path = resolve_start(start)
    if path is None:
        raise StrengthError("a run from scratch has no start voice to move its checkpoints back towards")
    stat = path.stat()
    return _read_start(kind, path.resolve(), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=2)
def _read_start(kind: str, path: Path, mtime_ns: int, size: int) -> dict[str, Any]:
    """:func:`start_weights` of one file as it is now (its time and size in the key: a changed file is read
    again); kept for the next checkpoint taken to a strength against the same start."""
    if kind == "ckpt":
        from engines.torch.vits.checkpoint import read_checkpoint

        return read_checkpoint(path).generator
    with importing("engines.torch.vits.onnx_import"):
        from engines.torch.vits.onnx_import import load_onnx_generator
    from engines.voice import load_voice

    model, report = load_onnx_generator(path, load_voice(path).config.num_speakers)
    state = model.state_dict()
    return {name: state[name] for name in report.loaded}


def at_strength(own: dict[str, Any], start: dict[str, Any], strength: float) -> tuple[dict[str, Any], int]:
    """``own`` (a generator's state dict) with every floating-point tensor that ``start`` has too set to
    ``start + strength * (own - start)`` (computed in float32, stored in ``own``'s dtype); the others kept.

    Returns:
        ``(the new state dict, how many tensors were moved)``.

    Raises:
        StrengthError: the two are not the same network: a tensor both have differs in shape (the speaker
            embedding ``emb_g.weight`` aside, which a speaker conversion resizes; it is kept).
    """
    with importing("torch"):
        import torch

    shared = [name for name in own if name in start and name != SPEAKERS]
    apart = [name for name in shared if tuple(start[name].shape) != tuple(own[name].shape)]
    if apart:
        name = apart[0]
        raise StrengthError(
            f"the start voice is not the network this checkpoint was trained from: {len(apart)} of its weights "
            f"differ in shape ({name}: {list(start[name].shape)} against {list(own[name].shape)})"
        )
    out = dict(own)
    for name in shared:
        value = own[name]
        if value.is_floating_point():
            base = start[name].to(device=value.device, dtype=torch.float32)
            out[name] = (base + strength * (value.float() - base)).to(value.dtype)
    return out, sum(own[name].is_floating_point() for name in shared)


def strength_of(path: Path) -> tuple[str, float] | None:
    """``(the checkpoint's file name, the strength)`` a file :func:`strength_path` named says it holds
    (``best-epoch=0039-val_mel=0.5123-strength=0.70.ckpt`` -> ``("best-epoch=0039-val_mel=0.5123.ckpt", 0.7)``),
    else ``None``."""
    found = _NAMED.fullmatch(path.name)
    return (f"{found['base']}.ckpt", float(found["strength"])) if found else None


def held_strength(raw: dict[str, Any]) -> float | None:
    """The strength a checkpoint's dict ``raw`` says it was taken to (under :data:`STRENGTH_KEY`), else ``None``
    (as trained). -0.0, held by files written before :func:`checked_strength` made it 0.0, is 0.0."""
    held = raw.get(STRENGTH_KEY)
    if not isinstance(held, dict):
        return None
    return float(held.get("strength", 0)) + 0.0


def strength_label(label: str, strength: float) -> str:
    """The label of a checkpoint at ``strength``, from the checkpoint's own: ``epoch 40 · val_mel 0.5123`` ->
    ``epoch 40 at 70% · val_mel 0.5123``, ``last`` -> ``last at 70%``."""
    head, sep, rest = label.partition(" · ")
    return f"{head} at {strength:.0%}{sep}{rest}"


def strength_path(checkpoint: Path, strength: float, epoch: int | None = None) -> Path:
    """Where :func:`write_at_strength` puts ``checkpoint`` at ``strength`` by default: ``RUN/strengths/`` for a
    run's checkpoint, else beside it; ``<stem>-strength=0.70.ckpt``. A run's ``last.ckpt``, which moves on with
    every epoch, is named by the (0-based) ``epoch`` it holds, ``last-epoch=0039-strength=0.70.ckpt``: the file
    stays that epoch's, labelled so, after ``last.ckpt`` has moved on."""
    from trainer.run.document import STRENGTHS_FOLDER, run_of

    run = run_of(checkpoint)
    folder = run / STRENGTHS_FOLDER if run is not None else checkpoint.parent
    stem = checkpoint.stem
    if checkpoint.name == LAST and epoch is not None:
        stem = f"{stem}-epoch={epoch:04d}"
    return folder / f"{stem}-strength={strength:.2f}.ckpt"


def strength_fallback_label(checkpoint: str) -> str:
    """The label of a checkpoint a run no longer lists, from its file name (``strength_of``'s first part):
    ``last-epoch=0039.ckpt`` -> ``epoch 40 · last``, any other -> its stem."""
    found = _LAST_AT.fullmatch(checkpoint)
    return f"epoch {int(found['epoch']) + 1} · last" if found else checkpoint.removesuffix(".ckpt")


def run_start(checkpoint: Path) -> str:
    """The start of the run ``checkpoint`` belongs to, as its ``training.json`` says it.

    Raises:
        StrengthError: the checkpoint is in no run (then the start must be given).
    """
    from trainer.run.document import read_run, run_of

    run = run_of(checkpoint)
    if run is None:
        raise StrengthError(f"{checkpoint}: not a run's checkpoint, so its start voice is unknown; name the start")
    return read_run(run).options.start


def write_at_strength(checkpoint: Path | str, strength: float, *, start: str | None = None, out=None) -> Path:
    """Write ``checkpoint`` at ``strength`` (:func:`at_strength` against its start) as a checkpoint; atomic.

    Args:
        checkpoint: a run's ``.ckpt`` (ranked, ``last.ckpt``, an evaluation's) or any Piper checkpoint.
        strength: 0-1 (:func:`checked_strength`), taken to two decimals, as the file is named.
        start: the voice to move towards; default: the checkpoint's run's start (``training.json``).
        out: the file to write; default :func:`strength_path`.

    Returns:
        The written file.

    Raises:
        StrengthError: a bad strength, a checkpoint at a strength already (:func:`strength_of` by its name, or
            :data:`STRENGTH_KEY` in it under any name), no start, a start that is missing (moved or deleted), or a
            start that shares no weight with the checkpoint.
        engines.base.VoiceError: the checkpoint or the start cannot be read.
    """
    with importing("torch"):
        import torch

    from engines.files import atomic_path
    from engines.torch.vits.checkpoint import read_checkpoint

    checkpoint, strength = Path(checkpoint), named_strength(strength)
    named = strength_of(checkpoint)
    if named is not None:
        raise _already(checkpoint, named[1], named[0])
    from trainer.run.errors import RunError

    where = "as given" if start is not None else "as its run's training.json says"
    start = start if start is not None else run_start(checkpoint)
    try:
        weights = start_weights(start)
    except RunError:  # its message is a run's start point's; this is the voice a checkpoint moves back towards
        raise StrengthError(
            f"{checkpoint.name}: its start voice, {start} ({where}), is not there to move it back towards (moved or "
            "deleted? put it back, or take the checkpoint as trained)"
        ) from None
    read = read_checkpoint(checkpoint)
    raw, own = read.raw, read.generator
    held = held_strength(raw)
    if held is not None:  # at a strength already, under another name: a strength of it would compound
        raise _already(checkpoint, held, raw[STRENGTH_KEY].get("checkpoint", "the one it came from"))
    state = raw["state_dict"]
    try:
        moved_state, moved = at_strength(own, weights, strength)
    except StrengthError as exc:
        raise StrengthError(f"{checkpoint.name}, against the start voice {start}: {exc}") from None
    if not moved:
        raise StrengthError(f"{checkpoint.name}: its generator shares no weight with the start voice {start}")
    kept = {key: raw[key] for key in KEPT if key in raw}
    kept["state_dict"] = {**state, **{GENERATOR_PREFIX + k: v for k, v in moved_state.items()}}
    kept[STRENGTH_KEY] = {"checkpoint": checkpoint.name, "start": start, "strength": strength}
    epoch = raw.get("epoch") if isinstance(raw.get("epoch"), int) else None
    out = Path(out) if out is not None else strength_path(checkpoint, strength, epoch)
    out.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(out) as tmp:
        torch.save(kept, tmp)
    return out


def _already(checkpoint: Path, strength: float, original: str) -> StrengthError:
    """The error for ``checkpoint``, at ``strength`` already (by its name or by what it holds): a strength of it
    would compound; ``original`` is the checkpoint it came from."""
    return StrengthError(
        f"{checkpoint.name} is at strength {strength:.2f} already: take its checkpoint, {original}, to the "
        "strength wanted"
    )
