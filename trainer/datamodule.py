"""Batches for training from the preprocessed cache (``trainer.preprocess``).

The cache's flat files are memory-mapped, so the whole dataset sits in RAM (the
page cache) after the first epoch, and worker processes (persistent between
epochs) share it without copies. The validation split is fixed by the seed, so a
resumed run validates on the same utterances.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from trainer.preprocess import PreprocessedCache


@dataclass
class Batch:
    """A padded batch.

    Attributes:
        phoneme_ids: ``[B, T_x]`` int64; phoneme_lengths ``[B]``.
        spec: ``[B, n_fft // 2 + 1, T_y]`` float32; spec_lengths ``[B]`` (frames).
        audio: ``[B, 1, N]`` float32 in [-1, 1]; audio_lengths ``[B]`` (samples).
        speaker_ids: ``[B]`` int64, or None for one speaker.
    """

    phoneme_ids: torch.Tensor
    phoneme_lengths: torch.Tensor
    spec: torch.Tensor
    spec_lengths: torch.Tensor
    audio: torch.Tensor
    audio_lengths: torch.Tensor
    speaker_ids: torch.Tensor | None

    def to(self, device) -> Batch:
        """The batch on ``device`` (non-blocking copies)."""
        moved: dict[str, Any] = {k: v if v is None else v.to(device, non_blocking=True) for k, v in vars(self).items()}
        return Batch(**moved)

    def __len__(self) -> int:
        return self.phoneme_ids.shape[0]


class CacheDataset(Dataset):
    """Utterances of a cache by index: ``(phoneme_ids, spec [C, T], audio [N], speaker_id or None)``.

    ``speakers`` names the speaker ids in order; empty for a one-speaker model.
    """

    def __init__(self, folder: Path | str, indices: list[int], speakers: list[str]) -> None:
        self.folder, self.indices, self.speakers = Path(folder), indices, speakers
        self._cache: PreprocessedCache | None = None

    @property
    def cache(self) -> PreprocessedCache:
        if self._cache is None:  # opened in each worker process, not pickled
            self._cache = PreprocessedCache(self.folder)
        return self._cache

    def __getstate__(self):
        return {**self.__dict__, "_cache": None}

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, item: int):
        index = self.indices[item]
        return (
            torch.from_numpy(np.array(self.cache.phoneme_ids(index))),
            torch.from_numpy(np.ascontiguousarray(self.cache.spec(index))),
            torch.from_numpy(np.array(self.cache.audio(index))),
            speaker_id(self.cache.utterances[index], self.speakers, self.folder) if self.speakers else None,
        )


def speaker_id(utterance, speakers: list[str], folder: Path) -> int:
    """The id of an utterance's speaker in ``speakers`` (never a guess: an unknown speaker is an error).

    Raises:
        ValueError: the utterance has no speaker, or one not in ``speakers``; names the clip.
    """
    if utterance.speaker not in speakers:
        raise ValueError(f"{folder}: clip {utterance.id}: speaker {utterance.speaker!r} is not one of {speakers}")
    return speakers.index(utterance.speaker)


def collate(items) -> Batch:
    """Pad a list of dataset items into a :class:`Batch`."""
    ids, specs, audios, speakers = zip(*items, strict=True)
    count = len(items)
    phoneme_ids = torch.zeros(count, max(len(i) for i in ids), dtype=torch.long)
    spec = torch.zeros(count, specs[0].shape[0], max(s.shape[1] for s in specs))
    audio = torch.zeros(count, 1, max(len(a) for a in audios))
    for row, (i, s, a) in enumerate(zip(ids, specs, audios, strict=True)):
        phoneme_ids[row, : len(i)] = i
        spec[row, :, : s.shape[1]] = s
        audio[row, 0, : len(a)] = a
    return Batch(
        phoneme_ids,
        torch.tensor([len(i) for i in ids]),
        spec,
        torch.tensor([s.shape[1] for s in specs]),
        audio,
        torch.tensor([len(a) for a in audios]),
        None if speakers[0] is None else torch.tensor(speakers),
    )


def alignable(utterance) -> bool:
    """Whether MAS can align a cached utterance: no more phoneme_ids than spec frames (each text position needs
    a frame of its own). Checked here, on the host, so the GPU search never meets an item without a path
    (``trainer.align.search_indices`` does not check lengths on the GPU)."""
    return utterance.phoneme_ids[1] <= utterance.spec[1]


def split(count: int, val_fraction: float, max_val: int, seed: int) -> tuple[list[int], list[int]]:
    """Fixed train/validation indices for ``count`` utterances (at least one of each when count >= 2)."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    val = min(max_val, max(1, round(count * val_fraction))) if count >= 2 else 0
    return sorted(order[val:]), sorted(order[:val])


class CacheDataModule(L.LightningDataModule):
    """Train and validation loaders over a preprocessed cache.

    Args:
        folder: the cache.
        batch_size: utterances per batch.
        segment_frames: utterances shorter than the training window are left out (reported in ``skipped``),
            and so are those with more phoneme_ids than spec frames (in ``unalignable``; see :func:`alignable`).
        multi_speaker: pass speaker ids (the model has a speaker embedding).

    Raises:
        ValueError: (in ``setup``) no utterance long enough to train on, or (multi-speaker) a clip whose
            speaker is not one of the cache's.
    """

    def __init__(
        self,
        folder: Path | str,
        batch_size: int,
        segment_frames: int,
        val_fraction: float = 0.05,
        max_val: int = 16,
        seed: int = 1234,
        num_workers: int = 0,
        multi_speaker: bool = False,
    ) -> None:
        super().__init__()
        self.folder, self.batch_size, self.segment_frames = Path(folder), batch_size, segment_frames
        self.val_fraction, self.max_val, self.seed = val_fraction, max_val, seed
        self.num_workers, self.multi_speaker = num_workers, multi_speaker
        self.skipped: list[str] = []
        self.unalignable: list[str] = []

    def setup(self, stage: str | None = None) -> None:
        if hasattr(self, "train_set"):  # the run sets up early to check the data; Lightning calls again
            return
        cache = PreprocessedCache(self.folder)
        self.skipped = [u.id for u in cache.utterances if u.spec[1] < self.segment_frames]
        self.unalignable = [u.id for u in cache.utterances if u.spec[1] >= self.segment_frames and not alignable(u)]
        usable = [i for i, u in enumerate(cache.utterances) if u.spec[1] >= self.segment_frames and alignable(u)]
        if not usable:
            too_long = f"; {len(self.unalignable)} more have more phoneme_ids than frames" if self.unalignable else ""
            raise ValueError(
                f"{self.folder}: no utterance is as long as one training segment ({self.segment_frames} frames)"
                + too_long
            )
        train, val = split(len(usable), self.val_fraction, self.max_val, self.seed)
        speakers = cache.speakers if self.multi_speaker else []
        for i in usable if speakers else []:  # refused before training starts, not in a worker mid-epoch
            speaker_id(cache.utterances[i], speakers, self.folder)
        self.train_set = CacheDataset(self.folder, [usable[i] for i in train], speakers)
        self.val_set = CacheDataset(self.folder, [usable[i] for i in val], speakers)

    def _loader(self, dataset: CacheDataset, shuffle: bool) -> DataLoader:
        return DataLoader(
            dataset,
            batch_size=self.batch_size,
            shuffle=shuffle,
            collate_fn=collate,
            num_workers=self.num_workers,
            persistent_workers=self.num_workers > 0,
            pin_memory=torch.cuda.is_available(),
            drop_last=shuffle and len(dataset) > self.batch_size,
        )

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.train_set, shuffle=True)

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.val_set, shuffle=False)
