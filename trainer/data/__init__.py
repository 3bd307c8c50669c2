"""The training data: the cache built from a dataset project, and the batches drawn from it.

- ``preprocess`` the cache (phoneme_ids, audio at the training rate, spectrograms): its format, building and
  status;
- ``split`` which utterances train and which validate (no torch, no Lightning), ``datamodule`` training and
  validation batches from the cache, ``batching`` length-bucketed batches sharded by
  rank, ``ram_cache`` the loader's RAM cache, ``seen_utterances`` which utterances each rank trained on (a
  debugging record).

May import: ``engines``, ``trainer.dataset``, ``trainer.out_folder``, ``trainer.tasks``.
"""
