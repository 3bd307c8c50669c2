"""Reading LJSpeech-style ``metadata.csv`` files exactly, without CSV quoting surprises.

Layouts (Piper's trainer reads the text from the last column, the speaker from the second):

- ``id|text``
- ``id|speaker|text`` (multi-speaker)
- ``id|text|normalized text`` (LJSpeech's own file; the last column is used)

Ids may carry the audio extension (``clip.wav``). Files may be UTF-8 with or
without a BOM, with LF, CRLF or CR line ends, with blank lines. Quotes are
text: a stray ``"`` never swallows the lines after it, as it does with Python's
``csv`` module (and so in piper-tts's trainer). A comma- or tab-separated file
is recognised and reported with the line and the expected format;
:func:`convert_separated` turns it into the ``|`` layout.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from engines.base import VoiceError

AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".mp3")


class MetadataError(VoiceError):
    """A metadata file that cannot be read at all (names the file and, where it can, the line)."""


@dataclass(frozen=True)
class Entry:
    """One utterance of a metadata file.

    Attributes:
        id: utterance id without audio extension.
        text: transcript (the last column).
        speaker: speaker name for multi-speaker files, else ``None``.
        line: 1-based line number in the file.
    """

    id: str
    text: str
    speaker: str | None
    line: int


@dataclass(frozen=True)
class Problem:
    """A line that was skipped, and why."""

    line: int
    message: str


@dataclass
class Metadata:
    """A read metadata file: its entries, the lines skipped, and its layout.

    Attributes:
        layout: ``id|text``, ``id|speaker|text`` or ``id|text|normalized``.
    """

    path: Path
    entries: list[Entry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    layout: str = "id|text"

    @property
    def speakers(self) -> list[str]:
        """Speaker names in order of first appearance (empty for one speaker)."""
        return list(dict.fromkeys(e.speaker for e in self.entries if e.speaker is not None))


def read_metadata(path: Path | str) -> Metadata:
    """Read a ``|``-separated metadata file.

    Raises:
        MetadataError: unreadable or not UTF-8 (names the line), or comma/tab
            separated (names the first line and the expected format).
    """
    path = Path(path)
    lines = _lines(path)
    rows = [(number, line.split("|")) for number, line in lines]
    if rows and not any(len(fields) > 1 for _, fields in rows):
        _refuse_other_separator(path, lines)
    result = Metadata(path, layout=_layout(rows))
    for number, fields in rows:
        entry = _entry(number, fields, result.layout)
        if isinstance(entry, Problem):
            result.problems.append(entry)
        else:
            result.entries.append(entry)
    _flag_duplicates(result)
    return result


def _lines(path: Path) -> list[tuple[int, str]]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise MetadataError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MetadataError(path, f"line {line} is not UTF-8 text (byte {exc.start}); save the file as UTF-8") from None
    return [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]


def _refuse_other_separator(path: Path, lines: list[tuple[int, str]]) -> None:
    number, first = lines[0]
    for name, separator in (("comma", ","), ("tab", "\t")):
        if sum(separator in line for _, line in lines) >= max(1, len(lines) // 2):
            raise MetadataError(
                path,
                f"line {number} looks {name}-separated ({first[:60]!r}); expected 'id|text' or 'id|speaker|text' "
                "with '|' between columns (convert_separated can convert the file)",
            )
    raise MetadataError(path, f"line {number} has no '|' ({first[:60]!r}); expected 'id|text' or 'id|speaker|text'")


def _layout(rows: list[tuple[int, list[str]]]) -> str:
    """``id|speaker|text`` when the middle column of 3-column rows looks like speaker names."""
    middles = [fields[1].strip() for _, fields in rows if len(fields) == 3]
    if not middles:
        return "id|text"
    names = Counter(middles)
    looks_like_names = all(name and " " not in name for name in names)
    repeated = len(names) <= max(1, len(middles) // 2) or len(middles) < 4
    if looks_like_names and repeated and not _same_texts(rows):
        return "id|speaker|text"
    return "id|text|normalized"


def _same_texts(rows) -> bool:
    """LJSpeech's two text columns mostly hold the same words."""
    pairs = [(f[1].strip().lower(), f[2].strip().lower()) for _, f in rows if len(f) == 3]
    return sum(a == b or a.split()[:1] == b.split()[:1] for a, b in pairs if a and b) > len(pairs) // 2


def _entry(number: int, fields: list[str], layout: str) -> Entry | Problem:
    if len(fields) < 2:
        return Problem(number, "no '|' on this line; expected 'id|text'")
    if layout == "id|speaker|text" and len(fields) != 3:
        return Problem(number, f"{len(fields)} columns; expected 'id|speaker|text'")
    if len(fields) > 3:
        return Problem(number, f"{len(fields)} columns ('|' inside the text?); expected at most 3")
    utterance_id = _strip_audio_suffix(fields[0].strip())
    text = fields[-1].strip()
    if not utterance_id:
        return Problem(number, "empty id")
    if not text:
        return Problem(number, f"empty text for '{utterance_id}'")
    speaker = fields[1].strip() if layout == "id|speaker|text" else None
    if layout == "id|speaker|text" and not speaker:
        return Problem(number, f"empty speaker for '{utterance_id}'")
    return Entry(utterance_id, text, speaker, number)


def _strip_audio_suffix(utterance_id: str) -> str:
    for suffix in AUDIO_SUFFIXES:
        if utterance_id.lower().endswith(suffix):
            return utterance_id[: -len(suffix)]
    return utterance_id


def _flag_duplicates(result: Metadata) -> None:
    seen: dict[str, int] = {}
    kept = []
    for entry in result.entries:
        if entry.id in seen:
            result.problems.append(Problem(entry.line, f"id '{entry.id}' already on line {seen[entry.id]}"))
            continue
        seen[entry.id] = entry.line
        kept.append(entry)
    result.entries = kept
    result.problems.sort(key=lambda p: p.line)


def convert_separated(path: Path | str, separator: str = ",") -> str:
    """The ``|``-separated text of a comma- (or tab-) separated file, read with real CSV quoting.

    The caller writes it where it wants; the original is never modified.

    Raises:
        MetadataError: unreadable file, or a row with fewer than 2 columns (names the line).
    """
    path = Path(path)
    text = "\n".join(line for _, line in _lines(path))
    out = []
    for number, row in enumerate(csv.reader(io.StringIO(text), delimiter=separator), start=1):
        if len(row) < 2:
            raise MetadataError(path, f"line {number} has {len(row)} column(s); expected id{separator}text")
        out.append("|".join(cell.replace("|", " ").strip() for cell in row))
    return "\n".join(out) + "\n"
