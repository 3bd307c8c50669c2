"""What an import or a slicing did to a dataset project: :class:`ImportResult` (``trainer.dataset.project``,
``trainer.dataset.slicing_run``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.words import count


@dataclass
class ImportResult:
    """What an import did: clips added, skipped as already present, failed, problems met while scanning, notes."""

    added: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """Warnings that stop nothing (slicing: the recording's speaker may differ from the dataset's)."""
    earlier: list[str] = field(default_factory=list)
    """What slicing found done before, one line a recording: ``two_cities.wav resumed: 5 of 12 drafts already
    made`` or ``two_cities.wav already sliced: all 12 drafts made``."""
    resumed: list[str] = field(default_factory=list)
    """Slicing: the drafts an earlier, cut short slicing of the recordings resumed now had made."""

    def counts(self) -> str:
        """The import's counts as the table shows them: every clip listed is counted as added, the unreadable
        ones (``failed``: in the table, status ``error``) said as such: "3 clips added (1 unreadable: replace the
        recording, or exclude the clip), 2 already present"."""
        listed = len(self.added) + len(self.failed)
        bad = f" ({len(self.failed)} unreadable: replace the recording, or exclude the clip)"
        return f"{count(listed, 'clip')} added{bad if self.failed else ''}, {self.unchanged} already present"
