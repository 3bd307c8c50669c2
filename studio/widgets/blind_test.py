"""The blind test: pairwise preference, ABX and MUSHRA trials under hidden letters, kept on disk, revealed
on request.

The panel draws a ``trainer.evaluate.listening.ListeningTest`` and the trials of
``trainer.evaluate.trials``; it saves the test (atomically) after every rating and reopens it on start.
Keys: A/B/X play, R the reference (MUSHRA), Space stops, 1/2 choose, Enter goes to the next trial.
Reveal asks first while trials of the kind shown are not rated (it closes rating); a trial rated with nothing
of it played says so (``UNHEARD``) and is :attr:`BlindTestPanel.rated_unheard`.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QSizePolicy,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from studio.state import SaveFolders
from studio.widgets.blind_keys import CLOSED, REFERENCE, BlindKeys
from studio.widgets.blind_results import BlindResults
from studio.widgets.mushra_box import MushraBox, slot_letter
from studio.widgets.pair_trial import UNHEARD, PairView
from studio.widgets.start_folders import proposed_name
from studio.widgets.tables import export_text
from trainer.evaluate.listening import ListeningTest, Rating
from trainer.evaluate.trials import (
    MODES,
    Trial,
    counted,
    new_test,
    open_test,
    plan_trials,
    replace_rating,
    trial_rating,
)

RATINGS_FILE = "blind-test.json"
"""The ratings file's name in the folder where a comparison is kept (``Comparison.folder()``)."""
MODE_NAMES = {"pairwise": "Pairwise preference", "abx": "ABX", "mushra": "MUSHRA (0–100, with reference)"}
KIND_WORDS = {"pairwise": "pairwise", "abx": "ABX", "mushra": "MUSHRA"}
"""How a sentence names a trial kind ("4 of 6 pairwise trials")."""

GetAudio = Callable[[str, int], "tuple[np.ndarray, int] | None"]
__all__ = ["REFERENCE", "RATINGS_FILE", "BlindTestPanel"]  # REFERENCE: see studio.widgets.blind_keys


class BlindTestPanel(BlindKeys, QWidget):
    """Blind trials of candidates on lines, their ratings kept in ``ratings_path``, and the reveal.

    Args:
        get_audio: ``(candidate label, line index) -> (float32 [N], Hz)`` or ``None`` when not rendered;
            ``(REFERENCE, i)`` gives line ``i``'s recording.
        play: plays ``(audio, rate)`` and returns whether it plays; stop: stops it.

    Signals:
        rated_unheard(): a trial was rated with nothing of it played (the status says so too).
    """

    rated_unheard = Signal()

    def __init__(
        self,
        get_audio: GetAudio,
        play: Callable[[np.ndarray, int], bool],
        stop: Callable[[], None],
        parent: QWidget | None = None,
        folders: SaveFolders | None = None,
    ) -> None:
        super().__init__(parent)
        self.get_audio, self.play, self.stop = get_audio, play, stop
        self.folders = folders if folders is not None else SaveFolders()
        """The folders files were saved to last: Export CSV… starts in the one a CSV went to."""
        self.subject = ""
        """What is compared, in a few words (``studio.comparison.Comparison.subject``): Export CSV…'s file name."""
        self._heard: set[Trial] = set()
        self.test: ListeningTest | None = None
        self.lines: list[str] = []
        self.references: list[bool] = []
        self.ratings_path: Path | None = None
        self.trials: dict[str, list[Trial]] = {}
        self.index: dict[str, int] = {}
        self._anchors: dict[int, tuple[np.ndarray, int]] = {}
        self._build()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self._show_trial()

    def _build(self) -> None:
        self.mode = QComboBox()
        for kind in MODES:
            self.mode.addItem(MODE_NAMES[kind], kind)
        self.mode.currentIndexChanged.connect(self._on_mode)
        self.mode.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab and PageUp/Down never reach it: the trial's keys
        self.mode.installEventFilter(self)  # nor does the wheel, unless its list is open
        self.progress, self.line_label, self.status = QLabel(""), QLabel(""), QLabel("")
        self.closed = QLabel(CLOSED)
        self.line_label.setWordWrap(True)
        self.status.setWordWrap(True)
        self.pair = PairView()
        self.pair.play_requested.connect(self._play_side)
        self.pair.chosen.connect(self.choose)
        self.mushra = MushraBox()
        self.mushra.play_requested.connect(self._play_name)
        self.mushra.scores_changed.connect(self._on_scores)
        self.views = QStackedWidget()
        self.views.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self.views.addWidget(self.pair)
        self.views.addWidget(self.mushra)
        self.buttons = {key: QPushButton(text) for key, text in BUTTONS}
        for key, handler in (
            ("previous", lambda: self.step(-1)),
            ("next", lambda: self.step(1)),
            ("stop", lambda: self.stop()),
            ("reveal", lambda: self.reveal()),
            ("new", lambda: self.new_test()),
            ("export", lambda: self.export_csv()),
        ):
            self.buttons[key].clicked.connect(handler)
        self.results = BlindResults()
        self.setLayout(self._layout())
        for button in self.findChildren(QPushButton):  # clicking one leaves the keys with the panel
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt override
        """The mode combo ignores the wheel (a scroll over it must not switch the test's kind)."""
        return watched is self.mode and event.type() == QEvent.Type.Wheel

    def _on_mode(self) -> None:
        self.stop()
        self._show_trial()
        self.setFocus()  # the keys go to the trial, not to the combo box's search

    def _layout(self) -> QVBoxLayout:
        top, nav = QHBoxLayout(), QHBoxLayout()
        top.addWidget(self.mode)
        top.addWidget(self.progress, 1)
        for key in ("reveal", "new", "export"):
            top.addWidget(self.buttons[key])
        for key in ("previous", "stop", "next"):
            nav.addWidget(self.buttons[key])
        layout = QVBoxLayout()
        layout.addLayout(top)
        layout.addWidget(self.closed)
        layout.addWidget(self.line_label)
        layout.addWidget(self.views)
        layout.addLayout(nav)
        layout.addWidget(self.status)
        layout.addWidget(self.results, 1)
        layout.addStretch(0)  # takes the room while the results are hidden
        return layout

    # --- the test ------------------------------------------------------------------------------
    def start(self, candidates: list[str], lines: list[str], references: list[bool], ratings_path: Path) -> None:
        """Begin (or reopen, from ``ratings_path``) a blind test of ``candidates`` on ``lines``; ``references[i]``
        says whether line ``i`` has a recording (MUSHRA trials are made only for those).

        A file there for other candidates, or unreadable, is kept under a new name (the status says which).

        Raises:
            ValueError: fewer than two distinct candidates, or ``references`` not one per line.
        """
        if len(references) != len(lines):
            raise ValueError(f"{len(references)} reference flags for {len(lines)} lines")
        self.ratings_path = Path(ratings_path)
        self.lines, self.references, self._anchors = list(lines), list(references), {}
        self.test, notice = open_test(candidates, self.ratings_path, self.lines)
        self._plan(notice)

    def _plan(self, notice: str) -> None:
        assert self.test is not None
        self.trials = {kind: plan_trials(self.test, kind, self.references) for kind in MODES}
        self.index = {kind: self._first_unrated(kind) for kind in MODES}
        self._heard = set()
        _enable_item(self.mode, MODES.index("mushra"), bool(self.trials["mushra"]))
        if not self.trials["mushra"] and self.kind == "mushra":
            self.mode.setCurrentIndex(0)
        self._show_trial()
        self.status.setText(notice)

    @property
    def kind(self) -> str:
        """The trial kind chosen: ``pairwise``, ``abx`` or ``mushra``."""
        return str(self.mode.currentData())

    def current(self) -> Trial | None:
        """The trial shown, or ``None`` (no test, or no trial of this kind)."""
        trials = self.trials.get(self.kind, [])
        return trials[self.index[self.kind]] if trials else None

    def _first_unrated(self, kind: str) -> int:
        assert self.test is not None
        trials = self.trials[kind]
        return next((i for i, t in enumerate(trials) if trial_rating(self.test, t, self.lines[t.line]) is None), 0)

    def choose(self, side: int) -> None:
        """Answer the pairwise or ABX trial shown: side 1 (A) or 2 (B); saved at once."""
        trial = self.current()
        if trial is None or trial.kind == "mushra":
            return
        pick = trial.a if side == 1 else trial.b
        rating = Rating(kind=trial.kind, line=self.lines[trial.line], a=trial.a, b=trial.b, choice=pick, truth=trial.x)
        self._record(trial, rating)

    def _on_scores(self) -> None:
        trial, scores = self.current(), self.mushra.scores()
        if trial is not None and scores is not None:
            self._record(trial, Rating(kind="mushra", line=self.lines[trial.line], scores=scores))
        elif trial is not None:
            self.status.setText(f"Set the {_sliders(self.mushra.unrated())} to save this trial.")

    def _record(self, trial: Trial, rating: Rating) -> None:
        assert self.test is not None and self.ratings_path is not None
        if self.test.revealed:
            self.status.setText(CLOSED)
            return
        replace_rating(self.test, trial, self.lines[trial.line], rating)
        if self._save(f"{self._answer_words()} · saved"):
            self._mark_answer()
            if trial not in self._heard:
                self.status.setText(self.status.text() + UNHEARD)
                self.rated_unheard.emit()

    def _save(self, done: str) -> bool:
        """Write the ratings; the status says ``done (file)`` or why they could not be written."""
        assert self.test is not None and self.ratings_path is not None
        try:
            self.test.save(self.ratings_path)
        except OSError as exc:
            self.status.setText(f"Could not save the ratings to {self.ratings_path}: {exc}")
            return False
        self.status.setText(f"{done} ({self.ratings_path.name})")
        self._show_progress()
        if self.test.revealed:
            self.results.show_test(self.test, self.lines)
        return True

    def _given(self) -> Rating | None:
        """The rating saved for the trial shown, if any."""
        trial = self.current()
        return trial_rating(self.test, trial, self.lines[trial.line]) if trial and self.test else None

    def _answer_words(self) -> str:
        """``Trial 3: you chose A`` (pairwise), ``…: you chose X is B`` (ABX), ``…: you gave A 80 · B 40``
        (MUSHRA), or ``Trial 3: not rated yet``."""
        trial, given = self.current(), self._given()
        if trial is None:
            return ""
        head = f"Trial {self.index[self.kind] + 1}: "
        if given is None:
            return head + "not rated yet"
        if trial.kind == "mushra":
            scores = given.scores or {}
            return (
                head
                + "you gave "
                + " · ".join(f"{slot_letter(i)} {scores.get(n, 0):.0f}" for i, n in enumerate(trial.order))
            )
        return head + "you chose " + self.pair.answer_text(trial.kind, 1 + (given.choice == trial.b))

    def _mark_answer(self) -> None:
        """The saved answer of the pairwise or ABX trial shown, checked (a key press does not click the button);
        a MUSHRA slider marks its value itself once set."""
        trial, given = self.current(), self._given()
        if trial is not None and trial.kind != "mushra":
            self.pair.set_trial(trial.kind, 0 if given is None else 1 + (given.choice == trial.b))

    def step(self, delta: int) -> None:
        """Go to the next (``1``) or previous (``-1``) trial of the kind shown."""
        trials = self.trials.get(self.kind, [])
        if not trials:
            return
        if delta > 0 and self.kind == "mushra" and 0 < self.mushra.unrated() < len(self.mushra.order):
            self.status.setText(f"Set the {_sliders(self.mushra.unrated())} first (or set none to skip).")
            return
        self.stop()
        self.index[self.kind] = (self.index[self.kind] + delta) % len(trials)
        self._show_trial()
        self.status.setText(self._answer_words() + "." if self._given() is not None else "")

    def reveal(self, confirm: bool = True) -> bool:
        """Show the real names and the results (win rates, ABX accuracy, MUSHRA means, per line), which closes
        rating; with ``confirm``, ask first while trials of the kind shown are not rated (Cancel keeps rating
        open). Returns whether it revealed."""
        if self.test is None:
            return False
        trials = self.trials.get(self.kind, [])
        unrated = len(trials) - self._rated(trials)
        if confirm and unrated and not _reveal_confirmed(self, unrated, len(trials), self.kind):
            return False
        self.test.reveal()
        self._save("Revealed.")
        self._show_trial()
        return True

    def new_test(self, confirm: bool = True) -> bool:
        """Start a new test of the same candidates and lines (new letters, no ratings), after asking when
        ``confirm``; the old ratings file is kept aside (``trials.new_test``). Returns whether it started."""
        if self.test is None or self.ratings_path is None:
            return False
        if confirm and not _confirmed(self, len(self.test.ratings), self.ratings_path.name):
            return False
        try:
            self.test, notice = new_test(self.test.candidates, self.ratings_path)
        except OSError as exc:
            self.status.setText(f"Could not start a new test in {self.ratings_path}: {exc}")
            return False
        self._plan(notice)
        return True

    def export_csv(self, path: Path | None = None) -> Path | None:
        """Write the ratings as CSV (real names; after the reveal) to ``path``, asked for when ``None``."""
        if self.test is None:
            return None
        name, near = proposed_name("ratings", self.subject, suffix=".csv"), self.ratings_path
        text, folders = self.test.to_csv(), self.folders
        path = export_text(
            self,
            self.status,
            text,
            title="Export ratings",
            name=name,
            path=path,
            folders=folders,
            near=near and near.parent,
        )
        if path is None:
            return None
        self.status.setText(f"Exported {counted(len(self.test.ratings), 'rating')} to {path}.")
        return path

    # --- drawing ------------------------------------------------------------------------------
    def _show_trial(self) -> None:
        trial = self.current()
        revealed = self.test is not None and self.test.revealed
        self.buttons["reveal"].setEnabled(self.test is not None and not revealed)
        self.buttons["export"].setEnabled(revealed)
        self.buttons["new"].setEnabled(self.test is not None)
        self.closed.setVisible(revealed)
        self.pair.set_locked(revealed)
        self.mushra.set_locked(revealed)
        self.results.setVisible(revealed)
        if revealed:
            assert self.test is not None
            self.results.show_test(self.test, self.lines)
        self._show_progress()
        self.views.setEnabled(trial is not None)
        if trial is None:
            self.line_label.setText("Choose candidates and lines, then rate here." if self.test is None else "")
            return
        text = self.lines[trial.line]
        self.line_label.setText(f"<b>Line {trial.line + 1}</b>: {html.escape(text)}")
        given = trial_rating(self.test, trial, text) if self.test else None
        self._show_view(self.mushra if trial.kind == "mushra" else self.pair)
        if trial.kind == "mushra":
            self.mushra.set_trial(trial.order, given.scores if given else None)
        else:
            self.pair.set_trial(trial.kind, 0 if given is None else 1 + (given.choice == trial.b))

    def _show_view(self, view: QWidget) -> None:
        """Show ``view``; the hidden one stops counting in the stack's height (no gap under pairwise trials)."""
        for page in (self.pair, self.mushra):
            policy = QSizePolicy.Policy.Preferred if page is view else QSizePolicy.Policy.Ignored
            page.setSizePolicy(policy, policy)
        self.views.setCurrentWidget(view)
        self.views.updateGeometry()

    def _show_progress(self) -> None:
        trials = self.trials.get(self.kind, [])
        if self.test is None or not trials:
            none = "Nothing to rate: MUSHRA needs lines with a reference recording." if self.test else ""
            self.progress.setText(none)
            return
        self.progress.setText(f"Trial {self.index[self.kind] + 1} of {len(trials)} · {self._rated(trials)} rated")

    def _rated(self, trials: list[Trial]) -> int:
        """How many of ``trials`` have a rating."""
        assert self.test is not None
        return sum(trial_rating(self.test, t, self.lines[t.line]) is not None for t in trials)


BUTTONS = (
    ("previous", "◀ Previous"),
    ("stop", "Stop (Space)"),
    ("next", "Next (Enter) ▶"),
    ("reveal", "Reveal"),
    ("new", "New test…"),
    ("export", "Export CSV…"),
)


def _enable_item(combo: QComboBox, index: int, enabled: bool) -> None:
    """Grey out (or restore) one item of a combo box."""
    model = combo.model()
    assert isinstance(model, QStandardItemModel)
    item = model.item(index)
    if item is not None:
        item.setEnabled(enabled)


def _sliders(n: int) -> str:
    """``1 other slider``, ``2 other sliders``."""
    return counted(n, "other slider")


def _reveal_confirmed(parent: QWidget, unrated: int, total: int, kind: str) -> bool:
    """Ask whether to reveal while ``unrated`` of ``total`` trials of ``kind`` have no rating; Cancel is the
    default."""
    verb = "is" if unrated == 1 else "are"
    box = QMessageBox(
        QMessageBox.Icon.Question,
        "Reveal the names?",
        f"{unrated} of {total} {KIND_WORDS[kind]} trials {verb} not rated yet. Reveal shows the candidates' names "
        "and closes rating: no trial of this test can be rated after it (New test starts another, keeping these "
        "ratings aside).",
        parent=parent,
    )
    reveal = box.addButton("Reveal", QMessageBox.ButtonRole.AcceptRole)
    box.setDefaultButton(box.addButton(QMessageBox.StandardButton.Cancel))
    box.exec()
    return box.clickedButton() is reveal


def _confirmed(parent: QWidget, ratings: int, name: str) -> bool:
    """Ask whether to start a new test; the ``ratings`` given so far are kept aside beside ``name``."""
    answer = QMessageBox.question(
        parent,
        "New blind test",
        f"Start a new test of these candidates? The {counted(ratings, 'rating')} in {name} are kept aside "
        "under a new name (choosing these candidates later does not reopen them while this test exists).",
    )
    return answer == QMessageBox.StandardButton.Yes
