"""Unpickling a ``.ckpt`` file safely: an allow-list of harmless classes, anything else refused.

Files are read with ``torch.load(weights_only=True)``: only tensors, plain
containers and an explicit allow-list of harmless classes (pathlib paths, found
in old hyperparameters, Lightning's ``AttributeDict``, and numpy arrays of plain
numbers, found in the RNG state of resume checkpoints such as a run's
``last.ckpt``) can be unpickled; anything else is refused before it can run.
"""

from __future__ import annotations

import pathlib
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
        raise VoiceError(path, UNREADABLE) from None


def _load(torch, path: Path):
    """``torch.load`` memory-mapped where the file allows it (tensors are read when used), else whole."""
    try:
        return torch.load(path, map_location="cpu", weights_only=True, mmap=True)
    except RuntimeError as exc:
        if "mmap" not in str(exc):  # legacy (non-zip) files cannot be mapped; anything else is an error
            raise
        return torch.load(path, map_location="cpu", weights_only=True)
