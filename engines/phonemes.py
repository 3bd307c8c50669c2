"""Text frontend: text -> normalized text -> sentences -> phonemes -> ``phoneme_ids``.

Text is first normalized (``engines.frontend``: "$3.50" -> "three dollars and fifty cents", in English;
other languages unchanged; ``normalize=False`` skips it). A text with nothing to normalize reaches espeak-ng as
it was. Phonemization is delegated to the ``piper-tts`` package (its bundled espeak-ng, its sentence splitting
and its inline ``[[ phonemes ]]`` blocks), so our ``phoneme_ids`` for a text are Piper's for the same text.
The id mapping follows ``piper.phoneme_ids``: BOS, PAD, then each phoneme followed by PAD, then EOS. A phoneme
missing from the voice's map is skipped, as Piper does, but reported once per symbol per request instead of
once per occurrence.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from engines.espeak import check_config
from engines.frontend import Ambiguity, Normalized, normalize
from engines.frontend.lexicon import Lexicon
from engines.imports import importing
from engines.long_sentences import PAUSE, end_with_pause, max_phonemes, split_phonemes
from engines.text import text_blocks
from engines.timing.events import PhonemeWord
from engines.timing.words import WordTracker
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
        continues: a piece of an over-long sentence that continues the piece
            before it (see ``engines.long_sentences``); no ``sentence_silence``
            goes between them.
        words: the written words its phonemes say (``engines.timing.words``), where asked for
            (``sentence_batches(words=tracker)``); else empty.
    """

    index: int
    phonemes: list[str]
    phoneme_ids: list[int]
    continues: bool = False
    words: list[PhonemeWord] = field(default_factory=list)


@dataclass
class FrontendReport:
    """What the frontend noticed during one request.

    Attributes:
        missing: symbol -> occurrences of phonemes absent from the voice's map.
        sentences: number of sentences produced.
        ambiguous: written forms normalized one way that could be read another (``1/2``), in order.
    """

    missing: Counter[str] = field(default_factory=Counter)
    sentences: int = 0
    ambiguous: list[Ambiguity] = field(default_factory=list)


class Phonemizer:
    """Piper's phonemizer for one voice config (espeak-ng and the other types).

    ``lexicon`` (``engines.frontend.lexicon``: the voice's, a project's, or one added) is applied to every text
    it normalizes; callers may replace it (:attr:`lexicon`).

    Raises:
        VoiceError: the config's ``espeak.voice`` is a voice espeak-ng does not have (``engines.espeak``).
        EspeakDataError: piper-tts's espeak-ng data is missing or damaged (an espeak voice only).
    """

    def __init__(self, config: VoiceConfig, lexicon: Lexicon | None = None) -> None:
        check_config(config)
        with importing("piper.config", "piper.voice"):
            from piper.config import PiperConfig
            from piper.voice import PiperVoice

        self.config = config
        self.lexicon = lexicon or Lexicon()
        self._piper = PiperVoice(session=None, config=PiperConfig.from_dict(config.piper_document()))

    @property
    def language(self) -> str:
        """The language the text front end normalizes for (:func:`language_of` the config)."""
        return language_of(self.config)

    def normalize(self, text: str) -> Normalized:
        """``text`` as this voice says it (``engines.frontend.normalize`` in :attr:`language`, with
        :attr:`lexicon`)."""
        return normalize(text, self.language, self.lexicon)

    def phonemize(self, text: str) -> list[list[str]]:
        """Phonemes grouped by sentence, as ``piper.voice.PiperVoice.phonemize``."""
        return self._piper.phonemize(text)

    def to_ids(self, phonemes: list[str], missing: Counter[str] | None = None) -> list[int]:
        """Map phonemes to ``phoneme_ids``; unknown symbols are skipped and counted in ``missing``."""
        if self.config.phoneme_type == "pinyin":
            with importing("piper.phonemize_chinese"):
                from piper.phonemize_chinese import phonemes_to_ids

            return phonemes_to_ids(phonemes, self.config.phoneme_id_map)
        return phonemes_to_ids_counted(phonemes, self.config.phoneme_id_map, missing)


def language_of(config: VoiceConfig) -> str:
    """The language ``engines.frontend`` normalizes a voice's text for: its espeak-ng voice (``en-us``); ``""``
    (the text passes through) for the other phoneme types."""
    return config.espeak_voice if config.phoneme_type == "espeak" else ""


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
    phonemizer: Phonemizer,
    text: str,
    report: FrontendReport | None = None,
    max_size: int = 1,
    max_phoneme_ids: int | None = None,
    *,
    normalize: bool = True,
    first_index: int = 0,
    words: WordTracker | None = None,
) -> Iterator[list[Sentence]]:
    """Sentences of ``text`` with their ``phoneme_ids``, lazily, in batches of at most ``max_size``.

    Each block is normalized first (``engines.frontend``, the phonemizer's lexicon first; ``normalize=False``:
    the text as written, Piper's literal reading, the lexicon left out too), its ambiguous forms added to
    ``report.ambiguous``. With ``words`` (the request's one tracker, fed each block: a text spoken in parts
    passes the same one to each part, so the words are numbered and placed on), each sentence also gets the
    written words its phonemes say (``Sentence.words``; about 0.2 ms per word).
    Long texts are phonemized in blocks (see ``engines.text.text_blocks``) so
    the first sentence is ready quickly; a batch never spans two blocks.
    Sentences with no speech (punctuation only) are dropped. With
    ``max_phoneme_ids`` (synthesis), no sentence has more ids: longer ones come
    in pieces (``engines.long_sentences``); without it (training, dataset
    checks) sentences are exactly Piper's. Sentences are numbered from ``first_index`` (the sentences of a text
    spoken in parts, ``engines.frontend.markup``, carry on the numbers of the parts before). Missing phonemes
    are logged once per symbol at the end, those of this text only where ``report`` holds earlier ones.
    """
    report = report if report is not None else FrontendReport()
    index, before = first_index, Counter(report.missing)
    try:
        batch: list[Sentence] = []
        prepare = _preparer(phonemizer, report, words, normalize=normalize)
        for phonemes, continues, block_end in _phrases(phonemizer, text, max_phoneme_ids, prepare):
            ids = phonemizer.to_ids(phonemes, report.missing)
            said = words.words(phonemes) if words is not None else []
            batch.append(Sentence(index, phonemes, ids, continues, said))
            index += 1
            report.sentences = index
            if len(batch) == max_size or block_end:
                yield batch
                batch = []
    finally:
        for symbol, count in (report.missing - before).items():
            _LOGGER.warning("Phoneme %r is not in the voice's phoneme_id_map; skipped %d time(s)", symbol, count)


def _preparer(
    phonemizer: Phonemizer, report: FrontendReport, tracker: WordTracker | None, *, normalize: bool
) -> Callable[[str], str] | None:
    """A block's text as said: normalized (``normalize``; its ambiguous forms noted in ``report``) or as it is,
    and handed to ``tracker`` with the text it came from; ``None`` where there is nothing to do."""
    if not normalize and tracker is None:
        return None

    def prepare(block: str) -> str:
        said = block
        if normalize:
            found = phonemizer.normalize(block)
            report.ambiguous.extend(found.ambiguous)
            said = found.text
        if tracker is not None:
            tracker.add(block, said)
        return said

    return prepare


def _phrases(
    phonemizer: Phonemizer, text: str, max_phoneme_ids: int | None, prepare: Callable[[str], str] | None
) -> Iterator[tuple[list[str], bool, bool]]:
    """``(phonemes, continues, last of its block)`` for each sentence, or piece of one, with speech."""
    pause = PAUSE if PAUSE in phonemizer.config.phoneme_id_map else None
    continues = False
    for block, cut in text_blocks(text, cut_long=max_phoneme_ids is not None, prepare=prepare):
        found = [p for p in phonemizer.phonemize(block) if has_speech(p)]
        if cut and found:  # the block ends inside a sentence: a piece like those below
            found[-1] = end_with_pause(found[-1], pause)
        for n, phonemes in enumerate(found):
            pieces = (
                [phonemes]
                if max_phoneme_ids is None
                else split_phonemes(phonemes, max_phonemes(max_phoneme_ids), pause)
            )
            pieces = [piece for piece in pieces if has_speech(piece)]  # a cut may leave a lone "."
            for k, piece in enumerate(pieces):
                yield piece, continues or k > 0, n == len(found) - 1 and k == len(pieces) - 1
                continues = False
        continues = cut and bool(found)


def sentences(
    phonemizer: Phonemizer, text: str, report: FrontendReport | None = None, *, normalize: bool = True
) -> Iterator[Sentence]:
    """Sentences of ``text`` one by one (see :func:`sentence_batches`)."""
    for batch in sentence_batches(phonemizer, text, report, normalize=normalize):
        yield from batch
