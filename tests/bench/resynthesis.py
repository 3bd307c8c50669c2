"""Where a fine-tune's quality cost lives (not a test): the decoder's, or the inference path's.

A render goes text -> prior -> flow -> decoder; in training the decoder learns from the posterior of the
recordings (``enc_q``). This bench puts each held-out recording of ``tests/bench/finetune_quality.py``'s run
through one checkpoint's posterior encoder and decoder (``z`` = the posterior's mean ``m``, ``[1, C, T]``; no
prior, no flow, no noise) and scores the audio with DNSMOS P.835 (``trainer.evaluate.quality``) and its speaker
similarity to the recordings (``trainer.evaluate.similarity``, as the leaderboard's), beside the
recordings themselves (resampled to the voice's rate as the dataset is). Where the resynthesis is as clean as the
recordings, the decoder has learned them and what a render loses comes from the inference path (latents the
decoder was not trained on); where it is not, the decoder itself costs quality. The similarity of joe's own
decoder's resynthesis says how much of the target's voice the posterior's latents carry to an unadapted decoder.

Usage: ``.venv/bin/python tests/bench/resynthesis.py --work DIR [--epochs 1,5,10] [--clips 240] [--held-out 10]
[--corpus DIR]``, ``DIR`` a ``finetune_quality.py --work`` folder with its run trained.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import finetune_quality as target  # noqa: E402
import self_consistency_parts as parts  # noqa: E402


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.run_options(parser)
    parser.add_argument("--epochs", help="epochs to resynthesize with, from 1, comma-separated (default: all)")
    return parser.parse_args(argv)


def recording(path: Path, rate: int) -> np.ndarray:
    """The recording at ``path`` as float32 ``[N]`` at ``rate`` Hz (soxr, as the dataset resamples)."""
    import soundfile as sf
    import soxr

    audio, source_rate = sf.read(path, dtype="float32", always_2d=True)
    mono = audio.mean(axis=1)
    return soxr.resample(mono, source_rate, rate).astype(np.float32) if source_rate != rate else mono


def resynthesized(checkpoint: Path, clips: list[np.ndarray]) -> list[np.ndarray]:
    """Each clip (float32 ``[N]`` at the voice's rate) through ``checkpoint``'s ``enc_q`` (its mean) and decoder."""
    import torch

    from engines.torch.vits.checkpoint import load_generator
    from trainer.gan.mel import spectrogram

    model, loaded = load_generator(checkpoint)
    out = []
    with torch.no_grad():
        for clip in clips:
            n_fft, hop = 2 * (loaded.config.spec_channels - 1), loaded.config.hop_length
            spec = spectrogram(torch.from_numpy(clip)[None], n_fft, hop, n_fft)
            _, mean, _, mask = model.enc_q(spec, torch.tensor([spec.shape[2]]), g=None)
            out.append(model.dec(mean * mask)[0, 0].float().numpy())
    return out


def voice_of(clips: list[np.ndarray], rate: int) -> np.ndarray:
    """The clips' speaker embedding: the normalised mean of their d-vectors (as the leaderboard's similarity)."""
    from trainer.evaluate.similarity import mean_embedding, utterance_embedding

    return mean_embedding([utterance_embedding(clip, rate) for clip in clips])


def scored(name: str, clips: list[np.ndarray], rate: int, recorded: np.ndarray) -> str:
    """``name  SIG 3.41  BAK 4.09  OVRL 3.17  similarity 0.91`` (DNSMOS means over the clips; similarity: the
    cosine of the clips' speaker embedding and the recordings', ``recorded``, as the leaderboard measures it)."""
    from trainer.evaluate.quality import dnsmos
    from trainer.evaluate.similarity import cosine

    ratings = [dnsmos(clip, rate) for clip in clips]
    sig, bak, ovrl = (float(np.mean([getattr(r, k) for r in ratings])) for k in ("sig", "bak", "ovrl"))
    similar = cosine(voice_of(clips, rate), recorded)
    return f"{name:<22}  SIG {sig:.2f}  BAK {bak:.2f}  OVRL {ovrl:.2f}  similarity {similar:.3f}"


def main(argv=None) -> None:
    args = arguments(argv)
    checkpoints = parts.epoch_checkpoints(args.work / "run")
    if not checkpoints:
        sys.exit(f"no checkpoint in {args.work / 'run'}: train it with finetune_quality.py --work first")
    wanted = {int(e) for e in args.epochs.split(",")} if args.epochs else {e + 1 for e, _ in checkpoints}
    from engines.torch.vits.checkpoint import read_checkpoint

    rate = read_checkpoint(checkpoints[0][1]).sample_rate
    held = target.held_lines(args)
    clips = [recording(line.reference, rate) for line in held]
    print(f"{len(clips)} held-out recordings of {args.corpus}, at {rate} Hz; z = the posterior's mean")
    recorded = voice_of(clips, rate)
    print(scored("recordings", clips, rate, recorded), flush=True)
    for epoch, path in checkpoints:
        if epoch + 1 in wanted:
            print(scored(f"epoch {epoch + 1} resynthesized", resynthesized(path, clips), rate, recorded), flush=True)


if __name__ == "__main__":
    main()
