"""Where a dataset project's training cache was last built, and whether it still matches the project.

``build_cache`` records the folder of a cache the user builds (Build training cache…, ``voice-studio dataset
cache``; not a training run's own cache in its run folder) in the project (``training_cache.json``:
``{"path": ...}``); the Dataset
page and ``voice-studio dataset`` read it back with :func:`cache_status`. A cache is out of date when the
clips the trainer would use now differ from the cached ones (added, left out, another text or speaker), when
a clip's audio was written after the cache, when the voice's config changed, or when the text front end that
normalizes the texts is another than the one the cache was built with.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from engines.files import write_text
from engines.frontend.lexicon import PROJECT_LEXICON
from engines.words import count
from trainer.data.preprocess.cache import is_cache

POINTER = "training_cache.json"
"""The file in a project folder naming its last training cache."""


@dataclass(frozen=True, kw_only=True)
class CacheStatus:
    """A project's training cache.

    Attributes:
        folder: where it was last built (``None``: never).
        built: the folder still holds a cache.
        stale: why it no longer matches the project (empty: up to date).
    """

    folder: Path | None
    built: bool
    stale: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """One line: "Training cache: none built yet", "… built at PATH, up to date", "… out of date (why)"."""
        if self.folder is None:
            return "Training cache: none built yet (Build training cache…)"
        if not self.built:
            return f"Training cache: none at {self.folder} any more (it was built there): build it again"
        if self.stale:
            return f"Training cache at {self.folder}: out of date ({'; '.join(self.stale)}): build it again"
        return f"Training cache at {self.folder}: up to date"


def remember(project, folder: Path) -> None:
    """Record ``folder`` as ``project``'s training cache (a ``trainer.dataset.project.DatasetProject``)."""
    write_text(Path(project.folder) / POINTER, json.dumps({"path": str(Path(folder).resolve())}))


def cache_status(project) -> CacheStatus:
    """The status of ``project``'s last training cache (reads ``cache.json``, not the arrays)."""
    pointer = Path(project.folder) / POINTER
    try:
        folder = Path(json.loads(pointer.read_text(encoding="utf-8"))["path"])
    except (OSError, ValueError, KeyError, TypeError):
        return CacheStatus(folder=None, built=False)
    if not is_cache(folder):
        return CacheStatus(folder=folder, built=False)
    return CacheStatus(folder=folder, built=True, stale=_why_stale(project, folder))


def _why_stale(project, folder: Path) -> list[str]:
    from trainer.dataset.export import trainable

    document = json.loads((folder / "cache.json").read_text(encoding="utf-8"))
    built_at = (folder / "cache.json").stat().st_mtime
    cached = {u["id"]: (u["speaker"], u["text"]) for u in document.get("utterances", [])}
    now = {c.id: (c.speaker, c.text) for c in trainable(project)}
    why = []
    added, gone = set(now) - set(cached), set(cached) - set(now)
    changed = [i for i in set(now) & set(cached) if now[i] != cached[i]]
    rewritten = [i for i in now if project.clip_path(i).stat().st_mtime > built_at]
    if added:
        why.append(count(len(added), "new clip"))
    for ids, what in ((gone, "left out since"), (changed, "with another text or speaker"), (rewritten, "re-fixed")):
        if ids:
            why.append(f"{count(len(ids), 'clip')} {what}")
    if document.get("voice_config") != project.target_config:
        why.append("another voice config")
    elif document.get("frontend", "") != (current := _frontend(project)):
        why.append(_another(document.get("frontend", ""), current))
        built = document.get("frontend", "")
        if "lexicon_entries" in document and current is not None and _same_front_end(built, current):
            why.append(_edited_clips(project, document["lexicon_entries"]))
    return why


def _same_front_end(built: str, now: str) -> bool:
    """Whether front end ids ``built`` and ``now`` differ only in their lexicon (the part after ``+lexicon:``,
    ``engines.frontend.frontend_id``)."""
    return built.split("+lexicon:")[0] == now.split("+lexicon:")[0]


def _another(built: str, now: str | None) -> str:
    """Why texts said with front end id ``built`` are not said so ``now``: another front end, or another
    project lexicon."""
    if now is not None and _same_front_end(built, now):
        return f"the project's lexicon ({PROJECT_LEXICON}) changed since"
    return "texts normalized by another text front end"


SHOWN_CLIPS = 5
"""Clips named in a status line; more are counted."""


def _edited_clips(project, built_with: dict[str, str]) -> str:
    """Which of ``project``'s clips say a word whose entry the lexicon edit added, changed or removed, against
    the entries the cache was built with (``built_with``: lower-cased word -> what it says)."""
    from engines.frontend.lexicon import Lexicon, project_lexicon
    from trainer.dataset.export import trainable

    now = {word.lower(): said for word, said in project_lexicon(project.folder).entries.items()}
    edited = {word for word in built_with.keys() | now.keys() if built_with.get(word) != now.get(word)}
    matcher = Lexicon(dict.fromkeys(edited, ""))
    clips = sorted(c.id for c in trainable(project) if len(matcher.spans(c.text)) > 1)
    if not clips:
        return "no clip says a word it changed"
    shown = ", ".join(clips[:SHOWN_CLIPS]) + (", …" if len(clips) > SHOWN_CLIPS else "")
    return f"{count(len(clips), 'clip')} say{'s' if len(clips) == 1 else ''} a word it changed ({shown})"


def _frontend(project) -> str | None:
    """The text front end (with the project's lexicon) its texts are normalized with now; ``None`` when the
    voice config or the lexicon cannot be read."""
    from engines.frontend import frontend_id
    from engines.frontend.lexicon import project_lexicon
    from engines.phonemes import language_of
    from engines.voice import load_config

    try:
        return frontend_id(language_of(load_config(Path(project.target_config))), project_lexicon(project.folder))
    except (OSError, ValueError):
        return None
