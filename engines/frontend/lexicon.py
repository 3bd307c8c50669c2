"""A pronunciation lexicon: words said the way the user wants them (``Nguyen`` -> "win", or IPA phonemes).

The file is UTF-8 text, one entry a line: the word (or words), a tab, and what it says::

    # a comment; blank lines are skipped
    Nguyen	win
    Dr.	drive
    Siobhan	[[ ʃɪvˈɔːn ]]

What it says is a respelling (plain text that espeak-ng reads right) or Piper's inline ``[[ phonemes ]]``
(IPA as espeak-ng writes it). Entries match whole words, case-insensitively, longest entry first; a word
followed by ``'s`` or another non-letter still matches (``Nguyen's`` -> "win's"). An entry is applied before
the front end's rules and its result is never normalized again, so an entry wins over them (``Dr.``).

Where lexicons live (:func:`voice_lexicon_path`, :data:`PROJECT_LEXICON`) and who applies them is described in
``docs/text.md``; ``engines.phonemes.Phonemizer`` holds one, so every caller of the front end shares it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from engines.errors import VoiceStudioError
from engines.files import write_text
from engines.frontend.span import Span

SUFFIX = ".lexicon.txt"
"""A voice's lexicon is its model's path plus this (``joe.onnx`` -> ``joe.onnx.lexicon.txt``)."""
PROJECT_LEXICON = "lexicon.txt"
"""A dataset project's lexicon: this file in the project folder, applied to its transcripts for training."""
HEADER = "# Voice Studio pronunciation lexicon: word<TAB>respelling, or word<TAB>[[ IPA phonemes ]]\n"
"""The first line of a file :func:`write_lexicon` writes."""


class LexiconError(VoiceStudioError, ValueError):
    """A lexicon file that cannot be read: the message names the file and line and the way on."""


@dataclass(frozen=True)
class Lexicon:
    """Words and what they say.

    Attributes:
        entries: the word as written (its case kept for display) -> its respelling or ``[[ phonemes ]]``, in
            file order; matching ignores case.
    """

    entries: dict[str, str] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.entries)

    @property
    def digest(self) -> str:
        """SHA-256 (hex) of the entries (comments, order and case of the words aside): what a text says
        depends on it (``engines.frontend.frontend_id``)."""
        lines = sorted(f"{word.lower()}\t{said}\n" for word, said in self.entries.items())
        return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()

    def merged(self, other: Lexicon) -> Lexicon:
        """This lexicon with ``other``'s entries added; ``other`` wins for a word in both."""
        kept = {w: s for w, s in self.entries.items() if w.lower() not in {o.lower() for o in other.entries}}
        return Lexicon({**kept, **other.entries})

    def spans(self, text: str) -> list[Span]:
        """``text`` as front end spans: each matched word's replacement ``verbatim`` (never normalized
        again), the text between them to ``normalize``."""
        if not self.entries or not text:
            return [Span(text)]
        said = {word.lower(): replacement for word, replacement in self.entries.items()}
        spans, last = [], 0
        for match in _pattern(tuple(said)).finditer(text):
            spans += [Span(text[last : match.start()]), Span(said[match.group(0).lower()], "verbatim")]
            last = match.end()
        return [*spans, Span(text[last:])]


def _pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of ``words`` as a whole word, longest first, ignoring case."""
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def parse_lexicon(text: str, path: Path | str) -> Lexicon:
    """The entries of a lexicon file's ``text`` (see the module docstring; ``path`` is named in errors).

    Raises:
        LexiconError: a line without a tab, with an empty word or entry, an unclosed ``[[``, or a word given
            twice (naming both lines).
    """
    entries: dict[str, str] = {}
    seen: dict[str, int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        word, said = _entry(line, f"{path}, line {number}")
        if word.lower() in seen:
            raise LexiconError(f"{path}, line {number}: {word!r} is already on line {seen[word.lower()]}: keep one")
        seen[word.lower()] = number
        entries[word] = said
    return Lexicon(entries)


def _entry(line: str, where: str) -> tuple[str, str]:
    """``(word, said)`` of one entry line; ``where`` names it in errors."""
    if "\t" not in line:
        raise LexiconError(f"{where}: no tab between the word and what it says ({line.strip()!r})")
    word, said = (part.strip() for part in line.split("\t", 1))
    if not word or not said:
        raise LexiconError(f"{where}: {'the word' if not word else 'what it says'} is empty")
    if said.startswith("[[") != said.endswith("]]") or said.count("[[") != said.count("]]"):
        raise LexiconError(f"{where}: phonemes go between [[ and ]] ({said!r})")
    return word, said


def read_lexicon(path: Path | str, *, missing_ok: bool = False) -> Lexicon:
    """The lexicon in the file ``path`` (an empty one where it is missing and ``missing_ok``); a byte order mark
    at its start (Windows Notepad writes one) is not part of its first word.

    Raises:
        LexiconError: the file is missing (unless ``missing_ok``), unreadable, not UTF-8, or has a bad line.
    """
    path = Path(path)
    try:
        return parse_lexicon(path.read_text(encoding="utf-8-sig"), path)
    except FileNotFoundError:
        if missing_ok:
            return Lexicon()
        raise LexiconError(f"{path}: lexicon file not found") from None
    except UnicodeDecodeError as exc:
        raise LexiconError(f"{path}: not UTF-8 text (byte {exc.start}): save it as UTF-8") from None
    except OSError as exc:
        raise LexiconError(f"{path}: cannot read the lexicon ({exc.strerror})") from None


def write_lexicon(path: Path | str, lexicon: Lexicon) -> Path:
    """Write ``lexicon`` to ``path`` atomically (a crash leaves the old file), :data:`HEADER` first."""
    return write_text(path, HEADER + "".join(f"{word}\t{said}\n" for word, said in lexicon.entries.items()))


def voice_lexicon_path(model_path: Path | str) -> Path:
    """Where a voice's lexicon lives: beside its model, ``VOICE.onnx`` -> ``VOICE.onnx.lexicon.txt``."""
    model_path = Path(model_path)
    return model_path.with_name(model_path.name + SUFFIX)


def voice_lexicon(model_path: Path | str) -> Lexicon:
    """The lexicon beside a voice's model (:func:`voice_lexicon_path`); empty where it has none.

    Raises:
        LexiconError: the file is there but cannot be read or has a bad line.
    """
    return read_lexicon(voice_lexicon_path(model_path), missing_ok=True)


class LexiconFile:
    """A lexicon file read again whenever it changes (its mtime or size), for what lives long (an engine in the
    studio or the speech server): an edit applies from the next text on, without loading the voice again."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._seen: tuple[int, int] | None = None
        self._lexicon = Lexicon()

    def current(self) -> Lexicon:
        """The file's lexicon as it is now (empty while there is no file).

        Raises:
            LexiconError: the file cannot be read or has a bad line (said again at each call until fixed).
        """
        try:
            stat = self.path.stat()
            seen: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            seen = None
        if seen != self._seen:
            self._lexicon = read_lexicon(self.path) if seen else Lexicon()
            self._seen = seen
        return self._lexicon


def project_lexicon(folder: Path | str) -> Lexicon:
    """A dataset project's lexicon (:data:`PROJECT_LEXICON` in its ``folder``); empty where it has none.

    Raises:
        LexiconError: the file is there but cannot be read or has a bad line.
    """
    return read_lexicon(Path(folder) / PROJECT_LEXICON, missing_ok=True)
