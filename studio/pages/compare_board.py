"""The Compare page's Leaderboard tab: ``studio.widgets.leaderboard_view.LeaderboardView`` scored off the GUI
thread, and kept beside the comparison.

"Score" runs ``trainer.evaluate.leaderboard.scored`` on the comparison's candidates, lines and settings (renders
from the Listen tab's cache) in a ``studio.workers.Task`` with progress and Cancel, then hands the renders it
measured to the comparison (nothing is rendered twice) and saves the rows as ``leaderboard.csv`` in
``Comparison.folder()`` with what was scored beside them (``leaderboard.json``: the candidates' files with size
and mtime, the lines with their recordings' size and mtime, the settings). Opening the same comparison again shows
the saved rows at once; they are shown only while the candidates, their files, the lines, their recordings and
settings are the ones scored.

Where the recommended row has ties, ``studio.widgets.tie_break.TieBreakPanel`` under the table offers to settle
them by ear: pairwise blind trials of those candidates on the scored lines, played from the comparison's renders
(the ones scored; nothing is rendered again), their ratings in ``Comparison.folder() / tie_break.RATINGS_FILE``;
the leaderboard's ★ follows a clear preference (``LeaderboardView.follow``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import numpy as np
from PySide6.QtWidgets import QVBoxLayout, QWidget

from engines.errors import VoiceStudioError
from engines.extras import explain
from engines.files import write_text
from engines.pool import EnginePool
from engines.words import count
from studio.comparison import Comparison
from studio.pages.compare_sources import reason
from studio.state import SaveFolders
from studio.widgets.leaderboard_view import LeaderboardView
from studio.widgets.notices import failed_on
from studio.widgets.task_progress import TaskProgress
from studio.widgets.tie_break import TieBreakPanel
from studio.workers import Task, TaskSlot
from trainer.evaluate.best_row import BOARD_FILE, SCORED_FILE, stamped
from trainer.evaluate.board import candidates_text
from trainer.evaluate.leaderboard import Row, read_csv, scored, to_csv
from trainer.evaluate.tie_break import RATINGS_FILE, offer_of


def scored_key(comparison: Comparison) -> dict:
    """What a leaderboard of ``comparison`` measures, as JSON data: each candidate's label, file, size and
    mtime (ns; a rewritten ``last.ckpt`` is another candidate), the lines (text, and the recording with its size and
    mtime: a recording trimmed in place is measured again) and the settings."""
    candidates = [{"label": candidate.label, **stamped(candidate.model_path)} for candidate in comparison.candidates]
    lines = [{"text": line.text, "reference": line.reference and stamped(line.reference)} for line in comparison.lines]
    return json.loads(json.dumps({"candidates": candidates, "lines": lines, "settings": asdict(comparison.settings)}))


def save_board(folder: Path, rows: list[Row], key: dict) -> Path:
    """Write ``rows`` to ``folder / BOARD_FILE`` and ``key`` to ``folder / SCORED_FILE`` (each atomically).

    Raises:
        OSError: the folder cannot be made or written.
    """
    folder.mkdir(parents=True, exist_ok=True)
    write_text(folder / SCORED_FILE, json.dumps(key, indent=1, ensure_ascii=False))
    return write_text(folder / BOARD_FILE, to_csv(rows))


def saved_board(folder: Path, key: dict) -> tuple[list[Row] | None, str]:
    """The rows saved in ``folder`` when they measured ``key``, else ``None``; and a line saying which.

    An unreadable file is a line naming it (never an exception).
    """
    path = folder / BOARD_FILE
    if not path.is_file():
        return None, "Press Score to measure the candidates."
    try:
        scored = json.loads((folder / SCORED_FILE).read_text(encoding="utf-8"))
        rows = read_csv(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, VoiceStudioError) as exc:
        return None, f"{failed_on('Cannot read the saved leaderboard', path, exc)}. Press Score to measure again."
    if scored != key:
        return None, f"The leaderboard saved in {path} is for other candidates, files, lines or settings: press Score."
    return rows, f"From {path} (saved earlier): press Score to measure again."


class BoardTab(QWidget):
    """The leaderboard of a :class:`~studio.comparison.Comparison`, its scoring task and its saved file.

    Args:
        comparison: what is scored. pool: the engines that render. cache_dir: the render cache (the Listen
            tab's). take_lines: called before scoring to take lines still being typed; ``False`` stops.
        play, stop: play ``(float32 [N], Hz)`` (returning whether it plays) and stop it (the page's player), for
            the tie-break's trials.
        folders: the folders files were saved to last (the workspace's), where Export CSV… starts.

    Attributes:
        tie_break: the offer and trials of a blind tie-break, shown while the recommended row has ties.
    """

    def __init__(
        self,
        comparison: Comparison,
        pool: EnginePool,
        cache_dir: Path,
        take_lines: Callable[[], bool] | None = None,
        *,
        play: Callable[[np.ndarray, int], bool] | None = None,
        stop: Callable[[], None] | None = None,
        folders: SaveFolders | None = None,
    ) -> None:
        super().__init__()
        self.comparison, self.pool, self.cache_dir = comparison, pool, Path(cache_dir)
        self.take_lines = take_lines or (lambda: True)
        self.view = LeaderboardView(folders)
        self.tie_break = TieBreakPanel(
            self.rendered_audio, play or (lambda _audio, _rate: False), stop or (lambda: None)
        )
        self.tie_break.settled.connect(self.view.follow)
        self.progress = TaskProgress()
        self.slot = TaskSlot()
        self.progress.cancel_requested.connect(self.slot.cancel)
        self.view.score_requested.connect(self.start_score)
        comparison.events.changed.connect(lambda _c: self._on_changed())
        layout = QVBoxLayout(self)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.tie_break)
        layout.addWidget(self.progress)
        self.from_file = False
        """Whether the rows shown were read from ``BOARD_FILE`` rather than scored now."""

    def show_rows(self, rows: list[Row]) -> None:
        """Show ``rows`` in the table and, where the recommended one has ties, the tie-break's offer (or its saved
        result, which the recommendation then follows)."""
        self.view.subject = self.comparison.subject()  # Export CSV…'s file name
        self.view.set_rows(rows)
        offer = offer_of(rows)
        path = self.comparison.folder() / RATINGS_FILE if offer is not None else None
        self.tie_break.set_offer(offer, [line.text for line in self.comparison.lines], path)

    def rendered_audio(self, label: str, line: int) -> tuple[np.ndarray, int] | None:
        """The comparison's render of line ``line`` by ``label`` (the one scored), or ``None``."""
        rendered = self.comparison.rendered.get((label, line))
        return None if rendered is None else (rendered.audio, rendered.sample_rate)

    def say(self, text: str) -> None:
        """One status line under the Score button."""
        self.view.status.setText(text)

    def start_score(self) -> Task | None:
        """Score the comparison's candidates on its lines off the GUI thread; ``None`` (and a status line saying
        why) when there is nothing to score."""
        if needs := explain("compare", "The leaderboard"):  # an install without the compare extra
            self.say(needs)
            return None
        if not self.take_lines():
            self.say("Nothing to score: the typed lines on the Listen tab are empty.")
            return None
        comparison = self.comparison
        candidates, lines, settings = comparison.candidates, comparison.lines, comparison.settings
        if not candidates or not lines:
            self.say("Nothing to score: check candidates and choose lines on the Listen tab.")
            return None
        cache_dir, pool, key = self.cache_dir, self.pool, scored_key(comparison)
        task = Task(lambda state: _score(candidates, lines, settings, cache_dir, state, pool), self)
        task.done.connect(lambda result: self._on_scored(result[0], result[1], key))
        task.cancelled.connect(lambda exc: self.say(_sentence(str(exc))))
        task.failed.connect(lambda exc: self.say(f"Scoring failed: {reason(exc)}"))
        task.ended.connect(self._on_ended)
        self.progress.follow(task, "Scoring", cancellable=True, phases=True)  # the step and its n / m, once
        self.view.score_button.setEnabled(False)
        self.say(f"Scoring {count(len(candidates), 'candidate')} on {count(len(lines), 'line')}…")
        return self.slot.start(task)

    def _on_scored(self, rows: list[Row], renders: dict, key: dict) -> None:
        self.comparison.add_rendered(renders)  # the Listen and Blind test tabs have them too
        self.from_file = False
        self.show_rows(rows)
        folder = self.comparison.folder()
        try:
            path = save_board(folder, rows, key)
        except OSError as exc:
            self.say(f"Scored {candidates_text(rows)}, but could not save the rows in {folder}: {exc}")
            return
        self.say(f"Scored {candidates_text(rows)}; saved as {path}. Bold: the best of a column.")

    def _on_ended(self) -> None:
        self.progress.finish()
        self.view.score_button.setEnabled(True)

    def _on_changed(self) -> None:
        """Other candidates, lines or settings: a running scoring is dropped, the rows with it; saved rows of
        exactly this comparison show."""
        stopped = self.slot.busy()
        if stopped:
            self.slot.drop()
            self._on_ended()
        self.show_saved()
        if stopped:
            self.say("Scoring stopped: the selection changed. " + self.view.status.text())

    def show_saved(self) -> None:
        """Show the rows saved for this comparison (marked as from the file), or none and why."""
        self.show_rows([])
        self.from_file = False
        if not self.comparison.candidates or not self.comparison.lines:
            self.say("Check candidates and choose lines on the Listen tab, then press Score.")
            return
        rows, text = saved_board(self.comparison.folder(), scored_key(self.comparison))
        if rows is not None:
            self.show_rows(rows)
            self.from_file = True
        self.say(text)

    def shutdown(self) -> None:
        """Drop a running scoring (what it rendered and measured stays cached)."""
        self.slot.drop()


def _score(candidates, lines, settings, cache_dir, state, pool) -> tuple[list[Row], dict]:
    """``scored``'s rows and the renders they were measured on (for the comparison's Listen and Blind test)."""
    result = scored(candidates, lines, settings, cache_dir, state, pool, recordings=True)
    return result.rows, result.renders


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]
