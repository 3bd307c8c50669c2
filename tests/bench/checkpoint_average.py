"""Does averaging a run's checkpoints make a cleaner voice (not a test)?

Averaging a GAN generator's weights over its last steps (Polyak averaging; Yazici et al. 2019, "The Unusual
Effectiveness of Averaging in GAN Training", ICLR) smooths the oscillation that adversarial training leaves in
any one snapshot. This bench takes a ``tests/bench/finetune_quality.py --work`` folder whose run kept every
epoch's checkpoint, writes the uniform average of the generator weights (``model_g.*``; weight norm's ``g`` and
``v`` averaged each) over each window of epochs (``--windows 11-20,16-20``, epochs from 1) as
``run/averaged/epochs-A-B.ckpt``, and scores joe, each window's last epoch and each average with the
leaderboard on the held-out lines, as ``finetune_quality.py`` scores the epochs.

``--blends 20:0.5,20:0.7,20:0.7:dec`` also scores epoch E's generator moved back towards the start's along the straight
line between them, ``start + a * (epoch E - start)`` for every generator weight (or a part's only:
``:dec``, ``:enc_p``, ``:flow``, ``:dp``; the others kept at epoch E's) (the start: the run's first
checkpoint, a discriminator warm-up epoch whose generator is the start voice's; interpolating a fine-tuned
network's weights with its pre-trained ones: Wortsman et al. 2022, "Robust fine-tuning of zero-shot models"
(WiSE-FT), CVPR; for fine-tuned GAN generators, Pinkney & Adler 2020, "Resolution Dependent GAN Interpolation
for Controllable Image Synthesis Between Domains"), written as ``run/averaged/blend-E-a.ckpt``.

Usage: ``.venv/bin/python tests/bench/checkpoint_average.py --work DIR [--windows 11-20,16-20]
[--blends 20:0.5] [--clips 240] [--held-out 10] [--corpus DIR]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import finetune_quality as target  # noqa: E402
import self_consistency as bench  # noqa: E402
import self_consistency_parts as parts  # noqa: E402

GENERATOR_PREFIX = "model_g."
"""The generator's weights in a Lightning checkpoint's ``state_dict`` (``engines.torch.vits.checkpoint``)."""


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.run_options(parser)
    parser.add_argument("--windows", default="11-20,16-20", help="epoch windows A-B (from 1), comma-separated")
    parser.add_argument(
        "--blends", default="", help="E:a pairs, comma-separated: epoch E's move from the start scaled by a (0-1)"
    )
    return parser.parse_args(argv)


def windows(text: str) -> list[tuple[int, int]]:
    """``"11-20,16-20"`` -> ``[(11, 20), (16, 20)]`` (epochs from 1, both ends kept)."""
    pairs = [part.split("-") for part in text.split(",") if part.strip()]
    return [(int(a), int(b)) for a, b in pairs]


def blends(text: str) -> list[tuple[int, float, str]]:
    """``"20:0.5,20:0.7:dec"`` -> ``[(20, 0.5, ""), (20, 0.7, "dec")]``: epoch from 1, the share of its move
    kept, and the one generator part blended (``dec``, ``enc_p``, ``flow``, ``dp``; empty: all of them)."""
    pairs = [part.split(":") + [""] for part in text.split(",") if part.strip()]
    return [(int(fields[0]), float(fields[1]), fields[2]) for fields in pairs]


def average(paths: list[Path], out: Path, weights: list[float] | None = None, part: str = "") -> Path:
    """Write the checkpoint ``paths[-1]`` with its generator's floating-point weights (``part``'s only, a
    submodule name such as ``dec``, when given) replaced by their weighted sum over ``paths`` (``weights``, one
    per path; the uniform mean when None; float32 sums, stored in each weight's own dtype) at ``out``; an
    existing ``out`` is kept."""
    import torch

    if out.is_file():
        return out
    weights = weights or [1.0 / len(paths)] * len(paths)
    prefix = GENERATOR_PREFIX + (f"{part}." if part else "")
    loaded = [torch.load(p, map_location="cpu", weights_only=False) for p in paths]
    state = loaded[-1]["state_dict"]
    for key, value in state.items():
        if key.startswith(prefix) and value.is_floating_point():
            total = sum(w * c["state_dict"][key].float() for w, c in zip(weights, loaded, strict=True))
            state[key] = total.to(value.dtype)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.save(loaded[-1], out)
    return out


def main(argv=None) -> None:
    from trainer.evaluate.leaderboard import score, table
    from trainer.evaluate.render import Candidate, RenderSettings

    args = arguments(argv)
    run = args.work / "run"
    by_epoch = {epoch + 1: path for epoch, path in parts.epoch_checkpoints(run)}
    held = target.held_lines(args)
    candidates = [Candidate(label="start", model_path=parts.start_voice_path("joe"))]
    for first, last in windows(args.windows):
        chosen = [by_epoch[e] for e in range(first, last + 1)]
        candidates.append(Candidate(label=f"epoch {last}", model_path=by_epoch[last]))
        averaged = average(chosen, run / "averaged" / f"epochs-{first}-{last}.ckpt")
        candidates.append(Candidate(label=f"mean {first}-{last}", model_path=averaged))
    for epoch, share, part in blends(args.blends):
        candidates.append(Candidate(label=f"epoch {epoch}", model_path=by_epoch[epoch]))
        name = f"blend-{epoch}-{share:g}" + (f"-{part}" if part else "")
        blended = average([by_epoch[1], by_epoch[epoch]], run / "averaged" / f"{name}.ckpt", [1 - share, share], part)
        label = f"blend {epoch} x{share:g}" + (f" {part}" if part else "")
        candidates.append(Candidate(label=label, model_path=blended))
    unique = list({c.label: c for c in candidates}.values())
    settings = RenderSettings(seed=0)  # each as it speaks (its config's inference), as finetune_quality.py scores
    with bench.Stopwatch() as watch:
        rows = score(unique, held, settings, args.work / "score-cache", recordings=True)
    print(f"scored {len(unique)} candidates on {len(held)} lines in {watch.seconds:.0f} s")
    print(table(rows))


if __name__ == "__main__":
    main()
