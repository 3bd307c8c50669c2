"""Whether the clips an import or a slicing added are far louder or quieter than the project's others.

A long reading recorded at another level than the dataset (the shared corpus's ``two_cities.wav`` at -36 LUFS,
its 240 target-voice clips at -25) gives pieces about 10 dB apart from the clips already there; a voice trained
on both learns the difference. :func:`loudness_note` says so after the import or slicing (a warning in the
result's ``notes``, as the speaker check's), with the fix: Normalize loudness
(``trainer.dataset.fixes.normalize_loudness``) brings every clip it is applied to to ``DEFAULT_TARGET_LUFS``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from trainer.dataset.fixes import DEFAULT_TARGET_LUFS

LOUDNESS_GAP_DB = 6.0
"""Medians at least this far apart (dB) are said: twice (or half) the amplitude, heard at once. The clips of one
recording session spread less: the shared corpus's target-voice clips lie within -28 to -20 LUFS, 3 dB of their
median either side."""


def loudness_note(project: Any, added: list[str]) -> str:
    """A warning when the median loudness (LUFS, as measured on import) of the ``added`` clips of ``project`` (a
    ``trainer.dataset.project.DatasetProject``) is ``LOUDNESS_GAP_DB`` or more from that of its other usable
    clips (status ``ok``, loudness measured), else ``""`` (also when either side has no measured clip)::

        the 12 new clips are about 10 dB quieter than the project's others (median -35 LUFS against -25): ...
    """
    new, others = _measured(project, set(added))
    if not new or not others:
        return ""
    mine, theirs = float(np.median(new)), float(np.median(others))
    gap = mine - theirs
    if abs(gap) < LOUDNESS_GAP_DB:
        return ""
    clips = "the new clip is" if len(new) == 1 else f"the {len(new)} new clips are"
    how = "quieter" if gap < 0 else "louder"
    return (
        f"{clips} about {abs(gap):.0f} dB {how} than the project's others (median {mine:.0f} LUFS against "
        f"{theirs:.0f}): Normalize loudness (voice-studio dataset fix --normalize) brings every clip to "
        f"{DEFAULT_TARGET_LUFS:.0f} LUFS"
    )


def _measured(project: Any, added: set[str]) -> tuple[list[float], list[float]]:
    """The measured loudness (LUFS) of the usable clips in ``added``, and of the other usable clips."""
    new: list[float] = []
    others: list[float] = []
    for clip in project.clips.values():
        value = (clip.analysis or {}).get("loudness_lufs")
        if clip.status == "ok" and value is not None and math.isfinite(value):
            (new if clip.id in added else others).append(value)
    return new, others
