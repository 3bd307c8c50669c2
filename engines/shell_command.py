"""Commands printed for a person to paste into their shell, quoted for that shell.

Every command the studio prints for someone to run (``voice-studio export RUN -o NAME.onnx``, a resume, the
installer again) is built here from its words, so a path such as ``Dätä Földer ü/Jöhn's voice/run ü`` pastes
as one argument: :func:`posix_command` (``shlex.join``: sh, bash, zsh) on Linux and macOS,
:func:`windows_command` on Windows, whose default shell is PowerShell and whose older one is cmd.

Windows quoting (PowerShell's "about_Quoting_Rules" and "about_Parsing"; cmd's ``%VAR%`` expansion; the
Microsoft C runtime's argument parsing, which every program built with it uses to split its command line):

- A word of only letters, digits and ``_ - . / \\ : = +`` (ASCII), not starting with ``-`` unless it is a
  plain ``-x``/``--name`` flag, stays bare: it means the same to PowerShell and cmd. (PowerShell splits a
  bare ``-name.ext`` at the dot, so such words are quoted.)
- Otherwise, when it has none of ``" $ ` %`` nor PowerShell's typographic double quotes ``“ ” „``, it is put in
  double quotes, which both shells take: spaces, ``'``, ``&``, ``;`` and non-ASCII letters are literal there.
  Backslashes ending it are doubled, or the C runtime would read the last one as escaping the closing quote.
- Otherwise PowerShell's single quotes (nothing expands in them; ``'`` and its typographic forms ``‘ ’ ‚ ‛``,
  which PowerShell also takes as single quotes, are doubled). cmd has no quoting that keeps ``%`` literal in
  every case; such a word is written for PowerShell.
- A program whose name had to be quoted is run with PowerShell's call operator ``&``.
"""

from __future__ import annotations

import os
import platform
import re
import shlex

BARE = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9_\-./\\:=+]*|--?[A-Za-z0-9][A-Za-z0-9\-]*)", re.ASCII)
"""A word left unquoted on Windows: the same to PowerShell and cmd."""

NOT_IN_DOUBLE_QUOTES = set('"$`%“”„')
"""Characters that double quotes do not keep literal in PowerShell (``"`` ``$`` `````` and the typographic double
quotes) or in cmd (``%``)."""

SINGLE_QUOTES = "'‘’‚‛"
"""What PowerShell takes as a single quote (U+0027, U+2018, U+2019, U+201A, U+201B); doubled inside one."""


def posix_command(words: list[str | os.PathLike[str]]) -> str:
    """``words`` (a program and its arguments) as one line for a POSIX shell (``shlex.join``)."""
    return shlex.join(os.fspath(word) for word in words)


def windows_word(word: str) -> str:
    """One word quoted for PowerShell, and for cmd too where double quotes can hold it (module docstring)."""
    if BARE.fullmatch(word):
        return word
    if not NOT_IN_DOUBLE_QUOTES.intersection(word):
        stripped = word.rstrip("\\")
        return '"' + stripped + "\\" * (2 * (len(word) - len(stripped))) + '"'
    return "'" + "".join(c * 2 if c in SINGLE_QUOTES else c for c in word) + "'"


def windows_command(words: list[str | os.PathLike[str]]) -> str:
    """``words`` (a program and its arguments) as one line for PowerShell (and cmd where it can; module
    docstring); a quoted program gets PowerShell's call operator, ``& 'C:\\…\\app.exe' …``."""
    quoted = [windows_word(os.fspath(word)) for word in words]
    if quoted and quoted[0] != os.fspath(words[0]):
        quoted.insert(0, "&")
    return " ".join(quoted)


def shell_command(*words: str | os.PathLike[str]) -> str:
    """``words`` (a program and its arguments) as one line for this system's shell: :func:`windows_command` on
    Windows, :func:`posix_command` elsewhere. ``shell_command("voice-studio", "export", run, "-o", "NAME.onnx")``
    gives ``voice-studio export '/data/Jöhn'"'"'s voice/run' -o NAME.onnx`` on Linux."""
    listed = [_not_an_option(word) for word in words]
    return windows_command(listed) if platform.system() == "Windows" else posix_command(listed)


def _not_an_option(word: str | os.PathLike[str]) -> str | os.PathLike[str]:
    """A relative path that starts with ``-`` as ``./-name`` (``.\\-name`` on Windows): pasted, the program would
    read ``-name`` as an option. Only paths (``os.PathLike``) change; strings are the command's own words."""
    if isinstance(word, os.PathLike) and os.fspath(word).startswith("-"):
        return os.path.join(os.curdir, os.fspath(word))
    return word
