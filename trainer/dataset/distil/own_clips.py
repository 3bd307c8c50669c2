"""A project that already holds clips of its own (recorded in the booth, imported, sliced): do the teacher's kept
takes sound like them?

Distilling into such a project adds the teacher's takes to the user's clips, which is what someone cloning their
own voice wants (a few minutes recorded, more distilled from a zero-shot clone of it) and a mixed dataset of two
voices when the teacher speaks another. The kept takes' speaker (the mean d-vector of the judge's references, the
first kept takes) is compared with the project's own clips' (``trainer.dataset.speaker_check.clips_speaker``) at
the same ``THRESHOLD`` the slicing check uses (0.77: measured between same- and different-speaker pairs of
``../shared/corpus``, see that module).
"""

from __future__ import annotations

import numpy as np

TAKE_PREFIX = "distil_"
"""Clip ids of distilled takes (``trainer.dataset.distil.run._write_take``: ``distil_0001``…)."""


def own_voice_notes(project, references: list[np.ndarray]) -> list[str]:
    """One sentence on how the kept takes (``references``: their d-vectors ``[256]``) sound against ``project``'s
    own clips (a ``DatasetProject``); ``[]`` when it has none, nothing was kept, or no measure could be taken
    (resemblyzer missing: the judge's notes already say so)."""
    from trainer.dataset.speaker_check import THRESHOLD, clips_speaker, reference_clips
    from trainer.evaluate.measures import MeasureError
    from trainer.evaluate.similarity import cosine, mean_embedding

    takes = {c for c in project.clips if c.startswith(TAKE_PREFIX)}
    own = reference_clips(project, exclude=takes)
    if not own or not references:
        return []
    try:
        similarity = cosine(mean_embedding(references), clips_speaker(project, own))
    except MeasureError:
        return []
    mine = f"this project's own clips ({len(own)} compared, of {len(project.clips) - len(takes)})"
    if similarity >= THRESHOLD:
        return [f"the teacher's takes sound like {mine}: similarity {similarity:.2f}"]
    return [
        f"the teacher's takes may be another speaker than {mine}: similarity {similarity:.2f}, below {THRESHOLD}; "
        "the dataset now mixes two voices: listen, and distil into a new project if they differ"
    ]
