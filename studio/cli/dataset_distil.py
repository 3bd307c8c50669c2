"""``voice-studio dataset distil``: a dataset spoken by a voice on a speech server (``trainer.dataset.distil``).

What was kept, refused and imported goes to stderr; the exit status is 0 when the project holds at least one
distilled clip, 1 when none was kept.
"""

from __future__ import annotations

import argparse
import os
import sys


def run(args: argparse.Namespace, state) -> int:
    """Distil into ``args.project``; ``state`` is the terminal's ``trainer.tasks.TaskState`` (Ctrl+C cancels).

    Raises:
        DistilError: no ``--i-may-use-this-voice``, or another teacher in the project.
        EngineError: the server cannot be reached or refuses the model or voice.
    """
    from studio.cli.serve import API_KEY_ENV
    from trainer.dataset.distil.run import CONSENT, DistilError, DistilRequest, distil
    from trainer.dataset.distil.teacher import TeacherChoice
    from trainer.dataset.prompts.corpus import read_corpus
    from trainer.tasks import Cancelled

    if not args.consent:
        raise DistilError(CONSENT)
    key = args.api_key or os.environ.get(API_KEY_ENV) or os.environ.get("OPENAI_API_KEY") or None
    teacher = TeacherChoice(url=args.url, model=args.model, voice=args.voice, api_key=key)
    request = DistilRequest(
        teacher=teacher,
        corpus=read_corpus(args.lines) if args.lines else None,
        count=args.count,
        candidates=args.candidates,
        consent=True,
        licence=args.licence,
    )
    try:
        result = distil(args.project, request, state)
    except Cancelled as exc:
        if exc.partial is not None:
            _say(exc.partial)
        raise
    _say(result)
    return 0 if result.kept or result.done_before else 1


def _say(result) -> None:
    """What a run kept and refused, the import of its takes, and the checks it could not make."""
    for line in result.refused:
        why = "; ".join(sorted({t["rejected"] for t in line.takes if t["rejected"]}))
        print(f"refused: {line.text!r}: {why}", file=sys.stderr)
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    if result.imported is not None:
        print(f"imported: {result.imported.counts()}", file=sys.stderr)
    print(result.counts(), file=sys.stderr)
