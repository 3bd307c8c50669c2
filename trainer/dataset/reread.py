"""What the source of a clip already imported says now: its transcript and speaker read again on each import.

A source fixed after its first import (a ``metadata.csv`` saved again as UTF-8, a line whose stray ``|`` was
taken out, a ``clip.txt`` written later) fills in what its clips lack: a transcript or a speaker where they
have none (said in the import's counts). A transcript the source now words otherwise is never replaced
silently: it is listed (``ImportResult.changed``), and taken only when asked (``replace_texts``), the old
text kept in the clip's ``edits``; a text typed in the studio (``text_origin`` ``edited``) is kept even then.

Only clips imported as they were are matched to their source (by path and content hash): slices of a long
recording and the parts of a split or merge have their own texts.
"""

from __future__ import annotations

from trainer.dataset import jobs
from trainer.dataset.import_result import ImportResult, TextChange
from trainer.dataset.manifest import ClipEntry
from trainer.dataset.sources import SourceClip


def as_imported(clips: dict[str, ClipEntry]) -> dict[tuple[str, str], ClipEntry]:
    """The clips imported as they were, by ``(source path, source sha256)`` (the first of each)."""
    found: dict[tuple[str, str], ClipEntry] = {}
    for clip in clips.values():
        if clip.span is None and not any(edit.startswith(("split", "merged")) for edit in clip.edits):
            found.setdefault((clip.source, clip.source_sha256), clip)
    return found


def reread(clip: ClipEntry, found: SourceClip, result: ImportResult, voice_config: str, *, replace: bool) -> bool:
    """Bring ``clip`` up to what its source ``found`` says now (module docstring), recording it in ``result``;
    returns whether the clip changed. ``voice_config``: the ``.onnx.json`` a new text's phonemes are measured
    against."""
    changed = _fill_speaker(clip, found, result)
    new = " ".join(found.text.split()) if found.text else ""
    old = " ".join((clip.text or "").split())
    if not new or new == old:
        return changed
    if not old:
        _take(clip, new, found.origin, f"text from {found.origin}", voice_config)
        result.filled.append(clip.id)
    elif replace and clip.text_origin != "edited":
        _take(clip, new, found.origin, f"text from {found.origin} (was {clip.text!r})", voice_config)
        result.replaced.append(clip.id)
    else:
        change = TextChange(clip_id=clip.id, origin=found.origin, old=old, new=new, edited=clip.text_origin == "edited")
        result.changed.append(change)
        return changed
    return True


def _fill_speaker(clip: ClipEntry, found: SourceClip, result: ImportResult) -> bool:
    if clip.speaker or not found.speaker:
        return False
    clip.edits.append(f"speaker (none) -> {found.speaker} (from {found.origin})")
    clip.speaker = found.speaker
    result.filled_speakers.append(clip.id)
    return True


def _take(clip: ClipEntry, text: str, origin: str, edit: str, voice_config: str) -> None:
    """Give ``clip`` the source's ``text`` and measure its phonemes (an unreadable clip has no measurements)."""
    clip.text, clip.text_origin = text, origin
    clip.edits.append(edit)
    if clip.analysis:
        clip.analysis = jobs.measure_new_text(clip.analysis, text, jobs.phonemizer(voice_config))
