"""Candidate labels: one rule for every list of candidates (``voice-studio compare`` and the Compare page).

A label names a candidate in tables, buttons, ratings and sentences, so two lists of the same files must name
them alike. The rule (:func:`labelled`): each file once; while the candidates come from two or more runs, a
run's own candidates are prefixed with the run folder's name (``tune-b/epoch 5 · val_mel 0.6120``; the voice a
run started from, ``start: joe``, is not the run's); a label still repeated is prefixed with its file's folder
(``a/last.ckpt``), and one repeated even then gets `` (2)``, `` (3)``… The ``/`` keeps the label's own reading:
``trainer.evaluate.evaluation`` finds the epoch after it and names a candidate by what precedes ``" · "``.

Where room is short (the Compare page's key buttons), :func:`short_labels` names them ``ep 6``, ``start``
(the whole label where two would read alike), and :func:`training_order` lists them in the order a run made
them: the start voice, the epochs, ``last``, ``export``, then any other voice.
Plain Python: no Qt, no torch.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from trainer.evaluate.evaluation import START_PREFIX
from trainer.evaluate.render import Candidate

_RANKED = re.compile(r"^(?P<run>[^/]*/)?epoch (?P<epoch>\d+)(?P<at> at \d+%)? · ")
"""A ranked checkpoint's label (``epoch 6 · val_mel 0.6120``, ``tune-b/epoch 6 · …``; at a strength: ``epoch 6 at
70% · …``): its run prefix, epoch and strength."""
_LATER = {"last": 1, "export": 2}
"""After a run's epochs, in this order: its last checkpoint, its export."""
_PLAIN = re.compile(r"^(?P<run>[^/]*/)?(?P<kind>last|export)$")


def labelled(entries: Sequence[tuple[Candidate, Path | None]]) -> list[Candidate]:
    """The candidates of ``entries`` labelled by the rule in this module's docstring, in order, each file once.

    Args:
        entries: ``(candidate, the run folder it was listed from or None)``; a candidate without one belongs to
            the run its checkpoint lies in (``trainer.run.document.run_of``), if any. The candidates' labels
            are their own (``run_candidates``', ``file_candidate``'s, a voice's name), without a run's prefix.
    """
    once: dict[Path, tuple[Candidate, Path | None]] = {}
    for candidate, run in entries:
        once.setdefault(candidate.model_path.resolve(), (candidate, run))
    owned = [(c, None if c.label.startswith(START_PREFIX) else _run(c, run)) for c, run in once.values()]
    runs = {run for _, run in owned if run is not None}
    named = [_prefixed(c, run) if len(runs) > 1 else c for c, run in owned]
    return numbered(_by_folder(named))


def numbered(candidates: list[Candidate]) -> list[Candidate]:
    """``candidates`` with a label taken already given `` (2)``, `` (3)``… (:func:`unique_label`), in order."""
    taken: set[str] = set()
    out = []
    for candidate in candidates:
        label = unique_label(candidate.label, taken)
        taken.add(label)
        out.append(replace(candidate, label=label))
    return out


def unique_label(label: str, taken: set[str]) -> str:
    """``label``, or ``label (2)``, ``label (3)``… the first not in ``taken``."""
    number, unique = 1, label
    while unique in taken:
        number += 1
        unique = f"{label} ({number})"
    return unique


def _run(candidate: Candidate, run: Path | None) -> Path | None:
    """The run ``candidate`` belongs to: the one it was listed from, else the one its checkpoint lies in."""
    from trainer.run.document import run_of

    found = run if run is not None else run_of(candidate.model_path)
    return Path(found).resolve() if found is not None else None


def _prefixed(candidate: Candidate, run: Path | None) -> Candidate:
    """``candidate`` labelled ``RUN/label`` when it is one of run ``run``'s own."""
    return candidate if run is None else replace(candidate, label=f"{run.name}/{candidate.label}")


def _by_folder(candidates: list[Candidate]) -> list[Candidate]:
    """Repeated labels prefixed with their file's folder (a ranked checkpoint's: its run's, not ``checkpoints``)."""
    counts = Counter(c.label for c in candidates)
    return [c if counts[c.label] == 1 else replace(c, label=f"{_folder(c)}/{c.label}") for c in candidates]


def _folder(candidate: Candidate) -> str:
    """The name of the folder a candidate comes from: its run's for a run's checkpoint (``RUN/checkpoints/``,
    ``RUN/evaluations/``, ``RUN/strengths/``, by the layout alone: a run's folder copied without its
    ``training.json`` too)."""
    from trainer.run.document import RUN_FOLDERS

    parent = candidate.model_path.parent
    return parent.parent.name if parent.name in RUN_FOLDERS else parent.name


def short_labels(labels: Sequence[str]) -> list[str]:
    """``labels`` shortened for a narrow button, in order: ``epoch 6 · val_mel 0.6120`` -> ``ep 6``
    (``tune-b/epoch 6 · …`` -> ``tune-b/ep 6``, ``epoch 6 at 70% · …`` -> ``ep 6 at 70%``), ``start: joe`` ->
    ``start``, others as they are; a short label that two labels would share stays whole in both (two start
    voices: ``start: joe``, ``start: amy``)."""
    shorts = [_short(label) for label in labels]
    counts = Counter(shorts)
    return [short if counts[short] == 1 else label for short, label in zip(shorts, labels, strict=True)]


def _short(label: str) -> str:
    if label.startswith(START_PREFIX):
        return "start"
    ranked = _RANKED.match(label)
    return f"{ranked['run'] or ''}ep {ranked['epoch']}{ranked['at'] or ''}" if ranked else label


def training_order(labels: Sequence[str]) -> list[int]:
    """The indexes of ``labels`` in the order a run made them: start voices first, then each run's candidates
    (runs in the order first listed) by epoch, then its ``last`` and ``export``, then every other label as
    listed. Labels as :func:`labelled` gives them."""
    runs: list[str] = []
    keys = []
    for index, label in enumerate(labels):
        run, rank = _place(label)
        if run is not None and run not in runs:
            runs.append(run)
        keys.append((_group(label, run), runs.index(run) if run is not None else 0, rank, index))
    return [key[-1] for key in sorted(keys)]


def _place(label: str) -> tuple[str | None, int]:
    """``(run prefix, rank in the run)`` of a run's own candidate (rank: the epoch, or after every epoch for
    ``last`` and ``export``); ``(None, 0)`` for any other label."""
    ranked = _RANKED.match(label)
    if ranked:
        return ranked["run"] or "", int(ranked["epoch"])
    plain = _PLAIN.match(label)
    if plain:
        return plain["run"] or "", 10**9 + _LATER[plain["kind"]]
    return None, 0


def _group(label: str, run: str | None) -> int:
    """0: a start voice; 1: a run's own candidate; 2: any other voice."""
    return 0 if label.startswith(START_PREFIX) else 1 if run is not None else 2
