"""The blind test panel (Qt offscreen): hidden letters until Reveal, keyboard rating, ratings kept on disk,
CSV export, MUSHRA with hidden reference and 3.5 kHz anchor on lines with a recording."""

from __future__ import annotations

import json

import numpy as np
import pytest
import soundfile as sf
from conftest import shared_path
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QComboBox, QFileDialog, QLabel, QTableWidget, QWidget

from trainer.evaluate.listening import ANCHOR, HIDDEN_REFERENCE, ListeningTest

pytestmark = pytest.mark.gui

CANDIDATES = ["epoch 3 · val_mel 0.6120", "last.ckpt", "start: joe"]
LINES = ["The quick brown fox.", "A second sentence to rate."]


@pytest.fixture(scope="module")
def recordings():
    """Two target-voice recordings (32 kHz), float32 mono."""
    folder = shared_path("corpus", "target-voice")
    ids = [row.split("|")[0] for row in (folder / "metadata.csv").read_text().splitlines()[:2]]
    return [sf.read(folder / "wavs" / f"{clip}.flac", dtype="float32") for clip in ids]


class Harness:
    """What the page gives the panel: audio per (candidate, line), and play/stop that record their calls."""

    def __init__(self, recordings) -> None:
        self.audio = {
            (c, i): (audio * (0.2 + 0.2 * k), rate)
            for k, c in enumerate(CANDIDATES)
            for i, (audio, rate) in enumerate(recordings)
        }
        self.recordings = recordings
        self.played: list[tuple[np.ndarray, int]] = []
        self.stops = 0

    def get_audio(self, name, line):
        from studio.widgets.blind_test import REFERENCE

        return self.recordings[line] if name == REFERENCE else self.audio.get((name, line))

    def play(self, audio, rate):
        self.played.append((audio, rate))
        return True  # it plays

    def stop(self):
        self.stops += 1


def _panel(qtbot, harness, path, references=(True, False)):
    from studio.widgets.blind_test import BlindTestPanel

    panel = BlindTestPanel(harness.get_audio, harness.play, harness.stop)
    qtbot.addWidget(panel)
    panel.show()
    panel.start(CANDIDATES, LINES, list(references), path)
    return panel


def _visible_texts(panel: QWidget) -> list[str]:
    texts = [panel.windowTitle(), panel.toolTip()]
    for w in panel.findChildren(QWidget):
        if not w.isVisibleTo(panel):
            continue
        texts.append(w.toolTip())
        if isinstance(w, (QLabel, QAbstractButton)):
            texts.append(w.text())
        elif isinstance(w, QComboBox):
            texts += [w.itemText(i) for i in range(w.count())]
        elif isinstance(w, QTableWidget):
            texts += [w.horizontalHeaderItem(c).text() for c in range(w.columnCount()) if w.horizontalHeaderItem(c)]
            texts += [w.item(r, c).text() for r in range(w.rowCount()) for c in range(w.columnCount()) if w.item(r, c)]
    return texts


def _named(panel) -> set[str]:
    joined = "\n".join(_visible_texts(panel))
    return {c for c in CANDIDATES if c in joined}


def _audio_of(harness, candidate, line):
    return harness.audio[(candidate, line)][0]


def test_labels_stay_hidden_until_reveal(qtbot, tmp_path, recordings):
    """Before Reveal no candidate's label is in any visible text of the panel (rating every kind); after it,
    each is, with its win rate."""
    harness = Harness(recordings)
    panel = _panel(qtbot, harness, tmp_path / "ratings.json")
    for mode in range(3):
        panel.mode.setCurrentIndex(mode)
        for key in (Qt.Key.Key_A, Qt.Key.Key_B, Qt.Key.Key_X, Qt.Key.Key_1, Qt.Key.Key_Return):
            qtbot.keyClick(panel, key)
            assert _named(panel) == set()
    for slider in panel.mushra.sliders:
        slider.setValue(50)
        assert _named(panel) == set()
    assert not panel.results.isVisibleTo(panel) and not panel.buttons["export"].isEnabled()
    panel.buttons["reveal"].click()
    assert _named(panel) == set(CANDIDATES)
    assert panel.results.standings.rowCount() == len(CANDIDATES) + 2  # and the hidden reference and anchor
    assert json.loads((tmp_path / "ratings.json").read_text())["revealed"] is True


def test_keyboard_rates_and_ratings_persist(qtbot, tmp_path, recordings):
    """A plays A's audio, X plays X's, 1/2 record a choice (saved at once), Enter moves on; a new panel on
    the same file has the same ratings, letters and trials, and opens at the first unrated trial."""
    harness, path = Harness(recordings), tmp_path / "run" / "ratings.json"
    panel = _panel(qtbot, harness, path)
    trial = panel.current()
    qtbot.keyClick(panel, Qt.Key.Key_A)
    assert harness.played[-1][0] is _audio_of(harness, trial.a, trial.line)
    qtbot.keyClick(panel, Qt.Key.Key_2)
    (rating,) = panel.test.ratings
    assert (rating.kind, rating.choice, rating.line) == ("pairwise", trial.b, LINES[trial.line])
    qtbot.keyClick(panel, Qt.Key.Key_1)  # a changed answer replaces the first
    assert [r.choice for r in panel.test.ratings] == [trial.a]
    qtbot.keyClick(panel, Qt.Key.Key_Return)
    assert panel.current() != trial and "Trial 2 of 6 · 1 rated" in panel.progress.text()

    panel.mode.setCurrentIndex(1)  # ABX
    abx = panel.current()
    qtbot.keyClick(panel, Qt.Key.Key_X)
    assert harness.played[-1][0] is _audio_of(harness, abx.x, abx.line)
    qtbot.keyClick(panel, Qt.Key.Key_2)
    assert panel.test.ratings[-1].truth == abx.x and panel.test.ratings[-1].choice == abx.b

    saved = ListeningTest.load(path)
    assert saved.ratings == panel.test.ratings
    again = _panel(qtbot, harness, path)
    assert again.test.ratings == panel.test.ratings
    assert [again.test.letter(c) for c in CANDIDATES] == [panel.test.letter(c) for c in CANDIDATES]
    assert again.current() == panel.trials["pairwise"][1]  # the first unrated
    assert "Reopened 2 ratings of these candidates on these lines" in again.status.text()


def test_ratings_of_other_candidates_are_kept_aside(qtbot, tmp_path, recordings):
    """A ratings file for another choice of candidates is set aside, not overwritten (the status says so);
    choosing those candidates again reopens it, with its ratings."""
    from trainer.evaluate.listening import Rating

    path = tmp_path / "ratings.json"
    other = ListeningTest(["a.onnx", "b.onnx"])
    other.rate(Rating(kind="pairwise", line=LINES[0], a="a.onnx", b="b.onnx", choice="b.onnx"))
    other.save(path)
    panel = _panel(qtbot, Harness(recordings), path)
    kept = [p for p in tmp_path.iterdir() if p.name.startswith("ratings.") and p != path]
    assert len(kept) == 1 and ListeningTest.load(kept[0]).ratings == other.ratings
    assert kept[0].name in panel.status.text() and ListeningTest.load(path).candidates == CANDIDATES
    qtbot.keyClick(panel, Qt.Key.Key_1)
    panel.start(["b.onnx", "a.onnx"], LINES, [False, False], path)
    assert panel.test.ratings == other.ratings and panel.test.seed == other.seed
    panel.start(CANDIDATES, LINES, [True, False], path)
    assert len(panel.test.ratings) == 1 and panel.test.ratings[0].kind == "pairwise"
    assert panel.test.candidates == CANDIDATES and "Reopened 1 rating of these" in panel.status.text()


def test_exported_csv_round_trips(qtbot, tmp_path, recordings, monkeypatch):
    """Export CSV… (after Reveal) writes every rating with real labels; read_csv gives them back."""
    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    for key in (Qt.Key.Key_1, Qt.Key.Key_Return, Qt.Key.Key_2, Qt.Key.Key_Return):
        qtbot.keyClick(panel, key)
    panel.mode.setCurrentIndex(2)
    for value, slider in enumerate(panel.mushra.sliders):
        slider.setValue(10 * value + 5)
    panel.reveal(confirm=False)
    out = tmp_path / "export.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "CSV (*.csv)"))
    panel.buttons["export"].click()
    ratings = panel.test.read_csv(out.read_text(), out)
    assert len(ratings) == 3 and ratings == panel.test.ratings
    assert ratings[-1].scores.keys() == {*CANDIDATES, HIDDEN_REFERENCE, ANCHOR}


def _energy_above(audio, rate, hz):
    spectrum = np.abs(np.fft.rfft(audio)) ** 2
    return spectrum[np.fft.rfftfreq(len(audio), 1 / rate) > hz].sum()


def test_mushra_only_on_lines_with_a_reference_and_the_anchor_is_low_passed(qtbot, tmp_path, recordings):
    """MUSHRA trials only for lines with a recording (none: the mode is greyed out); the hidden reference
    plays the recording, the anchor the recording with almost no energy above 3.5 kHz."""
    harness = Harness(recordings)
    panel = _panel(qtbot, harness, tmp_path / "ratings.json", references=(False, True))
    assert [t.line for t in panel.trials["mushra"]] == [1]
    panel.mode.setCurrentIndex(2)
    order = panel.mushra.order
    assert set(order) == {*CANDIDATES, HIDDEN_REFERENCE, ANCHOR}
    reference, rate = recordings[1]
    qtbot.keyClick(panel, Qt.Key(Qt.Key.Key_A.value + order.index(HIDDEN_REFERENCE)))
    assert harness.played[-1][0] is reference
    qtbot.keyClick(panel, Qt.Key(Qt.Key.Key_A.value + order.index(ANCHOR)))
    anchor, anchor_rate = harness.played[-1]
    assert anchor_rate == rate and anchor.shape == reference.shape
    assert _energy_above(anchor, rate, 4000) < 0.01 * _energy_above(reference, rate, 4000)
    assert _energy_above(anchor, rate, 0) > 0.5 * _energy_above(reference, rate, 0)

    bare = _panel(qtbot, harness, tmp_path / "bare.json", references=(False, False))
    assert bare.trials["mushra"] == [] and not bare.mode.model().item(2).isEnabled()


def test_keys_reach_the_trial_after_clicks(qtbot, tmp_path, recordings):
    """Buttons take no focus (a click leaves the keys with the panel) and choosing a mode gives the focus
    back to the panel, so the combo box's search does not swallow A, B, X, 1 and 2."""
    from PySide6.QtWidgets import QPushButton

    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    assert all(b.focusPolicy() == Qt.FocusPolicy.NoFocus for b in panel.findChildren(QPushButton))
    panel.mode.setFocus()
    assert panel.focusWidget() is panel.mode
    panel.mode.setCurrentIndex(1)
    assert panel.focusWidget() is panel


def _rate_pairwise(qtbot, panel, n):
    panel.mode.setCurrentIndex(0)
    for _ in range(n):
        qtbot.keyClick(panel, Qt.Key.Key_1)
        qtbot.keyClick(panel, Qt.Key.Key_Return)


def test_rating_is_closed_after_reveal_until_a_new_test(qtbot, tmp_path, recordings, monkeypatch):
    """After Reveal, 1/2, the answer buttons and the MUSHRA keys change nothing (in memory or on disk) and a
    line says so; New test (confirmed) keeps the old file aside and rating works again."""
    path = tmp_path / "ratings.json"
    panel = _panel(qtbot, Harness(recordings), path)
    _rate_pairwise(qtbot, panel, 2)
    panel.reveal(confirm=False)
    saved = path.read_text()
    for key in (Qt.Key.Key_1, Qt.Key.Key_Return, Qt.Key.Key_2):
        qtbot.keyClick(panel, key)
    panel.pair.answers.button(2).click()
    panel.mode.setCurrentIndex(2)
    for key in (Qt.Key.Key_A, Qt.Key.Key_PageUp, Qt.Key.Key_Up):
        qtbot.keyClick(panel, key)
    assert len(panel.test.ratings) == 2 and path.read_text() == saved
    assert panel.closed.isVisibleTo(panel) and "closed" in panel.status.text()
    assert all(not s.isEnabled() for s in panel.mushra.sliders)

    from PySide6.QtWidgets import QMessageBox

    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.No)
    panel.buttons["new"].click()
    assert panel.test.revealed and len(panel.test.ratings) == 2
    monkeypatch.setattr(QMessageBox, "question", lambda *a, **k: QMessageBox.StandardButton.Yes)
    panel.buttons["new"].click()
    kept = [p for p in tmp_path.iterdir() if p != path]
    assert len(kept) == 1 and ListeningTest.load(kept[0]).revealed and len(ListeningTest.load(kept[0]).ratings) == 2
    assert not panel.test.revealed and panel.test.ratings == [] and not panel.closed.isVisibleTo(panel)
    _rate_pairwise(qtbot, panel, 1)
    assert len(ListeningTest.load(path).ratings) == 1


def test_revealed_results_name_candidates_by_label_only(qtbot, tmp_path, recordings):
    """The standings and the per-line table show the labels alone: no test letter (trials use A/B as positions)."""
    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    _rate_pairwise(qtbot, panel, 3)
    panel.reveal(confirm=False)
    shown = {panel.results.standings.item(r, 0).text() for r in range(panel.results.standings.rowCount())}
    assert shown == {*CANDIDATES, HIDDEN_REFERENCE, ANCHOR} - {HIDDEN_REFERENCE, ANCHOR}
    by_line = panel.results.by_line
    assert {by_line.horizontalHeaderItem(c).text() for c in range(1, by_line.columnCount())} == set(CANDIDATES)


def _mushra(qtbot, panel):
    panel.mode.setCurrentIndex(2)
    return panel.mushra


def test_mushra_is_rated_with_the_keyboard(qtbot, tmp_path, recordings):
    """A letter plays and selects its slider; Up/Down move it by 5, PageUp/PageDown by 20; Down at 0 counts as
    set; with every slider set by keys the trial is saved. The mode combo takes no focus and ignores the wheel."""
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent
    from PySide6.QtWidgets import QApplication

    harness, path = Harness(recordings), tmp_path / "ratings.json"
    panel = _panel(qtbot, harness, path)
    box = _mushra(qtbot, panel)
    assert panel.mode.focusPolicy() == Qt.FocusPolicy.NoFocus
    played = len(harness.played)
    qtbot.keyClick(panel, Qt.Key.Key_B)
    assert box.selected == 1 and len(harness.played) == played + 1
    for key in (Qt.Key.Key_PageUp, Qt.Key.Key_PageUp, Qt.Key.Key_Up, Qt.Key.Key_Down, Qt.Key.Key_Down):
        qtbot.keyClick(panel, key)
    assert box.sliders[1].value() == 35 and box.unrated() == len(box.order) - 1
    qtbot.keyClick(panel, Qt.Key.Key_A)
    qtbot.keyClick(panel, Qt.Key.Key_Down)  # 0 stays 0, but it is set
    assert box.sliders[0].value() == 0 and box.unrated() == len(box.order) - 2 and box.values[0].text() == "0"
    for i in range(2, len(box.order)):
        qtbot.keyClick(panel, Qt.Key(Qt.Key.Key_A.value + i))
        qtbot.keyClick(panel, Qt.Key.Key_PageUp)
    (rating,) = ListeningTest.load(path).ratings
    assert rating.scores[box.order[0]] == 0 and rating.scores[box.order[1]] == 35
    wheel = QWheelEvent(
        QPointF(5, 5),
        QPointF(5, 5),
        QPoint(0, 0),
        QPoint(0, -120),
        Qt.MouseButton.NoButton,
        Qt.KeyboardModifier.NoModifier,
        Qt.ScrollPhase.NoScrollPhase,
        False,
    )
    QApplication.sendEvent(panel.mode, wheel)
    assert panel.kind == "mushra"


def test_pairwise_after_mushra_leaves_no_gap(qtbot, tmp_path, recordings):
    """Back from MUSHRA's tall sliders, the pairwise trial's stack is only as tall as the pairwise view."""
    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    panel.resize(900, 700)
    _mushra(qtbot, panel)
    qtbot.waitUntil(lambda: panel.views.height() > 150)
    panel.mode.setCurrentIndex(0)
    qtbot.waitUntil(lambda: panel.views.height() <= panel.pair.sizeHint().height() + 10, timeout=2000)


def test_results_warn_when_the_hidden_reference_is_rated_below_90(qtbot, tmp_path, recordings):
    """MUSHRA post-screening (ITU-R BS.1534-3): the hidden reference below 90 in 1 of 1 trials -> a warning."""
    panel = _panel(qtbot, Harness(recordings), tmp_path / "ratings.json")
    box = _mushra(qtbot, panel)
    for i, name in enumerate(box.order):
        box.sliders[i].setValue(60 if name == HIDDEN_REFERENCE else 40)
    panel.reveal(confirm=False)
    assert panel.results.screening.isVisibleTo(panel)
    assert "below 90 in 1 of 1 MUSHRA trial:" in panel.results.screening.text()


def test_reopened_notice_counts_the_ratings_of_these_lines(qtbot, tmp_path, recordings):
    """Ratings are tied to lines: reopening with other lines says 0 of them are for these lines (as the progress
    does) and how many are kept for other lines."""
    path = tmp_path / "ratings.json"
    panel = _panel(qtbot, Harness(recordings), path)
    _rate_pairwise(qtbot, panel, 1)
    panel.start(CANDIDATES, ["Another line.", "And one more."], [False, False], path)
    assert "Reopened 0 ratings of these candidates on these lines" in panel.status.text()
    assert "(1 rating of other lines kept in it)" in panel.status.text() and "0 rated" in panel.progress.text()


def _answer_next_box(button: str) -> list[str]:
    """Answer the next message box as a user does, clicking its ``button``; the list gets the box's text (empty
    while no box came: looked for every 20 ms, for 4 s at most)."""
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication, QMessageBox

    said: list[str] = []

    def answer(tries: int = 200) -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            if tries:
                QTimer.singleShot(20, lambda: answer(tries - 1))
            return
        said.append(box.text())
        next(b for b in box.buttons() if b.text().replace("&", "") == button).click()

    QTimer.singleShot(0, answer)
    return said


def test_reveal_with_unrated_trials_asks_first_and_cancel_keeps_rating_open(qtbot, tmp_path, recordings):
    """Reveal after 2 of 6 pairwise trials asks first, naming the 4 not rated; Cancel keeps rating open (a third
    rating is saved), and Reveal in the question closes it."""
    path = tmp_path / "ratings.json"
    panel = _panel(qtbot, Harness(recordings), path)
    _rate_pairwise(qtbot, panel, 2)
    said = _answer_next_box("Cancel")
    panel.buttons["reveal"].click()
    assert said and "4 of 6 pairwise trials are not rated yet" in said[0], said
    assert not panel.test.revealed and not json.loads(path.read_text())["revealed"]
    _rate_pairwise(qtbot, panel, 1)
    assert len(ListeningTest.load(path).ratings) == 3 and not panel.closed.isVisibleTo(panel)
    said = _answer_next_box("Reveal")
    panel.buttons["reveal"].click()
    assert said and "3 of 6 pairwise trials are not rated yet" in said[0], said
    assert panel.test.revealed and panel.closed.isVisibleTo(panel) and json.loads(path.read_text())["revealed"]
