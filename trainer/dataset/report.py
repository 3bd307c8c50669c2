"""The dataset's health report: totals, what the dataset as a whole means for training, histograms, phoneme
coverage, every clip's findings, and the texts the text front end says otherwise than they are written
(``$5`` -> "five dollars": what training makes of them).

The dataset as a whole is said in the Train page's Check's words (``trainer.dataset.overall``), so the two never
disagree: where Check warns of few clips or of their sample rate, so does the report.

:func:`build_report` gathers the numbers once; :func:`to_markdown` and
:func:`to_html` write them as a file (the HTML is one self-contained page, bars
drawn with CSS, no script), and the studio draws the same histograms with
pyqtgraph.
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines.frontend.lexicon import Lexicon, project_lexicon
from engines.phonemes import language_of
from engines.voice import load_config
from engines.words import count
from trainer.dataset.bandwidth import kilohertz, narrow_sentence, rates_said, width_range
from trainer.dataset.export import records
from trainer.dataset.finding_words import LABELS, label
from trainer.dataset.health import BROKEN_AUDIO, Finding, check
from trainer.dataset.overall import Overall, overall, project_counts
from trainer.dataset.project import DatasetProject
from trainer.time_left import duration_text

WHOLE = "The dataset as a whole"
"""The heading of what the whole dataset means for training (``Report.overall``)."""
WHOLE_FINE = "Enough usable clips, none left out, all at the voice's sample rate."
"""What that section says when it has nothing to warn of."""
CHECK_TOO = (
    "The Train page's Check says the same of the dataset as a whole, and checks the starting voice, the device "
    "and the disk as well."
)
SPOKEN = "Texts as they are spoken"
"""The heading of the texts the front end normalizes (``Report.spoken``)."""
SPOKEN_NOTE = (
    "Training and synthesis read these texts as normalized by the text front end (numbers, money, times, "
    "abbreviations, symbols); check the recordings say the same."
)
NO_CLIP_PROBLEM = "No clip has a problem of its own."
"""What the report says where no clip has a finding (the dataset as a whole may still have some: above)."""
HISTOGRAMS = {
    "duration_s": ("Duration", "s"),
    "phonemes_per_second": ("Speaking rate", "phonemes/s"),
    "loudness_lufs": ("Loudness", "LUFS"),
}
"""Measurements shown as histograms: analysis field -> (title, unit)."""
BINS = 12


@dataclass
class Histogram:
    """``counts[i]`` values fell in ``[edges[i], edges[i + 1])`` (the last bin includes its right edge)."""

    title: str
    unit: str
    edges: list[float]
    counts: list[int]


@dataclass
class Report:
    """Everything the health report shows.

    Attributes:
        name: the project's folder name.
        clips, readable, excluded: counts (excluded clips are not checked).
        seconds: total audio of the trainer's clips: checked, without a blocking finding.
        speakers: speaker names (empty for one unnamed speaker).
        findings: every finding, clip by clip.
        histograms: by analysis field (see ``HISTOGRAMS``), of the clips whose sample values are sound.
        coverage: phoneme -> occurrences in the trainer's texts; ``unused``: the voice's phonemes never used.
        broken: clips left out of the histograms for broken sample values (``health.BROKEN_AUDIO``: NaN/inf,
            far over full scale), whose measures would stretch every axis (a 1e30 sample: +562 LUFS). Clips
            blocked for other reasons (too short, drafts, silent) stay in the histograms, where they show why.
        rates: the clips' sample rates and measured bandwidths against the voice's, in words (empty: no clip).
        narrow: what clips too narrow for the voice's rate mean and the way on (empty: none is).
        overall: what the dataset as a whole means for training against the project's voice (too few clips,
            clips left out, another sample rate), as the Train page's Check says it.
        spoken: clip id -> its text as the front end says it, for the checked clips whose text it changes.
    """

    name: str
    clips: int
    readable: int
    excluded: int
    seconds: float
    speakers: list[str]
    findings: list[Finding]
    histograms: dict[str, Histogram] = field(default_factory=dict)
    coverage: dict[str, int] = field(default_factory=dict)
    unused: list[str] = field(default_factory=list)
    broken: int = 0
    rates: str = ""
    narrow: str = ""
    overall: list[Overall] = field(default_factory=list)
    spoken: dict[str, str] = field(default_factory=dict)

    @property
    def skipped(self) -> int:
        """Clips the trainer would skip."""
        return len({f.clip_id for f in self.findings if f.blocking})

    @property
    def not_counted(self) -> str:
        """Says how many clips the histograms leave out, e.g. ``2 clips with broken sample values not in the
        histograms``; empty when none."""
        return f"{count(self.broken, 'clip')} with broken sample values not in the histograms" if self.broken else ""

    def by_kind(self) -> dict[str, list[Finding]]:
        """Findings grouped by kind: the kinds the trainer skips first, then warnings, each in the order of
        ``finding_words.LABELS``."""
        order = {kind: i for i, kind in enumerate(LABELS)}
        groups: dict[str, list[Finding]] = {}
        for finding in sorted(self.findings, key=lambda f: (not f.blocking, order.get(f.kind, len(order)))):
            groups.setdefault(finding.kind, []).append(finding)
        return groups


def build_report(project: DatasetProject) -> Report:
    """Gather a project's report from its manifest (no audio is read, no text phonemized, texts normalized: this
    is quick)."""
    recs = records(project)
    config = load_config(Path(project.target_config))
    language = language_of(config)
    findings = check(recs, voice_rate=config.sample_rate, language=language)
    blocked = {f.clip_id for f in findings if f.blocking}
    broken = {f.clip_id for f in findings if f.kind in BROKEN_AUDIO}
    counted = [r.analysis for r in recs if r.analysis and r.id not in blocked]
    sound = [r.analysis for r in recs if r.analysis and r.id not in broken]
    report = Report(
        name=project.folder.name,
        clips=len(recs),
        readable=sum(1 for r in recs if r.analysis),
        excluded=sum(1 for c in project.clips.values() if c.status == "excluded"),
        seconds=sum(a.duration_s for a in counted),
        speakers=sorted({c.speaker for c in project.clips.values() if c.speaker}),
        findings=findings,
        broken=len(broken),
        spoken=_spoken(recs, language, project_lexicon(project.folder)),
    )
    report.rates, report.narrow = _rates(recs, findings, config)
    who = f"the project's voice ({config.path.name.removesuffix('.onnx.json')})"
    report.overall = overall(*project_counts(project), config.sample_rate, who)
    for name, (title, unit) in HISTOGRAMS.items():
        values = [getattr(a, name) for a in sound if getattr(a, name) is not None]
        if values:
            counts, edges = np.histogram(values, bins=BINS)
            report.histograms[name] = Histogram(title, unit, edges.tolist(), counts.tolist())
    _coverage(report, counted, config.phoneme_id_map)
    return report


def _spoken(recs, language: str, lexicon: Lexicon) -> dict[str, str]:
    """Clip id -> its text normalized (``engines.frontend``, with the project's ``lexicon``), where that differs
    from the text."""
    from engines.frontend import normalize

    spoken = {}
    for record in recs:
        if record.text and (said := normalize(record.text, language, lexicon).text) != record.text:
            spoken[record.id] = said
    return spoken


def _rates(recs, findings: list[Finding], config) -> tuple[str, str]:
    """``Report.rates`` and ``Report.narrow`` from the clips' analyses and their ``narrow_band`` findings."""
    analysed = [r.analysis for r in recs if r.analysis]
    if not analysed:
        return "", ""
    widths = [a.bandwidth_hz for a in analysed if a.bandwidth_hz is not None]
    voice, nyquist = config.sample_rate, kilohertz(config.sample_rate / 2)
    measured = f", measured {width_range(widths)} wide" if widths else ""
    rates = f"{rates_said(a.sample_rate for a in analysed)}{measured}; the voice: {voice:,} Hz, up to {nyquist}"
    narrow = [f.values for f in findings if f.kind == "narrow_band"]
    if not narrow:
        return rates, ""
    who = f"the voice ({config.path.name.removesuffix('.onnx.json')})"
    return rates, narrow_sentence([v["width"] for v in narrow], [v["rate"] for v in narrow], voice, who, len(widths))


def _coverage(report: Report, analysed, symbols) -> None:
    from engines.phonemes import PUNCTUATION
    from engines.voice import BOS, EOS, PAD

    counts: Counter[str] = Counter()
    for analysis in analysed:
        counts.update(analysis.phoneme_counts)
    report.coverage = dict(counts.most_common())
    ignored = set(PUNCTUATION) | {PAD, BOS, EOS, " "}
    report.unused = sorted(s for s in symbols if s not in counts and s not in ignored)


def to_markdown(report: Report) -> str:
    """The report as Markdown."""
    lines = [f"# Dataset report: {report.name}", ""] + [f"- {k}: {v}" for k, v in _totals(report)] + [""]
    lines += [f"## {WHOLE}", ""] + [f"- {o.level.title()}: {o.message}" for o in report.overall]
    lines += ([""] if report.overall else [WHOLE_FINE, ""]) + [CHECK_TOO, ""]
    for kind, items in report.by_kind().items():
        lines += [f"## {_heading(kind, items)}", ""]
        lines += [f"- `{f.clip_id}`: {f.message}" for f in items] + [""]
    if not report.findings:
        lines += [NO_CLIP_PROBLEM, ""]
    if report.spoken:
        lines += [f"## {SPOKEN}: {count(len(report.spoken), 'clip')}", "", SPOKEN_NOTE, ""]
        lines += [f"- `{clip_id}`: {said}" for clip_id, said in report.spoken.items()] + [""]
    for hist in report.histograms.values():
        lines += [f"## {hist.title} ({hist.unit})", "", "| from | to | clips |", "|---:|---:|---:|"]
        lines += [f"| {lo:.2f} | {hi:.2f} | {n} |" for lo, hi, n in _bins(hist)] + [""]
    lines += ["## Phoneme coverage", "", _coverage_line(report), ""]
    return "\n".join(lines)


def to_html(report: Report) -> str:
    """The report as one self-contained HTML page (CSS bars, no script)."""
    e = html.escape
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        f"<title>Dataset report: {e(report.name)}</title><style>{_CSS}</style></head><body>",
        f"<h1>Dataset report: {e(report.name)}</h1><ul>",
        *(f"<li>{e(k)}: {e(str(v))}</li>" for k, v in _totals(report)),
        "</ul>",
        f"<h2>{e(WHOLE)}</h2>",
        _whole_html(report.overall),
        f"<p>{e(CHECK_TOO)}</p>",
    ]
    for kind, items in report.by_kind().items():
        parts.append(f"<h2>{e(_heading(kind, items))}</h2><ul>")
        parts += [f"<li><code>{e(f.clip_id)}</code>: {e(f.message)}</li>" for f in items]
        parts.append("</ul>")
    if not report.findings:
        parts.append(f"<p>{e(NO_CLIP_PROBLEM)}</p>")
    if report.spoken:
        parts.append(f"<h2>{e(SPOKEN)}: {count(len(report.spoken), 'clip')}</h2><p>{e(SPOKEN_NOTE)}</p><ul>")
        parts += [f"<li><code>{e(clip_id)}</code>: {e(said)}</li>" for clip_id, said in report.spoken.items()]
        parts.append("</ul>")
    for hist in report.histograms.values():
        top = max(hist.counts) or 1
        parts.append(f"<h2>{e(hist.title)} ({e(hist.unit)})</h2><table class='hist'>")
        parts += [
            f"<tr><td>{lo:.2f}–{hi:.2f}</td><td>{n}</td>"
            f"<td><div class='bar' style='width:{100 * n / top:.0f}%'></div></td></tr>"
            for lo, hi, n in _bins(hist)
        ]
        parts.append("</table>")
    parts += ["<h2>Phoneme coverage</h2>", f"<p>{e(_coverage_line(report))}</p>", "</body></html>"]
    return "\n".join(parts)


def _whole_html(said: list[Overall]) -> str:
    """The dataset as a whole as an HTML list, or the sentence saying it has nothing to warn of."""
    if not said:
        return f"<p>{html.escape(WHOLE_FINE)}</p>"
    return "<ul>" + "".join(f"<li>{html.escape(f'{o.level.title()}: {o.message}')}</li>" for o in said) + "</ul>"


def _heading(kind: str, items: list[Finding]) -> str:
    """A findings section's heading: "Too long: 2 clips, skipped by the trainer"."""
    marker = "skipped by the trainer" if items[0].blocking else "warnings"
    return f"{label(kind).capitalize()}: {count(len(items), 'clip')}, {marker}"


def _totals(report: Report) -> list[tuple[str, str]]:
    speakers = f"{len(report.speakers) or 1}" + (f" ({', '.join(report.speakers)})" if report.speakers else "")
    totals = [
        ("clips", f"{report.clips} ({report.readable} readable, {report.excluded} excluded)"),
        ("audio", f"{duration_text(report.seconds)} the trainer can use"),
        ("speakers", speakers),
        ("clips the trainer would skip", str(report.skipped)),
    ]
    if report.rates:
        totals.append(("sample rates", report.rates))
    if report.narrow:
        totals.append(("narrow band", report.narrow))
    if report.not_counted:
        totals.append(("histograms", report.not_counted))
    return totals


def _bins(hist: Histogram):
    return zip(hist.edges[:-1], hist.edges[1:], hist.counts, strict=True)


def _coverage_line(report: Report) -> str:
    used = ", ".join(f"{p} ×{n}" for p, n in report.coverage.items()) or "no texts"
    unused = ", ".join(report.unused) or "none"
    return f"{len(report.coverage)} phonemes used: {used}. Never used (of the voice's map): {unused}."


_CSS = (
    "body{font-family:sans-serif;max-width:60em;margin:2em auto;line-height:1.4}"
    "table.hist td{padding:0 .5em;white-space:nowrap}table.hist td:last-child{width:100%}"
    ".bar{background:#3b82f6;height:.9em}code{background:#eee;padding:0 .2em}"
)
