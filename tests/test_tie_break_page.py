"""The leaderboard's blind tie-break (Qt offscreen): the offer under a leaderboard whose recommended row has a tie,
5 pairwise trials of exactly those candidates played from the renders the comparison holds, the ratings saved as
the blind test's, the result, and the ★ following a clear preference with the measures' pick (☆) beside it."""

from __future__ import annotations

import gc
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf
from conftest import shared_path
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from trainer.evaluate.bands import DEFAULT_BANDS
from trainer.evaluate.board import Row
from trainer.evaluate.listening import ListeningTest
from trainer.evaluate.tie_break import RATINGS_FILE, RULE, TRIALS, offer_of

pytestmark = pytest.mark.gui

SIX_LABEL, FIVE_LABEL = "epoch 6 · val_mel 0.6000", "epoch 5 · val_mel 0.6000"
LINES = ["Who left the garden gate open?", "The kettle is on the stove."]


def _rows(six: Path, five: Path) -> list[Row]:
    """Leaderboard rows of two checkpoints within noise of each other on every measure (epoch 6 the more similar)."""
    sim = DEFAULT_BANDS.of("similarity")
    six_row = Row(label=SIX_LABEL, model_path=six, val_mel=0.600, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80,
                  mcd_db=7.1, f0_rmse_hz=31.0, f0_gap_hz=-4.0, rate_pps=12.5, dataset_rate_pps=12.0)  # fmt: skip
    return [six_row, replace(six_row, label=FIVE_LABEL, model_path=five, val_mel=0.600, similarity=0.80 - sim / 2)]


def _texts(widget: QWidget) -> str:
    """Every text shown in ``widget``: labels, buttons and tooltips."""
    shown = [w for w in (widget, *widget.findChildren(QWidget)) if w.isVisibleTo(widget)]
    return "\n".join(w.text() for w in shown if isinstance(w, (QLabel, QAbstractButton)))


def _choose(panel, qtbot, label: str) -> None:
    """Answer the trial shown by key, preferring ``label``."""
    trial = panel.current()
    qtbot.keyClick(panel, Qt.Key.Key_1 if trial.a == label else Qt.Key.Key_2)


@pytest.fixture
def page(qtbot, tmp_path, make_tiny_checkpoint):
    """The Compare page with two tiny checkpoints (epochs 6 and 5) rendered on two typed lines (torch engine)."""
    from engines.pool import EnginePool
    from studio.pages.compare import ComparePage
    from studio.state import VoiceLibrary, Workspace
    from trainer.evaluate.render import Candidate

    page = ComparePage(Workspace(runs_dir=tmp_path / "runs"), VoiceLibrary(), EnginePool())
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is page, timeout=5_000)
    six = make_tiny_checkpoint(tmp_path / "best-epoch=0005-val_mel=0.6000.ckpt", seed=6)
    five = make_tiny_checkpoint(tmp_path / "best-epoch=0004-val_mel=0.6000.ckpt", seed=5)
    page.listen.candidates_box.add(
        [Candidate(label=SIX_LABEL, model_path=six), Candidate(label=FIVE_LABEL, model_path=five)]
    )
    page.listen.lines_box.choose_typed("\n".join(LINES))
    assert page.listen.start_render() is not None, page.listen.status.text()
    qtbot.waitUntil(lambda: not page.listen.slot.busy(), timeout=120_000)
    assert page.comparison.missing() == 0, page.listen.status.text()
    yield page
    page.shutdown()
    page.listen.slot.join(30)
    gc.collect()


def _scored(page, monkeypatch) -> tuple[list[Row], list[np.ndarray]]:
    """The leaderboard saved for this comparison (as Score leaves it) and shown; the players' calls recorded."""
    from studio.pages.compare_board import save_board, scored_key

    six, five = (c.model_path for c in page.comparison.candidates)
    rows = _rows(six, five)
    save_board(page.comparison.folder(), rows, scored_key(page.comparison))
    page.board.show_saved()
    page.tabs.setCurrentWidget(page.board)
    played = []
    original = page.listen.player.play
    monkeypatch.setattr(
        page.listen.player, "play", lambda audio, *a, **k: (played.append(audio), original(audio, *a, **k))
    )
    return rows, played


def test_the_offer_runs_five_blind_trials_on_the_scored_renders_and_the_star_follows_a_clear_preference(
    page, qtbot, monkeypatch
):
    """The offer names epochs 6 and 5; its button starts 5 trials of exactly them, A and B played from the
    comparison's renders (nothing rendered again) with their names hidden; each answer is saved as a blind test's
    rating; 5 of 5 for epoch 5 moves ★ to it, ☆ to the measures' epoch 6, says the rule, and stays on reopening."""
    from studio.widgets.tie_break import KEYS

    rows, played = _scored(page, monkeypatch)
    panel, view = page.board.tie_break, page.board.view
    path = page.comparison.folder() / RATINGS_FILE
    assert panel.isVisible() and panel.said.text() == offer_of(rows).sentence()
    assert panel.said.text() == "Epoch 6 and epoch 5 are within noise on every measure: settle it by ear."
    assert panel.start_button.text() == f"{TRIALS} blind trials" and not path.exists()  # nothing written yet
    renders_arrived = []
    page.comparison.events.rendered_changed.connect(renders_arrived.append)

    panel.start_button.click()
    assert panel.hasFocus() and panel.trial_box.isVisible() and KEYS in panel.status.text()
    for k in range(TRIALS):
        trial = panel.current()
        assert f"Trial {k + 1} of {TRIALS}" in panel.line_label.text() and LINES[trial.line] in panel.line_label.text()
        assert SIX_LABEL not in _texts(panel.trial_box) and FIVE_LABEL not in _texts(panel.trial_box)
        qtbot.keyClick(panel, Qt.Key.Key_A)
        assert played[-1] is page.comparison.rendered[(trial.a, trial.line)].audio
        qtbot.keyClick(panel, Qt.Key.Key_B)
        assert played[-1] is page.comparison.rendered[(trial.b, trial.line)].audio
        qtbot.keyClick(panel, Qt.Key.Key_Space)
        assert not page.listen.player.is_playing()
        with qtbot.waitSignal(panel.settled, timeout=1000) if k == TRIALS - 1 else nullcontext():
            _choose(panel, qtbot, FIVE_LABEL)
        saved = ListeningTest.load(path)
        assert len(saved.ratings) == k + 1 and saved.ratings[-1].choice == FIVE_LABEL
        assert {saved.ratings[-1].a, saved.ratings[-1].b} == {SIX_LABEL, FIVE_LABEL}
    assert renders_arrived == [] and not page.listen.slot.busy()  # the same renders: none made again

    assert not panel.trial_box.isVisible() and panel.result.isVisible() and panel.rule.text() == RULE
    assert panel.result.text().startswith("By ear, you preferred epoch 5 to epoch 6 in 5 of 5 blind trials (100%")
    labels = {view.table.item(r, 0).text() for r in range(view.table.rowCount())}
    assert labels == {f"★ {FIVE_LABEL}", f"☆ {SIX_LABEL}"}
    first, second = view.summary.text().splitlines()[:2]
    assert first == "★ Recommended by ear: epoch 5, preferred in 5 of 5 blind trials."
    assert second.startswith("☆ Recommended by the measures: epoch 6, the highest similarity (0.800)")

    page.board.show_saved()  # the same comparison shown again: the result is read back, the star follows it
    assert panel.result.isVisible() and view.by_ear is not None and view.by_ear.recommended == FIVE_LABEL
    assert f"★ {FIVE_LABEL}" in {view.table.item(r, 0).text() for r in range(view.table.rowCount())}
    panel.again_button.click()  # five new trials: the ratings kept aside, the measures' pick back
    assert panel.trial_box.isVisible() and ListeningTest.load(path).ratings == []
    assert len(list(path.parent.glob("tie-break.*.json"))) == 1
    assert f"★ {SIX_LABEL}" in {view.table.item(r, 0).text() for r in range(view.table.rowCount())}


@pytest.fixture(scope="module")
def recordings():
    """Two target-voice recordings (32 kHz), float32 mono: the harness's "renders"."""
    folder = shared_path("corpus", "target-voice")
    ids = [row.split("|")[0] for row in (folder / "metadata.csv").read_text().splitlines()[:2]]
    return [sf.read(folder / "wavs" / f"{clip}.flac", dtype="float32") for clip in ids]


def _panel(qtbot, audio):
    from studio.widgets.tie_break import TieBreakPanel

    played = []
    panel = TieBreakPanel(lambda label, line: audio.get((label, line)), lambda a, r: played.append(a), lambda: None)
    qtbot.addWidget(panel)
    panel.show()
    return panel, played


def test_an_unclear_preference_leaves_the_star_and_an_unrendered_line_or_a_half_test_is_said(
    qtbot, tmp_path, recordings
):
    """Without a render the button says to render first; two answers then a fresh look offer to resume at trial 3;
    4 of 5 for epoch 5 is not clear: the result says so and the leaderboard keeps ★ on the measures' epoch 6."""
    from studio.widgets.leaderboard_view import LeaderboardView

    rows = _rows(Path("/run/best-epoch=0005.ckpt"), Path("/run/best-epoch=0004.ckpt"))
    offer, path = offer_of(rows), tmp_path / RATINGS_FILE
    audio = {(SIX_LABEL, i): (a * 0.5, rate) for i, (a, rate) in enumerate(recordings)}
    panel, played = _panel(qtbot, audio)
    view = LeaderboardView()
    qtbot.addWidget(view)
    view.set_rows(rows)
    panel.settled.connect(view.follow)
    panel.set_offer(offer, LINES, path)
    panel.start_button.click()
    assert panel.status.text() == "Render on the Listen tab first: epoch 5 has no audio for every line yet."
    assert panel.current() is None and not path.exists()

    audio.update({(FIVE_LABEL, i): (a * 0.25, rate) for i, (a, rate) in enumerate(recordings)})
    panel.start_button.click()
    for _ in range(2):
        _choose(panel, qtbot, FIVE_LABEL)
    panel.set_offer(offer, LINES, path)  # looked at again (the leaderboard shown anew)
    assert panel.start_button.text() == f"Resume (2 of {TRIALS} rated)" and panel.current() is None
    panel.start_button.click()
    assert "Trial 3 of 5" in panel.line_label.text() and "Reopened 2 ratings" in panel.status.text()
    qtbot.keyClick(panel, Qt.Key.Key_A)
    trial = panel.current()
    assert np.array_equal(played[-1], audio[(trial.a, trial.line)][0])
    for k in range(3):
        _choose(panel, qtbot, SIX_LABEL if k == 0 else FIVE_LABEL)
    assert "in 4 of 5 blind trials (80%" in panel.result.text() and "not clear" in panel.result.text()
    assert view.by_ear is not None and not view.by_ear.overrides
    labels = {view.table.item(r, 0).text() for r in range(view.table.rowCount())}
    assert labels == {f"★ {SIX_LABEL}", f"≈ {FIVE_LABEL}"} and view.summary.text().startswith("★ Recommended: epoch 6")
    panel.set_offer(None, [], None)
    assert not panel.isVisible()
