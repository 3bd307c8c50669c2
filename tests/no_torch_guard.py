"""Copied into the ONNX-only test environment (with a ``.pth`` line that imports it at every start): records each
attempt to import torch or another training-only package, with where it came from.

A finder first in ``sys.meta_path`` is asked about every module being imported. It answers "not mine" (so the
import goes on and fails as it would, the package being absent) and, when the question comes from an ``import``
(``importlib._bootstrap._find_and_load_unlocked``) rather than from ``importlib.util.find_spec`` (which looks for
a package without importing it), appends one line to the file named by ``VOICE_STUDIO_IMPORT_LOG``:
``torch <- studio/x.py:12 <- ...``.
"""

import os
import sys

WATCHED = {"torch", "lightning", "pytorch_lightning", "numba", "librosa", "triton", "resemblyzer"}
"""Top-level packages that only the ``train``, ``torch`` and ``compare`` extras bring."""


class NoTorchGuard:
    """The meta-path finder that records import attempts of :data:`WATCHED` packages."""

    def find_spec(self, name, path=None, target=None):
        log = os.environ.get("VOICE_STUDIO_IMPORT_LOG")
        if log and name.partition(".")[0] in WATCHED and sys._getframe(2).f_code.co_name == "_find_and_load_unlocked":
            with open(log, "a", encoding="utf-8") as file:
                file.write(f"{name} <- {where(sys._getframe(1))}\n")
        return None


def where(frame) -> str:
    """The import's callers outside importlib, innermost first: ``studio/x.py:12 <- studio/y.py:40``."""
    found = []
    while frame is not None and len(found) < 6:
        code = frame.f_code
        if "importlib" not in code.co_filename and "<frozen" not in code.co_filename:
            found.append(f"{'/'.join(code.co_filename.split(os.sep)[-2:])}:{frame.f_lineno}")
        frame = frame.f_back
    return " <- ".join(found)


sys.meta_path.insert(0, NoTorchGuard())
