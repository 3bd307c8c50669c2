"""What an import or a slicing did to a dataset project: :class:`ImportResult` (``trainer.dataset.project``,
``trainer.dataset.slicing_run``), and :class:`TextChange`, a transcript its source now words otherwise."""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.words import count


@dataclass(frozen=True, kw_only=True)
class TextChange:
    """A clip already imported whose source (``metadata.csv``, ``clip.txt``) now has another transcript.

    Attributes:
        clip_id: the clip.
        origin: where the new text is, e.g. ``metadata.csv:12``.
        old, new: the project's transcript and the source's.
        edited: the project's text was typed in the studio: kept, even where the source's texts are taken.
    """

    clip_id: str
    origin: str
    old: str
    new: str
    edited: bool = False

    def describe(self) -> str:
        """One line: ``c03: metadata.csv:3 says 'new'; the project has 'old'`` (and why it stays, if typed)."""
        kept = " (typed in the studio: kept)" if self.edited else ""
        return f"{self.clip_id}: {self.origin} says {self.new!r}; the project has {self.old!r}{kept}"


@dataclass
class ImportResult:
    """What an import did: clips added, skipped as already present, failed, problems met while scanning, notes,
    and what the sources of clips already present now say (transcripts filled in, replaced, or changed)."""

    added: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Warnings that stop nothing (slicing: the recording's speaker may differ from the dataset's; import and
    slicing: the new clips are far louder or quieter than the others, ``trainer.dataset.loudness_gap``)."""
    earlier: list[str] = field(default_factory=list)
    """What slicing found done before, one line a recording: ``two_cities.wav resumed: 5 of 12 drafts already
    made`` or ``two_cities.wav already sliced: all 12 drafts made``."""
    resumed: list[str] = field(default_factory=list)
    """Slicing: the drafts an earlier, cut short slicing of the recordings resumed now had made."""
    filled: list[str] = field(default_factory=list)
    """Clips already present that had no transcript and got their source's now."""
    filled_speakers: list[str] = field(default_factory=list)
    """Clips already present that had no speaker and got their source's now (an ``id|speaker|text`` file)."""
    replaced: list[str] = field(default_factory=list)
    """Clips already present whose transcript was replaced by their source's (asked for: ``replace_texts``)."""
    changed: list[TextChange] = field(default_factory=list)
    """Clips already present whose source now has another transcript, left as they are: offered, not taken."""

    def counts(self) -> str:
        """The import's counts as the table shows them: every clip listed is counted as added, the unreadable
        ones (``failed``: in the table, status ``error``) said as such: "3 clips added (1 unreadable: replace the
        recording, or exclude the clip), 2 already present", then the transcripts filled in or replaced from
        their source, if any."""
        listed = len(self.added) + len(self.failed)
        bad = f" ({len(self.failed)} unreadable: replace the recording, or exclude the clip)"
        said = f"{count(listed, 'clip')} added{bad if self.failed else ''}, {self.unchanged} already present"
        if self.filled:
            said += f", {count(len(self.filled), 'transcript')} filled in from the source"
        if self.filled_speakers:
            said += f", {count(len(self.filled_speakers), 'speaker')} filled in from the source"
        if self.replaced:
            said += f", {count(len(self.replaced), 'transcript')} replaced by the source's"
        return said

    def offered(self) -> list[TextChange]:
        """The changed transcripts that taking the sources' texts (``replace_texts``) would replace."""
        return [change for change in self.changed if not change.edited]
