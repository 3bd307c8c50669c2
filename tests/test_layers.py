"""Architecture rules: lazy heavy imports, the one-way dependency direction, the trainer's packages and what each
may import, and no import cycle anywhere."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _imports(package: str) -> set[str]:
    names = set()
    for path in (ROOT / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    return names


def test_import_engines_loads_no_heavy_package():
    """import engines (and its registry) loads neither torch nor onnxruntime nor Qt."""
    code = (
        "import sys, engines, engines.registry, engines.voice, engines.phonemes, engines.playback\n"
        "heavy = [m for m in ('torch', 'onnxruntime', 'PySide6', 'sounddevice') if m in sys.modules]\n"
        "print(','.join(heavy))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


@pytest.mark.parametrize(
    ("package", "forbidden"),
    [("engines", {"PySide6", "pyqtgraph", "studio", "trainer"}), ("trainer", {"PySide6", "pyqtgraph", "studio"})],
)
def test_dependency_direction(package, forbidden):
    """engines imports neither Qt nor the layers above it; trainer imports no Qt and not studio."""
    assert not (_imports(package) & forbidden)


HEAVY = ("PySide6", "torch", "onnxruntime", "lightning", "sounddevice", "httpx", "fastapi")


def _heavy_after(code: str) -> str:
    """The heavy packages loaded after running ``code`` in a fresh interpreter, comma-separated."""
    code += f"\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def test_cli_help_does_not_import_qt():
    """The command line builds every subcommand's parser (choices from their owners) without loading Qt,
    torch, onnxruntime, Lightning or the HTTP stacks."""
    assert _heavy_after("import sys\nfrom studio import cli\ncli.build_parser()") == ""


def test_train_presets_load_without_torch():
    """The trainer's presets and run options, which the CLI and the Train page offer, load without torch."""
    code = "import sys\nfrom trainer.run.presets import PRESETS\nfrom trainer.run.options import DEVICES, PRECISIONS"
    assert _heavy_after(code) == ""


def test_preview_lines_load_without_torch():
    """The Compare page reads a run's preview lines (trainer.evaluate.lines.preview_lines) without loading torch or
    Lightning (trainer.run.callbacks imports both, about 9 s); they are the lines the run's previews speak."""
    code = (
        "import sys\nfrom trainer.evaluate.lines import preview_lines\n"
        "assert [line.text for line in preview_lines()][0].startswith('The quick brown fox')"
    )
    assert _heavy_after(code) == ""


OURS = ("engines", "trainer", "studio")
TRAINER_PACKAGES = {"align", "checkpoints", "data", "dataset", "evaluate", "events", "gan", "run", "start"}
"""``trainer``'s subpackages; the last six are the training itself, each ``__init__`` saying what it may import."""
TRAINER_TOP = {"__init__", "out_folder", "tasks", "time_left"}
"""The modules at ``trainer``'s top level: what every part of it may use."""


def _module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _sources(root: Path) -> dict[str, tuple[Path, ast.Module]]:
    """Our modules by dotted name: their file and its syntax tree."""
    return {
        _module_name(path, root): (path, ast.parse(path.read_text(encoding="utf-8")))
        for package in OURS
        for path in sorted((root / package).rglob("*.py"))
    }


def _source_module(node: ast.ImportFrom, name: str, path: Path) -> str:
    """The module a ``from … import`` reads, a relative one resolved against module ``name`` (file ``path``)."""
    if not node.level:
        return node.module or ""
    parts = name.split(".")
    parts = parts[: len(parts) - node.level + (path.name == "__init__.py")]
    return ".".join(parts + ([node.module] if node.module else []))


def _named(node: ast.AST, name: str, path: Path, modules: set[str]) -> set[str]:
    """Our modules an import statement of module ``name`` loads: ``import a.b`` → a.b; ``from a import b`` → a.b
    where that is a module, else a."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in modules}
    if not isinstance(node, ast.ImportFrom):
        return set()
    source = _source_module(node, name, path)
    found = {f"{source}.{alias.name}" for alias in node.names if f"{source}.{alias.name}" in modules}
    if len(found) < len(node.names) and source in modules:
        found.add(source)  # a name defined in (or imported into) the module or package itself
    return found


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    """Each of our modules → our modules it imports anywhere: at module level, inside functions (deferred imports)
    and under ``TYPE_CHECKING`` alike."""
    sources = _sources(root)
    modules = set(sources)
    return {
        name: {imported for node in ast.walk(tree) for imported in _named(node, name, path, modules)} - {name}
        for name, (path, tree) in sources.items()
    }


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or round a loop (strongly connected components of
    more than one module, Tarjan's algorithm), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = stack[stack.index(module) :]
            del stack[stack.index(module) :]
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(cycles)


def test_no_import_cycles():
    """No two modules of engines, trainer or studio import each other, directly or round a loop, at module level
    or inside a function."""
    assert import_cycles(import_graph()) == []


def test_the_cycle_scan_finds_a_deferred_cycle(tmp_path):
    """The scan itself: a loop of three modules closed by an import inside a function is found, and a package
    whose ``__init__`` imports a module that imports the package back; one-way imports are not."""
    for package in OURS:
        (tmp_path / package).mkdir()
    (tmp_path / "engines" / "a.py").write_text("from engines.b import x\n")
    (tmp_path / "engines" / "b.py").write_text("import engines.c\n\nx = 1\n")
    (tmp_path / "engines" / "c.py").write_text("def f():\n    from engines import a\n")
    (tmp_path / "engines" / "one_way.py").write_text("from engines.b import x\n")
    (tmp_path / "trainer" / "gan").mkdir()
    (tmp_path / "trainer" / "gan" / "__init__.py").write_text("from trainer.gan.step import Step\n")
    (tmp_path / "trainer" / "gan" / "step.py").write_text("from trainer.gan import LOSSES\n")
    assert import_cycles(import_graph(tmp_path)) == [
        ["engines.a", "engines.b", "engines.c"],
        ["trainer.gan", "trainer.gan.step"],
    ]


def test_trainer_layout():
    """trainer keeps its modules in packages by concern; only what every part uses stays at the top."""
    assert {p.name for p in (ROOT / "trainer").iterdir() if (p / "__init__.py").is_file()} == TRAINER_PACKAGES
    assert {p.stem for p in (ROOT / "trainer").glob("*.py")} == TRAINER_TOP


def may_import(package: str) -> tuple[str, ...]:
    """What ``trainer.<package>``'s ``__init__`` docstring says it may import: the names in its ``May import:``
    paragraph (each a package or module, meaning it and everything in it)."""
    doc = ast.get_docstring(ast.parse((ROOT / "trainer" / package / "__init__.py").read_text(encoding="utf-8")))
    found = re.search(r"^May import:(.*?)(?:\n\n|\Z)", doc or "", re.M | re.S)
    assert found, f"trainer/{package}/__init__.py: no 'May import:' paragraph"
    return tuple(re.findall(r"``([\w.]+)``", found.group(1)))


@pytest.mark.parametrize("package", ["run", "start", "gan", "data", "events", "checkpoints"])
def test_each_training_package_imports_only_what_it_says(package):
    """Each training package imports (anywhere in its modules) only itself and what its ``May import:`` says."""
    own = f"trainer.{package}"
    allowed = (own, *may_import(package))
    graph = import_graph()
    outside = {
        f"{module} -> {imported}"
        for module, imports in graph.items()
        if module == own or module.startswith(own + ".")
        for imported in imports
        if not any(imported == name or imported.startswith(name + ".") for name in allowed)
    }
    assert sorted(outside) == []
