"""Frames per ``phoneme_id`` (the duration predictor's ``w_ceil``) to samples per phoneme, and a sentence's
:class:`~engines.timing.events.SentenceTiming`.

Piper's ids for a sentence are ``[BOS, PAD, p1, PAD, p2, PAD, ..., EOS]`` (``piper.phoneme_ids``; a phoneme the
voice's map lacks has no ids). Each phoneme is given its own ids and the PAD after it; the lead-in (BOS and the
first PAD) comes before the first phoneme, and EOS is the last phoneme's (the sentence's closing pause), so the
phonemes cover the sentence's audio back to back. A frame is ``hop_length`` samples; ``length_scale`` is already
in the frames (``w_ceil = ceil(exp(logw) * length_scale)``, Kim et al. 2021, sec. 2.3), so faster speech has
shorter phonemes here too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.timing.events import PhonemeWord, SentenceTiming, TimedPhoneme, TimedWord
from engines.voice import BOS, EOS, PAD


def phoneme_frames(
    phonemes: Sequence[str], durations: Sequence[float], id_map: Mapping[str, Sequence[int]]
) -> tuple[int, list[int]] | None:
    """``(lead-in frames, frames of each phoneme)`` from ``durations`` (frames per id, ``[len(phoneme_ids)]``).

    Returns ``None`` where the ids are not laid out as the module docstring says (another phonemizer's ids, such
    as pinyin voices'), so no wrong timing is ever given.
    """
    frames = [int(round(float(d))) for d in durations]
    pad = len(id_map[PAD])
    position = len(id_map[BOS]) + pad
    lead, own = sum(frames[:position]), []
    for phoneme in phonemes:
        size = len(id_map[phoneme]) + pad if phoneme in id_map else 0
        own.append(sum(frames[position : position + size]))
        position += size
    if position + len(id_map[EOS]) != len(frames) or not own:
        return None
    own[-1] += sum(frames[position:])
    return lead, own


def sentence_timing(
    *,
    index: int,
    phonemes: Sequence[str],
    words: Sequence[PhonemeWord],
    frames: tuple[int, list[int]],
    hop_length: int,
    start_sample: int,
    sample_rate: int,
) -> SentenceTiming:
    """The timing of sentence ``index`` whose audio starts at ``start_sample``, from its :func:`phoneme_frames`
    and the words found in its phonemes (``engines.timing.words``)."""
    lead, own = frames
    bounds = [start_sample + lead * hop_length]
    for count in own:
        bounds.append(bounds[-1] + count * hop_length)
    timed = tuple(TimedPhoneme(p, bounds[n], bounds[n + 1]) for n, p in enumerate(phonemes))
    spoken = tuple(
        TimedWord(w.text, w.spoken, bounds[w.first], bounds[w.last + 1], w.index, w.char_start, w.char_end)
        for w in words
    )
    return SentenceTiming(index, sample_rate, spoken, timed)
