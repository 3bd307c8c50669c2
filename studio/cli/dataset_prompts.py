"""``voice-studio dataset prompts``: the next lines to record, chosen for the phonemes and diphones a project's
recordings (or nothing yet) still lack (``trainer.dataset.prompts``); the prompts go to stdout or ``-o FILE``,
one a line, and where the recording stands to stderr."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engines.words import count

OUTPUT_SUFFIXES = (".txt",)
"""``dataset prompts -o`` writes a text file, one prompt a line (a corpus the command reads back)."""


def run(args: argparse.Namespace) -> int:
    """Choose and print (or write) the prompts; 1 when every line of the corpus is recorded already."""
    from engines.files import check_output_path, write_text
    from trainer.dataset.prompts.corpus import read_corpus, shipped_corpus
    from trainer.dataset.prompts.plan import Recorded, next_prompts, recorded, summary

    if args.output:
        check_output_path(args.output, OUTPUT_SUFFIXES, "prompt list")
    project = _project(args.project)
    corpus_path = args.corpus or shipped_corpus()
    corpus = read_corpus(corpus_path)
    done = recorded(project) if project else Recorded(texts=[], seconds=0.0)
    said = _phonemizer(args.voice, project)
    if args.corpus is None and not said.language.startswith("en"):
        language = said.language or said.config.phoneme_type
        print(f"note: the studio's prompts are English; give --corpus with lines in {language}", file=sys.stderr)
    selection = next_prompts(said, corpus, done, args.count)
    for line in summary(selection, done):
        print(line, file=sys.stderr)
    if not selection.chosen:
        print(f"every line of {corpus_path} is recorded already: give another --corpus", file=sys.stderr)
        return 1
    texts = [prompt.text for prompt in selection.chosen]
    if args.output:
        write_text(args.output, "\n".join(texts) + "\n")
        print(f"wrote {count(len(texts), 'prompt')} to {args.output}", file=sys.stderr)
    else:
        print("\n".join(texts))
    return 0


def _project(folder: Path | None):
    """The ``trainer.dataset.project.DatasetProject`` in ``folder``, or ``None`` without one.

    Raises:
        NotAProject: ``folder`` holds no project.
    """
    from trainer.dataset.project import DatasetProject

    return DatasetProject(folder) if folder is not None else None


def _phonemizer(voice: str | None, project):
    """The phonemizer of ``--voice`` (a name or file), else of the project's voice, else of the default voice;
    with the project's lexicon where there is a project (``engines.frontend.lexicon.project_lexicon``).

    Raises:
        VoiceError: no such voice, or one espeak-ng cannot speak.
    """
    from engines.frontend.lexicon import project_lexicon
    from engines.registry import default_voice, find_voice
    from trainer.dataset.jobs import phonemizer

    if voice is not None:
        config = str(find_voice(voice).config.path)
    else:
        config = project.target_config if project else str(default_voice().config.path)
    return phonemizer(config, project_lexicon(project.folder) if project else None)
