"""Reading LJSpeech-style ``metadata.csv`` files exactly, without CSV quoting surprises.

Layouts (Piper's trainer reads the text from the last column, the speaker from the second):

- ``id|text``
- ``id|speaker|text`` (multi-speaker)
- ``id|text|normalized text`` (LJSpeech's own file; the last column is used)

The layout is the one most rows have (a tie goes to fewer columns); a row with
another number of columns (a ``|`` typed inside a text) is named with its line
and column count and not read, never cut to its last column. Only a ``id|text``
row in an ``id|text|normalized`` file is read as it is (its one text, whole).

Ids may carry the audio extension (``clip.wav``). Files may be UTF-8 with or
without a BOM, with LF, CRLF or CR line ends (only these end a row: a U+2028
pasted into a text stays in it), with blank lines. Quotes are
text: a stray ``"`` never swallows the lines after it, as it does with Python's
``csv`` module (and so in piper-tts's trainer). A comma- or tab-separated file
is recognised and reported with the line and the expected format;
:func:`convert_separated` turns it into the ``|`` layout.
"""

from __future__ import annotations

import csv
import io
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from engines.base import VoiceError
from trainer.dataset.text_files import NotText, decode_text

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
        MetadataError: unreadable, or neither UTF-8 nor UTF-16 with a byte-order mark (names the line), or comma/tab
            separated (names the first line and the expected format).
    """
    path = Path(path)
    lines = _lines(path)
    rows = [(number, line.split("|")) for number, line in lines]
    if rows and not any(len(fields) > 1 for _, fields in rows):
        _refuse_other_separator(path, lines)
    columns = _columns(path, rows)
    result = Metadata(path, layout=_layout(rows) if columns == 3 else "id|text")
    for number, fields in rows:
        entry = _entry(number, fields, result.layout, columns)
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
        text = decode_text(data)  # UTF-8, or UTF-16 with its byte-order mark (Notepad's "Unicode")
    except NotText as exc:
        raise MetadataError(path, str(exc)) from None
    rows = ROW_END.split(text.removesuffix("\r\n").removesuffix("\n").removesuffix("\r"))
    return [(number, line) for number, line in enumerate(rows, start=1) if line.strip()]


ROW_END = re.compile(r"\r\n|\r|\n")
"""What ends a row: CRLF, CR or LF only (``str.splitlines`` also cuts at U+2028, NEL and form feeds)."""


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


def _columns(path: Path, rows: list[tuple[int, list[str]]]) -> int:
    """The number of columns most rows have (2 or 3; a tie goes to fewer, so no row is read as a layout that
    would cut its text).

    Raises:
        MetadataError: most rows have more than 3 columns (names the first such line).
    """
    counts = Counter(len(fields) for _, fields in rows if len(fields) > 1)
    if not counts:
        return 2
    columns = min(counts, key=lambda n: (-counts[n], n))
    if columns > 3:
        first = next(number for number, fields in rows if len(fields) == columns)
        raise MetadataError(
            path,
            f"line {first} has {columns} columns, as most lines do; expected 'id|text', 'id|speaker|text' or "
            "'id|text|normalized'",
        )
    return columns


def _layout(rows: list[tuple[int, list[str]]]) -> str:
    """Of a file whose rows mostly have 3 columns: ``id|speaker|text`` when the middle column looks like
    speaker names, else LJSpeech's ``id|text|normalized``."""
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


def _entry(number: int, fields: list[str], layout: str, columns: int) -> Entry | Problem:
    if len(fields) < 2:
        return Problem(number, f"no '|' on this line; expected '{layout}'")
    if len(fields) != columns and not (layout == "id|text|normalized" and len(fields) == 2):
        return _misfit(number, len(fields), layout, columns)
    utterance_id = _strip_audio_suffix(fields[0].strip())
    text = " ".join(fields[-1].split())
    if not utterance_id:
        return Problem(number, "empty id")
    if not text:
        return Problem(number, f"empty text for '{utterance_id}'")
    speaker = fields[1].strip() if layout == "id|speaker|text" else None
    if layout == "id|speaker|text" and not speaker:
        return Problem(number, f"empty speaker for '{utterance_id}'")
    return Entry(utterance_id, text, speaker, number)


def _misfit(number: int, found: int, layout: str, columns: int) -> Problem:
    """A row whose column count is not the file's: named, not read (reading its last column would cut it)."""
    why = "a '|' inside the text? Remove it" if found > columns else "a column missing? Add it"
    return Problem(number, f"{found} columns where the file's rows have {columns} columns ('{layout}'): {why}")


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
