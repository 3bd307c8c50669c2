"""Output folders the user chooses (a training cache, a Piper export, a run): checked before anything is written.

A folder we replace whole must be absent, empty, or one we wrote (``ours`` says how to
recognise it); never a file, never a folder that holds what we read from (the project, its
source recordings, the dataset) nor one inside those. :func:`replace_folder` builds the new
content beside the folder and swaps it in whole, so a crash or a cancel never leaves a
half-written folder where a good one was, and nothing the user keeps there is ever deleted.
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engines.errors import VoiceStudioError


class OutFolderError(VoiceStudioError, ValueError):
    """An output folder we must not write or replace: the message names it and says what to do."""


def check_folder_path(out: Path, what: str = "output folder") -> None:
    """Refuse an output path that is a file, or lies under one (``a.wav/wavs``).

    Raises:
        OutFolderError: naming the file and what to give instead.
    """
    for path in (out, *out.parents):
        if path.exists() and not path.is_dir():
            where = "is a file" if path == out else f"lies under {path}, a file"
            raise OutFolderError(f"{out}: {where}, not a folder; give a folder as the {what}")


def check_replaceable(
    out: Path | str, ours: Callable[[Path], bool], protected: Iterable[Path | str] = (), what: str = "output folder"
) -> Path:
    """Check that ``out`` may be replaced whole: absent, empty, or ``ours(out)``; none of ``protected`` (what the
    work reads: a project, its sources) is ``out``, inside it, or holds it.

    Raises:
        OutFolderError: naming ``out`` and what to do (choose a new or empty folder).
    """
    out = Path(out)
    check_folder_path(out, what)
    real = out.resolve()
    for path in protected:
        how = _relation(real, Path(path).resolve())
        if how:
            said = (
                f"the {what} is made from this folder"
                if how == "is"
                else f"{how} {path}, which the {what} is made from"
            )
            raise OutFolderError(
                f"{out}: {said}, so it may not be replaced; choose a new or empty folder outside it as the {what}"
            )
    if (out / "manifest.json").is_file() and not ours(out):  # a user's work, said as what it is
        raise OutFolderError(
            f"{out}: is a dataset project folder (it holds manifest.json), so it may not be replaced; choose a new "
            f"or empty folder as the {what}"
        )
    if out.is_dir() and any(out.iterdir()) and not ours(out):
        raise OutFolderError(
            f"{out}: holds files voice-studio did not write there; choose a new or empty folder as the {what}"
        )
    return out


def _relation(out: Path, source: Path) -> str:
    """How resolved ``out`` lies to resolved ``source``: ``is``, ``holds``, ``lies in``, or ``""`` (apart)."""
    if out == source:
        return "is"
    if out in source.parents:
        return "holds"
    return "lies in" if source in out.parents else ""


@contextmanager
def replace_folder(
    out: Path | str, ours: Callable[[Path], bool], protected: Iterable[Path | str] = (), what: str = "output folder"
) -> Iterator[Path]:
    """Yield a new empty folder beside ``out``; when the block succeeds it replaces ``out`` whole (checked first
    and again at the swap with :func:`check_replaceable`); on failure it is removed and ``out`` stays as it was.

    Raises:
        OutFolderError: ``out`` may not be replaced (before any work, and nothing is written).
    """
    out = check_replaceable(out, ours, protected, what)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = _new_folder_beside(out, "new")
    try:
        yield staging
        check_replaceable(out, ours, protected, what)  # the folder may have changed while the work ran
        _swap_in(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _swap_in(staging: Path, out: Path) -> None:
    """Replace ``out`` with ``staging``: the old folder is moved aside first and removed last."""
    aside = None
    if out.exists():
        aside = _new_folder_beside(out, "old")
        out.rename(aside / out.name)
    staging.rename(out)
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def _new_folder_beside(out: Path, tag: str) -> Path:
    """A new empty folder ``.NAME.TAG.XXXXXXXX`` beside ``out``, with the mode a plain ``mkdir`` gives."""
    for _ in range(100):
        folder = out.with_name(f".{out.name}.{tag}.{secrets.token_hex(4)}")
        try:
            folder.mkdir()
            return folder
        except FileExistsError:
            continue
    raise FileExistsError(f"cannot create a temporary folder beside {out}")


def holds_only(folder: Path, names: set[str]) -> bool:
    """Whether every entry of ``folder`` is one of ``names`` (what our writer puts there)."""
    return all(entry.name in names for entry in folder.iterdir())
