"""The trainer's preprocessed cache: phoneme_ids, audio at the training rate, and linear spectrograms.

``cache`` (the folder's format and :class:`PreprocessedCache`, its reader), ``build``
(:func:`build_cache` from a dataset project, in worker processes, cancellable),
``features`` (:func:`spectrogram`, :func:`training_phoneme_ids`, :func:`map_digest`).
"""

from trainer.data.preprocess.build import build_cache, preprocess_clip
from trainer.data.preprocess.cache import CACHE_VERSION, FILES, CacheSettings, PreprocessedCache, Utterance
from trainer.data.preprocess.features import map_digest, spectrogram, training_phoneme_ids

__all__ = [
    "CACHE_VERSION",
    "FILES",
    "CacheSettings",
    "PreprocessedCache",
    "Utterance",
    "build_cache",
    "map_digest",
    "preprocess_clip",
    "spectrogram",
    "training_phoneme_ids",
]
