"""One lock for the imports we defer to first use, so two threads never import the same libraries at once.

Most third-party libraries are imported inside the function that first needs them, to keep ``import engines``
and the studio's start light. Those functions run on worker threads as well as the GUI thread, so two threads
can start importing overlapping packages at the same moment: a clip's mel spectrogram on a worker (librosa, then
scipy) while the GUI thread plays a clip (pyloudnorm, then ``scipy.signal``). CPython's per-module import locks
do not make that safe with PySide6's import hook installed: one of the two imports can fail half way and take
the package out of ``sys.modules``, and the other then fails with ``KeyError: 'scipy'`` (seen in CI, 1 run in 6
on a loaded 2-core machine). Every deferred import of a third-party module therefore runs under
:func:`importing`, which holds one process-wide lock while any of the named modules is not loaded yet and costs
nothing once they are. ``tests/test_imports.py`` checks that each deferred import in ``engines``, ``trainer`` and
``studio`` is inside ``with importing(...)`` naming exactly the modules it imports.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import ModuleType

_LOCK = threading.RLock()
"""Held while a deferred import runs (re-entrant: a library's import may reach another deferred import)."""


def loaded(name: str) -> bool:
    """True when module ``name`` (a dotted name, e.g. ``"scipy.signal"``) is in ``sys.modules`` and has finished
    executing (a module another thread is still importing is not loaded)."""
    module = sys.modules.get(name)
    if module is None:
        return False
    spec = getattr(module, "__spec__", None)
    return not getattr(spec, "_initializing", False)


@contextmanager
def importing(*names: str) -> Iterator[None]:
    """Run the ``import`` statements of the ``with`` body one thread at a time, unless every module in ``names``
    is already loaded (then it takes no lock).

    ``names`` are the dotted names the body imports, e.g. ``with importing("soundfile", "soxr"):``. Raises
    ValueError when none is given. Exceptions of the body (ImportError for a missing extra) pass through after
    the lock is released.
    """
    if not names:
        raise ValueError("importing() needs the names of the modules the with-block imports")
    if all(loaded(name) for name in names):
        yield
        return
    with _LOCK:
        yield


def librosa_ready() -> ModuleType:
    """The librosa module, with the submodules that our code reaches through attributes, under the import lock.

    librosa attaches its submodules lazily (``lazy_loader``): ``librosa.feature.melspectrogram`` imports
    ``librosa.feature.spectral`` (and with it scipy) at the first attribute access, on whatever thread makes it,
    outside :func:`importing`. Importing them here first makes those accesses plain lookups. Covers
    ``librosa.feature.melspectrogram``, ``librosa.power_to_db``, ``librosa.effects.trim`` and
    ``librosa.sequence.dtw``; raises ImportError when librosa is not installed. Call it instead of
    ``import librosa`` (the test of this module checks that no other module imports librosa).
    """
    modules = ("librosa", "librosa.feature.spectral", "librosa.core.spectrum", "librosa.effects", "librosa.sequence")
    with importing(*modules):
        import librosa
        import librosa.core.spectrum  # noqa: F401
        import librosa.effects  # noqa: F401
        import librosa.feature.spectral  # noqa: F401
        import librosa.sequence  # noqa: F401
    return librosa
