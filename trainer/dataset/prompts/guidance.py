"""How long prompts take to read, and how much to record, with where each number comes from.

Minutes are estimated from words as the text front end reads them (``trainer.dataset.prompts.units.Prompt``) at
LJ Speech's pace: its 13,100 clips of one speaker reading aloud hold 225,715 words in 23 h 55 min 17 s (86,117 s),
2.62 words a second (LJ Speech Dataset page, https://keithito.com/LJ-Speech-Dataset/, "Total Words", "Total
Duration"). That is speech only: pauses between takes, retakes and rests come on top.
"""

from __future__ import annotations

from trainer.dataset.prompts.units import Prompt
from trainer.time_left import duration_text

LJ_WORDS = 225_715
"""Words in LJ Speech (its page's "Total Words")."""
LJ_SECONDS = 23 * 3600 + 55 * 60 + 17
"""LJ Speech's total duration, s (its page's "Total Duration", 23:55:17)."""
WORDS_PER_SECOND = LJ_WORDS / LJ_SECONDS
"""Read-aloud pace, words a second (2.62: LJ Speech's words over its duration)."""

FINE_TUNE_UTTERANCES = 1_150
"""Lines in Piper Recording Studio's English prompt set, which people record to fine-tune a Piper voice
(rhasspy/piper-recording-studio issue 27, "Increase upon the 1150 phrases that Piper Recording Studio offers?");
CMU ARCTIC, built for synthesis, is the same size: "nearly 1150 phonetically balanced English utterances" a
speaker (Kominek and Black 2003, CMU-LTI-03-177, abstract)."""
DISTILLED_UTTERANCES = 1_300
"""Lines a published Piper fine-tune from a cloned voice was trained on (Cal Bryant, "Training a new voice for
Piper TTS with only a single phrase", calbryant.uk, 2025; the count as Hackaday reported it on 2025-07-09)."""
SCRATCH_HOURS = 24
"""Hours in LJ Speech (23:55:17), the size of a single-speaker dataset trained from scratch."""

GUIDANCE = (
    f"how much to record: fine-tune from an existing voice (Piper's TRAINING.md: 'For most cases, you should "
    f"fine-tune from an existing model'); people record Piper Recording Studio's {FINE_TUNE_UTTERANCES:,} English "
    f"lines for that (piper-recording-studio#27; CMU ARCTIC has as many a speaker), and a published fine-tune "
    f"used {DISTILLED_UTTERANCES:,} (calbryant.uk, 2025); a voice from scratch needs far more (LJ Speech: 13,100 "
    f"clips, {SCRATCH_HOURS} h). "
    "Include short replies too: a voice trained on long sentences only says 'thank you' badly (Piper's author, "
    "OHF-Voice/piper1-gpl#79)."
)
"""The advice shown beside the coverage, with its sources."""


def seconds(prompts: list[Prompt]) -> float:
    """Estimated speech in ``prompts``, s, at :data:`WORDS_PER_SECOND`."""
    return sum(p.words for p in prompts) / WORDS_PER_SECOND


def minutes_said(value_s: float) -> str:
    """``12.5 min`` (one decimal under 10 minutes, whole minutes above, each as it rounds: 599.7 s is ``10 min``);
    under a minute ``14 s`` and from an hour ``2 h 05 min`` (:func:`trainer.time_left.duration_text`), so a take of
    a few seconds is not said as ``0.0 min`` nor a day's reading as ``1440 min``."""
    minutes = value_s / 60
    if round(value_s) < 60:
        return duration_text(value_s)
    if round(minutes) >= 60:
        return duration_text(60 * round(minutes))
    return f"{minutes:.1f} min" if round(minutes, 1) < 10 else f"{minutes:.0f} min"
