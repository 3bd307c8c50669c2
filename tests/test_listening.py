"""Blind listening tests: hidden letters, Wilson intervals, ratings kept across restarts, CSV round trip."""

from __future__ import annotations

import math

import pytest
from scipy.optimize import brentq
from scipy.stats import norm

from trainer.evaluate.listening import ListeningTest, Rating, RatingsError, wilson_interval


@pytest.mark.parametrize(("wins", "n"), [(8, 10), (0, 5), (5, 5), (1, 3), (37, 120)])
def test_wilson_interval_is_where_the_score_test_stops_rejecting(wins, n):
    """Wilson's bounds are the proportions p at which |p_hat - p| / sqrt(p (1 - p) / n) equals z (solved here
    numerically, independent of the closed form); 0 or n wins reach 0 or 1 exactly."""
    z = norm.ppf(0.975)
    low, high = wilson_interval(wins, n)
    p_hat = wins / n

    def score(p: float) -> float:
        return abs(p_hat - p) / math.sqrt(p * (1 - p) / n) - z

    eps = 1e-12
    expect_low = 0.0 if wins == 0 else brentq(score, eps, min(p_hat, 1 - eps))
    expect_high = 1.0 if wins == n else brentq(score, max(p_hat, eps), 1 - eps)
    assert low == pytest.approx(expect_low, abs=1e-9) and high == pytest.approx(expect_high, abs=1e-9)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson_interval(6, 5)


def _pairwise(line: str, a: str, b: str, choice: str) -> Rating:
    return Rating(kind="pairwise", line=line, a=a, b=b, choice=choice)


def test_letters_hide_the_candidates_until_the_reveal_and_survive_a_restart(tmp_path):
    """Shown names are letters only, shuffled by the seed; after a save and load the same letters come back,
    and the real labels show only after reveal."""
    names = [f"epoch {e}" for e in (100, 200, 300, 400)]
    test = ListeningTest(names, seed=7)
    shown = {n: test.shown_name(n) for n in names}
    assert sorted(shown.values()) == ["A", "B", "C", "D"] and all(n not in s for n, s in shown.items())
    assert [test.candidate(test.letter(n)) for n in names] == names
    assert any(ListeningTest(names, seed=s).letter(names[0]) != test.letter(names[0]) for s in range(8))
    test.rate(_pairwise("Hello.", names[0], names[1], names[1]))
    again = ListeningTest.load(test.save(tmp_path / "ratings.json"))
    assert {n: again.shown_name(n) for n in names} == shown and again.ratings == test.ratings
    again.reveal()
    assert again.shown_name(names[0]) == names[0]  # the label only: letters are positions within a trial
    assert ListeningTest.load(again.save(tmp_path / "ratings.json")).revealed


def test_standings_count_wins_with_intervals_and_preference_per_line():
    """Win rates come from pairwise trials only, with the Wilson interval of wins / trials, best first."""
    test = ListeningTest(["old", "new"], seed=1)
    for line, choice in [("one", "new"), ("one", "new"), ("two", "new"), ("two", "old")]:
        test.rate(_pairwise(line, "old", "new", choice))
    test.rate(Rating(kind="abx", line="one", a="old", b="new", choice="new", truth="old"))
    best, worst = test.standings()
    assert (best.candidate, best.wins, best.trials, best.rate) == ("new", 3, 4, 0.75)
    assert (best.low, best.high) == wilson_interval(3, 4) and worst.candidate == "old" and worst.wins == 1
    assert test.preference_by_line() == {"one": {"new": 2}, "two": {"new": 1, "old": 1}}
    assert test.abx_accuracy()[:2] == (0, 1)


def test_mushra_means_and_intervals():
    """MUSHRA: per-candidate mean and the 95% normal half-width (sample sd / sqrt(n) x 1.96)."""
    test = ListeningTest(["ref", "x"], seed=3)
    for scores in ({"ref": 100, "x": 60}, {"ref": 96, "x": 70}, {"ref": 98, "x": 80}):
        test.rate(Rating(kind="mushra", line="l", scores=scores))
    mean, half, n = test.mushra_means()["x"]
    assert (mean, n) == (70, 3) and half == pytest.approx(norm.ppf(0.975) * 10 / math.sqrt(3))


def test_csv_round_trips_and_bad_input_is_named(tmp_path):
    """to_csv then read_csv gives the same ratings; a bad row, an unknown candidate or a bad file is named."""
    test = ListeningTest(["a", "b"], seed=0)
    test.rate(_pairwise("x, with a comma", "a", "b", "a"))
    test.rate(Rating(kind="mushra", line="y", scores={"a": 10.5, "b": 90}))
    assert test.read_csv(test.to_csv()) == test.ratings
    bad = test.to_csv().replace(",a,b,a,", ",a,b,c,", 1)
    with pytest.raises(RatingsError, match="line 2: choice 'c'"):
        test.read_csv(bad, "r.csv")
    with pytest.raises(ValueError, match="not in this test: z"):
        test.rate(_pairwise("x", "a", "z", "z"))
    broken = tmp_path / "ratings.json"
    broken.write_text('{"version": 1, "candidates": ["a", "b"], "seed": "x", "revealed": false, "ratings": []}')
    with pytest.raises(RatingsError, match="field 'test.seed'"):
        ListeningTest.load(broken)
