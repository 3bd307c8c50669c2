"""Deferred imports run under engines.imports.importing, so two threads never import the same libraries at once.

The failure this guards against was seen in CI: a clip's mel spectrogram on a worker thread (librosa → scipy) and
a play on the GUI thread (pyloudnorm → scipy.signal) imported scipy at the same moment, and the GUI thread died
with ``KeyError: 'scipy'``.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from engines.imports import importing, loaded

ROOT = Path(__file__).resolve().parents[1]
OURS = {"engines", "trainer", "studio"}
ALWAYS_LOADED = {"numpy", "PySide6", "pyqtgraph", "typing_extensions", "assets"}
"""Loaded at the studio's start, before any worker thread (or, for ``assets``, our own data package)."""
STDLIB = set(sys.stdlib_module_names)


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(node: ast.stmt) -> list[str]:
    """Dotted names an import statement may load: ``import a.b`` → a.b; ``from a import b`` → a, a.b."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
        return [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
    return []


def _sources() -> dict[str, tuple[Path, ast.Module]]:
    found = {}
    for package in sorted(OURS):
        for path in sorted((ROOT / package).rglob("*.py")):
            found[_module_name(path)] = (path, ast.parse(path.read_text(encoding="utf-8")))
    return found


def heavy_modules(sources: dict[str, tuple[Path, ast.Module]]) -> set[str]:
    """Our modules that import a third-party package when they are imported, directly or through another of ours."""
    top_level = {
        name: [imported for node in tree.body for imported in _imported(node)] for name, (_, tree) in sources.items()
    }
    heavy = {
        name
        for name, imports in top_level.items()
        if any(n.split(".")[0] not in OURS | STDLIB | ALWAYS_LOADED for n in imports)
    }
    grown = True
    while grown:
        grown = False
        for name, imports in top_level.items():
            if name not in heavy and any(n in heavy for n in imports):
                heavy.add(name)
                grown = True
    return heavy


def _needs_lock(name: str, heavy: set[str]) -> bool:
    top = name.split(".")[0]
    if top in OURS:
        return name in heavy
    return top not in STDLIB | ALWAYS_LOADED


def _importing_names(node: ast.With) -> set[str] | None:
    for item in node.items:
        call = item.context_expr
        if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "importing":
            return {arg.value for arg in call.args if isinstance(arg, ast.Constant)}
    return None


def unguarded_imports() -> list[str]:
    """``path:line: name`` for each import inside a function that loads a third-party package (or one of our
    modules that does) outside a ``with importing(...)`` naming it."""
    sources = _sources()
    heavy = heavy_modules(sources)
    problems = []
    for path, tree in sources.values():
        if path.name == "imports.py" and path.parent.name == "engines":
            continue

        def visit(node: ast.AST, in_function: bool, guarded: set[str], path: Path = path) -> None:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                in_function = True
            if isinstance(node, ast.With) and (names := _importing_names(node)) is not None:
                guarded = guarded | names
            if in_function and isinstance(node, (ast.Import, ast.ImportFrom)):
                imported = _imported(node)
                module = imported[0] if isinstance(node, ast.ImportFrom) else None
                for name in imported:
                    if not _needs_lock(name, heavy):
                        continue
                    if name in guarded or (module is not None and module in guarded and name != module):
                        continue
                    problems.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
            for child in ast.iter_child_nodes(node):
                visit(child, in_function, guarded)

        visit(tree, False, set())
    return problems


def test_every_deferred_import_is_under_the_lock():
    """Each import inside a function of a third-party module, or of our modules that import one when loaded,
    sits in ``with importing(...)`` naming what it imports."""
    assert unguarded_imports() == []


def test_the_scan_finds_an_unguarded_import(tmp_path, monkeypatch):
    """The scan itself: a function importing scipy bare is reported, the same import under the lock is not."""
    package = tmp_path / "engines"
    package.mkdir()
    (package / "bare.py").write_text("def f():\n    import scipy\n")
    (package / "kept.py").write_text(
        "from engines.imports import importing\n\ndef g():\n    with importing('scipy'):\n        import scipy\n"
    )
    for other in ("trainer", "studio"):
        (tmp_path / other).mkdir()
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    assert unguarded_imports() == ["engines/bare.py:2: scipy"]


def test_librosa_is_only_reached_through_librosa_ready():
    """No module imports librosa itself: its lazily attached submodules would load on first attribute access,
    on whatever thread, outside the lock."""
    offenders = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path, tree in _sources().values()
        if path != ROOT / "engines" / "imports.py"
        for node in ast.walk(tree)
        if any(name.split(".")[0] == "librosa" for name in _imported(node))
    ]
    assert offenders == []


LIBROSA_SCRIPT = """
import sys
import numpy as np
from engines.imports import librosa_ready
from studio.widgets.mel_view import mel_db
from trainer.evaluate import measures

librosa = librosa_ready()
before = set(sys.modules)
audio = np.random.default_rng(0).standard_normal(22050).astype(np.float32)
mel_db(audio, 22050)
librosa.effects.trim(audio, top_db=40)
librosa.sequence.dtw(X=np.ones((3, 5)), Y=np.ones((3, 6)), metric="euclidean")
print(sorted(name for name in set(sys.modules) - before if not name.startswith("numba.")))
"""


def test_librosa_ready_leaves_nothing_to_import_on_first_use():
    """After librosa_ready(), the librosa calls our code makes import no further module (numba's own, made
    under its compiler lock when it compiles, aside); run in a fresh interpreter."""
    pytest.importorskip("librosa")
    result = subprocess.run(
        [sys.executable, "-c", LIBROSA_SCRIPT], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "[]"


def test_importing_serializes_and_skips_the_lock_once_loaded():
    """While one thread imports under the lock another waits; for loaded modules the lock is not taken."""
    order: list[str] = []
    inside = threading.Event()
    release = threading.Event()

    def first() -> None:
        with importing("a_module_nobody_has_loaded"):
            order.append("first in")
            inside.set()
            release.wait(30)
            order.append("first out")

    def second() -> None:
        with importing("another_module_nobody_has_loaded"):
            order.append("second in")

    one = threading.Thread(target=first)
    one.start()
    inside.wait(30)
    two = threading.Thread(target=second)
    two.start()
    with importing("json"):  # loaded: no wait although the lock is held
        order.append("loaded, no wait")
    release.set()
    one.join(30)
    two.join(30)
    assert order == ["first in", "loaded, no wait", "first out", "second in"]
    assert loaded("json") and not loaded("a_module_nobody_has_loaded")
    with pytest.raises(ValueError):
        with importing():
            pass
