"""The leaderboard's rows and columns, as text and CSV (no measuring here: ``trainer.evaluate.leaderboard``).

The CSV has one column per :data:`COLUMNS` field (its ``field`` name as header, empty for ``None``), the model
path, ``missing`` (the reasons), ``lines`` (how many lines each value rests on) and ``stderr`` (each value's
standard error over its lines), the last three as JSON objects, so :func:`read_csv` gives back the same rows.
A CSV written before ``lines`` and ``stderr`` reads with both empty.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path

from engines.errors import VoiceStudioError
from trainer.evaluate.measures import MCD_LEGEND


class BoardError(VoiceStudioError, ValueError):
    """A leaderboard CSV that cannot be read back (names the row and field)."""


@dataclass(frozen=True)
class Column:
    """One column of the leaderboard.

    Attributes:
        field: the :class:`Row` attribute shown.
        header: its heading; unit: its unit ("" for none).
        better: ``lower``, ``higher``, ``closer`` (to the field ``closer_to``, or to 0 when that is empty),
            or "" (not ranked).
        fmt: ``str.format`` pattern of a value.
        closer_to: for ``closer``: the field it should be close to ("" for 0).
    """

    field: str
    header: str
    unit: str
    better: str
    fmt: str
    closer_to: str = ""

    def title(self) -> str:
        """The heading with its unit: ``MCD (dB)``."""
        return f"{self.header} ({self.unit})" if self.unit else self.header

    def text(self, row: Row) -> str:
        """The cell of ``row``: the value formatted and, where it rests on 2 lines or more, ``±`` its standard
        error (``0.15±0.03``); ``—`` when not measured."""
        value = getattr(row, self.field)
        if value is None:
            return "—"
        error = row.stderr.get(self.field)
        return self.fmt.format(value) + ("" if error is None else "±" + self.fmt.format(error).lstrip("+"))


@dataclass(frozen=True, kw_only=True)
class Row:
    """One candidate's measures; ``None`` is not measured and ``missing[field]`` says why. A field measured on
    only some lines also has a ``missing`` entry (how many lines failed, and the first reason).

    Attributes:
        label, model_path: the candidate.
        val_mel: the validation mel L1 loss when the checkpoint was saved (lower is better).
        mcd_db: mel-cepstral distortion to the references after DTW, dB (lower is better).
        f0_rmse_hz: F0 RMSE to the references over frames voiced in both, Hz (lower is better).
        f0_gap_hz: mean F0 minus the references' mean F0, Hz (closer to 0 is better).
        similarity: cosine of the speaker embeddings of all renders and all references (higher is better).
        dnsmos_sig, dnsmos_bak, dnsmos_ovrl: DNSMOS P.835 MOS, 1-5 (higher is better).
        wer: word error rate of a speech recognizer's round trip, 0 is perfect (lower is better); ``recognizer``
            names the recognizer (``Whisper tiny.en``, ``PocketSphinx``), ``None`` when WER was not measured.
        rate_pps: speaking rate, phonemes per second; dataset_rate_pps: the references' (closer is better).
        failed: why the candidate could not be rendered (one line naming its file; then every measure is
            ``None``), or ``None`` when it was.
        lines: measure -> how many lines its value is the mean of (``similarity``: how many renders' embeddings
            it compares); val_mel, measured on the run's validation set, has none.
        stderr: measure -> the standard error of its value over those lines, in its unit, where they are 2 or
            more (``trainer.evaluate.spread``).
    """

    label: str
    model_path: Path
    val_mel: float | None = None
    mcd_db: float | None = None
    f0_rmse_hz: float | None = None
    f0_gap_hz: float | None = None
    similarity: float | None = None
    dnsmos_sig: float | None = None
    dnsmos_bak: float | None = None
    dnsmos_ovrl: float | None = None
    wer: float | None = None
    rate_pps: float | None = None
    dataset_rate_pps: float | None = None
    missing: dict[str, str] = field(default_factory=dict)
    failed: str | None = None
    recognizer: str | None = None
    lines: dict[str, int] = field(default_factory=dict)
    stderr: dict[str, float] = field(default_factory=dict)


COLUMNS: list[Column] = [
    Column("label", "candidate", "", "", "{}"),
    Column("val_mel", "val_mel", "", "lower", "{:.4f}"),
    Column("mcd_db", "MCD", "dB", "lower", "{:.2f}"),
    Column("f0_rmse_hz", "F0 RMSE", "Hz", "lower", "{:.1f}"),
    Column("f0_gap_hz", "F0 gap", "Hz", "closer", "{:+.1f}"),
    Column("similarity", "similarity", "", "higher", "{:.3f}"),
    Column("dnsmos_sig", "SIG", "MOS", "higher", "{:.2f}"),
    Column("dnsmos_bak", "BAK", "MOS", "higher", "{:.2f}"),
    Column("dnsmos_ovrl", "OVRL", "MOS", "higher", "{:.2f}"),
    Column("wer", "WER", "", "lower", "{:.2f}"),
    Column("rate_pps", "rate", "ph/s", "closer", "{:.1f}", closer_to="dataset_rate_pps"),
    Column("dataset_rate_pps", "dataset rate", "ph/s", "", "{:.1f}"),
]
"""The table's columns, in order (the label first). ``better`` is ``lower``, ``higher``, ``closer`` (to the
field ``closer_to``, or to 0) or empty (not ranked)."""

FLOAT_FIELDS = [c.field for c in COLUMNS[1:]]
"""The Row fields that hold a measure (float or None)."""

RECORDINGS_LABEL = "recordings"
"""The label of the row that measures the lines' own recordings (``leaderboard.score(recordings=True)``): a
baseline, not a candidate. Its ``model_path`` is their folder, not a voice file (:data:`VOICE_SUFFIXES`): that
tells it from a voice of the same name."""

VOICE_SUFFIXES = (".onnx", ".ckpt")
"""The files a candidate is (an ONNX voice, a checkpoint)."""

HEARD = ("dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "wer")
"""The measures the recordings' row has of its own (what a listener hears of any audio: quality and words)."""


def is_recordings(row: Row) -> bool:
    """Whether ``row`` measures the lines' recordings rather than a voice (:data:`RECORDINGS_LABEL`)."""
    return names_recordings(row.label, row.model_path)


def candidates_text(rows: list[Row]) -> str:
    """``3 candidates``, and ``and their recordings`` where the recordings' row is among ``rows``."""
    from engines.words import count

    voices = [row for row in rows if not is_recordings(row)]
    return count(len(voices), "candidate") + (" and their recordings" if len(voices) < len(rows) else "")


def names_recordings(label: str, path: str | Path) -> bool:
    """Whether a row labelled ``label`` for ``path`` is the recordings' row: that label, and no voice file."""
    return label == RECORDINGS_LABEL and Path(path).suffix.lower() not in VOICE_SUFFIXES


RECORDINGS_MEANING = (
    "recordings: the lines' own recordings, heard as the renders are (DNSMOS, WER): the quality and clarity a "
    "voice that sounds like them can be asked for."
)
"""The note under a table with the recordings' row."""

MEANINGS = (
    "WER is the fraction of the line's words the recognizer got wrong (0 is perfect; it can exceed 1). "
    "F0 gap is the renders' mean F0 minus the recordings' (negative: lower than the recordings). "
    "A value is the mean over its lines (the lines column) ± its standard error over them."
)
"""What the table's less obvious numbers mean (printed under it by :func:`table`)."""


def legend() -> list[str]:
    """Lines that say which way is better per column (from :data:`COLUMNS`), then :data:`MEANINGS`."""
    headers = {c.field: c.header for c in COLUMNS}
    ways = []
    for better in ("lower", "higher", "closer"):
        named = [
            c.header + (f" (to the {headers[c.closer_to]})" if c.closer_to else " (to 0)" if better == "closer" else "")
            for c in COLUMNS
            if c.better == better
        ]
        ways.append(f"{better} is better: {', '.join(named)}")
    return ["; ".join(ways) + ".", MEANINGS, MCD_LEGEND + "."]


def table(rows: list[Row]) -> str:
    """The rows as a plain-text table (one line per candidate, columns aligned, the lines they rest on last),
    the :func:`legend`, then why values are missing and which rest on fewer lines."""
    cells = [[*(c.title() for c in COLUMNS), "lines"]]
    cells += [[*(c.text(row) for c in COLUMNS), lines_text(row)] for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(cells[0]))]
    text = ["  ".join(_aligned(line, widths)) for line in cells]
    notes = _notes(rows) + _fewer_lines(rows)
    baseline = [RECORDINGS_MEANING] if any(is_recordings(row) for row in rows) else []
    return "\n".join([*text, "", *legend(), *baseline, *recognizers(rows), *([""] if notes else []), *notes])


def recognizers(rows: list[Row]) -> list[str]:
    """The line that says which recognizer produced each WER (none when no WER was measured)."""
    by: dict[str, list[str]] = {}
    for row in rows:
        if row.recognizer:
            by.setdefault(row.recognizer, []).append(row.label)
    if not by:
        return []
    if len(by) == 1:
        return [f"WER by {next(iter(by))}; reference and transcript normalized alike (numbers, units, case)."]
    return ["WER by " + "; ".join(f"{name} ({', '.join(labels)})" for name, labels in by.items()) + "."]


def row_lines(row: Row) -> int:
    """The most lines any of ``row``'s values rests on (0 when none says: an older CSV, or not rendered)."""
    return max(row.lines.values(), default=0)


def lines_text(row: Row) -> str:
    """The lines column's cell: :func:`row_lines`, or ``—`` when unknown."""
    return str(row_lines(row)) if row.lines else "—"


def _fewer_lines(rows: list[Row]) -> list[str]:
    """``MCD, F0 RMSE: the mean of 3 of the 5 lines (joe)``: values resting on fewer lines than their row's
    others, for a reason the notes do not already give (lines without a recording)."""
    headers = {c.field: c.header for c in COLUMNS}
    seen: dict[tuple[int, int, str], list[str]] = {}
    for row in rows:
        total = row_lines(row)
        for name, n in row.lines.items():
            if n < total and name not in row.missing:
                seen.setdefault((n, total, row.label), []).append(headers.get(name, name))
    grouped: dict[tuple[int, int, tuple[str, ...]], list[str]] = {}
    for (n, total, label), names in seen.items():
        grouped.setdefault((n, total, tuple(names)), []).append(label)
    return [
        f"{', '.join(names)}: the mean of {n} of the {total} lines (those with a recording)"
        + ("" if len(labels) == len(rows) else f" ({', '.join(labels)})")
        for (n, total, names), labels in grouped.items()
    ]


def _aligned(cells: list[str], widths: list[int]) -> list[str]:
    """The label left-aligned, the numbers right-aligned, each to its column's width."""
    return [cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(cells, widths, strict=True))]


def _notes(rows: list[Row]) -> list[str]:
    """``header: reason`` for every missing value, once per distinct reason (which candidates, when not all)."""
    headers = {c.field: c.header for c in COLUMNS}
    seen: dict[tuple[str, str], list[str]] = {}
    failed = [f"{row.label}: not rendered: {row.failed}" for row in rows if row.failed]
    for row in rows:
        for name, reason in row.missing.items():
            seen.setdefault((headers.get(name, name), reason), []).append(row.label)
    return failed + [
        f"{header}: {reason}" + ("" if len(labels) == len(rows) else f" ({', '.join(labels)})")
        for (header, reason), labels in seen.items()
    ]


def to_csv(rows: list[Row]) -> str:
    """The rows as CSV text: ``label``, the measures, ``model_path``, ``missing`` (JSON), ``failed`` (empty for
    a candidate that was rendered), ``lines`` and ``stderr`` (JSON: measure -> lines, measure -> standard error)
    and ``recognizer`` (WER's)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["label", *FLOAT_FIELDS, "model_path", "missing", "failed", "lines", "stderr", "recognizer"])
    for row in rows:
        values = [_csv_value(f, getattr(row, f)) for f in FLOAT_FIELDS]
        missing = json.dumps(row.missing, ensure_ascii=False)
        spread = [json.dumps(row.lines), json.dumps(row.stderr)]
        writer.writerow(
            [row.label, *values, str(row.model_path), missing, row.failed or "", *spread, row.recognizer or ""]
        )
    return out.getvalue()


def _csv_value(name: str, value: float | None) -> str:
    """A measure as CSV text: empty for None; val_mel to 4 decimals as the table shows it; others in full."""
    if value is None:
        return ""
    return f"{value:.4f}" if name == "val_mel" else repr(float(value))


def read_csv(text: str) -> list[Row]:
    """Rows from :func:`to_csv` text.

    Raises:
        BoardError: a missing column, a value that is not a number, or ``missing`` that is not a JSON object
            (names the row and column).
    """
    reader = csv.DictReader(io.StringIO(text))
    needed = {"label", "model_path", "missing", *FLOAT_FIELDS}
    if reader.fieldnames is None or not needed <= set(reader.fieldnames):
        raise BoardError(f"not a leaderboard CSV: expected the columns {', '.join(sorted(needed))}")
    return [_row(record, number) for number, record in enumerate(reader, start=2)]


def _row(record: dict[str, str], number: int) -> Row:
    values: dict[str, float | None] = {}
    for name in FLOAT_FIELDS:
        try:
            values[name] = float(record[name]) if record[name] else None
        except ValueError:
            raise BoardError(f"line {number}, {name}: {record[name]!r} is not a number") from None
    try:
        missing = json.loads(record["missing"] or "{}")
    except ValueError:
        missing = None
    if not isinstance(missing, dict):
        raise BoardError(f"line {number}, missing: not a JSON object of reasons")
    failed = record.get("failed") or None  # CSVs written before the column have none
    lines = _json_object(record, "lines", number, int)  # nor before these two
    stderr = _json_object(record, "stderr", number, float)
    recognizer = record.get("recognizer") or None  # and before this one
    path = Path(record["model_path"])
    return Row(
        label=record["label"],
        model_path=path,
        missing=missing,
        failed=failed,
        lines=lines,
        stderr=stderr,
        recognizer=recognizer,
        **values,
    )


def _json_object(record: dict[str, str], name: str, number: int, kind: type) -> dict:
    """Column ``name`` of a CSV row: a JSON object of measure -> ``kind`` (empty when the column is absent).

    Raises:
        BoardError: not such an object (names the line and column).
    """
    try:
        found = json.loads(record.get(name) or "{}")
        return {str(k): kind(v) for k, v in found.items()}
    except (ValueError, TypeError, AttributeError):
        raise BoardError(f"line {number}, {name}: not a JSON object of numbers") from None
