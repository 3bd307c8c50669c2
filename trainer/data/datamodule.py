"""Batches for training from the preprocessed cache (``trainer.data.preprocess``).

The cache's flat files are memory-mapped, so the whole dataset sits in RAM (the
page cache) after the first epoch, and worker processes (persistent between
epochs, each prefetching batches ahead) share it without copies; on top of it each
process keeps the tensors it made in an LRU bounded by bytes (``trainer.data.ram_cache``,
2 GiB by default). Training batches are bucketed by length and sharded by rank
(``trainer.data.batching``: each utterance once per epoch over all DDP ranks, the same
number of batches on each); validation batches come in order, each rank validating
all of them. The validation split is fixed by the seed, so a resumed run validates
on the same utterances.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lightning as L
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

from trainer.data.batching import BucketBatchSampler
from trainer.data.preprocess import PreprocessedCache
from trainer.data.ram_cache import DEFAULT_BYTES, ByteLRU
from trainer.data.split import split

PREFETCH_BATCHES = 4
"""Batches each loader worker prepares ahead (``DataLoader(prefetch_factor=...)``; torch's default is 2)."""


@dataclass
class Batch:
    """A padded batch.

    Attributes:
        phoneme_ids: ``[B, T_x]`` int64; phoneme_lengths ``[B]``.
        spec: ``[B, n_fft // 2 + 1, T_y]`` float32; spec_lengths ``[B]`` (frames).
        audio: ``[B, 1, N]`` float32 in [-1, 1]; audio_lengths ``[B]`` (samples).
        speaker_ids: ``[B]`` int64, or None for one speaker.
        indices: ``[B]`` int64, the utterances' positions in the cache (``cache.utterances``).
    """

    phoneme_ids: torch.Tensor
    phoneme_lengths: torch.Tensor
    spec: torch.Tensor
    spec_lengths: torch.Tensor
    audio: torch.Tensor
    audio_lengths: torch.Tensor
    speaker_ids: torch.Tensor | None
    indices: torch.Tensor | None = None

    def to(self, device) -> Batch:
        """The batch on ``device`` (non-blocking copies)."""
        moved: dict[str, Any] = {k: v if v is None else v.to(device, non_blocking=True) for k, v in vars(self).items()}
        return Batch(**moved)

    def __len__(self) -> int:
        return self.phoneme_ids.shape[0]


class CacheDataset(Dataset):
    """Utterances of a cache by index: ``(phoneme_ids, spec [C, T], audio [N], speaker_id or None, cache index)``.

    ``speakers`` names the speaker ids in order; empty for a one-speaker model. Items made once are kept in
    an LRU of ``ram_bytes`` per process (0: none).
    """

    def __init__(
        self, folder: Path | str, indices: list[int], speakers: list[str], ram_bytes: int = DEFAULT_BYTES
    ) -> None:
        self.folder, self.indices, self.speakers, self.ram_bytes = Path(folder), indices, speakers, ram_bytes
        self._cache: PreprocessedCache | None = None
        self._ram = ByteLRU(ram_bytes)

    @property
    def cache(self) -> PreprocessedCache:
        if self._cache is None:  # opened in each worker process, not pickled
            self._cache = PreprocessedCache(self.folder)
        return self._cache

    def __getstate__(self):  # each worker process starts with its own, empty RAM cache
        return {**self.__dict__, "_cache": None, "_ram": ByteLRU(self.ram_bytes)}

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, item: int):
        index = self.indices[item]
        kept = self._ram.get(index)
        if kept is None:
            kept = (
                torch.from_numpy(np.array(self.cache.phoneme_ids(index))),
                torch.from_numpy(np.array(self.cache.spec(index))),
                torch.from_numpy(np.array(self.cache.audio(index))),
                speaker_id(self.cache.utterances[index], self.speakers, self.folder) if self.speakers else None,
                index,
            )
            self._ram.put(index, kept, sum(t.nbytes for t in kept[:3]))
        return kept

    def lengths(self) -> list[int]:
        """Spec frames of each item, in order (what training batches are bucketed by)."""
        return [self.cache.utterances[i].spec[1] for i in self.indices]


def speaker_id(utterance, speakers: list[str], folder: Path) -> int:
    """The id of an utterance's speaker in ``speakers`` (never a guess: an unknown speaker is an error).

    Raises:
        ValueError: the utterance has no speaker, or one not in ``speakers``; names the clip.
    """
    if utterance.speaker not in speakers:
        raise ValueError(f"{folder}: clip {utterance.id}: speaker {utterance.speaker!r} is not one of {speakers}")
    return speakers.index(utterance.speaker)


def collate(items) -> Batch:
    """Pad a list of dataset items into a :class:`Batch` (a new tensor: the items are not changed)."""
    ids, specs, audios, speakers, indices = zip(*items, strict=True)
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
        torch.tensor(indices),
    )


class CacheDataModule(L.LightningDataModule):
    """Train and validation loaders over a preprocessed cache.

    Args:
        folder: the cache.
        batch_size: utterances per batch.
        segment_frames: utterances shorter than the training window are left out (reported in ``skipped``),
            and so are those with more phoneme_ids than spec frames (in ``unalignable``; see ``Utterance.alignable``).
        multi_speaker: pass speaker ids (the model has a speaker embedding).
        ram_bytes: bound of each loader process's RAM cache of items (``trainer.data.ram_cache``).

    The training loader's batches come from a :class:`trainer.data.batching.BucketBatchSampler` for this process's
    rank (the attached trainer's ``global_rank`` and ``world_size``), so the ``Trainer`` must not put a
    distributed sampler in (``use_distributed_sampler=False``).

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
        ram_bytes: int = DEFAULT_BYTES,
    ) -> None:
        super().__init__()
        self.folder, self.batch_size, self.segment_frames = Path(folder), batch_size, segment_frames
        self.val_fraction, self.max_val, self.seed = val_fraction, max_val, seed
        self.num_workers, self.multi_speaker, self.ram_bytes = num_workers, multi_speaker, ram_bytes
        self.skipped: list[str] = []
        self.unalignable: list[str] = []

    def setup(self, stage: str | None = None) -> None:
        if hasattr(self, "train_set"):  # the run sets up early to check the data; Lightning calls again
            return
        cache = PreprocessedCache(self.folder)
        self.skipped = [u.id for u in cache.utterances if u.spec[1] < self.segment_frames]
        self.unalignable = [u.id for u in cache.utterances if u.spec[1] >= self.segment_frames and not u.alignable]
        usable = [i for i, u in enumerate(cache.utterances) if u.spec[1] >= self.segment_frames and u.alignable]
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
        self.train_set = CacheDataset(self.folder, [usable[i] for i in train], speakers, self.ram_bytes)
        self.val_set = CacheDataset(self.folder, [usable[i] for i in val], speakers, self.ram_bytes)

    def train_sampler(self) -> BucketBatchSampler:
        """This rank's length-bucketed batches of the training set (rank 0 of 1 without a trainer)."""
        trainer = self.trainer
        rank, world = (trainer.global_rank, trainer.world_size) if trainer is not None else (0, 1)
        if trainer is not None and world > 1:  # a batch size from each GPU's free memory: the smallest for all
            agreed = trainer.strategy.reduce(
                torch.tensor(self.batch_size, device=trainer.strategy.root_device), reduce_op="min"
            )
            self.batch_size = int(agreed)  # the same on every rank, or their batch counts differ and DDP hangs
        lengths = self.train_set.lengths()
        return BucketBatchSampler(lengths, self.batch_size, rank=rank, world_size=world, seed=self.seed)

    def _loader(self, dataset: CacheDataset, **batching) -> DataLoader:
        workers = self.num_workers
        return DataLoader(
            dataset,
            **batching,
            collate_fn=collate,
            num_workers=workers,
            persistent_workers=workers > 0,
            prefetch_factor=PREFETCH_BATCHES if workers > 0 else None,
            pin_memory=torch.cuda.is_available(),
        )

    def train_dataloader(self) -> DataLoader:
        return self._loader(self.train_set, batch_sampler=self.train_sampler())

    def val_dataloader(self) -> DataLoader:
        return self._loader(self.val_set, batch_size=self.batch_size, shuffle=False)
