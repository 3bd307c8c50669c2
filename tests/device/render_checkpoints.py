"""On the GPU machine: the held-out lines spoken by the start voice and by every few epochs' checkpoints of a
``tests/bench/finetune_quality.py --train-only`` run, packed into one tar to be scored here.

The checkpoints (about 110 MB each) stay on the device; their renders travel (16-bit FLAC, about 0.7 MB per
candidate for 10 lines). Renders use the bench's settings (``noise_scale`` 0.667, ``noise_w`` 0.8, seed 0;
``trainer.evaluate.render``: the torch engine on the GPU for a checkpoint, the ONNX engine for the start voice).
The tar holds ``renders.json`` (candidates in order: label, epoch from 1 or null for the start, val_mel, KL, seconds
of training; the lines' names and texts) and ``LABEL/LINE.flac``. Score it here with
``tests/device/score_renders.py``.

Usage: ``python tests/device/render_checkpoints.py --work DIR --corpus DIR --clips N --held-out N --every K
--out renders.tar``
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "bench")]

import finetune_quality  # noqa: E402
import self_consistency_parts as parts  # noqa: E402


def candidates(run: Path, every: int) -> list[tuple[str, int | None, Path]]:
    """``(label, epoch from 1 or None, model)``: the start voice, then every ``every``-th epoch's checkpoint and
    the last one."""
    checkpoints = parts.epoch_checkpoints(run)
    chosen = [(e, p) for i, (e, p) in enumerate(checkpoints) if (e + 1) % every == 0 or i == len(checkpoints) - 1]
    start = parts.start_voice_path("joe")
    return [("start", None, start)] + [(f"epoch {e + 1}", e + 1, p) for e, p in chosen]


def flac_bytes(audio, rate: int) -> bytes:
    import soundfile

    buffer = io.BytesIO()
    soundfile.write(buffer, audio, rate, format="FLAC", subtype="PCM_16")
    return buffer.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--clips", type=int, required=True)
    parser.add_argument("--held-out", type=int, default=10)
    parser.add_argument("--every", type=int, default=5)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()

    from engines.pool import EnginePool
    from trainer.evaluate.render import Candidate, RenderSettings, render

    _, held = finetune_quality.corpus_rows(args.corpus, args.clips, args.held_out)
    losses = parts.epoch_losses(args.work / "run")
    settings, pool = RenderSettings(noise_scale=0.667, noise_w=0.8, seed=0), EnginePool()
    listed = []
    with tarfile.open(args.out, "w") as tar:
        for label, epoch, model in candidates(args.work / "run", args.every):
            candidate = Candidate(label=label, model_path=model)
            for line in held:
                rendered = render(candidate, line.text, settings, args.work / "render-cache", pool)
                data = flac_bytes(rendered.audio, rendered.sample_rate)
                info = tarfile.TarInfo(f"{label.replace(' ', '_')}/{line.name}.flac")
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            loss = losses.get(epoch - 1) if epoch else None
            listed.append(
                {
                    "label": label,
                    "epoch": epoch,
                    "val_mel": getattr(loss, "val_mel", None),
                    "train_kl": getattr(loss, "train_kl", None),
                    "val_kl": getattr(loss, "val_kl", None),
                }
            )
            print(f"rendered {label}", flush=True)
        document = {"candidates": listed, "lines": [{"name": x.name, "text": x.text} for x in held]}
        data = json.dumps(document, indent=1).encode()
        info = tarfile.TarInfo("renders.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))


if __name__ == "__main__":
    main()
