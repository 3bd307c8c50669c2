"""What the Compare page compares, without Qt: candidates, lines, render settings and the renders so far.

A :class:`Comparison` is a model in the manner of ``studio.state``: views observe its
``events`` (``changed`` when the selection or settings change: the renders of (candidate file, line) pairs still
selected (the same file, the same text) are kept under their new labels and line indexes, unless the
settings changed;
``rendered_changed`` when renders arrive). :meth:`Comparison.folder` is where ratings and the
leaderboard of this selection are kept: the run folder when every candidate comes from one run,
else a folder under the user data folder named by a short hash of the candidate files.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from studio.state import Event
from trainer.evaluate.labels import unique_label
from trainer.evaluate.render import Candidate, Rendered, RenderSettings

if TYPE_CHECKING:
    from trainer.evaluate.lines import Line


def compare_dir() -> Path:
    """``<user data>/compare``: the Compare page's folders for selections that are not one run's."""
    from engines.registry import user_data_dir

    return user_data_dir() / "compare"


def render_cache_dir() -> Path:
    """The render cache (``trainer.evaluate.render``) the Compare page shares with ``voice-studio compare``:
    ``studio.cli.compare.default_cache()``, ``<user data>/compare/cache``, where the leaderboard's scores are kept
    beside the renders."""
    from studio.cli.compare import default_cache

    return default_cache()


def run_folder_of(model_path: Path) -> Path | None:
    """The training run a model file lies in (``RUN/checkpoints/x.ckpt`` or ``RUN/x``), or ``None``."""
    from trainer.run.document import TRAINING_FILE

    for folder in list(Path(model_path).absolute().parents)[:2]:
        if (folder / TRAINING_FILE).is_file():
            return folder
    return None


class ComparisonEvents:
    """``changed(Comparison)``: the candidates, lines or settings changed (renders no longer selected dropped);
    ``rendered_changed(dict)``: renders were added (the whole ``rendered`` dict)."""

    def __init__(self) -> None:
        self.changed: Event[Comparison] = Event()
        self.rendered_changed: Event[dict[tuple[str, int], Rendered]] = Event()


class Comparison:
    """Candidates (distinct labels, in order), lines, shared render settings, and the renders by
    ``(candidate label, line index)``.

    A candidate added with ``run=`` (from :func:`trainer.evaluate.lines.run_candidates`: its checkpoints, its
    export and its start voice) belongs to that run; any other belongs to the run folder its file lies in, if any.
    """

    def __init__(self) -> None:
        self.events = ComparisonEvents()
        self._candidates: list[Candidate] = []
        self._runs: dict[Path, Path | None] = {}
        self._lines: list[Line] = []
        self._settings = RenderSettings()
        self.rendered: dict[tuple[str, int], Rendered] = {}

    @property
    def candidates(self) -> list[Candidate]:
        """The candidates, in order (a copy)."""
        return list(self._candidates)

    @property
    def lines(self) -> list[Line]:
        """The lines, in order (a copy)."""
        return list(self._lines)

    @property
    def settings(self) -> RenderSettings:
        return self._settings

    def set_candidates(self, candidates: Iterable[Candidate], run: Path | None = None) -> None:
        """Replace the candidates (a file listed already is left out; a label taken already gets " (2)", " (3)"…,
        the last step of ``trainer.evaluate.labels``' rule, which the lists that give them have applied);
        nothing happens (the renders stay) when they are the ones compared already."""
        before = (self._candidates, self._runs)
        self._candidates, self._runs = [], {}
        self._add(candidates, run)
        if (self._candidates, self._runs) != before:
            self._changed(before[0], self._lines)

    def add_candidates(self, candidates: Iterable[Candidate], run: Path | None = None) -> list[Candidate]:
        """Append candidates whose files are not listed yet (labels made distinct); returns those added."""
        before = list(self._candidates)
        added = self._add(candidates, run)
        if added:
            self._changed(before, self._lines)
        return added

    def remove_candidates(self, labels: Iterable[str]) -> None:
        """Take out the candidates of ``labels``."""
        gone, before = set(labels), self._candidates
        self._candidates = [c for c in self._candidates if c.label not in gone]
        self._changed(before, self._lines)

    def set_lines(self, lines: Iterable[Line]) -> None:
        """Replace the lines (nothing happens when they are the same)."""
        lines = list(lines)
        if lines != self._lines:
            before, self._lines = self._lines, lines
            self._changed(self._candidates, before)

    def set_settings(self, settings: RenderSettings) -> None:
        """Replace the render settings (nothing happens when they are the same)."""
        if settings != self._settings:
            self._settings = settings
            self.rendered = {}
            self._changed(self._candidates, self._lines)

    def add_rendered(self, renders: dict[tuple[str, int], Rendered]) -> None:
        """Keep renders of the current selection; emits ``rendered_changed``."""
        self.rendered.update(renders)
        self.events.rendered_changed.emit(dict(self.rendered))

    def missing(self) -> int:
        """How many (candidate, line) pairs have no render yet."""
        return sum((c.label, i) not in self.rendered for c in self._candidates for i in range(len(self._lines)))

    def folder(self) -> Path:
        """Where ratings and the leaderboard of this selection are kept: the run folder when every candidate
        comes from one run, else ``<user data>/compare/<12 hex digits of SHA-256 of the sorted candidate paths>``."""
        runs = {self._runs.get(c.model_path.absolute()) or run_folder_of(c.model_path) for c in self._candidates}
        if len(runs) == 1 and None not in runs:
            return runs.pop()  # type: ignore[return-value]
        names = "\n".join(sorted(str(c.model_path.absolute()) for c in self._candidates))
        return compare_dir() / hashlib.sha256(names.encode()).hexdigest()[:12]

    def subject(self) -> str:
        """What is compared, in a few words for a file name: the run's folder name when every candidate comes from
        one run, else the candidates' labels (``""``: none)."""
        folder = self.folder() if self._candidates else None
        if folder is not None and folder.parent != compare_dir():
            return folder.name
        return " ".join(c.label for c in self._candidates)

    def _add(self, candidates: Iterable[Candidate], run: Path | None) -> list[Candidate]:
        added = []
        for candidate in candidates:
            if candidate.model_path.absolute() in {c.model_path.absolute() for c in self._candidates}:
                continue
            candidate = replace(candidate, label=unique_label(candidate.label, {c.label for c in self._candidates}))
            self._candidates.append(candidate)
            self._runs[candidate.model_path.absolute()] = Path(run).absolute() if run else None
            added.append(candidate)
        return added

    def _changed(self, candidates: list[Candidate], lines: list[Line]) -> None:
        """Keep the renders of pairs still selected (``candidates`` and ``lines``: the selection before), then
        emit ``changed``."""
        self.rendered = self._kept(candidates, lines)
        self.events.changed.emit(self)

    def _kept(self, candidates: list[Candidate], lines: list[Line]) -> dict[tuple[str, int], Rendered]:
        """``rendered`` keyed anew: the same model file's new label, every new index of the same text (a render
        depends on the candidate file, the text and the settings only)."""
        label_of = {c.model_path.absolute(): c.label for c in self._candidates}
        old_path = {c.label: c.model_path.absolute() for c in candidates}
        kept = {}
        for (label, index), rendered in self.rendered.items():
            new_label = label_of.get(old_path.get(label))  # type: ignore[arg-type]
            text = lines[index].text if index < len(lines) else None
            for new_index, line in enumerate(self._lines):
                if new_label is not None and line.text == text:
                    kept[(new_label, new_index)] = rendered
        return kept
