"""Where in the spectrum a fine-tune's renders differ from its speaker's recordings (not a test).

For joe and chosen epochs of a ``tests/bench/finetune_quality.py`` run, the held-out lines rendered as that bench
renders them (the leaderboard's cache, the same seed; ``--noise-scale``) and each held-out recording resynthesized
through the epoch's posterior encoder and decoder (``tests/bench/resynthesis.py``: no prior, no flow): the
long-term average spectrum of the louder half of each clip's frames (``scipy.signal.stft``, 1,024 points at the
voice's rate, 75% overlap; the power of the frames above their clip's median averaged), as the share of its power
in each band, dB, beside the recordings' (resampled to the voice's rate as the dataset is). A band where the renders
carry more than the recordings while the resyntheses do not is energy the decoder makes from the inference
path's latents, not from what it learned of the recordings.

Two further tables for the same epochs (``--training-clips N``): on N clips of the run's own training cache, the
decoder given the posterior's mean, the prior expanded by the clip's own alignment (MAS, as training aligns it)
at noise_scale 0.667 and 0, and the whole render (durations predicted) at 0.667 and 0, each band's share and its
DNSMOS OVRL; and the renders with their bands set to the recordings' level (an STFT gain per band, from 5 kHz up
and over all bands), DNSMOS again: whether the spectrum's balance is what the renders' quality loses.

Usage: ``.venv/bin/python tests/bench/spectrum.py --work DIR --epochs 8,20 [--noise-scale 0.667] [--clips 240]
[--held-out 10] [--corpus DIR] [--training-clips 12]``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import finetune_quality as target  # noqa: E402
import resynthesis  # noqa: E402
import self_consistency_parts as parts  # noqa: E402

BANDS_HZ = (0, 250, 500, 1000, 2000, 3000, 4000, 5000, 6000, 8000, 11025)
"""Band edges, Hz: octaves at the bottom, 1 kHz steps through the formants, the sibilant and air bands on top."""
N_FFT = 1024
"""Welch's segment length, samples (the voice's ``n_fft``)."""


def arguments(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    target.run_options(parser)
    parser.add_argument("--epochs", required=True, help="epochs to measure, from 1, comma-separated")
    parser.add_argument("--noise-scale", type=float, default=0.667, help="the renders' noise_scale")
    parser.add_argument("--training-clips", type=int, default=0, help="also decompose on N training clips")
    return parser.parse_args(argv)


def band_shares(clips: list[np.ndarray], rate: int) -> list[float]:
    """The clips' long-term spectrum (their louder frames) as each band's share of its power, dB."""
    from scipy.signal import stft

    power = []
    for clip in clips:
        _, _, frames = stft(clip, rate, nperseg=N_FFT, noverlap=N_FFT * 3 // 4)
        spectra = np.abs(frames) ** 2  # [bins, frames]
        energy = spectra.sum(axis=0)
        power.append(spectra[:, energy > np.median(energy)].mean(axis=1))
    mean = np.mean(power, axis=0)
    freqs = np.fft.rfftfreq(N_FFT, 1 / rate)
    edges = zip(BANDS_HZ, BANDS_HZ[1:], strict=False)
    return [float(10 * np.log10(mean[(freqs >= lo) & (freqs < hi)].sum() / mean.sum())) for lo, hi in edges]


def row(name: str, shares: list[float], *more: str) -> str:
    return f"| {name} | " + " | ".join([*(f"{s:.1f}" for s in shares), *more]) + " |"


def header(first: str, *more: str) -> str:
    heads = [f"{lo}–{hi}" for lo, hi in zip(BANDS_HZ, BANDS_HZ[1:], strict=False)]
    return f"| {first} | " + " | ".join([*heads, *more]) + " |\n|---|" + "---:|" * (len(heads) + len(more))


def ovrl(clips: list[np.ndarray], rate: int) -> str:
    """The clips' mean DNSMOS P.835 OVRL, ``3.17``."""
    from trainer.evaluate.quality import dnsmos

    return f"{np.mean([dnsmos(clip, rate).ovrl for clip in clips]):.2f}"


def equalized(clip: np.ndarray, rate: int, gains_db: list[float], from_hz: float) -> np.ndarray:
    """``clip`` (float32 ``[N]``) with each band from ``from_hz`` up scaled by its gain in ``gains_db`` (one per
    band of ``BANDS_HZ``; an STFT gain, then the inverse STFT), float32 ``[N]``."""
    from scipy.signal import istft, stft

    freqs, _, frames = stft(clip, rate, nperseg=N_FFT, noverlap=N_FFT * 3 // 4)
    gain = np.ones_like(freqs)
    for (lo, hi), db in zip(zip(BANDS_HZ, BANDS_HZ[1:], strict=False), gains_db, strict=True):
        if lo >= from_hz:
            gain[(freqs >= lo) & (freqs < hi)] = 10 ** (db / 20)
    _, out = istft(frames * gain[:, None], rate, nperseg=N_FFT, noverlap=N_FFT * 3 // 4)
    return out[: len(clip)].astype(np.float32)


def decomposed(checkpoint: Path, cache_folder: Path, count: int) -> dict[str, list[np.ndarray]]:
    """``count`` clips spread over a run's training cache, each as recorded and as ``checkpoint``'s decoder makes
    it from the posterior's mean, from the prior at the clip's own alignment (noise_scale 0.667 and 0), and from
    a whole render (0.667 and 0; noise_w 0.8): float32 ``[N]`` at the voice's rate by kind, seed 0."""
    import torch

    from engines.torch.vits.checkpoint import load_generator
    from trainer.data.preprocess.cache import PreprocessedCache
    from trainer.gan.generator_forward import generator_forward

    model, _ = load_generator(checkpoint)
    cache = PreprocessedCache(cache_folder)
    kinds: dict[str, list[np.ndarray]] = {"recordings": [], "posterior's mean": []}
    torch.manual_seed(0)
    with torch.no_grad():
        for index in range(0, len(cache.utterances), max(1, len(cache.utterances) // count))[:count]:
            ids = torch.from_numpy(np.array(cache.phoneme_ids(index)))[None]
            spec = torch.from_numpy(np.array(cache.spec(index)))[None]
            lengths, frames = torch.tensor([ids.shape[1]]), torch.tensor([spec.shape[2]])
            out = generator_forward(model, ids, lengths, spec, frames, None, spec.shape[2])
            kinds["recordings"].append(np.array(cache.audio(index), dtype=np.float32))
            kinds["posterior's mean"].append(model.dec(out.m_q * out.y_mask)[0, 0].numpy())
            for noise in (0.667, 0.0):
                z_p = out.m_p + torch.randn_like(out.m_p) * torch.exp(out.logs_p) * noise
                z = model.flow(z_p * out.y_mask, out.y_mask, g=None, reverse=True)
                kinds.setdefault(f"prior at its alignment, {noise:g}", []).append(
                    model.dec(z * out.y_mask)[0, 0].numpy()
                )
                render = model.infer(ids, lengths, scales=(noise, 1.0, 0.8))[0, 0].numpy()
                kinds.setdefault(f"render, {noise:g}", []).append(render)
    return kinds


def training_tables(work: Path, epochs: dict[str, Path], count: int, rate: int) -> None:
    """Print the decomposition on ``count`` training clips and the band-matched renders' OVRL, per epoch."""
    for name, checkpoint in epochs.items():
        kinds = decomposed(checkpoint, work / "run" / "cache", count)
        print("", header(f"{name}, {count} training clips", "OVRL"), sep="\n")
        for kind, clips in kinds.items():
            print(row(kind, band_shares(clips, rate), ovrl(clips, rate)), flush=True)
        renders = kinds["render, 0.667"]
        gains = list(np.subtract(band_shares(kinds["recordings"], rate), band_shares(renders, rate)))
        for label, from_hz in (
            ("render, 0.667, bands from 5 kHz at the recordings' level", 5000),
            ("render, 0.667, every band at the recordings' level", 0),
        ):
            matched = [equalized(clip, rate, gains, from_hz) for clip in renders]
            print(row(label, band_shares(matched, rate), ovrl(matched, rate)), flush=True)


def main(argv=None) -> None:
    from trainer.evaluate.render import Candidate, RenderSettings, render

    args = arguments(argv)
    by_epoch = {epoch + 1: path for epoch, path in parts.epoch_checkpoints(args.work / "run")}
    held = target.held_lines(args)
    rate = 22050
    recordings = [resynthesis.recording(line.reference, rate) for line in held]
    settings = RenderSettings(noise_scale=args.noise_scale, noise_w=0.8, seed=0)
    print(header("share of power, dB, band Hz"))
    print(row("recordings", band_shares(recordings, rate)), flush=True)
    candidates = [("joe", parts.start_voice_path("joe"), by_epoch[1])]  # epoch 1 warms up: joe's decoder
    candidates += [(f"epoch {e}", by_epoch[int(e)], by_epoch[int(e)]) for e in args.epochs.split(",")]
    for name, model, checkpoint in candidates:
        candidate = Candidate(label=name, model_path=model)
        renders = [render(candidate, line.text, settings, args.work / "score-cache").audio for line in held]
        print(row(f"{name}, rendered", band_shares(renders, rate)), flush=True)
        print(row(f"{name}, resynthesized", band_shares(resynthesis.resynthesized(checkpoint, recordings), rate)))
    if args.training_clips:
        chosen = {f"epoch {e}": by_epoch[int(e)] for e in args.epochs.split(",")}
        training_tables(args.work, {"joe (epoch 1)": by_epoch[1], **chosen}, args.training_clips, rate)


if __name__ == "__main__":
    main()
