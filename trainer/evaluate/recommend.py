"""The recommended checkpoint, by one stated rule, and where the measures disagree.

The rule (issue 27, point 6): **the highest speaker similarity among the checkpoints whose WER and DNSMOS
(overall) are within their noise bands of the best checkpoint's.** Intelligibility and cleanliness come first
(a voice nobody understands is no use however like the speaker it sounds); among the checkpoints that keep
them, the one most like the target speaker. Differences inside a measure's noise band
(``trainer.evaluate.bands``) do not count. Where the lines' own recordings were measured too (the leaderboard's
``recordings`` row), a checkpoint no worse than them on a guard keeps it as well: a voice cannot be asked to be
cleaner or clearer than the speech it should sound like. Without that floor, fine-tuning a clean start voice on
noisier recordings would always be judged best before it had adapted (issue 28: the target corpus's recordings
score DNSMOS 3.17 against joe's 3.39, and DNSMOS falls as the voice comes to sound like them). Plain Python: no
Qt, no torch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from trainer.evaluate.bands import Bands, oriented
from trainer.evaluate.evaluation import Evaluation, band_text, few, listed, measure_name, shown

GUARDS = ("wer", "dnsmos_ovrl")
"""The measures a recommended checkpoint must keep within their bands of the best: WER, DNSMOS overall."""
RANKED_BY = ("similarity", "val_mel", "wer")
"""What picks among those that keep them: speaker similarity; where no similarity was measured, val_mel; else WER."""
SUMMARISED = ("val_mel", "mcd_db", "f0_rmse_hz", "f0_gap_hz", "similarity", "dnsmos_ovrl", "wer")
"""The measures :func:`disagreement` speaks of (DNSMOS's SIG and BAK are summed up by its overall score)."""
BLIND_TRIALS = 5
"""Trials of the blind test offered when candidates are within noise of the recommended one."""


@dataclass(frozen=True, kw_only=True)
class Recommendation:
    """The checkpoint the rule picks, and why.

    Attributes:
        chosen: the recommended evaluation; ``None`` when nothing was measured.
        measure: the measure that picked it among the eligible (``similarity``, or the fallback ``val_mel`` /
            ``wer``); empty when none could.
        why: the clause saying why, without the name: ``the highest similarity (0.812) among the checkpoints
            whose WER and DNSMOS are within their noise bands of the best (left out on WER: epoch 7)``.
        reason: plain sentences: ``Recommended: epoch 6, {why}.``, how it stands to the start voice, the ties.
        ties: other eligible checkpoints within ``measure``'s noise band of the chosen one (a blind test of
            :data:`BLIND_TRIALS` trials can tell them apart); best first.
        worse_than_start: measures (of :data:`GUARDS`) on which the chosen is worse than the start voice beyond
            their bands.
    """

    chosen: Evaluation | None
    measure: str = ""
    why: str = ""
    reason: str = ""
    ties: list[Evaluation] = field(default_factory=list)
    worse_than_start: list[str] = field(default_factory=list)


def best_of(evaluations: list[Evaluation], measure: str) -> Evaluation | None:
    """The evaluation with the best ``measure`` (``bands.MEASURES`` says which way), the latest among equals;
    ``None`` when none has it."""
    having = [e for e in evaluations if e.has(measure)]
    return max(having, key=lambda e: (oriented(measure, e.values[measure]), e.epoch), default=None)


def val_mel_best(evaluations: list[Evaluation]) -> Evaluation | None:
    """The evaluation with the lowest val_mel (what a run's checkpoint ranking keeps first); ``None`` without one."""
    return best_of(evaluations, "val_mel")


def level_with_recordings(evaluation: Evaluation, measure: str, recordings: Evaluation | None, bands: Bands) -> bool:
    """Whether ``evaluation``'s ``measure`` is no worse than ``recordings``' beyond its band (the floor of the
    guards: a voice is not asked to be cleaner or clearer than the speech it should sound like); ``False`` where
    either lacks the measure or there are no recordings."""
    if recordings is None or not (evaluation.has(measure) and recordings.has(measure)):
        return False
    return not bands.worse(measure, evaluation.values[measure], recordings.values[measure])


def eligible(evaluations: list[Evaluation], bands: Bands, recordings: Evaluation | None = None) -> list[Evaluation]:
    """The evaluations that keep the most :data:`GUARDS` within their bands of the best, or no worse than
    ``recordings`` beyond the band (all of them, where any does). A guard nobody measured is left out of the
    rule; one an evaluation lacks counts as not kept."""
    return _keeping_most(evaluations, lost_guards(evaluations, bands, recordings))


def lost_guards(
    evaluations: list[Evaluation], bands: Bands, recordings: Evaluation | None = None
) -> dict[int, list[str]]:
    """For each of ``evaluations`` (by ``id``), the :data:`GUARDS` measured on any of them that it does not keep:
    not measured on it, or worse than the best's beyond the band and worse than ``recordings``' too."""
    bests = {m: best for m in GUARDS if (best := best_of(evaluations, m)) is not None}

    def keeps(e: Evaluation, m: str, best: Evaluation) -> bool:
        if not e.has(m):
            return False
        return level_with_recordings(e, m, recordings, bands) or not bands.worse(m, e.values[m], best.values[m])

    return {id(e): [m for m, best in bests.items() if not keeps(e, m, best)] for e in evaluations}


def _keeping_most(evaluations: list[Evaluation], lost: dict[int, list[str]]) -> list[Evaluation]:
    """Those of ``evaluations`` that lose the fewest guards (``lost``: :func:`lost_guards`)."""
    fewest = min((len(m) for m in lost.values()), default=0)
    return [e for e in evaluations if len(lost[id(e)]) == fewest]


def recommend(
    evaluations: list[Evaluation],
    bands: Bands,
    start: Evaluation | None = None,
    *,
    noun: str = "checkpoint",
    recordings: Evaluation | None = None,
) -> Recommendation:
    """The checkpoint to keep, by the rule in this module's docstring, over ``evaluations`` (the checkpoints;
    the start voice is not one of them). ``start``, where known, is what :attr:`Recommendation.worse_than_start`
    and the reason compare the pick with. ``noun``: what the reason calls them (``candidate`` on a leaderboard
    of voices). ``recordings``: the lines' own recordings measured alike, where known (the guards' floor).

    Ranking among the eligible: :data:`RANKED_BY` (the first measure any eligible one has), the latest epoch
    among equals.
    """
    if not evaluations:
        return Recommendation(chosen=None, reason=f"Nothing to recommend: no {noun} has been measured yet.")
    lost = lost_guards(evaluations, bands, recordings)
    kept = _keeping_most(evaluations, lost)
    measure = next((m for m in RANKED_BY if any(e.has(m) for e in kept)), "")
    chosen = best_of(kept, measure) if measure else max(kept, key=lambda e: e.epoch)
    assert chosen is not None
    ties = _ties(kept, chosen, measure, bands)
    worse = _worse_than(chosen, start, bands)
    level = [m for m in worse if level_with_recordings(chosen, m, recordings, bands)]
    why = _why(measure, chosen, kept, evaluations, noun, lost, recordings)
    said = [
        f"Recommended: {chosen.name()}, {why}.",
        _against_start(chosen, start, worse, level, recordings),
        _tied(ties, measure, bands),
    ]
    reason = " ".join(filter(None, said))
    return Recommendation(
        chosen=chosen,
        measure=measure,
        why=why,
        reason=reason,
        ties=ties,
        worse_than_start=worse,
    )


def _ties(kept: list[Evaluation], chosen: Evaluation, measure: str, bands: Bands) -> list[Evaluation]:
    """The eligible ones other than ``chosen`` whose ``measure`` is within its band of ``chosen``'s, best first."""
    if not measure:
        return []
    near = [
        e
        for e in kept
        if e is not chosen
        and e.has(measure)
        and not bands.differs(measure, e.values[measure], chosen.values[measure])
        and not same_voice(e, chosen)
    ]
    return sorted(near, key=lambda e: (oriented(measure, e.values[measure]), e.epoch), reverse=True)


def same_voice(a: Evaluation, b: Evaluation) -> bool:
    """Whether ``a`` and ``b`` measured exactly alike on every heard measure they have (two or more): the same
    weights under two names (``last`` and the best epoch it also is), whose renders no listener can tell apart.
    val_mel, which is not heard, is left out (a run's ``last.ckpt`` keeps none)."""
    heard = {m for m in set(a.values) | set(b.values) if m != "val_mel"}
    return len(heard) >= 2 and all(a.values.get(m) == b.values.get(m) for m in heard)


def _worse_than(chosen: Evaluation, start: Evaluation | None, bands: Bands) -> list[str]:
    """The :data:`GUARDS` on which ``chosen`` is worse than ``start`` beyond their bands."""
    if start is None:
        return []
    both = [m for m in GUARDS if chosen.has(m) and start.has(m)]
    return [m for m in both if bands.worse(m, chosen.values[m], start.values[m])]


def _why(
    measure: str,
    chosen: Evaluation,
    kept: list[Evaluation],
    evaluations: list[Evaluation],
    noun: str,
    lost: dict[int, list[str]],
    recordings: Evaluation | None = None,
) -> str:
    """``the highest similarity (0.812) among the checkpoints whose WER and DNSMOS are within their noise bands
    of the best (left out on WER: epoch 1 and epoch 7)``; with ``recordings``, ``... of the best or no worse than
    the recordings'``."""
    if len(evaluations) == 1:
        return f"the only {noun} measured"
    guards = " and ".join(measure_name(m) for m in GUARDS if any(e.has(m) for e in evaluations))
    floor = recordings is not None and any(recordings.has(m) for m in GUARDS)
    best = "the best or no worse than the recordings'" if floor else "the best"
    among = f" among the {noun}s whose {guards} are within their noise bands of {best}" if guards else ""
    kept_ids = {id(k) for k in kept}
    left = [e for e in evaluations if id(e) not in kept_ids]
    out = f" ({_left_out(left, lost)})" if left and guards else ""
    if not measure:
        return f"the latest{among}{out}"
    way = "highest" if oriented(measure, 1.0) > 0 else "lowest"
    value = shown(measure, chosen.values[measure])
    return f"the {way} {measure_name(measure)} ({value}){among}{out}"


def _left_out(left: list[Evaluation], lost: dict[int, list[str]]) -> str:
    """``left out on WER: epoch 9 and epoch 11; on DNSMOS: epoch 6, epoch 7, epoch 8 and 20 more``: the
    evaluations not kept (``left``, in order) by the guards they lose (``lost``: :func:`lost_guards`)."""
    by_guards: dict[str, list[str]] = {}
    for e in left:  # never none lost: one left out loses more than a kept one
        by_guards.setdefault(" and ".join(measure_name(m) for m in lost[id(e)]), []).append(e.name())
    return "left out " + "; ".join(f"on {guards}: {few(names)}" for guards, names in by_guards.items())


def _against_start(
    chosen: Evaluation,
    start: Evaluation | None,
    worse: list[str],
    level: list[str] | None = None,
    recordings: Evaluation | None = None,
) -> str:
    """One sentence on how the pick stands to the start voice on WER and DNSMOS, where it is worse; ``level``,
    those of them on which it is no worse than ``recordings``, are said to be the recordings' own level."""
    if start is None or not worse:
        return ""
    said = " and ".join(
        f"{measure_name(m)} {shown(m, chosen.values[m])} against {shown(m, start.values[m])}" for m in worse
    )
    if not level or recordings is None:
        return f"It is still worse than {start.name()} beyond the noise bands ({said})."
    theirs = " and ".join(f"{measure_name(m)} {shown(m, recordings.values[m])}" for m in level)
    same = f"as the recordings themselves are ({theirs})"
    return f"It is worse than {start.name()} beyond the noise bands ({said}), {same}."


def _tied(ties: list[Evaluation], measure: str, bands: Bands) -> str:
    """``epoch 5 is within noise of it on similarity (±0.010): a 5-trial blind test can tell them apart.``"""
    if not ties:
        return ""
    names = few([e.name() for e in ties])
    verb = "is" if len(ties) == 1 else "are"
    band = band_text(measure, bands.of(measure))
    return (
        f"{names[:1].upper()}{names[1:]} {verb} within noise of it on {measure_name(measure)} ({band}): "
        f"a {BLIND_TRIALS}-trial blind test can tell them apart."
    )


def disagreement(evaluations: list[Evaluation], bands: Bands) -> str:
    """One sentence saying which candidate each measure favours, e.g. ``The measures disagree: val_mel favours
    epoch 5; MCD, F0 RMSE and similarity epoch 6; WER the start voice joe.`` A measure favours the candidates
    within its noise band of its best (``epoch 5 or epoch 6 (within noise)``); one where every candidate is,
    none (it cannot tell them apart). Start voice included; empty with fewer than two candidates sharing a
    measure."""
    favoured: dict[str, list[str]] = {}
    tied: list[str] = []
    for measure in SUMMARISED:
        having = [e for e in evaluations if e.has(measure)]
        best = best_of(having, measure)
        if best is None or len(having) < 2:
            continue
        near = [e for e in having if not bands.differs(measure, e.values[measure], best.values[measure])]
        if len(near) == len(having):
            tied.append(measure_name(measure))
            continue
        ranked = sorted(near, key=lambda e: (oriented(measure, e.values[measure]), e.epoch), reverse=True)
        names = " or ".join(e.name() for e in ranked) + (" (within noise)" if len(ranked) > 1 else "")
        favoured.setdefault(names, []).append(measure_name(measure))
    return _disagreement_sentence(favoured, tied)


def _disagreement_sentence(favoured: dict[str, list[str]], tied: list[str]) -> str:
    """The sentence of :func:`disagreement` from ``candidates -> measures favouring them`` and the tied measures."""
    ties = f"{listed(tied)} cannot tell them apart (within noise)" if tied else ""
    if not favoured:
        return f"No measure tells the candidates apart beyond its noise band ({listed(tied)})." if tied else ""
    groups = [f"{listed(measures)} {name}" for name, measures in favoured.items()]
    (first, measures), *_ = favoured.items()
    groups[0] = f"{listed(measures)} {'favours' if len(measures) == 1 else 'favour'} {first}"
    said = "agree" if len(favoured) == 1 else "disagree"
    return f"The measures {said}: {'; '.join([*groups, *filter(None, [ties])])}."
