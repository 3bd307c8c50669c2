"""Quality evidence for fine-tuning: the Compare page's leaderboard before and after (not a test).

Fine-tunes the default voice (en_US-joe-medium, ONNX) on ``../shared/corpus/target-voice`` with the
``medium`` preset and scores, on the run's held-out clips against the target speaker's own recordings:
joe (the start), the run's ranked checkpoints and the exported best voice, with every measure of
``trainer.evaluate.leaderboard`` (val_mel, MCD after DTW, F0 RMSE and mean-F0 gap, speaker similarity,
DNSMOS P.835, WER, speaking rate). Targets (issue 16): speaker similarity to the target rises; DNSMOS OVRL
does not fall by more than 0.2; rendering and scoring 5 candidates x 10 lines again (cached renders) takes
under a minute. With ``--scratch`` it also trains from scratch and compares val_mel at ``--compare-epoch``
(target: the ONNX start at least 30% lower).

Usage: ``.venv/bin/python tests/bench/finetune_quality.py [--epochs 5] [--clips 240] [--held-out 10]
[--device auto] [--work DIR] [--scratch]``. With ``--work DIR`` a finished run in ``DIR/from-joe`` is
scored again without training.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "target-voice"


def prepare(work: Path, clips: int, held_out: int):
    """A project of the first ``clips`` clips with the last ``held_out`` excluded; returns (project, held-out rows)."""
    import shutil

    from trainer.dataset.curation import set_excluded
    from trainer.dataset.project import DatasetProject

    rows = (CORPUS / "metadata.csv").read_text(encoding="utf-8").splitlines()[:clips]
    source = work / "source"
    (source / "wavs").mkdir(parents=True)
    (source / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for row in rows:
        shutil.copy(CORPUS / "wavs" / f"{row.split('|')[0]}.flac", source / "wavs")
    project = DatasetProject.create(work / "project")
    project.import_sources([source])
    held = [r.split("|", 1) for r in rows[-held_out:]]
    set_excluded(project, [clip_id for clip_id, _ in held], True)
    return project, held


def train(project, out: Path, start: str, epochs: int, device: str) -> tuple[Path, list[float]]:
    """One run; returns the best checkpoint and val_mel per epoch."""
    from trainer.event_log import read_events
    from trainer.options import RunOptions
    from trainer.run import create_run, fit

    run = create_run(
        RunOptions(dataset=project.folder, out=out, start=start, preset="medium", epochs=epochs, device=device)
    )
    best = fit(run)
    val = [r.losses["val_mel"] for r in read_events(run / "events.jsonl") if r.kind == "epoch"]
    return best, val


def candidates(run: Path, work: Path, count: int):
    """joe, the exported best, the run's ranked checkpoints and its last: ``count`` candidates at most, joe first."""
    from trainer.checkpoints import best_checkpoint
    from trainer.evaluate.lines import run_candidates
    from trainer.evaluate.render import Candidate
    from trainer.export import export_voice

    offered = run_candidates(run)
    start = [c for c in offered if c.label.startswith("start")]
    ranked = [c for c in offered if c.label.startswith("epoch") or c.label == "last"]
    onnx = work / "tuned.onnx"
    if not onnx.exists():
        export_voice(best_checkpoint(run).path, onnx)
    export = [Candidate(label="export (best)", model_path=onnx)]
    return (start + export + ranked)[:count]


def score(chosen, lines, cache: Path) -> tuple[list, float]:
    """The leaderboard rows and the seconds it took."""
    from trainer.evaluate.leaderboard import score as score_rows
    from trainer.evaluate.render import RenderSettings

    started = time.perf_counter()
    rows = score_rows(chosen, lines, RenderSettings(seed=0), cache)
    return rows, time.perf_counter() - started


def report(rows, first_s: float, again_s: float, count: int, lines: int) -> None:
    from trainer.evaluate.leaderboard import table

    print(table(rows))
    before, after = rows[0], rows[1]
    print(f"\nscoring {count} candidates x {lines} lines: {first_s:.0f} s the first time, {again_s:.1f} s again")
    print(f"  target: again under 60 s -> {'met' if again_s < 60 else 'NOT met'}")
    if before.similarity is not None and after.similarity is not None:
        rises = after.similarity > before.similarity
        print(f"  speaker similarity {before.similarity:.3f} -> {after.similarity:.3f}: {'rises' if rises else 'NOT'}")
    if before.dnsmos_ovrl is not None and after.dnsmos_ovrl is not None:
        verdict = "met" if before.dnsmos_ovrl - after.dnsmos_ovrl <= 0.2 else "NOT met"
        print(f"  DNSMOS OVRL {before.dnsmos_ovrl:.2f} -> {after.dnsmos_ovrl:.2f}: falls at most 0.2: {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--compare-epoch", type=int, default=5, help="1-based epoch of the val_mel comparison")
    parser.add_argument("--clips", type=int, default=240)
    parser.add_argument("--held-out", type=int, default=10)
    parser.add_argument("--candidates", type=int, default=5)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--work", type=Path, help="keep the runs and voices in this folder (default: a temporary one)")
    parser.add_argument("--scratch", action="store_true", help="also train from scratch and compare val_mel")
    args = parser.parse_args()
    if not CORPUS.exists():
        sys.exit(f"corpus not found: {CORPUS}")
    from trainer.evaluate.lines import held_out_lines

    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        run = work / "from-joe"
        if not (run / "checkpoints" / "best.json").exists():
            project, _ = prepare(work, args.clips, args.held_out)
            train(project, run, "joe", args.epochs, args.device)
        chosen = candidates(run, work, args.candidates)
        lines = held_out_lines(run, limit=args.held_out)
        rows, first_s = score(chosen, lines, work / "compare-cache")
        rows, again_s = score(chosen, lines, work / "compare-cache")
        print(f"target-voice: {args.clips} clips; medium preset from joe; {len(lines)} held-out lines")
        report(rows, first_s, again_s, len(chosen), len(lines))
        if args.scratch:
            from trainer.event_log import read_events

            val_onnx = [r.losses["val_mel"] for r in read_events(run / "events.jsonl") if r.kind == "epoch"]
            _, val_scratch = train(project_of(work), work / "from-scratch", "scratch", args.compare_epoch, args.device)
            epoch = min(args.compare_epoch, len(val_onnx), len(val_scratch)) - 1
            ratio = val_onnx[epoch] / val_scratch[epoch]
            onnx, scratch = val_onnx[epoch], val_scratch[epoch]
            print(f"\nval_mel at epoch {epoch + 1}: from ONNX {onnx:.3f}, from scratch {scratch:.3f}")
            print(f"ONNX start {100 * (1 - ratio):.0f}% lower (target: at least 30%)")


def project_of(work: Path):
    from trainer.dataset.project import DatasetProject

    return DatasetProject(work / "project")


if __name__ == "__main__":
    main()
