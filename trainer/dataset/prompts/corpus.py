"""Prompt corpora: the English lines shipped with the studio, or a person's own text file.

A corpus is a UTF-8 (or UTF-16 with its byte-order mark) text file with one prompt a line; blank lines and lines
starting with ``#`` (comments, such as the shipped file's licence header) are skipped, and a line that repeats an
earlier one (the same words, case and spacing aside) is kept once. The shipped set, ``assets/prompts_en.txt``,
is 490 original English sentences written for Voice Studio and dedicated to the public domain (CC0 1.0).
"""

from __future__ import annotations

from pathlib import Path

from engines.errors import VoiceStudioError
from trainer.dataset.text_files import NotText, decode_text

SHIPPED = "prompts_en.txt"
"""The studio's English prompt set, in ``assets/`` (CC0 1.0; its header says so)."""
COMMENT = "#"
"""A corpus line starting with this is a comment."""


class PromptsError(VoiceStudioError, ValueError):
    """A prompt corpus that cannot be used; the message names the file (and the line where there is one)."""


def shipped_corpus() -> Path:
    """Path of the studio's English prompt set."""
    import assets

    return assets.path(SHIPPED)


def text_key(text: str) -> str:
    """What two prompts share when they are the same line: the words, case and spacing aside."""
    return " ".join(text.split()).casefold()


def read_corpus(path: Path | str) -> list[str]:
    """The prompts of a corpus file, in its order, each once, spacing tidied.

    Raises:
        PromptsError: the file cannot be read, is not UTF-8 text (naming the line and byte), or holds no prompt.
    """
    path = Path(path)
    try:
        text = decode_text(path.read_bytes())
    except NotText as exc:
        raise PromptsError(f"{path}: {exc}") from None
    except OSError as exc:
        raise PromptsError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    prompts: dict[str, str] = {}
    for line in (" ".join(line.split()) for line in text.splitlines()):
        if line and not line.startswith(COMMENT):
            prompts.setdefault(text_key(line), line)
    if not prompts:
        raise PromptsError(f"{path}: no prompts in it (one prompt a line; '#' starts a comment)")
    return list(prompts.values())
