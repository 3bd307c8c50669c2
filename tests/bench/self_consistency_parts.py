"""The parts of the self-consistency bench (``tests/bench/self_consistency.py``) and of its small version in the
suite (``tests/test_self_consistency.py``): a voice's own renders as a dataset, a fine-tune from that voice on
them that keeps every epoch's checkpoint, and what the run and its checkpoints say.

A voice fine-tuned on what it says itself has nothing to learn: it should stay as it was. Every measure here is
taken against the start voice's own renders of held-out lines (never trained on), so the start voice scores the
noise floor (the same voice under other noise) and every epoch's checkpoint is compared with that floor.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "target-voice"
RENDERERS = ("onnx", "piper-tts")
"""Who renders the dataset: ``onnx``, this project's ONNX engine (``engines.onnx``, seeded: the same audio every
time), or ``piper-tts``, the real piper-tts package (its own onnxruntime noise, not seeded)."""
REFERENCE_SEED = 1000
"""Line ``i`` of the dataset is rendered with noise seed ``REFERENCE_SEED + i``; the scoring renders use seed 0,
so the start voice is never scored against the very audio it renders then (that would give MCD 0, F0 gap 0)."""
PARTS = ("enc_p", "flow", "dp", "dec")
"""Generator parts whose distance to the start is reported (prefixes of the state dict)."""


@dataclass(frozen=True, kw_only=True)
class Recipe:
    """How the self-consistency dataset and run are made.

    Attributes:
        voice: the start voice's ``.onnx`` (its ``.onnx.json`` beside it).
        lines, held_out: lines rendered for training, and held out (excluded from training, scored on).
        noise_scale, noise_w: the renders' noise (piper-tts's defaults: 0.667, 0.8); ``None``: each voice's own
            (its config's ``inference``, as the studio speaks it).
        renderer: one of ``RENDERERS``.
        epochs, batch_size, precision, device, preset, compile: the run's (``trainer.run.options.RunOptions``).
        config: ``TrainingConfig`` fields set in the run's ``training.json`` on top of the preset's (e.g. a
            smaller recovery budget); ``keep_best`` is always set to ``epochs``, so every epoch's checkpoint stays.
        no_recovery_cache: recover the start's training-only parts again, not from the recovery cache.
    """

    voice: Path
    lines: int = 150
    held_out: int = 10
    noise_scale: float | None = 0.667
    noise_w: float | None = 0.8
    renderer: str = "onnx"
    epochs: int = 10
    batch_size: int = 8
    precision: str = "auto"
    device: str = "auto"
    preset: str = "medium"
    compile: str = "auto"
    config: tuple[tuple[str, int | float], ...] = ()
    no_recovery_cache: bool = False


def config_setting(text: str) -> tuple[str, Any]:
    """``KEY=VALUE`` (a ``--set`` argument) as a ``TrainingConfig`` setting and its value, read as
    ``voice-studio train --set`` reads it (``trainer.run.settings.parse_setting``).

    Raises:
        argparse.ArgumentTypeError: not ``KEY=VALUE``, not a setting a run can set, or a value it cannot take.
    """
    import argparse

    from trainer.run.settings import parse_setting

    try:
        return parse_setting(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_set_option(parser) -> None:
    """``--set KEY=VALUE`` (repeatable; :func:`config_setting`) on a bench's ``argparse`` parser: ``args.set``."""
    parser.add_argument(
        "--set",
        type=config_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a TrainingConfig field for the run (repeatable), e.g. inference_anchor=1000",
    )


def start_voice_path(name: str) -> Path:
    """``joe`` (the embedded default voice, ``engines.registry.default_voice``) or an ``.onnx`` path as a file."""
    from engines.registry import default_voice

    return default_voice().model_path if name == "joe" else Path(name).resolve()


def corpus_texts() -> tuple[list[str], str]:
    """The lines to render and where they come from: the transcripts of ``../shared/corpus/target-voice`` (240)
    when present, else the studio's own lines (``assets/default_lines.txt`` and the preview lines: 6)."""
    from trainer.events.preview_lines import PREVIEW_LINES

    if (CORPUS / "metadata.csv").is_file():
        with open(CORPUS / "metadata.csv", encoding="utf-8") as handle:
            return [row[-1] for row in csv.reader(handle, delimiter="|", quoting=csv.QUOTE_NONE)], str(CORPUS)
    own = (ROOT / "assets" / "default_lines.txt").read_text(encoding="utf-8").splitlines()
    return [t for t in own if t.strip()] + list(PREVIEW_LINES), "assets/default_lines.txt and the preview lines"


def render_dataset(recipe: Recipe, texts: list[str], folder: Path, cache: Path) -> list:
    """Render ``texts`` with the start voice into ``folder`` in LJSpeech layout (``metadata.csv`` + ``wavs/ID.wav``,
    16-bit PCM at the voice's rate; ``cache``: the render cache, outside ``folder``); the last ``recipe.held_out``
    are the held-out lines, returned as ``trainer.evaluate.lines.Line`` with their renders as references.

    Raises:
        ValueError: fewer texts than ``lines + held_out``.
    """
    import soundfile

    wanted = recipe.lines + recipe.held_out
    if len(texts) < wanted or recipe.held_out < 1:
        asked = f"{recipe.lines} + {recipe.held_out} lines asked for (at least 1 held out)"
        raise ValueError(f"{asked}, {len(texts)} available")
    (folder / "wavs").mkdir(parents=True, exist_ok=True)
    speak = _renderer(recipe, cache)
    rows = []
    for index, text in enumerate(texts[:wanted]):
        clip_id = f"self_{index + 1:04d}"
        audio, rate = speak(text, REFERENCE_SEED + index)
        soundfile.write(folder / "wavs" / f"{clip_id}.wav", audio, rate, subtype="PCM_16")
        rows.append(f"{clip_id}|{text}")
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    return held_out_lines(folder, recipe.held_out)


def _renderer(recipe: Recipe, cache: Path):
    """``speak(text, seed) -> (float32 audio [N], rate Hz)`` by ``recipe.renderer`` at the recipe's noise."""
    if recipe.renderer == "piper-tts":
        from piper import PiperVoice, SynthesisConfig

        voice = PiperVoice.load(recipe.voice)
        options = SynthesisConfig(noise_scale=recipe.noise_scale, noise_w_scale=recipe.noise_w, normalize_audio=False)

        def piper(text: str, seed: int) -> tuple[np.ndarray, int]:
            chunks = [c.audio_float_array for c in voice.synthesize(text, syn_config=options)]
            return np.concatenate(chunks).astype(np.float32), voice.config.sample_rate

        return piper
    from engines.pool import EnginePool
    from trainer.evaluate.render import Candidate, RenderSettings, render

    start, pool = Candidate(label="start", model_path=recipe.voice), EnginePool()  # the voice loaded once

    def ours(text: str, seed: int) -> tuple[np.ndarray, int]:
        settings = RenderSettings(noise_scale=recipe.noise_scale, noise_w=recipe.noise_w, seed=seed)
        rendered = render(start, text, settings, cache, pool)
        return rendered.audio, rendered.sample_rate

    return ours


def held_out_lines(folder: Path, held_out: int) -> list:
    """The held-out lines of a dataset :func:`render_dataset` wrote (its last ``held_out`` rows)."""
    from trainer.evaluate.lines import read_lines_file

    return read_lines_file(folder / "metadata.csv")[-held_out:]


def make_project(source: Path, folder: Path, voice: Path, held_out: list):
    """A dataset project of ``source`` (measured against ``voice``'s config) with the held-out clips excluded."""
    from engines.voice import config_path_for
    from trainer.dataset.curation import set_excluded
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(folder)
    project.import_sources([source], voice_config=config_path_for(voice))
    set_excluded(project, [line.name for line in held_out], True)
    return project


def train(recipe: Recipe, dataset: Path, run: Path) -> Path:
    """Create the run (every epoch's checkpoint kept: ``keep_best = epochs`` in its ``training.json``, with
    ``recipe.config`` on top) and train it; resumes a run that stopped before its last epoch. Returns ``run``."""
    from trainer.events.run_state import load_run
    from trainer.run.document import read_run, write_run
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run, fit

    if (run / "last.ckpt").exists() and load_run(run).status != "done":
        fit(run, resume=True)
        return run
    options = RunOptions(
        dataset=dataset,
        out=run,
        start=str(recipe.voice),
        preset=recipe.preset,
        epochs=recipe.epochs,
        batch_size=recipe.batch_size,
        precision=recipe.precision,
        device=recipe.device,
        compile=recipe.compile,
        no_recovery_cache=recipe.no_recovery_cache,
        eval_every=0,  # the bench scores every epoch itself, afterwards
    )
    create_run(options)
    document = read_run(run)
    write_run(replace(document, config={**document.config, "keep_best": recipe.epochs, **dict(recipe.config)}))
    fit(run)
    return run


def epoch_checkpoints(run: Path) -> list[tuple[int, Path]]:
    """``(epoch from 0, checkpoint)`` of every ranked checkpoint the run kept, in epoch order."""
    from trainer.checkpoints.best import ranked_checkpoints

    return sorted((c.epoch, c.path) for c in ranked_checkpoints(run))


@dataclass(frozen=True, kw_only=True)
class EpochLosses:
    """What an epoch's event says: val_mel, the train KL (mean over the epoch's steps, the discriminator
    warm-up's included, so epoch 0's starts at the start voice) and the val KL (after the epoch), per frame."""

    val_mel: float | None
    train_kl: float | None
    val_kl: float | None


def epoch_losses(run: Path) -> dict[int, EpochLosses]:
    """Each epoch's losses (by epoch from 0) from the run's ``events.jsonl``."""
    from trainer.events.log import read_events

    found = {}
    for record in read_events(run / "events.jsonl"):
        if record.kind == "epoch":
            get = record.losses.get
            found[record.epoch] = EpochLosses(val_mel=get("val_mel"), train_kl=get("train_kl"), val_kl=get("val_kl"))
    return found


def run_start(run: Path):
    """The run's first ``RunStart`` event (device, precision, utterances), or ``None`` before training began."""
    from trainer.events.log import read_events

    return next((r for r in read_events(run / "events.jsonl") if r.kind == "run_start"), None)


def recovery_report(run: Path) -> list[str]:
    """The recovery's lines from the run's events: how the parts were had (recovered or cached, and how long it
    took) and each ``Recovery`` event's fit."""
    from trainer.events.log import read_events

    records = list(read_events(run / "events.jsonl"))
    stages = [r for r in records if r.kind == "stage" and r.name == "recovery"]
    lines = [f"  {r.part}: {r.metric} = {r.value:.4f}" for r in records if r.kind == "recovery"]
    if stages:
        took = max((r.elapsed_s or 0.0) for r in stages)
        said = next((r for r in stages if r.cached or "to speak" in r.message), stages[-1]).message
        how = "taken from the recovery cache" if any(r.cached for r in stages) else "recovered in this run"
        lines.insert(0, f"  {how} in {took:.0f} s: {said}")
    return lines or ["  no Recovery event (the start is not an ONNX voice?)"]


def start_weights(voice: Path) -> dict:
    """The ONNX voice's effective generator weights (``_effective``) that the graph holds
    (``load_onnx_generator``'s ``loaded``; ``dp``: its inference part only), by name."""
    from engines.torch.vits.onnx_import import load_onnx_generator
    from engines.voice import load_voice

    imported, report = load_onnx_generator(voice, load_voice(voice).config.num_speakers)
    loaded = set(report.loaded)
    return _effective({k: v for k, v in imported.state_dict().items() if k in loaded})


def weight_distances(start: dict, checkpoint: Path) -> dict[str, float]:
    """Relative L2 distance of a checkpoint's generator to the start's weights (:func:`start_weights`), per part
    of ``PARTS``: ||w - w0|| / ||w0|| over the part's tensors both hold (NaN for a part with none)."""
    from engines.torch.vits.checkpoint import read_checkpoint

    tuned = _effective(read_checkpoint(checkpoint).generator)
    distances = {}
    for part in PARTS:
        names = [k for k in start if k.startswith(f"{part}.") and k in tuned and tuned[k].shape == start[k].shape]
        moved = sum(float(((tuned[k].float() - start[k].float()) ** 2).sum()) for k in names)
        size = sum(float((start[k].float() ** 2).sum()) for k in names)
        distances[part] = (moved / size) ** 0.5 if size else float("nan")
    return distances


def _effective(state: dict) -> dict:
    """``state`` with each ``X.weight_g`` / ``X.weight_v`` pair replaced by ``X.weight`` = g v / ||v|| (the norm
    over every dimension but the first, ``engines.torch.vits.weight_norm``)."""
    folded = {k: v for k, v in state.items() if not k.endswith((".weight_g", ".weight_v"))}
    for name in [k.removesuffix(".weight_v") for k in state if k.endswith(".weight_v")]:
        g, v = state.get(f"{name}.weight_g"), state[f"{name}.weight_v"]
        if g is not None:
            norm = v.float().pow(2).sum(dim=tuple(range(1, v.dim())), keepdim=True).sqrt()
            folded[f"{name}.weight"] = g.float() * v.float() / norm
    return folded


def f0_gaps(candidates: list, lines: list, settings, cache: Path) -> list[float]:
    """Each candidate's F0 gap (Hz) on ``lines``: the mean over the lines of the median F0 difference of its render
    to the line's reference (``trainer.evaluate.measures.f0_rmse``), as the leaderboard's F0 gap, without the
    leaderboard's other measures."""
    from engines.pool import EnginePool
    from trainer.evaluate.measures import f0_rmse
    from trainer.evaluate.render import render

    gaps, pool = [], EnginePool()  # each candidate loaded once, not once a line
    for candidate in candidates:
        per_line = []
        for line in lines:
            rendered = render(candidate, line.text, settings, cache, pool)
            reference, rate = line.reference_audio()
            per_line.append(f0_rmse(reference, rate, rendered.audio, rendered.sample_rate)[1])
        gaps.append(float(np.mean(per_line)))
    return gaps
