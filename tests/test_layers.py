"""Architecture rules: lazy heavy imports and the one-way dependency direction."""

from __future__ import annotations

import ast
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
