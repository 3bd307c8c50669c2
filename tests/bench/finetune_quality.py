"""Quality evidence for fine-tuning on a real speaker (not a test): joe fine-tuned on the target-voice corpus.

Fine-tunes the default voice (en_US-joe-medium, ONNX) on the first ``--clips`` clips of
``../shared/corpus/target-voice`` with the last ``--held-out`` excluded from the dataset (the run never sees
them), for ``--epochs`` epochs of the ``medium`` preset, keeping every epoch's checkpoint. joe and every epoch's
checkpoint then speak the excluded clips' texts (noise seed 0; each with its own ``inference`` settings, as the
studio speaks it: joe at noise_scale 0.667, a fine-tune at its run's ``voice_noise_scale``) and are scored
against the target speaker's own recordings of them by the leaderboard (``trainer.evaluate.leaderboard``: MCD
after DTW, F0 gap, speaker similarity, DNSMOS OVRL, WER by the best recognizer installed); the table adds each
epoch's val_mel and KL.
The target speaker's recordings of those lines are measured alike (the leaderboard's ``recordings`` row). The
studio's rule (``trainer.evaluate.recommend``: the highest similarity among the checkpoints whose WER and DNSMOS
are within their noise bands of the best, or no worse than the recordings') picks the recommended checkpoint.

With ``--strengths 0.6,0.7,0.8`` the last epoch's checkpoint is also taken to each strength
(``trainer.checkpoints.strength``: its generator moved back towards joe's, ``joe + s * (epoch - joe)``), scored
alike and offered to the rule beside the epochs.

Targets (issue 28), at the recommended checkpoint: speaker similarity >= 0.85; WER <= 0.15 and <= joe's + 0.05;
DNSMOS OVRL >= joe's - 0.2.

Usage: ``.venv/bin/python tests/bench/finetune_quality.py [--epochs 12] [--clips 240] [--held-out 10]
[--batch-size 8] [--precision auto] [--device auto] [--compile auto] [--inference-lr-scale F] [--set KEY=VALUE ...]
[--strengths S,S,...] [--corpus DIR] [--train-only] [--work DIR] [--chart PNG]``. With
``--work DIR`` the dataset, run and renders stay in DIR; a finished run there is scored again without training,
a stopped one is resumed. ``--train-only`` stops after training and prints each epoch's val_mel, KL and seconds
(a GPU machine without the scoring packages; score the kept run later with ``--work``). ``--chart PNG`` also
saves the epochs' curves as the Train page's quality chart draws them (``quality_curves.py``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import self_consistency as bench  # noqa: E402
import self_consistency_parts as parts  # noqa: E402

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "target-voice"
"""The default ``--corpus``: LJSpeech layout (``metadata.csv`` of ``id|text``, ``wavs/ID.flac``)."""
TARGETS = (
    ("similarity >= 0.85", lambda start, row: row.similarity >= 0.85),
    ("WER <= 0.15", lambda start, row: row.wer <= 0.15),
    ("WER <= joe's + 0.05", lambda start, row: row.wer <= start.wer + 0.05),
    ("OVRL >= joe's - 0.2", lambda start, row: row.dnsmos_ovrl >= start.dnsmos_ovrl - 0.2),
)
"""(what, met(joe's row, the recommended checkpoint's row))."""


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=12)
    corpus_options(parser)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--precision", default="auto")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--compile", default="auto", choices=("auto", "on", "off"), help="the run's --compile")
    parser.add_argument(
        "--inference-lr-scale", type=float, help="the inference path's share of the rate (default: the preset's, 0.1)"
    )
    parts.add_set_option(parser)
    strength_option(parser)
    parser.add_argument("--train-only", action="store_true", help="train, print the epochs' losses, do not score")
    parser.add_argument("--work", type=Path, help="keep the dataset, run and renders here (default: a temporary one)")
    parser.add_argument("--chart", type=Path, help="also save the epochs' curves as this PNG (quality_curves.py)")
    return parser.parse_args(argv)


def run_options(parser: argparse.ArgumentParser) -> None:
    """The options of a bench that reads a run this bench trained: ``--work`` (its folder; required), and the
    ``--clips``, ``--held-out`` and ``--corpus`` it was trained with (the held-out lines: :func:`held_lines`)."""
    parser.add_argument("--work", type=Path, required=True, help="a finetune_quality.py --work folder")
    corpus_options(parser)


def corpus_options(parser: argparse.ArgumentParser) -> None:
    """``--clips`` (of the corpus, in its order), ``--held-out`` (the last of them, never trained on; scored) and
    ``--corpus`` (the target speaker's clips, LJSpeech layout)."""
    parser.add_argument("--clips", type=int, default=240, help="clips of the corpus used (default 240)")
    parser.add_argument("--held-out", type=int, default=10, help="the last clips, held out and scored (default 10)")
    parser.add_argument("--corpus", type=Path, default=CORPUS, help="the target speaker's clips (LJSpeech layout)")


def strength_option(parser: argparse.ArgumentParser) -> None:
    """``--strengths``: the strengths (0-1) the last epoch's checkpoint is also scored at."""
    parser.add_argument(
        "--strengths",
        type=lambda text: [float(part) for part in text.split(",") if part.strip()],
        default=[],
        help="also score the last epoch moved back towards joe at these strengths (0-1, comma-separated)",
    )


def held_lines(args: argparse.Namespace) -> list:
    """The held-out lines (``trainer.evaluate.lines.Line``) of the run :func:`run_options` named."""
    return corpus_rows(args.corpus, args.clips, args.held_out)[1]


def corpus_rows(corpus: Path, clips: int, held_out: int) -> tuple[list[str], list]:
    """The first ``clips`` rows of the corpus's ``metadata.csv`` and the last ``held_out`` of them as lines
    (``trainer.evaluate.lines.Line``) with the target speaker's recordings as references."""
    from trainer.evaluate.lines import Line

    rows = (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()[:clips]
    held = [row.split("|") for row in rows[-held_out:]]
    return rows, [Line(name=cols[0], text=cols[-1], reference=corpus / "wavs" / f"{cols[0]}.flac") for cols in held]


def make_project(work: Path, corpus: Path, rows: list[str], held: list):
    """A dataset project of ``rows`` (copied from the corpus into ``work/source``) with the held-out clips excluded."""
    import shutil

    from trainer.dataset.curation import set_excluded
    from trainer.dataset.project import DatasetProject

    if (work / "project" / "manifest.json").is_file():
        return DatasetProject(work / "project")
    source = work / "source"
    (source / "wavs").mkdir(parents=True, exist_ok=True)
    (source / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for row in rows:
        shutil.copy(corpus / "wavs" / f"{row.split('|')[0]}.flac", source / "wavs")
    project = DatasetProject.create(work / "project")
    project.import_sources([source])
    set_excluded(project, [line.name for line in held], True)
    return project


def train(recipe: parts.Recipe, work: Path, corpus: Path, rows: list[str], held: list) -> None:
    """Train the run in ``work/run`` unless it is done (a stopped one resumes); keeps the training time."""
    from trainer.events.run_state import load_run

    run = work / "run"
    if (run / "events.jsonl").is_file() and load_run(run).status == "done":
        return
    project = make_project(work, corpus, rows, held)
    with bench.Stopwatch() as training:
        parts.train(recipe, project.folder, run)
    bench.write_bench(work, {"train_s": training.seconds, "clips": len(rows), "held_out": len(held)})


def frozen_epochs(run: Path) -> set[int]:
    """Epochs (from 0) spent wholly in the discriminator warm-up: their generator is joe's (``train_d_warmup`` 1)."""
    from trainer.events.log import read_events

    events = read_events(run / "events.jsonl")
    return {r.epoch for r in events if r.kind == "epoch" and r.losses.get("train_d_warmup") == 1.0}


def recommended(rows: list, epochs: list[int], frozen: set[int], recordings=None, strengths=()):
    """The studio's recommendation over the epochs' rows (``rows[0]`` is joe), the epochs in ``frozen`` left out
    as the run's own evaluations leave them out (``trainer.run.canary_callback``), and the last epoch's
    ``strengths`` rows (``(row, strength)``), with ``recordings`` (their row, or None) as the guards' floor:
    ``(row, Recommendation)``."""
    from trainer.evaluate.bands import DEFAULT_BANDS
    from trainer.evaluate.board import FLOAT_FIELDS
    from trainer.evaluate.evaluation import START_PREFIX, Evaluation, from_row
    from trainer.evaluate.recommend import recommend

    def evaluation(row, epoch: int, label: str) -> Evaluation:
        values = {f: float(getattr(row, f)) for f in FLOAT_FIELDS if getattr(row, f) is not None}
        return Evaluation(epoch=epoch, values=values, lines=10, label=label)

    start = evaluation(rows[0], 0, f"{START_PREFIX}joe")
    trained = [(row, epoch) for row, epoch in zip(rows[1:], epochs, strict=True) if epoch not in frozen]
    measured = [evaluation(row, epoch + 1, "") for row, epoch in trained]
    trained += [(row, epochs[-1]) for row, _ in strengths]
    measured += [evaluation(row, epochs[-1] + 1, row.label) for row, _ in strengths]
    floor = from_row(recordings) if recordings is not None else None
    advice = recommend(measured, DEFAULT_BANDS, start, recordings=floor)
    return trained[measured.index(advice.chosen)][0], advice


def strength_rows(run: Path, strengths: list[float], lines: list, cache: Path) -> list[tuple]:
    """The last epoch's checkpoint at each strength, written (``RUN/strengths/``) and scored: ``(row, strength)``,
    labelled ``epoch E at 70%``."""
    from trainer.checkpoints.strength import write_at_strength
    from trainer.evaluate.leaderboard import score
    from trainer.evaluate.render import Candidate, RenderSettings

    if not strengths:
        return []
    epoch, last = parts.epoch_checkpoints(run)[-1]
    candidates = [
        Candidate(label=f"epoch {epoch + 1} at {s:.0%}", model_path=write_at_strength(last, s, start="joe"))
        for s in strengths
    ]
    rows = score(candidates, lines, RenderSettings(seed=0), cache)
    return list(zip(rows, strengths, strict=True))


def strength_table(strengths: list[tuple]) -> list[str]:
    """One line per strength: the measures the targets read."""
    lines = ["strength  MCD dB  F0 gap Hz  similarity  OVRL   WER"]
    for row, s in strengths:
        lines.append(
            f"{s:8.2f}  {bench.number(row.mcd_db, '6.2f')}  {bench.number(row.f0_gap_hz, '+9.1f')}  "
            f"{bench.number(row.similarity, '10.3f')}  {bench.number(row.dnsmos_ovrl, '4.2f')}  "
            f"{bench.number(row.wer, '.3f')}"
        )
    return lines


def report(work: Path, recipe: parts.Recipe, scored: list, epochs: list[int], scoring_s: float, strengths=()) -> None:
    from trainer.evaluate.board import is_recordings

    kept, run = bench.read_bench(work), work / "run"
    rows = [row for row in scored if not is_recordings(row)]
    recordings = next((row for row in scored if is_recordings(row)), None)
    began = parts.run_start(run)
    trained = f"on {began.device} at {began.precision}, {began.num_utterances} utterances" if began else "?"
    print(f"target-voice: {kept.get('clips', '?')} clips, {kept.get('held_out', '?')} excluded and scored on")
    print(f"run: {run} (medium preset from joe, {recipe.epochs} epochs, batch {recipe.batch_size}, {trained})")
    print(f"training took {kept.get('train_s', 0) / 60:.1f} min; scoring {len(rows)} candidates {scoring_s:.0f} s")
    print("", *bench.epoch_table(rows, epochs, run, recipe), sep="\n")
    if strengths:
        print(f"\nthe last epoch ({epochs[-1] + 1}) at each strength:", *strength_table(strengths), sep="\n")
    row, advice = recommended(rows, epochs, frozen_epochs(run), recordings, strengths)
    print(f"\n{advice.reason}")
    print(f"targets at the recommended checkpoint ({row.label}), against joe's scores:")
    for what, met in TARGETS:
        print(f"  {what}: {'met' if met(rows[0], row) else 'NOT met'}")
    if recordings is not None and recordings.dnsmos_ovrl is not None and recordings.wer is not None:
        print(f"  (the recordings themselves: OVRL {recordings.dnsmos_ovrl:.2f}, WER {recordings.wer:.3f})")
    from trainer.evaluate.leaderboard import table

    board = rows + [row for row, _ in strengths] + ([recordings] if recordings is not None else [])
    print("\nthe leaderboard:", table(board), sep="\n")


def chart(png: Path, scored: list, epochs: list[int]) -> Path:
    """Save the epochs' curves (``quality_curves.save_chart``) of the scored rows (joe's, the epochs', the
    recordings' last) as ``png``."""
    from quality_curves import save_chart

    from trainer.evaluate.board import is_recordings

    recordings = next((row for row in scored if is_recordings(row)), None)
    return save_chart(png, [row for row in scored if not is_recordings(row)], epochs, recordings)


def losses_table(run: Path) -> list[str]:
    """One line per epoch from the run's events: epoch, val_mel, train and val KL, seconds."""
    from trainer.events.log import read_events

    lines = ["epoch  val_mel  train KL  val KL  seconds"]
    for r in read_events(run / "events.jsonl"):
        if r.kind == "epoch":
            kl, val_kl = r.losses.get("train_kl", float("nan")), r.losses.get("val_kl", float("nan"))
            lines.append(f"{r.epoch + 1:5d}  {r.losses['val_mel']:.4f}  {kl:8.2f}  {val_kl:6.2f}  {r.seconds:7.0f}")
    return lines


def main(argv=None) -> None:
    args = arguments(argv)
    if not (args.corpus / "metadata.csv").is_file():
        sys.exit(f"corpus not found: {args.corpus / 'metadata.csv'}")
    recipe = parts.Recipe(
        voice=parts.start_voice_path("joe"),
        noise_scale=None,  # each candidate as it speaks: joe at its 0.667, a fine-tune at its run's voice_noise_scale
        noise_w=None,
        epochs=args.epochs,
        batch_size=args.batch_size,
        precision=args.precision,
        device=args.device,
        compile=args.compile,
        config=tuple(args.set)
        + ((("inference_lr_scale", args.inference_lr_scale),) if args.inference_lr_scale is not None else ()),
    )
    rows, held = corpus_rows(args.corpus, args.clips, args.held_out)
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        train(recipe, work, args.corpus, rows, held)
        if args.train_only:
            print(*losses_table(work / "run"), sep="\n")
            return
        scored, epochs, scoring_s = bench.score(recipe, work / "run", held, work / "score-cache", recordings=True)
        strengths = strength_rows(work / "run", args.strengths, held, work / "score-cache")
        report(work, recipe, scored, epochs, scoring_s, strengths)
        if args.chart is not None:
            print(f"\nthe curves: {chart(args.chart, scored, epochs)}")


if __name__ == "__main__":
    main()
