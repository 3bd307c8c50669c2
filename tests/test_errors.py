"""Errors raised on purpose: one root class, and every CLI command tells one in one line with exit code 2."""

from __future__ import annotations

import ast
import builtins
import importlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile
from conftest import target_voice_slice, whole_last_ckpt

from engines.errors import VoiceStudioError

ROOT = Path(__file__).resolve().parents[1]
BUILTIN_ERRORS = {
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
}


def _class_bases(package: str) -> dict[tuple[str, str], set[str]]:
    """``(module, class name) -> names of its bases`` for every class defined in ``package`` (read, not imported)."""
    classes = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases}
                classes[(module, node.name)] = bases
    return classes


def exception_classes(*packages: str) -> list[type[BaseException]]:
    """Every exception class defined in ``packages`` except warnings: the classes whose bases are builtin
    exceptions, names ending in Error or Exception, or such classes of ours (found in the source, so only
    their modules are imported, not torch's), then imported and checked to be exceptions."""
    classes = {key: bases for package in packages for key, bases in _class_bases(package).items()}
    found: set[tuple[str, str]] = set()
    while True:
        names = {name for _, name in found}
        more = {
            key
            for key, bases in classes.items()
            if any(b in BUILTIN_ERRORS or b in names or b.endswith(("Error", "Exception")) for b in bases)
        }
        if more <= found:
            break
        found |= more
    loaded = [getattr(importlib.import_module(module), name) for module, name in sorted(found)]
    return [c for c in loaded if issubclass(c, BaseException) and not issubclass(c, Warning)]


def test_every_error_class_of_engines_and_trainer_derives_from_the_root():
    """A new exception class without VoiceStudioError as a base fails here (its builtin base stays too)."""
    classes = exception_classes("engines", "trainer")
    names = {c.__name__ for c in classes}
    assert {"VoiceError", "EngineError", "ApiError", "CheckpointError", "NotAProject", "RecognizerError"} <= names
    assert [c.__qualname__ for c in classes if not issubclass(c, VoiceStudioError)] == []
    from engines.base import EngineError, VoiceError
    from trainer.checkpoints.writer import CheckpointError
    from trainer.dataset.manifest import NotAProject

    assert issubclass(VoiceError, ValueError) and issubclass(NotAProject, ValueError)
    assert issubclass(EngineError, RuntimeError) and issubclass(CheckpointError, RuntimeError)


def run_cli(*args: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )


@pytest.fixture(scope="module")
def untranscribed_project(tmp_path_factory) -> Path:
    """A dataset project with one clip and no transcript (nothing to train on)."""
    from trainer.dataset.project import DatasetProject

    folder = tmp_path_factory.mktemp("untranscribed")
    wav = folder / "hum.wav"
    soundfile.write(wav, 0.1 * np.sin(np.arange(3 * 22050) / 10).astype(np.float32), 22050)
    project = DatasetProject.create(folder / "project")
    assert project.import_sources([wav], 1).added == ["hum"]
    return project.folder


@pytest.fixture(scope="module")
def run_with_garbled_ranking(tmp_path_factory, make_tiny_checkpoint) -> Path:
    """A prepared run with a resume checkpoint and a ``checkpoints/best.json`` that is not JSON."""
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    folder = tmp_path_factory.mktemp("garbled")
    run = create_run(
        RunOptions(dataset=target_voice_slice(folder / "data", 6), out=folder / "run", preset="test", epochs=2)
    )
    whole_last_ckpt(run, make_tiny_checkpoint)  # a damaged or foreign one is refused first
    (run / "checkpoints").mkdir()
    (run / "checkpoints" / "best.json").write_text("{garbled", encoding="utf-8")
    return run


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("say_unknown_voice", "no-such-voice"),  # VoiceError
        ("export_junk_checkpoint", "junk.ckpt"),  # VoiceError from the checkpoint reader
        ("dataset_not_a_project", "not a dataset project"),  # NotAProject
        ("dataset_unknown_clip", "no clip 'nosuch'"),  # CurationError
        ("train_nothing_to_train", "no clip can be trained on"),  # NothingToTrain
        ("resume_garbled_ranking", "not a checkpoint ranking"),  # CheckpointError (was a traceback, then a hang)
    ],
)
def test_errors_are_one_line_and_exit_code_2(case, expected, request, tmp_path):
    """Each command tells an error raised on purpose in one line on stderr, exit code 2, no traceback."""
    if case == "say_unknown_voice":
        result = run_cli("say", "Hello.", "--voice", "no-such-voice", "-o", tmp_path / "out.wav")
    elif case == "export_junk_checkpoint":
        (tmp_path / "junk.ckpt").write_bytes(b"not a checkpoint")
        result = run_cli("export", tmp_path / "junk.ckpt", "-o", tmp_path / "voice.onnx")
    elif case == "dataset_not_a_project":
        result = run_cli("dataset", "report", tmp_path)
    elif case == "dataset_unknown_clip":
        result = run_cli("dataset", "text", request.getfixturevalue("untranscribed_project"), "nosuch", "Words.")
    elif case == "train_nothing_to_train":
        project = request.getfixturevalue("untranscribed_project")
        result = run_cli("train", "--dataset", project, "--out", tmp_path / "run", "--preset", "test")
    else:
        result = run_cli("train", "--resume", request.getfixturevalue("run_with_garbled_ranking"))
    lines = result.stderr.splitlines()
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert [line for line in lines if "error" in line.lower()] == [lines[-1]], result.stderr
    assert lines[-1].startswith("voice-studio: error: ") and expected in lines[-1]


def test_a_voice_error_survives_the_way_back_from_a_worker_process():
    """A VoiceError (and a subclass) pickles as worker processes send it back: same class, text, path, field and
    detail (unpickling called ``VoiceError(message)`` and failed with a TypeError that hid the error)."""
    import pickle

    from engines.base import VoiceError
    from trainer.dataset.metadata import MetadataError

    for error in (VoiceError("v/us.onnx.json", "no such voice", "espeak.voice", detail="why"), MetadataError("m", "x")):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and str(again) == str(error)
        assert (again.path, again.field, again.detail) == (error.path, error.field, error.detail)
