"""A run's best checkpoint on the leaderboard: its row measured on the run's held-out clips, kept in the run folder.

The Train page shows this row beside the run's val_mel. :func:`score_best` measures it
(``trainer.evaluate.leaderboard.score`` on ``held_out_lines(run)``, the clips' recordings as references, seed 0)
and writes it to ``<run>/leaderboard-best.csv`` (``to_csv``, atomically); :func:`saved_best_row` reads it back
while it still describes the run's best checkpoint (the same file, not written since), so reopening a run does
not measure it again and a resumed run whose best checkpoint changed is measured afresh.
"""

from __future__ import annotations

import json
from pathlib import Path

from engines.errors import VoiceStudioError
from engines.extras import install_line, missing
from engines.files import write_text
from trainer.checkpoints.best import RankedCheckpoint
from trainer.evaluate.board import BoardError, Row, read_csv, to_csv
from trainer.evaluate.render import Candidate
from trainer.tasks import TaskState

BEST_FILE = "leaderboard-best.csv"
"""The best checkpoint's leaderboard row, in the run folder."""
START_FILE = "leaderboard-start.csv"
"""The start voice's row (the baseline), measured the same way, in the run folder."""
BOARD_FILE = "leaderboard.csv"
"""The Compare page's saved leaderboard, in ``Comparison.folder()``: the run folder when every candidate is one
run's (``studio.pages.compare_board``); Export reads a run's from there too (``trainer.evaluate.choice``)."""

SCORED_FILE = "leaderboard.json"
"""What the rows of ``BOARD_FILE`` measured, beside it (``studio.pages.compare_board.scored_key``): each candidate's
label and :func:`stamped` file, the lines, the settings."""

INSTALL_HINT = install_line("compare")


def stamped(path: Path | str) -> dict:
    """``path`` (absolute) with its size and mtime in ns (``None`` for a file that is not there): what tells a file
    scored from one rewritten since (``last.ckpt`` after another epoch)."""
    path = Path(path).absolute()
    stat = path.stat() if path.exists() else None
    size, mtime = (stat.st_size, stat.st_mtime_ns) if stat else (None, None)
    return {"path": str(path), "size": size, "mtime_ns": mtime}


def rewritten_since_scored(folder: Path) -> set[str]:
    """The candidate files (absolute paths) of ``folder``'s saved leaderboard that are no longer the files scored:
    rewritten (size or mtime changed) or gone since, by ``folder / SCORED_FILE``; none where that file is missing or
    unreadable (a leaderboard saved before it was written)."""
    try:
        scored = json.loads((folder / SCORED_FILE).read_text(encoding="utf-8"))
        files = [c for c in scored["candidates"] if isinstance(c, dict) and "path" in c]
    except (OSError, ValueError, KeyError, TypeError):
        return set()
    return {c["path"] for c in files if stamped(c["path"]) != {k: c.get(k) for k in ("path", "size", "mtime_ns")}}


def missing_measures() -> list[str]:
    """The ``compare`` extra's modules not installed here (resemblyzer is not expected on Windows)."""
    return missing("compare")


def not_installed(what: str) -> str:
    """The one line that says the measures are not installed (``what``: the missing modules) and how to add them."""
    return f"The leaderboard's measures are not installed ({what}): {INSTALL_HINT}"


def best_label(best: RankedCheckpoint) -> str:
    """The row's label, as the Compare page labels a ranked checkpoint: ``epoch 3 · val_mel 0.6120``."""
    return best.label()


def saved_best_row(run_dir: Path, best: RankedCheckpoint) -> Row | None:
    """The row saved in ``run_dir/leaderboard-best.csv`` when it is ``best``'s and was written after ``best``'s
    file; otherwise (none saved, another checkpoint's, an older or unreadable file) None."""
    return _saved_row(Path(run_dir) / BEST_FILE, best.path)


def scored_before(run_dir: Path) -> bool:
    """Whether a best checkpoint of this run was measured before (its row file exists, fresh or not): a run
    whose best changed since is then measured again without asking."""
    return (Path(run_dir) / BEST_FILE).is_file()


def start_candidate(run_dir: Path) -> Candidate | None:
    """The run's start voice as the Compare page offers it (``start: joe``), or ``None`` (from scratch, or gone)."""
    from trainer.evaluate.lines import LinesError, run_candidates

    try:
        found = run_candidates(Path(run_dir))
    except (LinesError, OSError, VoiceStudioError):
        return None
    return next((c for c in found if c.label.startswith("start: ")), None)


def saved_start_row(run_dir: Path) -> Row | None:
    """The start voice's row saved in ``run_dir/leaderboard-start.csv`` while it is that voice's, else None."""
    start = start_candidate(run_dir)
    return None if start is None else _saved_row(Path(run_dir) / START_FILE, start.model_path)


def _saved_row(path: Path, model: Path) -> Row | None:
    """The one row in ``path`` when it is ``model``'s, written after ``model`` was, by this scorer; else None (a row
    whose WER names no recognizer was written before the judge: PocketSphinx's WER, MCD and F0 with floors, so it
    is measured again rather than set beside today's)."""
    try:
        rows = read_csv(path.read_text(encoding="utf-8"))
        fresh = path.stat().st_mtime >= model.stat().st_mtime
    except (OSError, BoardError, UnicodeDecodeError):
        return None
    if not fresh or len(rows) != 1 or Path(rows[0].model_path).resolve() != model.resolve():
        return None
    if rows[0].wer is not None and rows[0].recognizer is None:  # an older scorer's (PocketSphinx, floored MCD/F0)
        return None
    return rows[0]


def score_best(
    run_dir: Path, best: RankedCheckpoint, cache_dir: Path, limit: int = 10, state: TaskState | None = None
) -> Row:
    """Measure ``best`` on at most ``limit`` of the run's held-out clips and save its row in the run folder.

    Renders are cached in ``cache_dir`` (the Compare page's cache, so its Listen tab and leaderboard reuse them).

    Raises:
        LinesError: the run holds out no clip. VoiceError, EngineError, RenderError: the checkpoint cannot speak.
        Cancelled: ``state`` was cancelled (nothing saved). OSError: the CSV cannot be written.
    """
    from trainer.evaluate.leaderboard import score
    from trainer.evaluate.lines import held_out_lines
    from trainer.evaluate.render import RenderSettings

    lines = held_out_lines(Path(run_dir), limit=limit)
    candidate = Candidate(label=best_label(best), model_path=best.path)
    row = score([candidate], lines, RenderSettings(seed=0), Path(cache_dir), state)[0]
    write_text(Path(run_dir) / BEST_FILE, to_csv([row]))
    return row


def score_start(run_dir: Path, cache_dir: Path, limit: int = 10, state: TaskState | None = None) -> Row | None:
    """The start voice's row on the same clips, scored as :func:`score_best` scores the best (seed 0, the same
    cache) and saved in ``<run>/leaderboard-start.csv``; the saved one while it is still that voice's. ``None``
    when the run started from scratch (or its start voice is gone).

    Raises:
        as :func:`score_best`.
    """
    from trainer.evaluate.leaderboard import score
    from trainer.evaluate.lines import held_out_lines
    from trainer.evaluate.render import RenderSettings

    saved = saved_start_row(Path(run_dir))
    start = start_candidate(Path(run_dir))
    if saved is not None or start is None:
        return saved
    lines = held_out_lines(Path(run_dir), limit=limit)
    row = score([start], lines, RenderSettings(seed=0), Path(cache_dir), state)[0]
    write_text(Path(run_dir) / START_FILE, to_csv([row]))
    return row
