"""The fixed lines a training run's previews speak (``trainer.run.callbacks.PreviewCallback``).

Kept apart from ``trainer.run.callbacks`` (which imports torch and Lightning, about 9 s) so that reading them —
``trainer.evaluate.lines.preview_lines`` on the Compare page — imports neither.
"""

from __future__ import annotations

import re

PREVIEW_LINES = (
    "The quick brown fox jumps over the lazy dog.",
    "How much wood would a woodchuck chuck, if a woodchuck could chuck wood?",
    "It was a bright cold day in April, and the clocks were striking thirteen.",
)
"""English sentences covering most phonemes (a pangram, a tongue twister, Orwell's 1984 opening line)."""


def preview_text(path: str, text: str | None = None) -> str:
    """The line a preview WAV speaks: ``text`` when its event names it, else the ``PREVIEW_LINES`` entry its file
    name numbers (``previews/epoch=0002/1.wav``: the first line, as ``PreviewCallback`` writes them); ``""``
    for a file named otherwise."""
    if text:
        return text
    stem = path.replace("\\", "/").rsplit("/", 1)[-1].removesuffix(".wav")
    return PREVIEW_LINES[int(stem) - 1] if stem.isdigit() and 0 < int(stem) <= len(PREVIEW_LINES) else ""


MID_EPOCH = re.compile(r"epoch=\d+-batch=(\d+)[/\\][^/\\]*$")
"""The folder of a preview spoken within an epoch, after its training step (batch) ``BBBB`` counted from 1:
``epoch=EEEE-batch=BBBB``."""


def preview_moment(epoch: int, path: str) -> str:
    """When a preview was spoken, in words: ``Epoch 3`` (at its end), or ``Epoch 3, step 4`` for one spoken
    after the epoch's fourth training step (its folder ``previews/epoch=0002-batch=0004/``, as
    ``PreviewCallback`` writes one that was asked for; steps counted within the epoch, as the Train page's
    status line counts them). ``epoch`` counts from 0."""
    within = MID_EPOCH.search(path)
    return f"Epoch {epoch + 1}" + (f", step {int(within.group(1)):,}" if within else "")
