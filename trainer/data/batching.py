"""Length-bucketed training batches, sharded by rank: :class:`BucketBatchSampler`.

Each epoch the utterances are sorted by a jittered length (spec frames times a random factor in
``[1 - jitter, 1 + jitter]``), cut into batches of neighbours, and the batches are shuffled and dealt to the
ranks in turn. Neighbours in length pad little (the padded length is the batch's longest); the jitter and the
shuffle keep batches and their order changing from epoch to epoch. Every rank computes the same epoch plan
from ``seed`` and the epoch alone, so the ranks agree without talking, each utterance is in exactly one
rank's batches, and every rank gets the same number of batches (DDP waits for all ranks at each step).

No torch import: a sampler is any iterable of index lists for ``DataLoader(batch_sampler=...)``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence

JITTER = 0.1
"""Default relative length jitter: batches change between epochs, padding stays near the sorted minimum."""


class BucketBatchSampler:
    """Batches of dataset positions, similar lengths together, for one rank of ``world_size``.

    Args:
        lengths: per dataset position, its length (spec frames); what the batches are bucketed by.
        batch_size: most utterances per batch. An epoch has ``world_size * ceil(N / (world_size * batch_size))``
            batches in all; their sizes differ by at most one, so no rank ends on a tiny batch.
        rank, world_size: this process's global rank and the number of ranks.
        seed: with the epoch (:meth:`set_epoch`), decides the plan; the same on every rank.
        jitter: relative length noise before sorting (0: strictly sorted, the least padding).

    Each utterance is in exactly one batch, unless there are fewer utterances than batches in all (fewer than
    ``world_size``, or a batch size of 1 with a count that ``world_size`` does not divide): then some repeat,
    so that no batch is empty.

    Raises:
        ValueError: no lengths, ``batch_size`` below 1, or ``rank`` outside ``[0, world_size)``.
    """

    def __init__(
        self,
        lengths: Sequence[int],
        batch_size: int,
        *,
        rank: int = 0,
        world_size: int = 1,
        seed: int = 0,
        jitter: float = JITTER,
    ) -> None:
        if not lengths or batch_size < 1 or not 0 <= rank < world_size:
            raise ValueError(
                f"bucket sampler: {len(lengths)} lengths, batch size {batch_size}, rank {rank} of {world_size}"
            )
        self.lengths, self.batch_size = list(lengths), batch_size
        self.rank, self.world_size, self.seed, self.jitter = rank, world_size, seed, jitter
        self.epoch = 0

    @property
    def sampler(self) -> BucketBatchSampler:
        """Itself: Lightning calls ``set_epoch`` on a loader's ``batch_sampler.sampler``
        (``lightning.fabric.utilities.data._set_sampler_epoch``), not on the batch sampler."""
        return self

    def set_epoch(self, epoch: int) -> None:
        """Plan epoch ``epoch`` next (Lightning calls it at each epoch's start, a resumed one included)."""
        self.epoch = epoch

    def __len__(self) -> int:
        """Batches this rank yields per epoch (the same on every rank)."""
        return math.ceil(len(self.lengths) / (self.world_size * self.batch_size))

    def __iter__(self) -> Iterator[list[int]]:
        return iter(self.epoch_plan()[self.rank])

    def epoch_plan(self) -> list[list[list[int]]]:
        """Every rank's batches for the current epoch: ``plan[rank][batch]`` lists dataset positions."""
        rng = random.Random(f"{self.seed}:{self.epoch}")
        order = sorted(range(len(self.lengths)), key=lambda i: self.lengths[i] * (1 + self.jitter * rng.uniform(-1, 1)))
        count = len(self) * self.world_size
        while len(order) < count:  # fewer utterances than batches: repeat some, so no batch is empty
            order += order[: count - len(order)]
        batches = _cut(order, count)
        rng.shuffle(batches)
        return [batches[rank :: self.world_size] for rank in range(self.world_size)]


def _cut(order: list[int], count: int) -> list[list[int]]:
    """``order`` cut into ``count`` consecutive batches whose sizes differ by at most one."""
    size, extra = divmod(len(order), count)
    batches, start = [], 0
    for number in range(count):
        end = start + size + (1 if number < extra else 0)
        batches.append(order[start:end])
        start = end
    return batches


def padding_fraction(batches: Sequence[Sequence[int]], lengths: Sequence[int]) -> float:
    """Share of the padded frames that are padding: ``1 - sum(lengths) / sum(batch size * longest)``."""
    padded = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    real = sum(lengths[i] for b in batches for i in b)
    return 1 - real / padded
