"""Writing files so that a crash never leaves a half-written file where a good one was; a file's digest."""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: Path | str) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it replaces ``path``, on failure it is removed.

    The temporary file is created (mode 0666 less the umask, or the mode of the
    file it replaces) so writers can open it by name. A symlink is followed: the
    file it points to is replaced, and the link stays.

    Raises:
        OSError: the folder is not writable, or writing or replacing fails (the message names ``path``, never
            the temporary file).
    """
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    tmp = temp_beside(path)
    try:
        yield tmp
        if path.exists():
            shutil.copymode(path, tmp)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        named = _naming(exc, tmp, path)
        if named is exc:
            raise
        raise named from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _naming(exc: OSError, tmp: Path, path: Path) -> OSError:
    """``exc`` naming ``path`` where it named the temporary file ``tmp`` (the user never sees a ``.part``) or no file
    at all (a write that found the disk full says only "No space left on device")."""
    named = (exc.filename, exc.filename2)
    if exc.errno is None or (str(tmp) not in map(str, named) and named != (None, None)):
        return exc
    return type(exc)(exc.errno, exc.strerror, str(path))


def write_text(path: Path | str, text: str) -> Path:
    """Write UTF-8 text atomically."""
    path = Path(path)
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return path


def check_output_path(path: Path | str, suffixes: tuple[str, ...] = (), kind: str = "file") -> Path:
    """Check, before any work is done, that a file can be written at ``path``: not a folder, its folder
    exists (and is not a file) and lets us create a file (one is made and removed), its extension one of
    ``suffixes`` (any when empty; ``kind`` names the file in the message).

    Raises:
        ValueError: naming the path and what is wrong.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path}: is a folder; give a file name such as {path / ('NAME' + ''.join(suffixes[:1]))}")
    if suffixes and path.suffix.lower() not in suffixes:
        raise ValueError(f"{path}: unsupported {kind} type '{path.suffix}'; use one of {', '.join(suffixes)}")
    if path.parent.exists() and not path.parent.is_dir():
        raise ValueError(f"{path}: {path.parent} is a file, not a folder")
    if not path.parent.is_dir():
        raise ValueError(f"{path}: folder {path.parent} does not exist")
    try:  # what writing it will do (engines.files.atomic_path): a temporary file beside it
        temp_beside(path).unlink()
    except OSError as exc:
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise ValueError(f"{path}: cannot write in folder {path.parent}: {reason}") from None
    return path


def temp_beside(path: Path) -> Path:
    """A new, exclusive, empty file beside ``path`` (``.NAME.XXXXXXXX.part``), for writers that swap it in
    themselves.

    Raises:
        FileExistsError: no free name after 100 tries.
        FileNotFoundError: the folder does not exist (the message names ``path`` and its folder).
        OSError: the folder is not writable (the message names ``path``, not the temporary file).
    """
    if not path.parent.is_dir():
        raise FileNotFoundError(f"{path}: folder {path.parent} does not exist")
    for _ in range(100):
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
        try:
            os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666))
            return tmp
        except FileExistsError:
            continue
        except OSError as exc:  # named by the file wanted, not the temporary one
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    raise FileExistsError(f"cannot create a temporary file beside {path}")


def is_temp(path: Path) -> bool:
    """True for a file :func:`temp_beside` made (left behind only by a process that was killed)."""
    return path.name.startswith(".") and path.name.endswith(".part")


def sha256_file(path: Path | str) -> str:
    """Hex SHA-256 of a file's bytes, read in 1 MiB blocks. Raises ``OSError``."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
