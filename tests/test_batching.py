"""Length-bucketed batches sharded by rank (trainer.data.batching) and the loader's RAM cache
(trainer.data.ram_cache)."""

from __future__ import annotations

import random

import pytest
from conftest import shared_path

from trainer.data.batching import BucketBatchSampler, padding_fraction
from trainer.data.ram_cache import ByteLRU


def plans(lengths: list[int], batch_size: int, world: int, epoch: int = 0, seed: int = 1) -> list[list[list[int]]]:
    """Each rank's batches from its own sampler, as the ranks of one run make them."""
    samplers = [BucketBatchSampler(lengths, batch_size, rank=r, world_size=world, seed=seed) for r in range(world)]
    for sampler in samplers:
        sampler.set_epoch(epoch)
    return [list(sampler) for sampler in samplers]


def corpus_lengths() -> list[int]:
    """Spec frames (hop 256) of the 240 target-voice clips: a real length spread."""
    import soundfile

    wavs = shared_path("corpus", "target-voice", "wavs")
    return [soundfile.info(str(path)).frames // 256 for path in sorted(wavs.glob("*.flac"))]


@pytest.mark.parametrize("world", [1, 2, 3])
@pytest.mark.parametrize("count", [1, 7, 23, 24, 101])
def test_ranks_cover_every_utterance_once_with_equal_batch_counts(world, count):
    """Over all ranks each utterance is in exactly one batch; every rank has as many batches as len() says."""
    lengths = [random.Random(count).randint(50, 900) for _ in range(count)]
    ranks = plans(lengths, 4, world, epoch=2)
    seen = [i for batches in ranks for batch in batches for i in batch]
    assert all(batch for batches in ranks for batch in batches)
    assert {len(batches) for batches in ranks} == {len(BucketBatchSampler(lengths, 4, world_size=world))}
    if count >= world:
        assert sorted(seen) == list(range(count))
    else:  # too few for one each: every rank still gets a batch, and all of them are used
        assert set(seen) == set(range(count)) and len(seen) == world
    sizes = [len(batch) for batches in ranks for batch in batches]
    assert max(sizes) <= 4 and max(sizes) - min(sizes) <= 1


def test_bucketed_batches_pad_less_than_random_ones_on_real_lengths():
    """On the target voice's 240 lengths, bucketed batches of 8 pad far less than shuffled ones."""
    lengths = corpus_lengths()
    bucketed = [b for batches in plans(lengths, 8, 2) for b in batches]
    order = list(range(len(lengths)))
    random.Random(0).shuffle(order)
    shuffled = [order[i : i + 8] for i in range(0, len(order), 8)]
    assert padding_fraction(bucketed, lengths) < 0.5 * padding_fraction(shuffled, lengths)


def test_the_plan_follows_from_seed_and_epoch_only():
    """Same seed and epoch: the same batches (on any rank's sampler); another epoch or seed: another order."""
    lengths = [random.Random(5).randint(50, 900) for _ in range(60)]
    first = plans(lengths, 4, 2, epoch=3)
    assert plans(lengths, 4, 2, epoch=3) == first
    assert plans(lengths, 4, 2, epoch=4) != first
    assert plans(lengths, 4, 2, epoch=3, seed=2) != first
    one = BucketBatchSampler(lengths, 4, rank=1, world_size=2, seed=1)
    one.set_epoch(3)
    assert one.epoch_plan() == first


def test_lightning_sets_the_epoch_on_the_loaders_batch_sampler():
    """Lightning's epoch hook (``_set_sampler_epoch``) reaches the sampler through a DataLoader."""
    from lightning.fabric.utilities.data import _set_sampler_epoch
    from torch.utils.data import DataLoader

    sampler = BucketBatchSampler([10, 20, 30], 2)
    _set_sampler_epoch(DataLoader(range(3), batch_sampler=sampler), 7)
    assert sampler.epoch == 7


def test_ram_cache_drops_the_least_recently_used_to_stay_within_its_bytes():
    """Within the bound: the oldest unused item goes first; a value larger than the bound is not kept."""
    cache = ByteLRU(100)
    cache.put("a", 1, 40)
    cache.put("b", 2, 40)
    assert cache.get("a") == 1  # now b is the least recently used
    cache.put("c", 3, 40)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), cache.bytes) == (1, None, 3, 80)
    cache.put("huge", 4, 101)
    assert cache.get("huge") is None and len(cache) == 2
    cache.put("a", 5, 60)  # replacing a key counts its new size only
    assert cache.bytes == 100 and cache.get("a") == 5


def test_dataset_items_come_from_the_ram_cache_the_second_time(prepared_run):
    """A cache dataset keeps the tensors it made (within its bound) and returns them again; 0 bytes keeps none."""
    from trainer.data.datamodule import CacheDataset

    folder = prepared_run / "cache"
    kept, unkept = CacheDataset(folder, [0, 1], []), CacheDataset(folder, [0, 1], [], ram_bytes=0)
    assert kept[0][1] is kept[0][1] and unkept[0][1] is not unkept[0][1]
    assert kept._ram.bytes == sum(t.nbytes for t in kept[0][:3])
