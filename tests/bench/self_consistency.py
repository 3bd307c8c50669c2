"""Self-consistency of fine-tuning (not a test): a voice fine-tuned on its own speech should stay as it was.

The start voice (``--voice``: joe, the default ``en_US-joe-medium``, or any Piper ``.onnx``) renders ``--lines``
lines plus ``--held-out`` more (the transcripts of ``../shared/corpus/target-voice``, else the studio's own few
lines) at ``--noise-scale``/``--noise-w`` (piper-tts's defaults), through this project's ONNX engine or the
piper-tts package (``--renderer``), into an LJSpeech folder; a dataset project imports it with the held-out clips
excluded, and a run of the ``medium`` preset fine-tunes the voice on it for ``--epochs`` epochs, keeping every
epoch's checkpoint. The start voice and each epoch's checkpoint then speak the held-out lines (noise seed 0;
the references were rendered under other seeds) and are scored against the start's renders by the leaderboard
(``trainer.evaluate.leaderboard``: MCD, F0 gap, speaker similarity, DNSMOS OVRL, WER by the best recognizer
installed); the table adds each epoch's val_mel, train and val KL (``events.jsonl``) and the relative L2
distance of enc_p, flow, dp and dec to the start's weights (imported from the ONNX voice).

Targets (issue 28), against the start's own scores: F0 gap within 3 Hz of the start's, MCD at most the start's
+ 0.2 dB, WER at most the start's + 0.02, DNSMOS OVRL at least the start's - 0.05, similarity at least 0.98.

Usage: ``.venv/bin/python tests/bench/self_consistency.py [--lines 150] [--held-out 10] [--epochs 10]
[--batch-size 8] [--precision auto] [--device auto] [--voice joe] [--renderer onnx] [--noise-scale 0.667]
[--noise-w 0.8] [--recovery-lines N] [--recovery-steps N] [--recovery-fit-steps N] [--inference-lr-scale F]
[--d-warmup-max-steps N] [--set KEY=VALUE ...] [--no-recovery-cache] [--work DIR]``. With
``--work DIR`` the dataset, run and renders stay in DIR; a finished run there is scored again without rendering or
training (its ``bench.json`` says how it was made). ``--recovery-lines``/``--recovery-steps`` cut the recovery's
budget (the preset's: 300 lines, 300 + 60 steps) for a quick run on a CPU; ``--inference-lr-scale 1`` trains
the inference path at the full rate (the ablation).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import self_consistency_parts as parts  # noqa: E402

TARGETS = (
    ("F0 gap within 3 Hz of the start's", "f0_gap_hz", lambda start, value: abs(value - start) <= 3.0),
    ("MCD <= start + 0.2 dB", "mcd_db", lambda start, value: value <= start + 0.2),
    ("WER <= start + 0.02", "wer", lambda start, value: value <= start + 0.02),
    ("OVRL >= start - 0.05", "dnsmos_ovrl", lambda start, value: value >= start - 0.05),
    ("similarity >= 0.98", "similarity", lambda start, value: value >= 0.98),
)
"""(what, leaderboard field, met(start's value, checkpoint's value)); a verdict shows the checkpoint's value less
the start's (similarity: its value)."""
BENCH_FILE = "bench.json"
"""Kept in the work folder: how the dataset was made and how long each step took (read back by ``--work``)."""


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--voice", default="joe", help="joe (default) or a Piper .onnx voice")
    parser.add_argument("--lines", type=int, default=150, help="lines rendered for training (default 150)")
    parser.add_argument("--held-out", type=int, default=10, help="lines held out and scored on (default 10)")
    parser.add_argument("--noise-scale", type=float, default=0.667)
    parser.add_argument("--noise-w", type=float, default=0.8)
    renderers = "onnx: this project's engine, seeded (default); piper-tts: the piper-tts package"
    parser.add_argument("--renderer", choices=parts.RENDERERS, default="onnx", help=renderers)
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--recovery-lines", type=int, help="lines the recovery speaks (default: the preset's, 300)")
    parser.add_argument(
        "--recovery-steps", type=int, help="the recovery's warm-start steps (default: the preset's, 300)"
    )
    parser.add_argument(
        "--recovery-fit-steps",
        type=int,
        help="the recovery's steps of the training objective (default 60)",
    )
    parser.add_argument(
        "--inference-lr-scale", type=float, help="the inference path's share of the rate (default: the preset's, 0.1)"
    )
    parser.add_argument(
        "--d-warmup-max-steps", type=int, help="cap of the discriminator warm-up (default: the preset's, 200)"
    )
    parts.add_set_option(parser)
    parser.add_argument("--no-recovery-cache", action="store_true", help="recover the start's parts again")
    parser.add_argument("--work", type=Path, help="keep everything here; a finished run here is only re-scored")
    return parser.parse_args(argv)


def recipe_of(args: argparse.Namespace) -> parts.Recipe:
    return parts.Recipe(
        voice=parts.start_voice_path(args.voice),
        lines=args.lines,
        held_out=args.held_out,
        noise_scale=args.noise_scale,
        noise_w=args.noise_w,
        renderer=args.renderer,
        epochs=args.epochs,
        batch_size=args.batch_size,
        precision=args.precision,
        device=args.device,
        no_recovery_cache=args.no_recovery_cache,
        config=tuple((k, v) for k, v in _budget(args) if v is not None) + tuple(args.set),
    )


def _budget(args) -> tuple[tuple[str, int | None], ...]:
    """The recovery budget asked for (``None``: the preset's)."""
    return (
        ("recovery_lines", args.recovery_lines),
        ("recovery_steps", args.recovery_steps),
        ("recovery_fit_steps", args.recovery_fit_steps),
        ("inference_lr_scale", args.inference_lr_scale),
        ("d_warmup_max_steps", args.d_warmup_max_steps),
    )


def prepare(recipe: parts.Recipe, work: Path) -> tuple[parts.Recipe, list, bool]:
    """Render, import and train in ``work``; what is there already is kept (a finished run is not trained again,
    a stopped one is resumed). Returns the recipe the run was made with, the held-out lines and whether this
    call trained."""
    from trainer.dataset.project import DatasetProject
    from trainer.events.run_state import load_run

    run, kept = work / "run", read_bench(work)
    if "recipe" in kept and (work / "project" / "manifest.json").is_file():
        recipe = parts.Recipe(**{**kept["recipe"], "voice": Path(kept["recipe"]["voice"])})
        if (run / "events.jsonl").is_file() and load_run(run).status == "done":
            return recipe, parts.held_out_lines(work / "source", recipe.held_out), False
        project, held = DatasetProject(work / "project"), parts.held_out_lines(work / "source", recipe.held_out)
    else:
        project, held = render(recipe, work)
    with Stopwatch() as training:
        parts.train(recipe, project.folder, run)
    write_bench(work, {"train_s": training.seconds})
    return recipe, held, True


def render(recipe: parts.Recipe, work: Path) -> tuple:
    """The dataset (``work/source``) and its project (``work/project``); returns the project and held-out lines."""
    texts, where = parts.corpus_texts()
    if len(texts) < recipe.lines + recipe.held_out:
        sys.exit(f"{recipe.lines} + {recipe.held_out} lines asked for, but {where} holds {len(texts)}")
    with Stopwatch() as rendering:
        held = parts.render_dataset(recipe, texts, work / "source", work / "render-cache")
        project = parts.make_project(work / "source", work / "project", recipe.voice, held)
    recipe_values = {**asdict(recipe), "voice": str(recipe.voice)}
    write_bench(work, {"recipe": recipe_values, "texts": where, "render_s": rendering.seconds})
    return project, held


def score(
    recipe: parts.Recipe, run: Path, lines: list, cache: Path, *, recordings: bool = False
) -> tuple[list, list[int], float]:
    """Leaderboard rows of the start and every epoch's checkpoint (in that order; with ``recordings``, the lines'
    recordings' row last), the epochs (from 0), seconds."""
    from trainer.evaluate.leaderboard import score as score_rows
    from trainer.evaluate.render import Candidate, RenderSettings

    checkpoints = parts.epoch_checkpoints(run)
    candidates = [Candidate(label="start", model_path=recipe.voice)]
    candidates += [Candidate(label=f"epoch {epoch + 1}", model_path=path) for epoch, path in checkpoints]
    settings = RenderSettings(noise_scale=recipe.noise_scale, noise_w=recipe.noise_w, seed=0)
    with Stopwatch() as watch:
        rows = score_rows(candidates, lines, settings, cache, recordings=recordings)
    return rows, [epoch for epoch, _ in checkpoints], watch.seconds


def number(value: float | None, spec: str) -> str:
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else format(value, spec)


def epoch_table(rows: list, epochs: list[int], run: Path, recipe: parts.Recipe) -> list[str]:
    """One line per candidate: epoch, val_mel, train/val KL, the measures, the distance of each part to the start."""
    losses = parts.epoch_losses(run)
    start = parts.start_weights(recipe.voice)
    paths = dict(parts.epoch_checkpoints(run))
    head = ["epoch", "val_mel", "train KL", "val KL", "MCD dB", "F0 gap Hz", "similarity", "OVRL", "WER"]
    cells = [head + [f"d {p}" for p in parts.PARTS]]
    for row, epoch in zip(rows, [None, *epochs], strict=True):
        loss = losses.get(epoch) if epoch is not None else None
        kinds = (("val_mel", ".4f"), ("train_kl", ".2f"), ("val_kl", ".2f"))
        moved = parts.weight_distances(start, paths[epoch]) if epoch is not None else dict.fromkeys(parts.PARTS, 0.0)
        cells.append(
            ["start" if epoch is None else str(epoch + 1)]
            + [number(getattr(loss, k, None), f) for k, f in kinds]
            + [number(row.mcd_db, ".2f"), number(row.f0_gap_hz, "+.1f"), number(row.similarity, ".3f")]
            + [number(row.dnsmos_ovrl, ".2f"), number(row.wer, ".3f")]
            + [number(moved[p], ".4f") for p in parts.PARTS]
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(head) + len(parts.PARTS))]
    return ["  ".join(cell.rjust(width) for cell, width in zip(line, widths, strict=True)) for line in cells]


def verdicts(start, row) -> list[str]:
    """``met`` / ``NOT met`` with the change from the start (similarity: the value), or ``n/a`` (not measured), per
    target, for one checkpoint's row."""
    found = []
    for _, field, met in TARGETS:
        before, after = getattr(start, field), getattr(row, field)
        if before is None or after is None:
            found.append("n/a")
            continue
        shown = f"{after:.3f}" if field == "similarity" else f"{after - before:+.2f}"
        found.append(f"{'met' if met(before, after) else 'NOT met'} ({shown})")
    return found


def target_lines(rows: list) -> list[str]:
    """The targets, each epoch's verdicts and the verdict at the end (the last epoch)."""
    lines = [f"  {i + 1}. {what}" for i, (what, _, _) in enumerate(TARGETS)]
    for row in rows[1:]:
        marks = verdicts(rows[0], row)
        lines.append(f"  {row.label:>9}: " + ", ".join(f"{i + 1} {m}" for i, m in enumerate(marks)))
    if len(rows) > 1:
        met = not any(m.startswith("NOT") for m in verdicts(rows[0], rows[-1]))
        lines.append(f"  at the end ({rows[-1].label}): {'all targets met' if met else 'NOT all targets met'}")
    return lines


def report(recipe: parts.Recipe, work: Path, rows: list, epochs: list[int], scoring_s: float, fresh: bool) -> None:
    from trainer.evaluate.leaderboard import table

    kept, run = read_bench(work), work / "run"
    print(f"voice: {recipe.voice}")
    renderer = "the piper-tts package" if recipe.renderer == "piper-tts" else "this project's ONNX engine (engines/)"
    print(f"rendered by {renderer} at noise_scale {recipe.noise_scale}, noise_w {recipe.noise_w}")
    print(f"texts: {kept.get('texts', '?')}; {recipe.lines} lines trained on, {recipe.held_out} held out, scored on")
    began = parts.run_start(run)
    trained = f"on {began.device} at {began.precision}, {began.num_utterances} utterances" if began else "?"
    print(f"run: {run} ({recipe.preset} preset, {recipe.epochs} epochs, batch {recipe.batch_size}, {trained})")
    print("", *epoch_table(rows, epochs, run, recipe), sep="\n")
    print("d PART: relative L2 distance ||w - w0|| / ||w0|| of the part's weights to the start voice's")
    print("\ntargets, against the start's own scores (its renders under other noise):", *target_lines(rows), sep="\n")
    print("\nrecovery (the run's events):", *parts.recovery_report(run), sep="\n")
    when = "this session" if fresh else f"kept in {work / BENCH_FILE}"
    render_s, train_s = kept.get("render_s", 0.0), kept.get("train_s", 0.0)
    print(f"\ntimings: render and import {render_s:.0f} s, training {train_s:.0f} s ({when});")
    print(f"  scoring {len(rows)} candidates x {recipe.held_out} lines {scoring_s:.0f} s (this session)")
    print("\nthe leaderboard:", table(rows), sep="\n")


def write_bench(work: Path, values: dict) -> None:
    """Merge ``values`` into the work folder's ``bench.json``."""
    (work / BENCH_FILE).write_text(json.dumps({**read_bench(work), **values}, indent=1), encoding="utf-8")


def read_bench(work: Path) -> dict:
    """The work folder's ``bench.json`` (``{}`` when there is none)."""
    path = work / BENCH_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


class Stopwatch:
    """``with Stopwatch() as watch: ...`` then ``watch.seconds``: the wall time of the block."""

    def __enter__(self) -> Stopwatch:
        self.started, self.seconds = time.perf_counter(), 0.0
        return self

    def __exit__(self, *exc) -> None:
        self.seconds = time.perf_counter() - self.started


def main(argv=None) -> None:
    args = arguments(argv)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        recipe, held, fresh = prepare(recipe_of(args), work)
        rows, epochs, scoring_s = score(recipe, work / "run", held, work / "score-cache")
        report(recipe, work, rows, epochs, scoring_s, fresh)


if __name__ == "__main__":
    main()
