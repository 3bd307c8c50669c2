"""Unpickling a ``.ckpt`` file safely: an allow-list of harmless classes, anything else refused.

Files are read with ``torch.load(weights_only=True)``: only tensors, plain
containers and an explicit allow-list of harmless classes (pathlib paths, found
in old hyperparameters, Lightning's ``AttributeDict``, and numpy arrays of plain
numbers, found in the RNG state of resume checkpoints such as a run's
``last.ckpt``) can be unpickled; anything else is refused before it can run.
"""

from __future__ import annotations

import pathlib
import zipfile
from pathlib import Path
from typing import Any

from engines.base import VoiceError
from engines.extras import explain
from engines.imports import importing


class _AttributeDict(dict):
    """Stand-in for Lightning's ``AttributeDict`` (a plain dict with attribute access)."""


def _stand_in(module: str, name: str) -> type:
    cls = type(name, (_AttributeDict,), {})
    cls.__module__ = module
    cls.__qualname__ = name
    return cls


SAFE_GLOBALS = [
    pathlib.PosixPath,
    pathlib.WindowsPath,
    pathlib.PurePosixPath,
    pathlib.PureWindowsPath,
    _stand_in("lightning.fabric.utilities.data", "AttributeDict"),
    _stand_in("lightning_fabric.utilities.data", "AttributeDict"),
    _stand_in("pytorch_lightning.utilities.parsing", "AttributeDict"),
]
"""Classes a checkpoint may contain besides tensors and plain containers (numpy's are added when read)."""


def numpy_globals() -> list:
    """numpy's array-rebuilding globals, under the module names numpy 1.x and 2.x write.

    An array in a pickle is rebuilt by ``_reconstruct(ndarray, shape, dtype)`` and
    ``ndarray.__setstate__``; neither runs code, and an object array's items are
    unpickled under the same allow-list. Each entry is ``(object, "module.name")``
    as ``torch.serialization.safe_globals`` takes it, so a file written under either
    numpy major version reads under the installed one.
    """
    import numpy as np

    multiarray = getattr(np, "_core", None) or np.core  # numpy 2.x / 1.x
    reconstruct = multiarray.multiarray._reconstruct
    entries = [(reconstruct, f"{package}.multiarray._reconstruct") for package in ("numpy.core", "numpy._core")]
    entries += [(np.ndarray, "numpy.ndarray"), (np.dtype, "numpy.dtype")]
    dtypes = getattr(np, "dtypes", None)  # numpy >= 1.25: one class per dtype, e.g. numpy.dtypes.UInt32DType
    names = [n for n in dir(dtypes) if n.endswith("DType") and n not in ("ObjectDType", "StringDType")]
    return entries + [(getattr(dtypes, n), f"numpy.dtypes.{n}") for n in names]


UNREADABLE = "cannot read the checkpoint (truncated or not a torch file)"


def load_safely(path: Path) -> Any:
    """What a ``.ckpt`` file holds (a Lightning checkpoint's dict), unpickled under the allow-list, on the CPU.

    Raises:
        VoiceError: a truncated file, not a torch file, or an unsafe one (a pickle that would run code);
            the message says which; or torch is not installed (an ONNX-only install: how to add it).
    """
    import pickle

    if needs_torch := explain("torch", "Reading a checkpoint (.ckpt)"):
        raise VoiceError(path, needs_torch)

    with importing("torch"):
        import torch

    try:
        with torch.serialization.safe_globals([*SAFE_GLOBALS, *numpy_globals()]):
            return _load(torch, path)
    except pickle.UnpicklingError as exc:
        blocked = [line.strip() for line in str(exc).splitlines() if "GLOBAL" in line or "but got" in line]
        if blocked:
            message = f"refused: the checkpoint holds objects that are not plain data ({blocked[0]})"
            raise VoiceError(path, message) from None
        raise VoiceError(path, f"{UNREADABLE}: its pickle is not one torch writes") from None
    except Exception:  # noqa: BLE001 - torch's legacy loader raises KeyError, struct.error, ... on junk
        # the loader's own words ("101", "pop from empty list", "unpack requires a buffer") mean nothing here
        why = damage(path, thorough=True)
        if why is None:
            raise VoiceError(path, UNREADABLE) from None
        raise VoiceError(path, f"cannot read the checkpoint: damaged, {why}; {COPY_AGAIN}") from None


def _load(torch, path: Path):
    """``torch.load`` memory-mapped where the file allows it (tensors are read when used), else whole."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except RuntimeError as exc:
        if "mmap" not in str(exc):  # legacy (non-zip) files cannot be mapped; anything else is an error
            raise
        return torch.load(path, map_location="cpu", weights_only=True)


COPY_AGAIN = "copy it again from where it came, or use another checkpoint"
"""The way on from a damaged checkpoint file that no run of this studio can replace."""
TORCH_ZIP_PICKLE = "/data.pkl"
"""How the first entry of a zip that ``torch.save`` wrote is named (``<archive name>/data.pkl``)."""


def damage(path: Path | str, *, thorough: bool = False) -> str | None:
    """Why ``path``, a checkpoint ``torch.save`` wrote (a zip since torch 1.6), is damaged; ``None`` where it
    looks whole or is not a zip at all (a legacy torch file, or no torch file: :func:`load_safely` says which).

    Reads only the end of the file (the zip's directory of entries), or with ``thorough`` every entry too,
    checking each against its CRC-32 (about a second per GB). No torch is imported.

    Returns:
        e.g. ``cut short at 2,485,157 bytes (...)`` or ``garbled: archive/data/12 does not match its checksum``.
    """
    path = Path(path)
    try:
        with path.open("rb") as f:
            head = f.read(30 + 256)  # a zip's first local header and its entry's name
        with zipfile.ZipFile(path) as archive:
            return _garbled(archive) if thorough else None
    except zipfile.BadZipFile:
        if not _torch_zip_head(head):
            return None
        size = path.stat().st_size
        return (
            f"cut short at {size:,} bytes (the end of the file, where a torch checkpoint lists what it holds, is "
            "missing: an interrupted copy, download or sync?)"
        )
    except OSError as exc:
        return f"unreadable ({exc.strerror or exc})"


def _torch_zip_head(head: bytes) -> bool:
    """Whether ``head`` starts a zip whose first entry is ``torch.save``'s pickle (``…/data.pkl``)."""
    if head[:4] != b"PK\x03\x04" or len(head) < 30:
        return False
    name_length = int.from_bytes(head[26:28], "little")
    return head[30 : 30 + name_length].endswith(TORCH_ZIP_PICKLE.encode())


def _garbled(archive: zipfile.ZipFile) -> str | None:
    """The first entry of ``archive`` that does not read back whole or whose bytes do not match their CRC-32."""
    for info in archive.infolist():
        try:
            with archive.open(info) as entry:
                while entry.read(1 << 20):
                    pass
        except (zipfile.BadZipFile, EOFError, OSError, ValueError) as exc:
            if isinstance(exc, EOFError) or "Truncated" in str(exc):
                return f"cut short in {info.filename}"
            return f"garbled: {info.filename} does not match its checksum"
    return None
