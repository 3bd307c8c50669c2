"""Notices that belong to what they report on, so each goes when its subject changes and no other does."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QLabel, QWidget

TOPICS = ("settings", "device", "add", "voice", "engine", "line", "save", "send")
"""What a notice can be about, in the order they are shown: the settings file read at start, the sound device,
voice files that could not be added (until the next add or a line spoken), the voice chosen, the engine chosen
(loading it, a line it failed), the line spoken (nothing to say, phonemes skipped), saving a file, sending a voice
to Home Assistant."""


class Notices(QLabel):
    """A word-wrapped line per subject: :meth:`put` replaces that subject's notice, :meth:`clear` takes some away.

    ``text()`` is every notice shown, one per line, in ``TOPICS`` order; ``toolTip()`` the details given with
    them (a library's own words), one per line.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.setWordWrap(True)
        self._by_topic: dict[str, str] = {}
        self._details: dict[str, str] = {}

    def put(self, topic: str, text: str, detail: str = "") -> None:
        """Show ``text`` as the notice about ``topic`` (one of ``TOPICS``), in place of the one before (``""``:
        none), with ``detail`` in the tooltip.

        Raises:
            ValueError: an unknown topic.
        """
        if topic not in TOPICS:
            raise ValueError(f"unknown notice topic {topic!r}; one of {', '.join(TOPICS)}")
        self._by_topic.pop(topic, None)
        self._details.pop(topic, None)
        if text:
            self._by_topic[topic] = text
        if text and detail:
            self._details[topic] = detail
        self._show()

    def clear(self, *topics: str) -> None:
        """Take away the notices about ``topics`` (all of them when none is given)."""
        for topic in topics or TOPICS:
            self._by_topic.pop(topic, None)
            self._details.pop(topic, None)
        self._show()

    def about(self, topic: str) -> str:
        """The notice shown about ``topic`` (``""``: none)."""
        return self._by_topic.get(topic, "")

    def detail(self, topic: str) -> str:
        """The detail (tooltip) given with the notice about ``topic`` (``""``: none)."""
        return self._details.get(topic, "")

    def _show(self) -> None:
        self.setText("\n".join(self._by_topic[t] for t in TOPICS if t in self._by_topic))
        self.setToolTip("\n".join(self._details[t] for t in TOPICS if t in self._details))


def failed_on(action: str, path: Path | str, exc: Exception) -> str:
    """``"Could not save /x/a.wav: folder /x does not exist"``: ``action`` and ``path`` with ``exc``'s reason,
    the path said once (errors of ``engines.files`` already begin with the path they are about; an ``OSError``
    about ``path`` itself gives its ``strerror`` alone)."""
    name = str(path)
    own = isinstance(exc, OSError) and exc.strerror and str(exc.filename) == name
    reason = str(exc.strerror) if isinstance(exc, OSError) and own else str(exc)
    if reason.startswith(name):
        reason = reason[len(name) :].lstrip(": ")
    return f"{action} {name}: {reason}"
