"""The leaderboard's tie-break: "Epoch 6 and epoch 5 are within noise on every measure: settle it by ear", a button
that runs 5 pairwise blind trials of exactly those candidates on the scored lines (their renders, played as the
blind test plays them), and what the listener preferred, by how much and whether the recommendation follows.

The trials, the ratings file and the outcome are ``trainer.evaluate.tie_break``'s; the panel draws them, saves the
test after every answer (as the blind test panel does) and emits :attr:`TieBreakPanel.settled`. Keys while the
trials run: A/B play, Space stops, 1/2 answer (the next trial follows). A trial answered with nothing of it played
says so (``UNHEARD``), as the blind test does.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from studio.widgets.pair_trial import UNHEARD, PairView
from trainer.evaluate.listening import ListeningTest
from trainer.evaluate.tie_break import (
    RULE,
    TRIALS,
    Offer,
    Outcome,
    answer,
    finished,
    open_tie_break,
    outcome,
    plan,
    saved_tie_break,
)
from trainer.evaluate.trials import Trial, new_test

GetAudio = Callable[[str, int], "tuple[np.ndarray, int] | None"]
START = f"{TRIALS} blind trials"
"""The offer's button."""
KEYS = "Keys: A and B play, 1 and 2 answer, Space stops."


class TieBreakPanel(QWidget):
    """The offer, the trials and the result of a leaderboard's tie-break; hidden while there is no tie.

    Args:
        get_audio: ``(candidate label, line index) -> (float32 [N], Hz)``, or ``None`` when not rendered.
        play: plays ``(audio, rate)`` and returns whether it plays; stop: stops it.

    Signals:
        settled(object): the :class:`~trainer.evaluate.tie_break.Outcome` of the finished test shown, or ``None``
            (no offer, or not finished).
        rated_unheard(): a trial was answered with nothing of it played (the status says so too).
    """

    settled = Signal(object)
    rated_unheard = Signal()

    def __init__(
        self,
        get_audio: GetAudio,
        play: Callable[[np.ndarray, int], bool],
        stop: Callable[[], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.get_audio, self.play, self.stop = get_audio, play, stop
        self._heard: set[Trial] = set()
        """The trials of which something played."""
        self.offer: Offer | None = None
        self.lines: list[str] = []
        self.path: Path | None = None
        self.test: ListeningTest | None = None
        self.trials: list[Trial] = []
        self.outcome: Outcome | None = None
        self.running = False
        """Whether the trials are under way (after Start, until the last answer)."""
        self._build()
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.set_offer(None, [], None)

    def _build(self) -> None:
        self.said, self.line_label = QLabel(""), QLabel("")
        self.status, self.result, self.rule = QLabel(""), QLabel(""), QLabel(RULE)
        for label in (self.said, self.line_label, self.status, self.result, self.rule):
            label.setWordWrap(True)
        self.start_button, self.again_button = QPushButton(START), QPushButton("New trials")
        self.start_button.clicked.connect(self.start)
        self.again_button.clicked.connect(self.again)
        self.again_button.setToolTip("Five new trials; these ratings are kept aside under a new name")
        self.pair = PairView()
        self.pair.play_requested.connect(self._play_side)
        self.pair.chosen.connect(self.choose)
        self.trial_box = QWidget()
        box = QVBoxLayout(self.trial_box)
        box.setContentsMargins(0, 0, 0, 0)
        box.addWidget(self.line_label)
        box.addWidget(self.pair)
        top = QHBoxLayout()
        top.addWidget(self.start_button)
        top.addWidget(self.again_button)
        top.addWidget(self.said, 1)
        layout = QVBoxLayout(self)
        margins = layout.contentsMargins()
        layout.setContentsMargins(margins.left(), 0, margins.right(), 0)  # in line with the table above
        layout.addLayout(top)
        for widget in (self.trial_box, self.result, self.rule, self.status):
            layout.addWidget(widget)
        for button in self.findChildren(QPushButton):  # clicking one leaves the keys with the panel
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)

    # --- the offer -------------------------------------------------------------------------------
    def set_offer(self, offer: Offer | None, lines: list[str], path: Path | None) -> None:
        """Offer a tie-break of ``offer`` on ``lines`` (the scored lines, by index), its ratings kept at ``path``;
        ``None`` hides the panel. A finished test saved there shows its result at once (and is emitted as
        :attr:`settled`); an unfinished one is offered to resume. Nothing is written until Start."""
        if self.running:
            self.stop()  # only its own playing: new rows while the Listen tab plays leave that alone
        self.offer, self.lines, self.path = offer, list(lines), path
        self.test, self.trials, self.outcome, self.running = None, [], None, False
        self.setVisible(offer is not None)
        if offer is not None and path is not None:
            self.test = saved_tie_break(offer, self.lines, path)
            self._plan()
        self._show()
        self.status.setText("")
        self.settled.emit(self.outcome)

    def start(self) -> None:
        """Begin (or resume) the trials; needs every line rendered by the offer's candidates."""
        if self.offer is None or self.path is None:
            return
        missing = self._unrendered()
        if missing:
            self.status.setText(f"Render on the Listen tab first: {missing} has no audio for every line yet.")
            return
        offer, lines, path = self.offer, self.lines, self.path
        if self._begin(lambda: open_tie_break(offer, lines, path), f"Cannot keep the ratings in {path}"):
            self.setFocus()

    def again(self) -> None:
        """New trials of the same candidates (the finished ratings are kept aside, ``trials.new_test``)."""
        if self.offer is None or self.path is None:
            return
        candidates, path = self.offer.candidates, self.path
        if self._begin(lambda: new_test(candidates, path), f"Cannot start new trials in {path}"):
            self.settled.emit(None)

    def _begin(self, opening: Callable[[], tuple], failure: str) -> bool:
        """Take the test ``opening()`` gives (``(ListeningTest, notice)``) and show its first trial; an OSError is
        said as ``failure: why`` in the status line. Returns whether the trials began."""
        try:
            self.test, notice = opening()
        except OSError as exc:
            self.status.setText(f"{failure}: {exc}")
            return False
        self._plan()
        self.running = True
        self._show()
        self.status.setText(" ".join(filter(None, (notice, KEYS))))
        return True
        self.setFocus()

    def _plan(self) -> None:
        assert self.offer is not None
        self._heard = set()
        test = self.test
        self.trials = plan(test, self.offer.recommended, len(self.lines)) if test is not None else []
        self.outcome = outcome(test, self.offer) if test is not None else None

    def _unrendered(self) -> str:
        """The name of an offered candidate missing a line's render, or ''."""
        assert self.offer is not None
        for label in self.offer.candidates:
            if any(self.get_audio(label, i) is None for i in range(len(self.lines))):
                return self.offer.name(label)
        return ""

    # --- the trials ------------------------------------------------------------------------------
    def current(self) -> Trial | None:
        """The trial to answer, or ``None`` (not started or resumed, or finished)."""
        if not self.running or self.test is None or self.test.revealed or finished(self.test):
            return None
        return self.trials[len(self.test.ratings)]

    def choose(self, side: int) -> None:
        """Answer the trial shown: 1 (A) or 2 (B) sounded better; saved at once, then the next trial (or the
        result, emitted as :attr:`settled`)."""
        trial = self.current()
        if trial is None or self.test is None or self.path is None:
            return
        self.stop()
        answer(self.test, trial, self.lines[trial.line], side)
        try:
            self.test.save(self.path)
        except OSError as exc:
            self.test.ratings.pop()
            self.test.revealed = False
            self.status.setText(f"Could not save the rating to {self.path}: {exc}")
            return
        self.outcome = outcome(self.test, self.offer) if self.offer else None
        said = (
            f"All {TRIALS} trials rated"
            if self.outcome
            else f"Trial {len(self.test.ratings)}: you chose {'AB'[side - 1]}"
        )
        unheard = trial not in self._heard
        self.status.setText(f"{said} · saved ({self.path.name})" + (UNHEARD if unheard else ""))
        self._show()
        if unheard:
            self.rated_unheard.emit()
        if self.outcome is not None:
            self.settled.emit(self.outcome)

    def _play_side(self, side: str) -> None:
        trial = self.current()
        if trial is None or side not in "AB":
            return
        label = trial.a if side == "A" else trial.b
        found = self.get_audio(label, trial.line)
        if found is None:
            self.status.setText(f"{side} has no audio for line {trial.line + 1}: render it on the Listen tab.")
            return
        if self.play(*found):
            self._heard.add(trial)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        key = event.key()
        if self.current() is None:
            super().keyPressEvent(event)
        elif key in (Qt.Key.Key_A, Qt.Key.Key_B):
            self._play_side("A" if key == Qt.Key.Key_A else "B")
        elif key == Qt.Key.Key_Space:
            self.stop()
        elif key in (Qt.Key.Key_1, Qt.Key.Key_2):
            self.choose(1 if key == Qt.Key.Key_1 else 2)
        else:
            super().keyPressEvent(event)

    # --- drawing ---------------------------------------------------------------------------------
    def _show(self) -> None:
        offer, test, trial, done = self.offer, self.test, self.current(), self.outcome is not None
        rated = len(test.ratings) if test is not None else 0
        self.said.setText("" if offer is None else f"{offer.said}." if done else offer.sentence())
        self.start_button.setText(f"Resume ({rated} of {TRIALS} rated)" if rated and not done else START)
        self.start_button.setVisible(trial is None and not done)
        self.again_button.setVisible(done)
        self.trial_box.setVisible(trial is not None)
        self.result.setVisible(done)
        self.rule.setVisible(done)
        if trial is not None:
            text = html.escape(self.lines[trial.line])
            self.line_label.setText(f"<b>Trial {rated + 1} of {TRIALS}</b> · line {trial.line + 1}: {text}")
            self.pair.set_trial("pairwise", 0)
        if self.outcome is not None:
            self.result.setText(self.outcome.sentence)
