"""The next prompts for a project or a voice, and the lines that say where the recording stands: what the Record
tab and ``voice-studio dataset prompts`` show."""

from __future__ import annotations

from dataclasses import dataclass

from engines.phonemes import Phonemizer
from engines.words import count
from trainer.dataset.prompts.guidance import FINE_TUNE_UTTERANCES, GUIDANCE, minutes_said, seconds
from trainer.dataset.prompts.selection import Selection, choose, in_order
from trainer.dataset.prompts.units import corpus_units


@dataclass(frozen=True, kw_only=True)
class Recorded:
    """The lines a project holds already: the texts of its usable clips and their audio, s."""

    texts: list[str]
    seconds: float


def recorded(project) -> Recorded:
    """The texts and total duration, s, of a ``trainer.dataset.project.DatasetProject``'s clips that have a text
    and are usable (status ``ok``): an excluded or unreadable take's line may be offered again."""
    clips = [c for c in project.clips.values() if c.status == "ok" and c.text]
    return Recorded(
        texts=[c.text for c in clips],
        seconds=sum((c.analysis or {}).get("duration_s", 0.0) for c in clips),
    )


def next_prompts(
    phonemizer: Phonemizer, corpus: list[str], done: Recorded, number: int, *, ordered: bool = False
) -> Selection:
    """The next ``number`` prompts of ``corpus`` for a voice (``phonemizer``) given the lines recorded, chosen
    for coverage (``trainer.dataset.prompts.selection.choose``) or, ``ordered``, in the corpus's order."""
    pick = in_order if ordered else choose
    return pick(corpus_units(phonemizer, corpus), corpus_units(phonemizer, done.texts), number)


def for_project(
    project, number: int, corpus: list[str] | None = None, *, ordered: bool = False
) -> tuple[Selection, Recorded]:
    """The next ``number`` prompts of ``corpus`` (default: the shipped one) for a
    ``trainer.dataset.project.DatasetProject``, read by its voice's phonemizer with its lexicon, given the lines it
    has recorded (``ordered``: in the corpus's order, see :func:`next_prompts`); and those lines."""
    from engines.frontend.lexicon import project_lexicon
    from trainer.dataset.jobs import phonemizer
    from trainer.dataset.prompts.corpus import read_corpus, shipped_corpus

    done = recorded(project)
    said = phonemizer(project.target_config, project_lexicon(project.folder))
    lines = corpus if corpus is not None else read_corpus(shipped_corpus())
    return next_prompts(said, lines, done, number, ordered=ordered), done


def _these(prompts: int) -> str:
    return "this prompt" if prompts == 1 else f"these {count(prompts, 'prompt')}"


def left_out_notes(selection: Selection) -> list[str]:
    """Lines naming the corpus lines left out, too long for one clip or with nothing to say (none when there are
    none)."""
    from engines.long_sentences import MAX_PHONEME_IDS

    said = []
    if selection.too_long:
        first = selection.too_long[0]
        said.append(
            f"left out {count(len(selection.too_long), 'line')} too long for one training clip (over "
            f"{MAX_PHONEME_IDS} phoneme_ids, the dataset's limit): {_start(first.text)!r} ({first.phoneme_ids:,} "
            f"phoneme_ids){_others(selection.too_long)}; split long lines into sentences"
        )
    if selection.unspoken:
        first = selection.unspoken[0]
        said.append(
            f"left out {count(len(selection.unspoken), 'line')} with nothing to say (no phoneme): "
            f"{_start(first.text)!r}{_others(selection.unspoken)}"
        )
    return said


def _start(text: str) -> str:
    return text if len(text) <= 60 else text[:60] + "…"


def _others(lines: list) -> str:
    return f" and {count(len(lines) - 1, 'other')}" if len(lines) > 1 else ""


def recorded_line(selection: Selection, done: Recorded) -> str:
    """``recorded: 3 lines (14 s), covered …`` (the recorded lines' coverage of the corpus), or ``recorded:
    nothing yet``."""
    if not selection.recorded:
        return "recorded: nothing yet"
    return f"recorded: {count(len(selection.recorded), 'line')} ({minutes_said(done.seconds)}), " + (
        selection.before.describe()
    )


def where_recording_stands(project) -> str:
    """:func:`recorded_line` for a ``trainer.dataset.project.DatasetProject`` as it is now (its clips read again;
    about half a second: the corpus is phonemized)."""
    return recorded_line(*for_project(project, 0))


def summary(selection: Selection, done: Recorded) -> list[str]:
    """The coverage before and after the chosen prompts, their minutes beside those recorded, and the guidance."""
    lines = len(selection.recorded) + len(selection.chosen)
    said = [
        recorded_line(selection, done),
        f"with {_these(len(selection.chosen))} (about {minutes_said(seconds(selection.chosen))} of "
        f"speech to read): {selection.after.describe()}; {lines:,} of the {FINE_TUNE_UTTERANCES:,} lines a "
        "fine-tune commonly uses",
        GUIDANCE,
        *left_out_notes(selection),
    ]
    return said
