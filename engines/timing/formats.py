"""Timestamps files: SubRip (``.srt``), WebVTT (``.vtt``) and JSON (``.json``), chosen by the extension.

SRT and WebVTT have one cue per written word, numbered from 1 (SRT), timed ``HH:MM:SS,mmm`` (SRT) or
``HH:MM:SS.mmm`` (WebVTT, W3C "WebVTT: The Web Video Text Tracks Format", sec. 4), text the word as written.
JSON holds the words and the phonemes with start and end seconds (``Timeline.to_dict``). Files are written
whole and atomically (``engines.files.write_text``): a crash never leaves half a file where one was.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from engines.files import check_output_path, write_text
from engines.timing.timeline import Timeline

SUFFIXES = (".srt", ".vtt", ".json")
"""Extensions of the timestamps files written."""


def check_timestamps_path(path: Path | str) -> Path:
    """Check, before any work, that a timestamps file can be written at ``path``.

    Raises:
        ValueError: the extension is not one of :data:`SUFFIXES`, or the path cannot be written (naming it).
    """
    return check_output_path(path, SUFFIXES, "timestamps file")


def write_timestamps(path: Path | str, timeline: Timeline) -> Path:
    """Write ``timeline`` at ``path`` in the format its extension names.

    Raises:
        ValueError: see :func:`check_timestamps_path`. OSError: the file could not be written.
    """
    path = check_timestamps_path(path)
    return write_text(path, FORMATS[path.suffix.lower()](timeline))


def srt(timeline: Timeline) -> str:
    """SubRip: ``N``, ``start --> end`` (``HH:MM:SS,mmm``), the word, a blank line; per word."""
    return "".join(_cue(timeline, n, word, ",") for n, word in enumerate(timeline.words, 1))


def vtt(timeline: Timeline) -> str:
    """WebVTT: the ``WEBVTT`` header, then ``start --> end`` (``HH:MM:SS.mmm``) and the word per cue."""
    return "WEBVTT\n\n" + "".join(_cue(timeline, None, word, ".") for word in timeline.words)


def as_json(timeline: Timeline) -> str:
    """``Timeline.to_dict`` as indented JSON (UTF-8 text as it is)."""
    return json.dumps(timeline.to_dict(), ensure_ascii=False, indent=1) + "\n"


FORMATS: dict[str, Callable[[Timeline], str]] = {".srt": srt, ".vtt": vtt, ".json": as_json}
"""Extension -> the file's text."""


def _cue(timeline: Timeline, number: int | None, word, mark: str) -> str:
    """One cue; its end at least a millisecond after its start."""
    start = round(1000 * word.start / timeline.sample_rate)
    end = max(start + 1, round(1000 * word.end / timeline.sample_rate))
    head = f"{number}\n" if number is not None else ""
    return f"{head}{clock(start, mark)} --> {clock(end, mark)}\n{word.text}\n\n"


def clock(ms: int, mark: str) -> str:
    """Milliseconds as ``HH:MM:SS{mark}mmm``."""
    seconds, ms = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours:02d}:{minutes:02d}:{seconds:02d}{mark}{ms:03d}"
