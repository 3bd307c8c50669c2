"""Settling a tie by ear (trainer.evaluate.tie_break): the offer when the recommended row has ties, the 5 pairwise
trials of exactly those candidates, their ratings kept as the blind tests keep theirs, and what they say."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from trainer.evaluate.bands import DEFAULT_BANDS
from trainer.evaluate.board import Row
from trainer.evaluate.listening import ListeningTest, wilson_interval
from trainer.evaluate.summary import summarise
from trainer.evaluate.tie_break import (
    RATINGS_FILE,
    RULE,
    TRIALS,
    answer,
    finished,
    measures_reason,
    offer_of,
    open_tie_break,
    outcome,
    plan,
    saved_tie_break,
    wins_needed,
)

SIM, MCD = DEFAULT_BANDS.of("similarity"), DEFAULT_BANDS.of("mcd_db")
LINES = ["Who left the garden gate open?", "The kettle is on the stove."]


def _row(epoch: int, **values) -> Row:
    name = f"best-epoch={epoch - 1:04d}-val_mel=0.6000.ckpt"
    return Row(label=f"epoch {epoch} · val_mel 0.6000", model_path=Path("/run/checkpoints") / name, **values)


START = Row(label="start: joe", model_path=Path("/voices/joe.onnx"), wer=0.08, dnsmos_ovrl=3.3, similarity=0.5)
F0 = {"f0_rmse_hz": 30.0, "f0_gap_hz": -4.0}
SIX = _row(6, val_mel=0.600, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80, mcd_db=7.0, **F0)
FIVE = _row(5, val_mel=0.600, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80 - SIM / 2, mcd_db=7.0 + MCD / 2, **F0)
FOUR = _row(4, val_mel=0.600, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80 - SIM / 3, mcd_db=7.0)
FAR = _row(3, val_mel=0.600, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80 - 3 * SIM, mcd_db=7.0)


def _offer(*rows: Row):
    offer = offer_of([START, *rows])
    assert offer is not None
    return offer


def test_the_offer_names_the_recommended_row_and_its_ties_and_on_which_measures_they_are_within_noise():
    """Epoch 6 (recommended, as the leaderboard's summary says) and epoch 5 (its tie) are within noise on every
    measure; a tie beyond the MCD band is said to be; where few measures were taken, they are named; no tie, no
    offer; the CLI's line says where to run it."""
    offer = _offer(SIX, FIVE, FAR)
    said = summarise([START, SIX, FIVE, FAR])
    assert offer.recommended == said.recommended == SIX.label and offer.tied == said.ties == [FIVE.label]
    assert offer.candidates == [SIX.label, FIVE.label]
    assert offer.sentence() == "Epoch 6 and epoch 5 are within noise on every measure: settle it by ear."
    assert offer.line().endswith(f"settle it by ear with {TRIALS} blind trials on the Compare page's Leaderboard tab.")
    apart = replace(FIVE, mcd_db=SIX.mcd_db + 2 * MCD)
    assert _offer(SIX, apart).said == (
        "Epoch 6 and epoch 5 are within noise on val_mel, F0 RMSE, F0 gap, similarity, DNSMOS and WER, not on MCD"
    )
    few = [replace(r, val_mel=None, mcd_db=None, f0_rmse_hz=None, f0_gap_hz=None) for r in (SIX, FIVE)]
    assert _offer(*few).said.endswith("within noise on every measure taken (similarity, DNSMOS and WER)")
    assert _offer(*(replace(r, mcd_db=None) for r in (SIX, FIVE))).said.endswith("on every measure taken")
    assert offer_of([START, SIX, FAR]) is None and offer_of([]) is None


def test_five_trials_play_exactly_the_recommended_against_each_tied_one_on_every_line_counterbalanced():
    """The plan: 5 pairwise trials, each the recommended row against a tied one (two ties: in turn), every line
    played, a pair met again on a line with A and B swapped; the same plan from the same seed."""
    offer = _offer(SIX, FIVE)
    test = ListeningTest(offer.candidates, seed=11)
    trials = plan(test, SIX.label, len(LINES))
    assert len(trials) == TRIALS and all(t.kind == "pairwise" for t in trials)
    assert all({t.a, t.b} == {SIX.label, FIVE.label} for t in trials)
    assert {t.line for t in trials} == set(range(len(LINES)))
    for line in range(len(LINES)):
        firsts = [t.a for t in trials if t.line == line]
        assert all(a != b for a, b in zip(firsts, firsts[1:], strict=False))  # swapped each time it meets again
    assert plan(ListeningTest(offer.candidates, seed=11), SIX.label, len(LINES)) == trials
    three = _offer(SIX, FIVE, FOUR)
    assert three.tied == [FOUR.label, FIVE.label]  # best first: FOUR's similarity is closer to SIX's
    others = [({t.a, t.b} - {SIX.label}).pop() for t in plan(ListeningTest(three.candidates), SIX.label, 1)]
    assert others == [FOUR.label, FIVE.label, FOUR.label, FIVE.label, FOUR.label]
    with pytest.raises(ValueError, match="not in this test"):
        plan(test, FAR.label, 2)


def test_answers_are_saved_as_a_blind_tests_ratings_and_reopen_until_all_five_are_rated(tmp_path):
    """Each answer is a pairwise Rating in a ListeningTest saved as JSON (the blind test's format); the test
    reopens with its ratings; the fifth answer closes (reveals) it; one for other lines is set aside, not lost."""
    offer, path = _offer(SIX, FIVE), tmp_path / RATINGS_FILE
    assert saved_tie_break(offer, LINES, path) is None and not path.exists()  # looking writes nothing
    test, _ = open_tie_break(offer, LINES, path)
    trials = plan(test, offer.recommended, len(LINES))
    for k, side in enumerate((1, 2, 1)):
        rating = answer(test, trials[k], LINES[trials[k].line], side)
        assert rating.choice == (trials[k].a if side == 1 else trials[k].b)
        test.save(path)
    again, notice = open_tie_break(offer, LINES, path)
    assert again.ratings == test.ratings and "Reopened 3 ratings" in notice and not finished(again)
    assert saved_tie_break(offer, LINES, path).ratings == test.ratings
    for k in (3, 4):
        answer(again, trials[k], LINES[trials[k].line], 1)
    again.save(path)
    assert finished(again) and again.revealed and json.loads(path.read_text())["version"] == 1
    with pytest.raises(ValueError, match="finished"):
        answer(again, trials[0], LINES[0], 1)
    other, notice = open_tie_break(offer, ["Another line."], path)
    assert other.ratings == [] and "kept as" in notice
    (kept,) = [p for p in tmp_path.glob("tie-break.*.json")]
    assert ListeningTest.load(kept).ratings == again.ratings


def _settle(offer, wins_for: str, wins: int):
    """A finished tie-break in which ``wins_for`` was preferred in ``wins`` of the 5 trials."""
    test = ListeningTest(offer.candidates, seed=3)
    for k, trial in enumerate(plan(test, offer.recommended, len(LINES))):
        loser = trial.b if trial.a == wins_for else trial.a
        answer(test, trial, LINES[trial.line], 1 + ((wins_for if k < wins else loser) == trial.b))
    return outcome(test, offer)


def test_the_outcome_says_who_was_preferred_by_how_much_and_follows_only_a_clear_preference():
    """5 of 5 for the tied epoch 5: clear (its Wilson interval lies above 50%), the recommendation follows the ear;
    4 of 5: not clear, the measures' pick stays; 5 of 5 for the measures' pick: it stays, now by ear too."""
    offer = _offer(SIX, FIVE)
    assert wilson_interval(wins_needed() - 1, TRIALS)[0] <= 0.5 < wilson_interval(wins_needed(), TRIALS)[0]
    assert f"{wins_needed()} of {TRIALS}" in RULE
    low, high = wilson_interval(TRIALS, TRIALS)
    ear = _settle(offer, FIVE.label, TRIALS)
    assert ear.preferred == ear.recommended == FIVE.label and ear.clear and ear.overrides
    assert (
        ear.measures_pick == SIX.label
        and ear.headline == "Recommended by ear: epoch 5, preferred in 5 of 5 blind trials."
    )
    assert ear.sentence == (
        f"By ear, you preferred epoch 5 to epoch 6 in 5 of 5 blind trials (100%, 95% CI {100 * low:.0f}%–"
        f"{100 * high:.0f}%): clear, so the recommendation follows your ear to epoch 5."
    )
    unclear = _settle(offer, FIVE.label, TRIALS - 1)
    assert unclear.preferred == FIVE.label and not unclear.clear and unclear.recommended == SIX.label
    assert "in 4 of 5 blind trials (80%" in unclear.sentence and "epoch 6 stays recommended" in unclear.sentence
    assert unclear.headline == ""
    agree = _settle(offer, SIX.label, TRIALS)
    assert agree.recommended == SIX.label and agree.clear and not agree.overrides
    assert "you preferred epoch 6 to epoch 5" in agree.sentence and "the measures agree" in agree.sentence
    assert outcome(ListeningTest(offer.candidates), offer) is None  # nothing rated: no outcome


def test_the_measures_reason_is_said_as_theirs_beside_the_ears():
    """``Recommended: epoch 6, …`` reads ``Recommended by the measures: epoch 6, …``."""
    reason = summarise([START, SIX, FIVE]).reason
    assert reason.startswith("Recommended: epoch 6, ")
    assert measures_reason(reason) == "Recommended by the measures: " + reason.removeprefix("Recommended: ")


def test_with_two_ties_each_is_judged_on_its_own_trials_against_the_recommended_one():
    """Two ties share the 5 trials (3 and 2): epoch 4 preferred in all 3 of its trials is the listener's pick but
    not clear (3 of 3 leaves the interval below 50%), so epoch 6 stays recommended."""
    offer = _offer(SIX, FIVE, FOUR)
    test = ListeningTest(offer.candidates, seed=5)
    for trial in plan(test, offer.recommended, len(LINES)):
        preferred = FOUR.label if FOUR.label in (trial.a, trial.b) else SIX.label
        answer(test, trial, LINES[trial.line], 1 + (trial.b == preferred))
    said = outcome(test, offer)
    low, _ = wilson_interval(3, 3)
    assert said.preferred == FOUR.label and not said.clear and said.recommended == SIX.label
    assert said.sentence.startswith(
        f"By ear, you preferred epoch 4 to epoch 6 in 3 of 3 blind trials (100%, 95% CI {100 * low:.0f}%–"
    )
