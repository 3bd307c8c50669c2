"""Text frontend: text -> sentences -> phonemes -> ``phoneme_ids``, exactly as Piper does it.

Phonemization is delegated to the ``piper-tts`` package (its bundled espeak-ng,
its sentence splitting and its inline ``[[ phonemes ]]`` blocks), so our
``phoneme_ids`` are Piper's. The id mapping follows ``piper.phoneme_ids``:
BOS, PAD, then each phoneme followed by PAD, then EOS. A phoneme missing from
the voice's map is skipped, as Piper does, but reported once per symbol per
request instead of once per occurrence.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from engines.text import split_blocks
from engines.voice import BOS, EOS, PAD, VoiceConfig

_LOGGER = logging.getLogger(__name__)

PUNCTUATION = frozenset(" .,;:!?¡¿—…\"'()-«»“”")
"""Symbols that carry no speech of their own (pauses and intonation only)."""


@dataclass
class Sentence:
    """One sentence ready for synthesis.

    Attributes:
        index: position in the request, from 0.
        phonemes: phoneme symbols (NFD code points or merged clusters).
        phoneme_ids: ids for the model, ``[BOS, PAD, p1, PAD, ..., EOS]``.
    """

    index: int
    phonemes: list[str]
    phoneme_ids: list[int]


@dataclass
class FrontendReport:
    """What the frontend noticed during one request.

    Attributes:
        missing: symbol -> occurrences of phonemes absent from the voice's map.
        sentences: number of sentences produced.
    """

    missing: Counter[str] = field(default_factory=Counter)
    sentences: int = 0


class Phonemizer:
    """Piper's phonemizer for one voice config (espeak-ng and the other types)."""

    def __init__(self, config: VoiceConfig) -> None:
        from piper.config import PiperConfig
        from piper.voice import PiperVoice

        self.config = config
        self._piper = PiperVoice(session=None, config=PiperConfig.from_dict(config.piper_document()))

    def phonemize(self, text: str) -> list[list[str]]:
        """Phonemes grouped by sentence, as ``piper.voice.PiperVoice.phonemize``."""
        return self._piper.phonemize(text)

    def to_ids(self, phonemes: list[str], missing: Counter[str] | None = None) -> list[int]:
        """Map phonemes to ``phoneme_ids``; unknown symbols are skipped and counted in ``missing``."""
        if self.config.phoneme_type == "pinyin":
            from piper.phonemize_chinese import phonemes_to_ids

            return phonemes_to_ids(phonemes, self.config.phoneme_id_map)
        return phonemes_to_ids_counted(phonemes, self.config.phoneme_id_map, missing)


def phonemes_to_ids_counted(phonemes: list[str], id_map, missing: Counter[str] | None = None) -> list[int]:
    """Piper's ``phonemes_to_ids`` that counts missing symbols instead of logging each one.

    Returns ids as ``[BOS, PAD, p1, PAD, p2, PAD, ..., EOS]`` (``piper.phoneme_ids``).
    """
    ids = [*id_map[BOS], *id_map[PAD]]
    for phoneme in phonemes:
        mapped = id_map.get(phoneme)
        if mapped is None:
            if missing is not None:
                missing[phoneme] += 1
            continue
        ids.extend(mapped)
        ids.extend(id_map[PAD])
    ids.extend(id_map[EOS])
    return ids


def has_speech(phonemes: list[str]) -> bool:
    """True if a sentence holds at least one phoneme that is not punctuation or space."""
    return any(p not in PUNCTUATION for p in phonemes)


def sentence_batches(
    phonemizer: Phonemizer, text: str, report: FrontendReport | None = None, max_size: int = 1
) -> Iterator[list[Sentence]]:
    """Sentences of ``text`` with their ``phoneme_ids``, lazily, in batches of at most ``max_size``.

    Long texts are phonemized in blocks (see ``engines.text.split_blocks``) so
    the first sentence is ready quickly; a batch never spans two blocks.
    Sentences with no speech (punctuation only) are dropped. Missing phonemes
    are logged once per symbol at the end.
    """
    report = report if report is not None else FrontendReport()
    index = 0
    try:
        for block in split_blocks(text):
            batch: list[Sentence] = []
            for phonemes in phonemizer.phonemize(block):
                if not has_speech(phonemes):
                    continue
                batch.append(Sentence(index, phonemes, phonemizer.to_ids(phonemes, report.missing)))
                index += 1
                report.sentences = index
                if len(batch) == max_size:
                    yield batch
                    batch = []
            if batch:
                yield batch
    finally:
        for symbol, count in report.missing.items():
            _LOGGER.warning("Phoneme %r is not in the voice's phoneme_id_map; skipped %d time(s)", symbol, count)


def sentences(phonemizer: Phonemizer, text: str, report: FrontendReport | None = None) -> Iterator[Sentence]:
    """Sentences of ``text`` one by one (see :func:`sentence_batches`)."""
    for batch in sentence_batches(phonemizer, text, report):
        yield from batch
