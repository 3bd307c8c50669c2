"""Unpacking the archives a user drops (zip, tar, tar.gz, tar.xz, tar.bz2), and the archives inside them, safely.

An archive unpacks into a folder the caller names (never beside a user's file); an archive found inside it
unpacks beside itself, into a folder named after it without its suffix, and that copy of it is then removed
(the folder is ours; the user's original is never touched). Bounds, per dropped source and all levels together:

- depth: archives inside archives to ``MAX_DEPTH`` levels (the dropped one is level 1); deeper ones are named
  and left packed;
- size: the members' declared sizes are added up before a byte is written, and an archive that would pass
  ``MAX_UNPACKED_BYTES`` (or the free space of the disk) is named and not unpacked: a zip bomb declares far
  more than it holds compressed, and ``zipfile`` never writes more than a member declares;
- count: at most ``MAX_MEMBERS`` members;
- paths: a member pointing outside the folder (``../``, an absolute path, a link out of it) or a device file
  is skipped and named (tar members through ``tarfile``'s ``data`` filter).

Every refusal is a line in ``problems`` naming the archive and what to do; nothing raises.
"""

from __future__ import annotations

import shutil
import tarfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from engines.words import count

ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar.bz2", ".tbz2")
"""The archives unpacked: zip, and tar as users share it (plain, gzip, xz, bzip2)."""
MAX_DEPTH = 3
"""Archive levels unpacked: a dropped archive (1), one inside it (2), and one inside that (3)."""
MAX_UNPACKED_BYTES = 64 * 2**30
"""Most bytes the archives of one dropped source unpack to, all levels together: more than 100 hours of
48 kHz 24-bit mono WAV (518 MB an hour)."""
MAX_MEMBERS = 200_000
"""Most files and folders the archives of one dropped source unpack to."""
FREE_MARGIN_BYTES = 1 * 2**30
"""Disk space, bytes, left free after unpacking (the curated copies and the manifest still need room)."""


@dataclass
class Budget:
    """What one dropped source may still unpack to: ``bytes`` and ``members`` left (the bounds as they are when
    it is made)."""

    bytes: int = field(default_factory=lambda: MAX_UNPACKED_BYTES)
    members: int = field(default_factory=lambda: MAX_MEMBERS)


def is_archive(path: Path) -> bool:
    """Whether ``path``'s name ends in one of ``ARCHIVE_SUFFIXES`` (case-insensitive)."""
    return path.name.lower().endswith(ARCHIVE_SUFFIXES)


def archive_stem(path: Path) -> str:
    """The name without its archive suffix: ``voice.tar.gz`` -> ``voice`` (``voice`` for a bare suffix too)."""
    name = path.name
    suffix = next(s for s in sorted(ARCHIVE_SUFFIXES, key=len, reverse=True) if name.lower().endswith(s))
    return name[: -len(suffix)] or "archive"


def unpack(archive: Path, target: Path, problems: list[str], budget: Budget, depth: int = 1) -> bool:
    """Unpack ``archive`` into ``target``, then the archives inside it, to ``MAX_DEPTH`` levels in all; returns
    whether ``archive`` itself was unpacked (those inside it that were not are named in ``problems``)."""
    if depth > MAX_DEPTH:
        problems.append(f"{archive}: an archive nested more than {MAX_DEPTH} deep: not unpacked; unpack it yourself")
        return False
    opener = _unpack_zip if archive.name.lower().endswith(".zip") else _unpack_tar
    try:
        done = opener(archive, target, problems, budget)
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, RuntimeError, NotImplementedError) as exc:
        problems.append(f"{archive}: cannot unpack ({_reason(exc)})")
        return False
    if done:
        for inner in sorted(p for p in target.rglob("*") if p.is_file() and is_archive(p)):
            if unpack(inner, inner.with_name(archive_stem(inner)), problems, budget, depth + 1):
                inner.unlink()  # our copy, unpacked beside it
    return done


def _reason(exc: BaseException) -> str:
    """An archive library's error in words: encrypted members and unknown compression said plainly."""
    text = str(exc)
    if "encrypted" in text.lower() or "password" in text.lower():
        return "it is password-protected; unpack it yourself"
    if isinstance(exc, NotImplementedError):
        return f"{text}; unpack it yourself"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return text or type(exc).__name__


def _afford(archive: Path, target: Path, sizes: list[int], problems: list[str], budget: Budget) -> bool:
    """Whether members of these declared ``sizes`` (bytes) fit the budget and the disk; if so, they are spent."""
    total = sum(sizes)
    where = next(p for p in (target, *target.parents) if p.exists())
    free = shutil.disk_usage(where).free - FREE_MARGIN_BYTES
    if total > budget.bytes or len(sizes) > budget.members:
        limit = f"{_gb(MAX_UNPACKED_BYTES)} and {MAX_MEMBERS:,} files"
        problems.append(
            f"{archive}: would unpack to {_gb(total)} in {count(len(sizes), 'file')}, past the {limit} an import "
            "unpacks: not unpacked; unpack it yourself and import the folder"
        )
        return False
    if total > free:
        problems.append(f"{archive}: would unpack to {_gb(total)}; {where} has {_gb(max(0, free))} free: not unpacked")
        return False
    budget.bytes -= total
    budget.members -= len(sizes)
    return True


def _gb(size: int) -> str:
    return f"{size / 1e9:,.1f} GB" if size >= 1e8 else f"{size / 1e6:,.1f} MB" if size >= 1e5 else f"{size:,} bytes"


def _unpack_zip(archive: Path, target: Path, problems: list[str], budget: Budget) -> bool:
    with zipfile.ZipFile(archive) as opened:
        members = opened.infolist()
        if not _afford(archive, target, [m.file_size for m in members], problems, budget):
            return False
        root = target.resolve()
        for member in members:
            if not (target / member.filename).resolve().is_relative_to(root):
                problems.append(f"{archive}: skipped '{member.filename}' (points outside the archive)")
                continue
            opened.extract(member, target)
    return True


OUTSIDE = (
    tarfile.OutsideDestinationError,
    tarfile.AbsolutePathError,
    tarfile.AbsoluteLinkError,
    tarfile.LinkOutsideDestinationError,
)
"""``tarfile``'s ``data`` filter refusals of a member that points outside the folder it unpacks into."""


def _unpack_tar(archive: Path, target: Path, problems: list[str], budget: Budget) -> bool:
    with tarfile.open(archive) as opened:
        members = opened.getmembers()
        if not _afford(archive, target, [m.size for m in members], problems, budget):
            return False
        target.mkdir(parents=True, exist_ok=True)
        for member in members:
            try:
                opened.extract(member, target, filter="data")
            except OUTSIDE:
                problems.append(f"{archive}: skipped '{member.name}' (points outside the archive)")
            except tarfile.FilterError as exc:
                problems.append(f"{archive}: skipped '{member.name}' ({exc})")
    return True
