"""Canary lines: a run's held-out clips spoken by one checkpoint during training and measured, in a process of
its own at low priority, so training never waits for it.

The trainer (``trainer.run.canary_callback``) writes a small generator checkpoint of the epoch
(``evaluations/checkpoint-epoch=EEEE.ckpt``, the same bytes as that epoch's ranked checkpoint, so the renders'
cache keys match) and starts :func:`launch`; the process (``python -m trainer.evaluate.canary JOB``) runs at
low priority until training is over (``trainer.evaluate.background``), without CUDA (the GPU stays the
trainer's), speaks the run's first ``lines`` held-out clips with their recordings as references
(``trainer.evaluate.lines.held_out_lines``) and scores them with the leaderboard's own measures
(``trainer.evaluate.leaderboard.score``: speaker similarity, WER, DNSMOS, F0 gap, MCD...). Renders and scores go
to the shared render cache (``trainer.evaluate.render.default_cache_dir``) under seed 0, as the Train page's
leaderboard row and the Compare page render, so they find them there. The run's first evaluation also renders
the lines under noise seeds 1 and 2 and measures the run's noise bands (``trainer.evaluate.bands.measured``),
and hears the lines' own recordings as the renders are (DNSMOS, WER: the floor of the recommendation's guards).

The result is one ``trainer.events.schema.Evaluation`` record written atomically to ``evaluations/epoch=EEEE.json``;
the trainer emits it into the run's events (one writer). The process's output goes to
``evaluations/epoch=EEEE.log``; it ends when the trainer does.

What it costs (measured 2026-12-02 on the 2-vCPU AMD EPYC VM, the ``compare`` extra installed, PocketSphinx
WER, at normal priority as after training): 5 held-out lines with a ``test``-preset checkpoint take 59 s of wall
time and 62 CPU-seconds (about 35 s loading torch and the measures' models, then about 5 s a line), with a
medium-size checkpoint (fine-tuned from joe) 60 s; a run's first evaluation, with its two extra noise seeds,
109 s; peak memory about 1 GB beside the trainer. Beside a training run it takes only the CPU time training
leaves idle: five test-preset epochs on 2 cores took 17.9 s each on average with an evaluation running beside
them and 17.4 s without (the machine shared with other work). Since 2026-12-03 the process no longer imports
Lightning (the held-out clips come from ``trainer.data.split``): test_canary's evaluation processes took 22 and 16
CPU-seconds against 31 and 19 before.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from engines.errors import VoiceStudioError
from engines.files import write_text
from engines.imports import importing
from engines.words import count
from trainer.events.schema import Evaluation, EventError, parse_event
from trainer.run.document import EVALUATIONS_FOLDER

if TYPE_CHECKING:
    from trainer.evaluate.bands import Bands
    from trainer.evaluate.board import Row

FOLDER = EVALUATIONS_FOLDER
"""The run's folder of canary evaluations: checkpoints while they are measured, results, logs."""
CANARY_LINES = 5
"""Held-out clips an evaluation speaks unless the run asks for another number (``--eval-lines``)."""
BAND_SEEDS = (1, 2)
"""Noise seeds rendered besides seed 0 at a run's first evaluation, for its noise bands."""
THREADS = 2
"""torch threads of the evaluation process (fewer threads: less CPU taken from the trainer)."""
BAND_MEASURES = ("wer", "similarity", "dnsmos_ovrl", "dnsmos_sig", "dnsmos_bak", "f0_gap_hz", "f0_rmse_hz", "mcd_db")
"""Measures whose noise band the first evaluation measures (``trainer.evaluate.bands.MEASURES`` but val_mel,
which the seed does not move)."""


@dataclass(frozen=True, kw_only=True)
class Job:
    """One evaluation: ``checkpoint`` (of ``epoch``, counted from 0) of the run in ``run_dir`` speaks ``lines``
    held-out clips; renders cached in ``cache_dir``; ``bands``: also measure the noise bands."""

    run_dir: Path
    checkpoint: Path
    epoch: int
    lines: int = CANARY_LINES
    cache_dir: Path
    bands: bool = False

    @property
    def result(self) -> Path:
        """Where the process writes its ``Evaluation`` record."""
        return result_path(self.run_dir, self.epoch)

    @property
    def log(self) -> Path:
        """Where the process's output goes."""
        return Path(self.run_dir) / FOLDER / f"epoch={self.epoch:04d}.log"

    def to_json(self) -> str:
        """The job as the process's one argument."""
        return json.dumps({k: str(v) if isinstance(v, Path) else v for k, v in asdict(self).items()})

    @classmethod
    def from_json(cls, text: str) -> Job:
        """The job :meth:`to_json` wrote."""
        raw = json.loads(text)
        paths = {k: Path(raw[k]) for k in ("run_dir", "checkpoint", "cache_dir")}
        return cls(**paths, epoch=int(raw["epoch"]), lines=int(raw["lines"]), bands=bool(raw["bands"]))


def result_path(run_dir: Path | str, epoch: int) -> Path:
    """``RUN/evaluations/epoch=EEEE.json``: the ``Evaluation`` record of ``epoch`` (from 0)."""
    return Path(run_dir) / FOLDER / f"epoch={epoch:04d}.json"


def checkpoint_path(run_dir: Path | str, epoch: int) -> Path:
    """``RUN/evaluations/checkpoint-epoch=EEEE.ckpt``: the generator the evaluation of ``epoch`` speaks with
    (not ``epoch=EEEE.ckpt``: a ``NAME.json`` beside a model is read as its voice config)."""
    return Path(run_dir) / FOLDER / f"checkpoint-epoch={epoch:04d}.ckpt"


def read_result(path: Path) -> Evaluation | None:
    """The ``Evaluation`` record in ``path``; ``None`` when absent or not one (a cut or foreign file)."""
    try:
        event = parse_event(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, EventError):  # JSONDecodeError is a ValueError
        return None
    return event if isinstance(event, Evaluation) else None


def launch(job: Job) -> subprocess.Popen:
    """Start the evaluation process of ``job`` at low priority (``trainer.evaluate.background``), in a session of
    its own (a Ctrl+C in the trainer's terminal does not reach it), CUDA hidden, its output in ``job.log``; its
    stdin is a pipe the caller keeps open while it trains (``background.NOW``: full priority; closed: the
    process ends).

    Raises:
        OSError: the process cannot be started or the log not written.
    """
    job.log.parent.mkdir(parents=True, exist_ok=True)
    if os.name == "nt":
        flags = subprocess.BELOW_NORMAL_PRIORITY_CLASS | subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        how: dict = {"creationflags": flags}
    else:
        how = {"start_new_session": True}
    environment = {**os.environ, "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1"}
    with open(job.log, "wb") as log:
        command = [sys.executable, "-m", "trainer.evaluate.canary", job.to_json()]
        return subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=log, stderr=subprocess.STDOUT, env=environment, **how
        )


def evaluate(job: Job) -> Evaluation:
    """Speak and measure the canary lines of ``job`` (seed 0; with ``job.bands`` also ``BAND_SEEDS``).

    A failure to find lines or render them is the record's ``errors["evaluation"]`` (no values), not raised.
    """
    started = time.perf_counter()
    try:
        rows, heard = _rows(job)
    except (VoiceStudioError, OSError) as exc:  # LinesError, RenderError, VoiceError, EngineError...
        seconds = time.perf_counter() - started
        return Evaluation(epoch=job.epoch, values={}, lines=0, seconds=seconds, errors={"evaluation": str(exc)})
    lines, row = rows[0]
    bands = _bands([r for _, r in rows], lines, job.epoch) if len(rows) > 1 else None
    errors = {**row.missing, **({"evaluation": row.failed} if row.failed else {})}
    return Evaluation(
        epoch=job.epoch,
        values=_values(row),
        lines=lines,
        seconds=time.perf_counter() - started,
        recognizer=getattr(row, "recognizer", None),  # where the leaderboard's rows say which recognizer heard
        bands=bands.values if bands else None,
        bands_source=bands.source if bands else None,
        recordings=_heard(heard),
        errors=errors or None,
    )


def _rows(job: Job) -> tuple[list[tuple[int, Row]], Row | None]:
    """``(lines, leaderboard row)`` per seed: 0 first, then ``BAND_SEEDS`` when the job measures bands; and, when
    it does, the recordings' row (``leaderboard.score(recordings=True)``), else ``None``.

    Raises:
        LinesError: the run holds out no clip. RenderError: the checkpoint cannot speak. OSError: the cache.
    """
    from trainer.evaluate.leaderboard import score
    from trainer.evaluate.lines import held_out_lines
    from trainer.evaluate.render import Candidate, RenderSettings

    lines = held_out_lines(job.run_dir, limit=job.lines)
    candidate = Candidate(label=f"epoch {job.epoch + 1}", model_path=job.checkpoint)
    seeds = (0, *BAND_SEEDS) if job.bands else (0,)
    boards = [
        score([candidate], lines, RenderSettings(seed=s), job.cache_dir, recordings=job.bands and s == 0) for s in seeds
    ]
    heard = boards[0][1] if len(boards[0]) > 1 else None
    return [(len(lines), board[0]) for board in boards], heard


def _heard(row: Row | None) -> dict[str, float] | None:
    """The recordings' row's DNSMOS and WER (``board.HEARD``), or ``None`` without the row or with none measured."""
    from trainer.evaluate.board import HEARD

    found = {name: value for name, value in _values(row).items() if name in HEARD} if row is not None else {}
    return found or None


def _values(row: Row) -> dict[str, float]:
    """The row's measured fields (``trainer.evaluate.board.FLOAT_FIELDS``), the unmeasured left out."""
    from trainer.evaluate.board import FLOAT_FIELDS

    return {name: float(getattr(row, name)) for name in FLOAT_FIELDS if getattr(row, name) is not None}


def _bands(rows: list[Row], lines: int, epoch: int) -> Bands | None:
    """The noise band of each ``BAND_MEASURES`` measure taken under every seed (``rows``: one per seed)."""
    from trainer.evaluate.bands import measured

    per_seed = [_values(row) for row in rows]
    spreads = {m: [v[m] for v in per_seed] for m in BAND_MEASURES if all(m in v for v in per_seed)}
    source = f"this run's {count(lines, 'held-out line')} under {len(rows)} noise seeds at epoch {epoch + 1}"
    return measured(spreads, source) if spreads else None


def _few_threads() -> None:
    """torch on ``THREADS`` threads (fewer threads: less CPU taken from the trainer)."""
    with importing("torch"):
        import torch

    torch.set_num_threads(THREADS)


def main(argv: list[str] | None = None) -> int:
    """The evaluation process: ``python -m trainer.evaluate.canary JOB`` (``Job.to_json``); writes the result."""
    from trainer.evaluate.background import follow_trainer, lower_priority

    started = time.perf_counter()
    job = Job.from_json((argv if argv is not None else sys.argv[1:])[0])
    lower_priority()  # first: the threads made later take its policy
    follow_trainer()
    _few_threads()
    event = evaluate(job)
    event = replace(event, seconds=time.perf_counter() - started)  # the imports and model loads count too
    job.result.parent.mkdir(parents=True, exist_ok=True)
    write_text(job.result, json.dumps(event.to_record(), ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
