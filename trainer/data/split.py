"""Which of a cache's utterances train and which validate: a split fixed by the run's seed.

A module of its own, free of torch and Lightning, so what only reads a run's held-out clips (the canary evaluation
process, ``voice-studio compare`` of a run folder, the Compare page) does not import Lightning to learn them
(``trainer.data.datamodule`` does: about 4 CPU-seconds on a 2-vCPU VM). The training data module splits with it too,
so both name the same clips.
"""

from __future__ import annotations

import random


def split(count: int, val_fraction: float, max_val: int, seed: int) -> tuple[list[int], list[int]]:
    """Fixed train/validation indices for ``count`` utterances (at least one of each when count >= 2): the
    indices ``0..count-1`` shuffled by ``random.Random(seed)``; the first ``round(count * val_fraction)`` of them
    (at least 1, at most ``max_val``) validate. Both lists sorted."""
    order = list(range(count))
    random.Random(seed).shuffle(order)
    val = min(max_val, max(1, round(count * val_fraction))) if count >= 2 else 0
    return sorted(order[val:]), sorted(order[:val])
