"""Parity with piper-tts: same phoneme_ids and audio (noise 0) sentence by sentence, piper-tts given the text as
our front end normalizes it (piper-tts reads text literally; a text with nothing to normalize is given as it is)."""

from __future__ import annotations

import numpy as np
import pytest

from engines.audio import snr_db
from engines.base import SynthesisOptions

TEXTS = {
    "plain": "The birch canoe slid on the smooth planks.",
    "question": "Would you like a cup of tea before we leave?",
    "numbers and abbreviations": "Dr. Lee paid $12.75 for 3 kg of apples on Jan. 5th, 2024 at 9 a.m.",
    "paragraph": (
        "The storm rolled in just after midnight. Martha lit a candle and walked down the stairs. "
        "In the kitchen, the dog was already awake. Something heavy had fallen in the barn. "
        "She pulled on her boots and stepped out into the rain."
    ),
    "typographic quotes": "“I’m not sure,” he said, “that it’s ‘finished’ yet.”",
}


@pytest.mark.parametrize("label", list(TEXTS))
def test_audio_matches_piper(engine, piper_voice, label):
    """Our streamed audio equals PiperVoice's per sentence: same ids, same length, SNR >= 40 dB."""
    from piper.config import SynthesisConfig

    text = TEXTS[label]
    said = engine.phonemizer.normalize(text).text
    assert (said == text) == (label != "numbers and abbreviations")
    reference = list(
        piper_voice.synthesize(said, SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0, normalize_audio=False))
    )
    ours: dict[int, list] = {}
    for chunk in engine.synthesize(text, SynthesisOptions(noise_scale=0.0, noise_w=0.0)):
        ours.setdefault(chunk.sentence_index, []).append(chunk)
    assert len(ours) == len(reference)
    if label == "paragraph":
        assert len(reference) == 5
    for index, ref in enumerate(reference):
        chunks = ours[index]
        assert chunks[0].phoneme_ids == ref.phoneme_ids
        audio = np.concatenate([c.audio for c in chunks])
        assert len(audio) == len(ref.audio_float_array)
        assert snr_db(ref.audio_float_array, audio) >= 40.0, f"sentence {index}"
