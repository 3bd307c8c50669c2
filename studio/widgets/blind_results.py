"""What a blind listening test says once revealed: win rates with Wilson intervals, ABX accuracy, MUSHRA
means, and preference per line (tables drawn from a ``ListeningTest``; no logic of their own)."""

from __future__ import annotations

import math

from PySide6.QtWidgets import QLabel, QTableWidgetItem, QVBoxLayout, QWidget

from studio.widgets.tables import read_only_table
from trainer.evaluate.listening import MUSHRA_CONTROLS, ListeningTest, Standing
from trainer.evaluate.trials import counted

STANDING_COLUMNS = ("candidate", "pairwise wins", "win rate", "95% CI (Wilson)", "MUSHRA mean", "MUSHRA 95% ±")


def percent(value: float) -> str:
    """``0.625`` -> ``62%``."""
    return f"{100 * value:.0f}%"


class BlindResults(QWidget):
    """The revealed results: a table per candidate, the ABX line, and a table of preference per line."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.standings = read_only_table(STANDING_COLUMNS)
        self.abx = QLabel("")
        self.screening = QLabel("")
        self.screening.setWordWrap(True)
        self.by_line = read_only_table(())
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(QLabel("<b>Pairwise win rates and MUSHRA scores</b> (candidates by their labels)"))
        layout.addWidget(self.screening)
        layout.addWidget(self.standings, 1)
        layout.addWidget(self.abx)
        layout.addWidget(QLabel("<b>Preferred per line</b> (pairwise trials won)"))
        layout.addWidget(self.by_line, 1)

    def show_test(self, test: ListeningTest, lines: list[str]) -> None:
        """Fill the tables from ``test`` (call after ``test.reveal()``: the names shown are its
        ``shown_name``, the labels only) and warn when the listener fails MUSHRA post-screening."""
        self._fill_standings(test)
        right, n, (low, high) = test.abx_accuracy()
        self.abx.setText(
            f"ABX: {right} of {n} right ({percent(right / n)}, 95% CI {percent(low)}–{percent(high)}; "
            "near 50%: no audible difference)"
            if n
            else "ABX: no trials rated."
        )
        self._fill_by_line(test, lines)
        below, rated = test.reference_screening()
        self.screening.setText(
            f"⚠ The hidden reference was rated below 90 in {below} of {counted(rated, 'MUSHRA trial')}: these "
            "ratings may not be reliable (ITU-R BS.1534-3 post-screening)."
            if test.reference_unreliable()
            else ""
        )
        self.screening.setVisible(test.reference_unreliable())

    def _fill_standings(self, test: ListeningTest) -> None:
        means = test.mushra_means()
        rows: list[tuple[str, Standing | None]] = [(test.shown_name(s.candidate), s) for s in test.standings()]
        rows += [(name, None) for name in MUSHRA_CONTROLS if name in means]
        self.standings.setRowCount(len(rows))
        for row, (shown, standing) in enumerate(rows):
            key = standing.candidate if standing is not None else shown
            cells = [shown, *_standing_cells(standing), *_mushra_cells(means.get(key))]
            for column, text in enumerate(cells):
                self.standings.setItem(row, column, QTableWidgetItem(text))
        self.standings.resizeColumnsToContents()

    def _fill_by_line(self, test: ListeningTest, lines: list[str]) -> None:
        preferred = test.preference_by_line()
        self.by_line.setColumnCount(1 + len(test.candidates))
        self.by_line.setHorizontalHeaderLabels(["line", *(test.shown_name(c) for c in test.candidates)])
        shown = [line for line in lines if line in preferred]
        self.by_line.setRowCount(len(shown))
        for row, line in enumerate(shown):
            self.by_line.setItem(row, 0, QTableWidgetItem(line))
            for column, candidate in enumerate(test.candidates, start=1):
                self.by_line.setItem(row, column, QTableWidgetItem(str(preferred[line].get(candidate, 0))))
        self.by_line.resizeColumnsToContents()


def _standing_cells(standing: Standing | None) -> list[str]:
    if standing is None or not standing.trials:
        return ["—", "—", "—"]
    interval = f"{percent(standing.low)}–{percent(standing.high)}"
    return [f"{standing.wins} of {standing.trials}", percent(standing.rate), interval]


def _mushra_cells(mean: tuple[float, float, int] | None) -> list[str]:
    if mean is None:
        return ["—", "—"]
    value, half, n = mean
    return [f"{value:.1f} (n={n})", "—" if math.isinf(half) else f"{half:.1f}"]
