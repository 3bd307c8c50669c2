"""How far the voice as spoken moves in the first steps of a fine-tune (not a test; issue 28's probe).

Imports joe (or ``--voice``), recovers its training-only parts (``trainer.start.recovery``: ``--recovery old`` the NLL
fit alone, ``new`` the NLL warm start and the training objective), then trains it for ``--steps`` steps on the
generator's losses alone (mel + KL + duration, ``trainer.gan.generator_losses``; no discriminator), AdamW at
``--lr``, ``--batch`` lines a step, with the inference path before the decoder at ``--inference-scale`` of the
rate (``0``: frozen). Data: ``--data self`` lines the voice itself spoke (noise_scale 0.667, noise_w 0.8: a sound
fine-tune has nothing to change), ``--data target`` the target-voice corpus's recordings. Every ``--every``
steps the held-out lines are rendered (fixed seeds) and scored against the data's held-out audio: F0 gap (Hz) and
MCD (dB) from ``trainer.evaluate.measures``, the held-out KL per frame, and how far ``enc_p``, ``flow``, ``dec``
and ``enc_q`` moved (relative L2 against the start).

Usage: ``.venv/bin/python tests/bench/prior_drift.py [--data self|target] [--recovery new|old]
[--inference-scale 0.1] [--steps 40] [--lines 60] [--held-out 8]``. About 10-25 s a step on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "target-voice"
PARTS = ("enc_p.", "flow.", "dec.", "enc_q.")


def transcripts(count: int) -> list[tuple[str, str]]:
    """The first ``count`` (clip id, text) rows of the target-voice corpus."""
    rows = (CORPUS / "metadata.csv").read_text(encoding="utf-8").splitlines()[:count]
    return [(row.split("|")[0], row.split("|")[-1]) for row in rows]


def recordings(rows, phonemizer, rate: int):
    """The corpus's own audio as ``trainer.start.recovery.Example`` s (no ``z``: its frame count only)."""
    import soundfile
    import soxr
    import torch

    from trainer.data.preprocess import training_phoneme_ids
    from trainer.start.recovery import Example

    examples = []
    for clip, text in rows:
        audio, source_rate = soundfile.read(CORPUS / "wavs" / f"{clip}.flac", dtype="float32")
        audio = soxr.resample(audio, source_rate, rate)
        frames = len(audio) // 256
        ids = torch.tensor(training_phoneme_ids(phonemizer, text))
        clip_audio = torch.from_numpy(audio[: frames * 256])
        examples.append(Example(ids, torch.zeros_like(ids), torch.zeros(1, frames), clip_audio))
    return examples


def prepared(args):
    """The imported voice with its parts recovered, the examples to train on and the held-out ones."""
    import torch

    from engines.phonemes import Phonemizer
    from engines.registry import default_voice
    from engines.torch.vits.onnx_import import load_onnx_generator
    from engines.voice import load_voice
    from trainer.data.preprocess import training_phoneme_ids
    from trainer.run.presets import TrainingConfig
    from trainer.start.recovery import recover, speak

    voice = load_voice(Path(args.voice)) if args.voice else default_voice()
    model, _ = load_onnx_generator(voice.model_path, 1)
    config = TrainingConfig(sample_rate=voice.config.sample_rate)
    phonemizer, rows = Phonemizer(voice.config), transcripts(args.lines + args.held_out)
    torch.manual_seed(0)
    spoken = speak(model, [training_phoneme_ids(phonemizer, text) for _, text in rows])
    fit_steps = 0 if args.recovery == "old" else args.fit_steps
    report = recover(
        model, spoken[args.held_out :], config, warm_steps=args.warm_steps, fit_steps=fit_steps, held_out=0
    )
    print(f"recovery ({args.recovery}): mel L1 {report.mel_l1:.3f}, duration NLL {report.duration_nll:.3f}")
    data = spoken if args.data == "self" else recordings(rows, phonemizer, config.sample_rate)
    return model, config, data[args.held_out :], data[: args.held_out]


def optimizer(model, args):
    """AdamW with the inference path at ``--inference-scale`` of the rate (frozen at 0)."""
    import torch

    from trainer.gan.system import generator_groups
    from trainer.run.presets import TrainingConfig

    groups = generator_groups(model, TrainingConfig(learning_rate=args.lr, inference_lr_scale=args.inference_scale))
    for parameter in groups[1]["params"]:
        parameter.requires_grad_(args.inference_scale > 0)
    return torch.optim.AdamW(groups, args.lr, betas=(0.8, 0.99), eps=1e-9)


def score(model, config, held, start) -> str:
    """F0 gap, MCD, held-out KL and the parts' relative movement, in one line."""
    import numpy as np
    import torch

    from trainer.evaluate.measures import MeasureError, f0_rmse, mel_cepstral_distortion
    from trainer.start.recovery import held_out_kl

    model.eval()
    gaps, mcds, rate = [], [], config.sample_rate
    with torch.no_grad():
        for i, example in enumerate(held):
            torch.manual_seed(100 + i)
            ids = example.phoneme_ids[None]
            audio = model.infer(ids, torch.tensor([ids.shape[1]]))[0, 0].numpy()
            reference = example.audio.numpy()
            try:
                gaps.append(f0_rmse(reference, rate, audio, rate)[1])
            except MeasureError:
                return f"line {i + 1} has no voiced frame left"
            mcds.append(mel_cepstral_distortion(reference, rate, audio, rate))
    kl = held_out_kl(model, held, config)
    moved = " ".join(f"{part[:-1]} {100 * _moved(model, start, part):.2f}%" for part in PARTS)
    return f"F0 gap {np.mean(gaps):+.1f} Hz, MCD {np.mean(mcds):.2f} dB, KL {kl:.2f}; moved: {moved}"


def _moved(model, start, prefix: str) -> float:
    import torch

    now = [p.detach().flatten() for n, p in model.named_parameters() if n.startswith(prefix)]
    before = [start[n].flatten() for n, _ in model.named_parameters() if n.startswith(prefix)]
    return float((torch.cat(now) - torch.cat(before)).norm() / torch.cat(before).norm())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", choices=("self", "target"), default="self")
    parser.add_argument("--recovery", choices=("new", "old"), default="new")
    parser.add_argument("--inference-scale", type=float, default=0.1)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--lines", type=int, default=60)
    parser.add_argument("--held-out", type=int, default=8)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--lr", type=float, default=2e-4)
    parser.add_argument("--warm-steps", type=int, default=600)
    parser.add_argument("--fit-steps", type=int, default=120)
    parser.add_argument("--voice", help="an .onnx voice (default: joe)")
    args = parser.parse_args()
    if not CORPUS.exists():
        sys.exit(f"corpus not found: {CORPUS}")
    from trainer.gan.generator_losses import generator_losses
    from trainer.start.recovery import _batch

    model, config, train, held = prepared(args)
    start = {n: p.detach().clone() for n, p in model.named_parameters()}
    opt, rng, began = optimizer(model, args), random.Random(0), time.perf_counter()
    print(f"step 0: {score(model, config, held, start)}", flush=True)
    for step in range(1, args.steps + 1):
        model.train()
        loss = generator_losses(model, _batch(rng.sample(train, args.batch), model), config).total(config)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % args.every == 0:
            print(f"step {step} ({time.perf_counter() - began:.0f} s): {score(model, config, held, start)}", flush=True)


if __name__ == "__main__":
    main()
