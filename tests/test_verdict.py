"""The verdict and the recommended checkpoint (trainer.evaluate.verdict, trainer.evaluate.recommend) on synthetic
measure streams: improving, levelled, getting worse while val_mel falls, ties within noise, missing measures,
a single evaluation, and the disagreement sentence. Streams step in multiples of the noise bands, so what is
beyond noise follows from the bands, whatever their figures."""

from __future__ import annotations

import random

import pytest

from trainer.evaluate.bands import Bands
from trainer.evaluate.recommend import BLIND_TRIALS, disagreement, eligible
from trainer.evaluate.verdict import STATES, Evaluation, recommend, val_mel_best, verdict

B = Bands(
    values={"val_mel": 0.005, "wer": 0.03, "mcd_db": 0.15, "similarity": 0.01, "dnsmos_ovrl": 0.05, "f0_gap_hz": 2.0},
    source="the tests' own bands",
)
"""Bands of the tests' own (the streams step in multiples of them), not ``DEFAULT_BANDS``'s measured figures."""
WER, OVRL, SIM, MEL = (B.of(m) for m in ("wer", "dnsmos_ovrl", "similarity", "val_mel"))


def ev(epoch: int, **values: float) -> Evaluation:
    return Evaluation(epoch=epoch, values=values, lines=5)


def falling_val_mel(epoch: int) -> float:
    """A val_mel that falls by 3 bands an epoch (0.01 where its band is 0): it never stops falling."""
    return 0.9 - (3 * MEL or 0.01) * epoch


def improving() -> list[Evaluation]:
    """Six epochs: WER falls, DNSMOS and similarity rise, each by 2 bands an epoch."""
    return [
        ev(
            e,
            val_mel=falling_val_mel(e),
            wer=0.4 - 2 * WER * e,
            dnsmos_ovrl=2.5 + 2 * OVRL * e,
            similarity=0.6 + 2 * SIM * e,
        )
        for e in range(1, 7)
    ]


def plateau() -> list[Evaluation]:
    """Improving for 3 epochs, then 4 epochs moving by under half a band (val_mel still falls)."""
    rising = improving()[:3]
    top = rising[-1].values
    jitter = [0.0, 0.4, -0.3, 0.2]
    flat = [
        ev(
            4 + i,
            val_mel=falling_val_mel(4 + i),
            wer=top["wer"] + j * WER,
            dnsmos_ovrl=top["dnsmos_ovrl"] - j * OVRL,
            similarity=top["similarity"] + j * SIM,
        )
        for i, j in enumerate(jitter)
    ]
    return rising + flat


def regressing() -> list[Evaluation]:
    """WER best at epoch 4, then 2 and 4 bands worse; similarity keeps rising and val_mel keeps falling."""
    wers = [0.30, 0.20, 0.12, 0.08, 0.08 + 2 * WER, 0.08 + 4 * WER]
    return [
        ev(e, val_mel=falling_val_mel(e), wer=w, dnsmos_ovrl=3.0, similarity=0.6 + 2 * SIM * e)
        for e, w in enumerate(wers, start=1)
    ]


def test_still_improving_names_what_improved_and_keeps_the_latest():
    """Every measure better each epoch: improving, the latest is kept, the sentence says which rose or fell."""
    found = verdict(improving(), B)
    assert found.state == "improving" and found.keep_epoch == 6
    assert found.sentence.startswith("Still improving: WER fell from ")
    assert "similarity rose from" in found.sentence and "(epoch 4) to" in found.sentence  # the window's first
    assert "beyond their noise bands" in found.sentence and "the best so far is epoch 6" in found.sentence


def test_a_plateau_is_levelled_off_while_val_mel_still_falls():
    """No heard measure moves a band over the last 3: levelled, however val_mel falls; a longer window reaching
    back into the rise says improving."""
    found = verdict(plateau(), B, window=3)
    assert found.state == "levelled", found.sentence
    assert found.sentence.startswith("Levelled off: nothing improved beyond its noise band over the last 3 ")
    assert "(epochs 5–7" in found.sentence and "val_mel still falls, but nothing heard improves" in found.sentence
    assert found.keep_epoch == found.recommendation.chosen.epoch
    assert verdict(plateau(), B, window=6).state == "improving"


def test_getting_worse_while_val_mel_falls_keeps_the_last_intelligible_epoch():
    """WER 4 bands above its best (epoch 4) while val_mel falls: getting worse, keep epoch 4, which is also the
    recommendation (the others left out on WER, epochs 5 and 6 though more similar)."""
    streams = regressing()
    found = verdict(streams, B)
    assert found.state == "worse" and found.keep_epoch == 4
    best, latest = streams[3].values["wer"], streams[5].values["wer"]
    assert found.sentence == (
        f"Getting worse: WER rose from {best:.2f} (epoch 4) to {latest:.2f} (epoch 6), beyond its ±{WER:.2f} noise "
        "band, while val_mel still falls — keep epoch 4."
    )
    chosen = recommend(streams, B)
    assert chosen.chosen is streams[3] and chosen.measure == "similarity"
    assert eligible(streams, B) == [streams[3]] and chosen.reason.startswith("Recommended: epoch 4, the highest")
    assert "(left out on WER: epoch 1, epoch 2, epoch 3 and 2 more)" in chosen.reason
    assert val_mel_best(streams) is streams[-1]  # what a val_mel ranking would have exported


def test_a_rise_inside_the_band_is_not_getting_worse():
    """WER up by half its band after its best: not worse (noise)."""
    streams = regressing()[:4] + [
        ev(5, val_mel=falling_val_mel(5), wer=0.08 + WER / 2, dnsmos_ovrl=3.0, similarity=0.9)
    ]
    assert verdict(streams, B).state != "worse"


def test_worse_dnsmos_alone_is_getting_worse_and_val_mel_rising_is_not_said_to_fall():
    """DNSMOS 3 bands below its best while val_mel rises too: worse, without "val_mel still falls"; kept: epoch 1,
    the lowest val_mel of the two that keep DNSMOS (no similarity taken)."""
    streams = [
        ev(e, val_mel=0.5 + 3 * MEL * e, wer=0.1, dnsmos_ovrl=3.3 - (3 * OVRL if e == 3 else 0)) for e in (1, 2, 3)
    ]
    found = verdict(streams, B)
    assert found.state == "worse" and found.sentence.startswith("Getting worse: DNSMOS fell from 3.30 (epoch 2)")
    assert "val_mel still falls" not in found.sentence and found.keep_epoch == 1


def test_ties_within_noise_are_offered_for_a_blind_test():
    """Two eligible checkpoints whose similarity differs by half a band: the other is a tie, the reason offers
    the blind test; one a band and a half away is no tie."""
    streams = [
        ev(1, wer=0.1, dnsmos_ovrl=3.0, similarity=0.80),
        ev(2, wer=0.1, dnsmos_ovrl=3.0, similarity=0.80 + SIM / 2),
        ev(3, wer=0.1, dnsmos_ovrl=3.0, similarity=0.80 - 1.5 * SIM),
    ]
    chosen = recommend(streams, B)
    assert chosen.chosen is streams[1] and chosen.ties == [streams[0]]
    assert (
        f"Epoch 1 is within noise of it on similarity (±{SIM:.3f}): a {BLIND_TRIALS}-trial blind test" in chosen.reason
    )


def test_missing_measures_are_judged_on_what_was_taken():
    """No similarity anywhere: val_mel picks among the eligible; a checkpoint without WER is not eligible while
    others have it; a measure taken by none is left out of the rule and the sentences."""
    streams = [
        ev(1, val_mel=0.70, wer=0.10, dnsmos_ovrl=3.0),
        ev(2, val_mel=0.60, dnsmos_ovrl=3.0),  # WER failed on every line
        ev(3, val_mel=0.65, wer=0.11, dnsmos_ovrl=3.0),
    ]
    chosen = recommend(streams, B)
    assert chosen.measure == "val_mel" and chosen.chosen is streams[2]
    assert "the lowest val_mel (0.6500)" in chosen.reason and "(left out on WER: epoch 2)" in chosen.reason
    assert eligible(streams, B) == [streams[0], streams[2]]
    only_mel = [ev(e, val_mel=falling_val_mel(e)) for e in (1, 2, 3)]
    found = verdict(only_mel, B)
    assert found.state == "improving" and "val_mel fell from" in found.sentence
    assert "WER" not in recommend(only_mel, B).reason


def test_a_single_evaluation_and_none_are_too_early():
    """One evaluation: too early, kept as the only one measured; none: too early, nothing to keep."""
    (one,) = improving()[:1]
    found = verdict([one], B)
    assert found.state == "too_few" and found.keep_epoch == 1
    assert found.sentence == "Too early to tell: one evaluation so far (epoch 1); a verdict needs 2."
    assert found.recommendation.reason == "Recommended: epoch 1, the only checkpoint measured."
    empty = verdict([], B)
    assert empty.state == "too_few" and empty.keep_epoch is None and empty.recommendation.chosen is None
    assert all(v.state in STATES for v in (found, empty))


def test_two_flat_evaluations_are_too_early_to_call_levelled():
    """Two evaluations with no change beyond noise: too early (levelled needs the window)."""
    flat = [ev(e, wer=0.1, similarity=0.8) for e in (1, 2)]
    found = verdict(flat, B, window=3)
    assert found.state == "too_few" and "levelled off needs 3" in found.sentence
    with pytest.raises(ValueError, match="at least 2"):
        verdict(flat, B, window=1)


def test_the_order_given_does_not_matter():
    """Evaluations in any order: the same verdict (they are judged in epoch order)."""
    streams = regressing()
    shuffled = streams[:]
    random.Random(3).shuffle(shuffled)
    assert verdict(shuffled, B).sentence == verdict(streams, B).sentence


def test_the_recommendation_says_where_it_is_worse_than_the_start_voice():
    """A pick whose WER is 3 bands above the start voice's: the reason says so, naming both values."""
    start = Evaluation(epoch=0, values={"wer": 0.08, "dnsmos_ovrl": 3.0}, label="start: joe")
    streams = [ev(1, wer=0.08 + 3 * WER, dnsmos_ovrl=3.0, similarity=0.8)]
    chosen = recommend(streams, B, start)
    assert chosen.worse_than_start == ["wer"]
    assert (
        f"It is still worse than the start voice joe beyond the noise bands (WER {0.08 + 3 * WER:.2f} against 0.08)"
        in chosen.reason
    )


def test_the_disagreement_sentence_names_each_measures_favourite():
    """val_mel favours epoch 5, similarity epoch 6, WER the start voice; DNSMOS within noise is a tie."""
    start = Evaluation(epoch=0, values={"wer": 0.05, "dnsmos_ovrl": 3.0, "similarity": 0.5}, label="start: joe")
    five = Evaluation(epoch=5, values={"val_mel": 0.60, "wer": 0.20, "dnsmos_ovrl": 3.0, "similarity": 0.70},
                      label="epoch 5 · val_mel 0.6000")  # fmt: skip
    six = ev(6, val_mel=0.65, wer=0.20, dnsmos_ovrl=3.0 + OVRL / 2, similarity=0.80)
    assert disagreement([start, five, six], B) == (
        "The measures disagree: val_mel favours epoch 5; similarity epoch 6; WER the start voice joe; "
        "DNSMOS cannot tell them apart (within noise)."
    )
    assert disagreement([six], B) == ""
    agree = disagreement([five, ev(6, val_mel=0.7, wer=0.3, similarity=0.6)], B)
    assert agree == "The measures agree: val_mel, similarity and WER favour epoch 5."
    seven = ev(7, similarity=0.80 - SIM / 2)  # within noise of epoch 6, not of the rest
    assert disagreement([start, five, six, seven], B).startswith(
        "The measures disagree: val_mel favours epoch 5; similarity epoch 6 or epoch 7 (within noise); "
    )


def test_bands_decide_what_counts():
    """The same stream under wide bands is levelled (nothing beyond them), under the defaults improving."""
    wide = Bands(values={m: 10.0 for m in ("val_mel", "wer", "dnsmos_ovrl", "similarity")}, source="test")
    assert verdict(improving(), wide).state == "levelled"
    assert verdict(improving(), B).state == "improving"


def test_the_same_weights_under_two_names_are_no_tie():
    """``last`` measured exactly as the best epoch it is (every heard measure equal): not a tie a blind test could
    settle; a near-equal one still is."""
    best = ev(6, val_mel=0.60, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80)
    last = Evaluation(epoch=6, values={k: v for k, v in best.values.items() if k != "val_mel"}, lines=5, label="last")
    near = ev(5, val_mel=0.61, wer=0.10, dnsmos_ovrl=3.2, similarity=0.80 - SIM / 2)
    assert recommend([best, last], B).ties == []
    assert [e.epoch for e in recommend([best, last, near], B).ties] == [5]


def test_dnsmos_falling_to_the_recordings_level_is_not_getting_worse():
    """A voice adapting to recordings less clean than the start: DNSMOS falls by 2 bands an epoch while similarity
    rises. Without the recordings it is *getting worse* and epoch 1 is kept; with recordings at the latest's level
    it is *still improving* and the most similar epoch is kept; below the recordings it is getting worse again."""
    stream = [ev(e, wer=0.1, dnsmos_ovrl=3.4 - 2 * OVRL * e, similarity=0.6 + 2 * SIM * e) for e in range(1, 5)]
    level = Evaluation(epoch=0, values={"wer": 0.1, "dnsmos_ovrl": 3.4 - 2 * OVRL * 4}, label="recordings")
    alone = verdict(stream, B)
    assert alone.state == "worse" and alone.keep_epoch == 1
    floored = verdict(stream, B, recordings=level)
    assert floored.state == "improving" and floored.keep_epoch == 4
    assert floored.recommendation.chosen is not None and not floored.recommendation.chosen.is_recordings()
    cleaner = Evaluation(epoch=0, values={"dnsmos_ovrl": 3.4 - 2 * OVRL * 2}, label="recordings")
    above = verdict(stream, B, recordings=cleaner)
    assert above.state == "worse" and above.keep_epoch == 2  # epochs 3 and 4 fall below the recordings


def test_the_reason_says_on_which_guard_each_checkpoint_was_left_out():
    """Checkpoints left out are named by the guard they lose (WER, DNSMOS, or both), so a reader can tell why
    the most similar one was not recommended (it said only "(epoch 2, epoch 3 and epoch 4 left out)")."""
    heard = [
        ev(1, wer=0.05, dnsmos_ovrl=3.30, similarity=0.60),
        ev(2, wer=0.05, dnsmos_ovrl=2.80, similarity=0.70),  # DNSMOS lost
        ev(3, wer=0.30, dnsmos_ovrl=3.30, similarity=0.80),  # WER lost
        ev(4, wer=0.30, dnsmos_ovrl=2.80, similarity=0.90),  # both
        ev(5, wer=0.05 + WER / 2, dnsmos_ovrl=3.28, similarity=0.65),
    ]
    chosen = recommend(heard, B)
    assert chosen.chosen is heard[4]
    assert chosen.reason.startswith(
        "Recommended: epoch 5, the highest similarity (0.650) among the checkpoints whose WER and DNSMOS are within"
        " their noise bands of the best (left out on DNSMOS: epoch 2; on WER: epoch 3; on WER and DNSMOS: epoch 4)."
    ), chosen.reason
