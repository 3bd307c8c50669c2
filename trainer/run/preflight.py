"""Checks before a training run starts, in words a person can act on (no Qt).

:func:`preflight` looks at what the Train page is about to start and returns
findings: errors block the start (no clips, a start voice that cannot be read,
a requested GPU that is missing, too little disk for the checkpoints the run
will keep, a voice config that cannot phonemize the texts, a start voice whose
speakers, symbols or rate cannot fit the dataset),
warnings inform (few clips, clips the trainer will leave out, clips at another
sample rate than the start voice, with the fix: resample; clips narrower than the
voice's band, by their measured bandwidth, with a 16 kHz voice offered), conversions say how
the start is made to fit (a single-speaker start on a multi-speaker dataset:
``trainer.start.shape``), and an ONNX start says what its recovery will do and how
well an earlier recovery of the voice agreed with it (``info``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

from engines.extras import missing
from engines.imports import importing
from engines.words import count
from trainer.dataset.overall import overall
from trainer.run.options import RunOptions

UNALIGNABLE = "more phoneme_ids than spectrogram frames (the text says more than the audio)"
"""Why a cached utterance is left out (``Utterance.alignable``)."""


@dataclass(frozen=True)
class Finding:
    """One pre-flight result: ``level`` is ``error``, ``warning`` or ``conversion`` (how the start is made to
    fit the dataset). ``fix`` names an action the page offers (``resample`` to ``fix_rate`` Hz)."""

    level: str
    message: str
    fix: str | None = None
    fix_rate: int | None = None

    @property
    def blocking(self) -> bool:
        """Errors stop the start."""
        return self.level == "error"


@dataclass
class DatasetSummary:
    """Usable clips, their sample rates (Hz -> count), seconds of audio, why others are left out, the
    speakers' names (empty for one unnamed speaker) and the voice config whose map builds its phoneme_ids.
    ``bands``: ``(bandwidth Hz, sample rate Hz)`` of a project's clips, as measured at import
    (``trainer.dataset.bandwidth``; a cache's and a Piper folder's are measured by the pre-flight only)."""

    kind: str
    clips: int
    rates: Counter
    seconds: float
    skipped: Counter
    speakers: list[str] = field(default_factory=list)
    voice_config: str | None = None
    bands: list[tuple[float, int]] = field(default_factory=list)


def preflight(options: RunOptions) -> list[Finding]:
    """All findings for what ``options`` ask for, errors first."""
    from trainer.run.errors import RunError
    from trainer.start.points import run_rate, start_rate

    findings: list[Finding] = []
    try:
        start_rate(options.start)
    except (RunError, ValueError, OSError) as exc:
        return [Finding("error", f"The starting voice cannot be used: {exc}")]
    try:  # a training cache that cannot be read is the dataset's fault, said as summarize says it
        summary = summarize(options.dataset)
        rate = run_rate(options.start, options.dataset, options.preset)
    except ValueError as exc:
        return [Finding("error", str(exc))]
    who = "the starting voice" if options.start != "scratch" else "training"
    findings += _clip_findings(summary, rate, who)
    findings += _voice_findings(summary, Path(options.dataset))
    findings += band_findings(options, summary, rate)
    findings += _shape_findings(options, summary)
    findings += _device_findings(options.device)
    findings += _disk_findings(options, summary, rate)
    findings += _recovery_findings(options)
    return sorted(findings, key=lambda f: not f.blocking)


def _voice_findings(summary: DatasetSummary, dataset: Path) -> list[Finding]:
    """An error where the voice config that phonemizes the dataset's texts cannot (``engines.espeak.check_config``:
    an ``espeak.voice`` espeak-ng does not have, or piper-tts's espeak-ng data missing), or where a training
    cache's texts were normalized by another text front end than the voice's now (the run refuses it too)."""
    from engines.base import EngineError, VoiceError
    from engines.espeak import check_config
    from engines.voice import load_config

    try:
        check_config(load_config(Path(summary.voice_config or default_voice_config())))
    except (VoiceError, EngineError) as exc:
        return [Finding("error", f"The dataset's texts cannot be phonemized: {exc}")]
    if summary.kind == "cache":
        from trainer.data.preprocess import PreprocessedCache

        stale = PreprocessedCache(dataset).stale_frontend()
        if stale:
            return [Finding("error", f"The training cache is out of date: {stale}")]
    return []


def _recovery_findings(options: RunOptions) -> list[Finding]:
    """An ONNX start: its training-only parts are recovered first (``trainer.start.recovery``), and the held-out KL
    the newest cached recovery of the same voice and budget reached (``trainer.start.recovery_cache``), if any."""
    from engines.files import sha256_file
    from trainer.run.presets import preset
    from trainer.run.settings import as_run
    from trainer.start.points import resolve_start
    from trainer.start.recovery_cache import budget_of, recovery_cache_dir, summaries

    kind, path = resolve_start(options.start)
    if path is None or kind == "ckpt":
        return []
    config = as_run(preset(options.preset), options.start, options.settings)
    steps = config.recovery_steps + config.recovery_fit_steps
    said = (
        f"Before training, the training-only parts {path.name} does not hold are recovered from its own speech "
        f"(up to {count(config.recovery_lines, 'line')}, {count(steps, 'step')}); the run log says how well "
        "they agree with the voice (KL on held-out lines: the lower, the less the voice is pulled at first)."
    )
    budget = budget_of(config)
    done = [s for s in summaries(recovery_cache_dir(), sha256_file(path)) if s.budget == budget]
    if done and not options.no_recovery_cache:
        said += (
            f" Recovered from this voice before: KL {done[0].kl:.1f} on held-out lines "
            f"({count(done[0].lines, 'line')} spoken); a run on the same lines takes it from the cache."
        )
    return [Finding("info", said)]


def summarize(dataset: Path) -> DatasetSummary:
    """What the trainer would use from ``dataset``: a project, a preprocessed cache, or a Piper folder.

    Raises:
        ValueError: none of those (the message names the folder).
    """
    dataset = Path(dataset)
    if (dataset / "cache.json").is_file():
        from trainer.data.preprocess import PreprocessedCache

        cache = PreprocessedCache(dataset)
        rate = cache.settings.sample_rate
        usable = [u for u in cache.utterances if u.alignable]
        seconds = sum(u.audio[1] for u in usable) / rate
        unalignable = len(cache.utterances) - len(usable)
        skipped = Counter({UNALIGNABLE: unalignable} if unalignable else {})
        return DatasetSummary(
            "cache", len(usable), Counter({rate: len(usable)}), seconds, skipped, cache.speakers, cache.voice_config
        )
    if (dataset / "manifest.json").is_file():
        from trainer.dataset.export import selection
        from trainer.dataset.overall import project_counts
        from trainer.dataset.project import DatasetProject

        project = DatasetProject(dataset)
        chosen = selection(project)[0]
        clips, reasons, rates = project_counts(project)
        seconds = sum(float(c.analysis.get("duration_s") or 0) for c in chosen if c.analysis)
        speakers = sorted({c.speaker for c in chosen if c.speaker})
        summary = DatasetSummary("project", clips, rates, seconds, reasons, speakers, project.target_config)
        bands = [(c.analysis["bandwidth_hz"], c.analysis["sample_rate"]) for c in chosen if _has_band(c.analysis)]
        return replace(summary, bands=bands)
    if (dataset / "metadata.csv").is_file():
        from trainer.dataset.metadata import read_metadata

        metadata = read_metadata(dataset / "metadata.csv")
        return DatasetSummary("piper", len(metadata.entries), Counter(), 0.0, Counter(), sorted(metadata.speakers))
    raise ValueError(f"{dataset}: not a dataset (a project, a training cache, or a folder with metadata.csv)")


def _clip_findings(summary: DatasetSummary, rate: int, who: str) -> list[Finding]:
    """The dataset as a whole (``trainer.dataset.overall``: the Dataset page's report says the same words)."""
    said = overall(summary.clips, summary.skipped, summary.rates, rate, who, cache=summary.kind == "cache")
    return [
        Finding(s.level, s.message, fix="resample" if s.resample_to else None, fix_rate=s.resample_to) for s in said
    ]


def _has_band(analysis: dict | None) -> bool:
    return analysis is not None and analysis.get("bandwidth_hz") is not None  # measured before it was: unknown


def _bands(dataset: Path, summary: DatasetSummary) -> list[tuple[float, int]]:
    """``(bandwidth Hz, rate Hz)`` of the dataset's clips: a project's from its analyses, a training cache's and a
    Piper folder's measured now (``trainer.dataset.bandwidth.spread``: at most ``MEASURED_CLIPS`` of them)."""
    from trainer.dataset.bandwidth import folder_bands, measured_bands, spread

    if summary.kind == "cache":
        from trainer.data.preprocess import PreprocessedCache

        cache = PreprocessedCache(dataset)
        rate = cache.settings.sample_rate
        return measured_bands((cache.audio(i), rate) for i in spread(len(cache.utterances)))
    if summary.kind == "piper":
        from trainer.dataset.metadata import read_metadata

        return folder_bands(dataset, [e.id for e in read_metadata(dataset / "metadata.csv").entries])
    return summary.bands


def band_findings(options: RunOptions, summary: DatasetSummary, rate: int) -> list[Finding]:
    """Clips whose measured bandwidth leaves a voice at ``rate`` Hz an empty top band: what it means, and a
    ``trainer.dataset.bandwidth.LOW_RATE`` voice offered where it loses nothing (a warning: going on is allowed)."""
    from trainer.dataset.bandwidth import is_narrow, narrow_sentence

    bands = _bands(Path(options.dataset), summary)
    who = "the starting voice" if options.start != "scratch" else "the voice"
    narrow = [(width, clip_rate) for width, clip_rate in bands if is_narrow(width, rate)]
    if not narrow:
        return []
    widths, rates = [w for w, _ in narrow], [r for _, r in narrow]
    return [Finding("warning", narrow_sentence(widths, rates, rate, who, len(bands)))]


def _shape_findings(options: RunOptions, summary: DatasetSummary) -> list[Finding]:
    """Speakers, symbols and rate of the start against the dataset's: conversions, or an error naming both."""
    from engines.base import VoiceError
    from trainer.run.errors import RunError
    from trainer.run.presets import preset
    from trainer.start.shape import check_fit, data_shape, size_notes, start_shape

    try:
        start = start_shape(options.start)
        if start is None:
            return []
        voice_config = summary.voice_config or default_voice_config()
        data = data_shape(str(options.dataset), summary.speakers, voice_config)  # rates: _clip_findings
        notes = check_fit(start, data)
        if start.model is not None:
            notes += size_notes(start.label, start.model, preset(options.preset).model, options.preset)
        return [Finding("conversion", note) for note in notes]
    except (RunError, VoiceError) as exc:
        return [Finding("error", f"The starting voice does not fit the dataset: {exc}")]


def default_voice_config() -> str:
    """The voice config a Piper folder's clips are imported with (the embedded voice's)."""
    from engines.registry import default_voice

    return str(default_voice().config.path)


def _device_findings(device: str) -> list[Finding]:
    if not device.startswith("cuda"):
        return []
    available = {d for d, _ in detect_devices()}
    wanted = device if ":" in device else "cuda:0"
    if wanted not in available:
        have = ", ".join(sorted(available - {"cpu"})) or "none"
        return [Finding("error", f"GPU {wanted} was asked for but torch finds no such CUDA device (found: {have}).")]
    return []


def _disk_findings(options: RunOptions, summary: DatasetSummary, rate: int) -> list[Finding]:
    """Too little free disk for what the run will write (``trainer.run.disk``): an error; little to spare: a warning."""
    from trainer.run.disk import NEEDS_SPACE, disk_need, space_verdict

    need = disk_need(options, summary.seconds, rate, summary.kind)
    verdict = space_verdict(need.total, need.folder, NEEDS_SPACE)
    return [Finding(*verdict)] if verdict is not None else []


def detect_devices() -> list[tuple[str, str]]:
    """``(device, label)`` for the CPU and each CUDA GPU torch sees, e.g. ``("cuda:0", "NVIDIA ... 12.0 GiB")``."""
    devices = [("cpu", "CPU")]
    if missing("torch"):  # an ONNX-only install: not even tried
        return devices
    with importing("torch"):
        import torch
    for index in range(torch.cuda.device_count() if torch.cuda.is_available() else 0):
        props = torch.cuda.get_device_properties(index)
        devices.append((f"cuda:{index}", f"GPU {index}: {props.name}, {props.total_memory / 2**30:.1f} GiB"))
    return devices
