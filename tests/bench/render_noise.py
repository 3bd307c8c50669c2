"""Is a fine-tune's quality cost the prior's sampling noise (not a test)?

A render samples the prior with ``noise_scale`` (the latents' spread, Piper's default 0.667) and the duration
predictor with ``noise_w`` (0.8). If a fine-tuned prior's spread no longer matches what its decoder learned from,
a render is noisier than the decoder's training input and rendering with less noise should be cleaner. This
bench scores joe and chosen epochs of a ``tests/bench/finetune_quality.py`` run on its held-out lines, as that
bench does (the leaderboard; the same seed), at each ``noise_scale`` of ``--noise-scales``, ``noise_w`` fixed.
``--length-scale`` renders them slower or faster too (a fine-tune that speaks faster than its speaker: is the pace
what a recognizer misses?). ``--strengths 0.75,0.85`` also scores each chosen epoch at those strengths
(``trainer.checkpoints.strength``: its generator moved back towards joe's; written in ``RUN/strengths/``).

Usage: ``.venv/bin/python tests/bench/render_noise.py --work DIR --epochs 8,12 [--noise-scales 0.667,0.4,0.2]
[--noise-w 0.8] [--length-scale 1.0] [--strengths S,S] [--clips 240] [--held-out 10] [--corpus DIR]``, ``DIR`` a
``finetune_quality.py --work`` folder with its run trained.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import finetune_quality as target  # noqa: E402
import self_consistency_parts as parts  # noqa: E402


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.run_options(parser)
    parser.add_argument("--epochs", required=True, help="epochs to score, from 1, comma-separated")
    parser.add_argument("--noise-scales", default="0.667,0.4,0.2", help="noise_scale values, comma-separated")
    parser.add_argument("--noise-w", type=float, default=0.8)
    parser.add_argument("--length-scale", type=float, default=1.0, help="the renders' length_scale")
    parser.add_argument("--strengths", default="", help="also each epoch at these strengths (0-1), comma-separated")
    return parser.parse_args(argv)


def main(argv=None) -> None:
    from trainer.checkpoints.strength import write_at_strength
    from trainer.evaluate.leaderboard import score, table
    from trainer.evaluate.render import Candidate, RenderSettings

    args = arguments(argv)
    by_epoch = {epoch + 1: path for epoch, path in parts.epoch_checkpoints(args.work / "run")}
    held = target.held_lines(args)
    candidates = [Candidate(label="start", model_path=parts.start_voice_path("joe"))]
    for epoch in (int(e) for e in args.epochs.split(",")):
        candidates.append(Candidate(label=f"epoch {epoch}", model_path=by_epoch[epoch]))
        for strength in (float(s) for s in args.strengths.split(",") if s):
            taken = write_at_strength(by_epoch[epoch], strength, start="joe")
            candidates.append(Candidate(label=f"epoch {epoch} at {strength:.0%}", model_path=taken))
    for index, noise_scale in enumerate(float(s) for s in args.noise_scales.split(",")):
        settings = RenderSettings(noise_scale=noise_scale, noise_w=args.noise_w, length_scale=args.length_scale, seed=0)
        rows = score(candidates, held, settings, args.work / "score-cache", recordings=index == 0)
        said = f"noise_scale {noise_scale}, noise_w {args.noise_w}, length_scale {args.length_scale}:"
        print(said, table(rows), sep="\n", flush=True)


if __name__ == "__main__":
    main()
