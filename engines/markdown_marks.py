"""Markdown's marks are not read: what an LLM or a chat client sends (``**Note:** the *door* is `open`.``) is said
as its reader sees it ("Note: the door is open.").

Only marks that cannot be meant as text, in their usual places: ``**bold**``, ``__bold__``, ``*italic*``,
``_italic_`` (the mark touching its words, not inside a word: ``5 * 3`` and ``snake_case`` stay), ``` `code` ```,
fence lines, ``[text](link)`` and ``![alt](link)`` (the text said, the address not), and at a line's start the
heading ``#``, the bullet ``-``/``*``/``+`` and the quote ``>``; an ordered item's ``1.`` is "1:" (said "one:", not
a sentence "one." of its own). A heading or a list item that ends without
punctuation ends its sentence there (a period is added), so the next line is not run into it.
"""

from __future__ import annotations

import re

_FENCE = re.compile(r"^\s*(```|~~~).*$", re.MULTILINE)
_LINE_MARK = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+|[-*+][ \t]+|>[ \t]?)(?=\S)")
_CLOSING_HASHES = re.compile(r"[ \t]+#+[ \t]*$")
_NUMBERED = re.compile(r"^[ \t]*(\d{1,3})[.)][ \t]+(?=\S)")
"""An ordered list's item number (``1. First step``): said as "one:", not as a sentence of its own."""
_ENDED = re.compile(r"[.!?:;,…]$")
_LINK = re.compile(r"!?\[([^\]\n]+)\]\([^)\s]+\)")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(
    r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=\S)\*(?![\w*])"  # *italic*
    r"|(?<![\w_])_(?=[^\s_])([^_\n]+?)(?<=\S)_(?![\w_])"  # _italic_
)
_CODE = re.compile(r"`([^`\n]+)`")
_OPENED = re.compile(r"(?<![\w*])\*+(?=[^\s*])|(?<![\w_])_+(?=[^\s_])|`|\[[^\]\n]*$|\]\([^)\s]*$")
"""What may open an inline mark not yet closed: ``*``/``**``, ``_``/``__`` before a word, a backtick, a link's
``[text`` or ``](address`` without its end."""


def unmark(text: str) -> str:
    """``text`` with its Markdown marks taken away (the module's docstring says which); text without them comes
    back as it is."""
    text = _FENCE.sub("", text)
    lines = [_unmark_line(line) for line in text.split("\n")]
    return "\n".join(lines)


def _unmark_line(line: str) -> str:
    marked = _LINE_MARK.match(line) or _NUMBERED.match(line)
    if marked:
        number = f"{marked.group(1)}: " if marked.re is _NUMBERED else ""
        line = number + _CLOSING_HASHES.sub("", line[marked.end() :]).rstrip()
    line = _unmark_inline(line)
    if marked and line and not _ENDED.search(line):
        line += "."
    return line


def _unmark_inline(text: str) -> str:
    text = _LINK.sub(r"\1", text)
    text = _STRONG.sub(r"\2", text)
    text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
    return _CODE.sub(r"\1", text)


def reads_on(line: str, cut: int) -> bool:
    """Whether the reading of ``line[:cut]`` may still change with what comes after it on its line (for text that
    arrives in pieces): ``line`` (a line's start, all of it known so far) has a line mark (the line's end gets a
    period if it has no punctuation) or is a fence, or ``line[:cut]`` has an inline mark opened and not yet closed
    (``**Note. Then`` may become bold)."""
    return _mark_length(line) > 0 or _FENCE.match(line) is not None or opens_mark(line[:cut])


def opens_mark(text: str) -> bool:
    """Whether ``text`` has an inline mark (``**``, ``*``, ``_``, a backtick, a link's ``[``) opened and not closed
    in it, so that what follows may change how it reads."""
    return _OPENED.search(_unmark_inline(text)) is not None


def _mark_length(line: str) -> int:
    """Characters of the line mark at ``line``'s start (heading, bullet, quote, ordered item's number, with the
    spaces around it), 0 when it has none."""
    marked = _LINE_MARK.match(line) or _NUMBERED.match(line)
    return marked.end() if marked else 0
