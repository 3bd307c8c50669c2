"""Which utterances each DDP rank trained on, for checking how an epoch is sharded (a debugging record).

With ``VOICE_STUDIO_SEEN_UTTERANCES=DIR`` in its environment, each rank appends one line ``EPOCH ID`` per
utterance of each training batch it steps on to ``DIR/rank-R.txt`` (R its global rank), from the batch's
``indices`` (``trainer.data.datamodule.Batch``). Unset (always, outside tests), nothing is recorded.
"""

from __future__ import annotations

import os
from pathlib import Path

import lightning as L

ENVIRONMENT = "VOICE_STUDIO_SEEN_UTTERANCES"


class SeenUtterances(L.Callback):
    """Appends the utterance ids of each training batch to ``folder/rank-R.txt``.

    Args:
        names: the cache's utterance ids by cache index (``Batch.indices`` point into it).
    """

    def __init__(self, folder: Path, names: list[str]) -> None:
        self.folder, self.names = Path(folder), names

    def on_train_batch_start(self, trainer, module, batch, batch_idx) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        lines = [f"{trainer.current_epoch} {self.names[i]}\n" for i in batch.indices.tolist()]
        with (self.folder / f"rank-{trainer.global_rank}.txt").open("a", encoding="utf-8") as file:
            file.writelines(lines)


def seen_utterances(data) -> list[L.Callback]:
    """``[SeenUtterances]`` for a ``CacheDataModule`` when the environment asks for it, else ``[]``."""
    folder = os.environ.get(ENVIRONMENT)
    if not folder:
        return []
    return [SeenUtterances(Path(folder), [u.id for u in data.train_set.cache.utterances])]
