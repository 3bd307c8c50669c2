"""The voice-studio command refuses bad options and inputs before any work, in one line with exit 2
(run as a user runs it: a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile

from trainer.run.errors import RunError
from trainer.run.options import RunOptions

ROOT = Path(__file__).resolve().parents[1]
"""The checkout under test: the subprocesses run in a temporary folder, and import from here."""


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    return subprocess.run(
        [sys.executable, "-m", "studio", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=cwd,
    )


OUT_OF_RANGE = [
    ("serve", "--port", "99999"),
    ("serve", "--workers", "0"),
    ("serve", "--queue", "-1"),
    ("serve", "--max-chars", "0"),
    ("train", "--epochs", "-3"),
    ("train", "--epochs", "0"),
    ("train", "--devices", "0"),
    ("train", "--batch-size", "0"),
    ("train", "--workers", "-1"),
    ("dataset fix P --resample", "--rate", "0"),
    ("dataset export P --out X", "--rate", "-5"),
    ("dataset cache P --out X", "--rate", "0"),
    ("dataset cache P --out X", "--rate", "12345"),
    ("dataset import src --project P", "--workers", "0"),
    ("dataset slice src --project P", "--min", "0"),
    ("say Hello. -o X.wav", "--length-scale", "0"),
    ("say Hello. -o X.wav", "--sentence-silence", "-1"),
    ("say Hello. -o X.wav", "--pcm-rate", "5"),
]


@pytest.mark.parametrize(("command", "option", "value"), OUT_OF_RANGE)
def test_numbers_out_of_range_are_refused_naming_the_option(tmp_path, command, option, value):
    """Each numeric option's range is checked while parsing: exit 2, the option named, nothing made."""
    train = ["--dataset", "D", "--out", "tr", "--preset", "test"] if command == "train" else []
    result = run_cli(*command.split(), *train, option, value, cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert f"argument {option}: {value}" in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_run_options_check_their_own_ranges():
    """RunOptions (as the Train page builds them) refuses what the parser refuses, naming the flag."""
    for wrong, flag in ((dict(epochs=0), "--epochs"), (dict(devices=0), "--devices"), (dict(device="gpu"), "--device")):
        with pytest.raises(RunError, match=flag):
            RunOptions(dataset=Path("D"), out=Path("O"), **wrong)
    assert RunOptions(dataset=Path("D"), out=Path("O"), device="cuda:1").environment() == {"CUDA_VISIBLE_DEVICES": "1"}


def test_train_takes_cuda_n_as_say_does(tmp_path):
    """--device cuda:N is accepted (the run then fails on the missing dataset, not on the device)."""
    result = run_cli("train", "--dataset", "missing", "--out", "tr", "--device", "cuda:0", cwd=tmp_path)
    assert "argument --device" not in result.stderr
    assert result.returncode == 2 and "missing" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "command",
    [
        "dataset report P -o r.pdf",
        "say Hello. -o r.pdf",
        "export joe -o r.pdf",
    ],
)
def test_output_extensions_are_checked_before_work(tmp_path, command):
    """A -o whose extension chooses the format is refused when unknown, and nothing is written."""
    from trainer.dataset.project import DatasetProject

    DatasetProject.create(tmp_path / "P").save()  # an empty project: its report is quick
    result = run_cli(*command.split(), cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert "r.pdf" in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "r.pdf").exists()


@pytest.mark.parametrize("text", ["", "🙂", "?!..."])
def test_say_nothing_speakable_exits_2(tmp_path, text):
    """Text without speakable words is refused (exit 2) with a reason, and no file is written."""
    result = run_cli("say", text, "-o", "none.wav", cwd=tmp_path)
    assert result.returncode == 2
    assert "nothing to say" in result.stderr
    assert not (tmp_path / "none.wav").exists()


def _wav(path: Path) -> Path:
    rate = 22050
    t = np.arange(rate) / rate
    soundfile.write(str(path), (0.3 * np.sin(2 * np.pi * 220 * t)).astype("float32"), rate)
    return path


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["import", "nowhere"], "nowhere: no such file or folder"),
        (["import", "notproj"], "no recordings found there"),
        (["slice", "nowhere"], "nowhere: no such file or folder"),
        # faster-whisper is installed with the compare extra (the Whisper WER); its own models are the user's
        (["slice", "long.wav", "--recognizer", "faster-whisper"], "faster-whisper needs a model"),
        (["slice", "long.wav", "--min", "5", "--max", "2"], "--min 5 must be less than --max 2"),
    ],
)
def test_import_and_slice_check_inputs_before_making_the_project(tmp_path, args, said):
    """A missing source, a folder with no recordings, a recognizer without its model or bad bounds: exit 2 with
    the reason, and no project folder."""
    (tmp_path / "notproj").mkdir()
    (tmp_path / "notproj" / "notes.txt").write_text("no audio here", encoding="utf-8")
    _wav(tmp_path / "long.wav")
    result = run_cli("dataset", *args, "--project", "P", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert said in result.stderr and "Traceback" not in result.stderr
    if args[1] == "notproj":
        assert ".wav" in result.stderr  # which recordings are read
    assert not (tmp_path / "P").exists()


@pytest.mark.parametrize("given", [["--url", "http://127.0.0.1:9"], ["--model", "m"], ["--sse"], ["--format", "wav"]])
def test_say_notes_remote_options_without_remote_engine(tmp_path, given):
    """A remote-only option given to the local engine is pointed out, not dropped silently."""
    result = run_cli("say", "Hi.", "-o", "hi.wav", "--quiet", *given, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert f"note: {given[0]}: only for --engine remote" in result.stderr


def test_a_training_json_value_out_of_range_names_the_file(tmp_path):
    """train --resume on a run whose training.json says devices 0: exit 2 naming the file and the option."""
    run = tmp_path / "run"
    run.mkdir()
    document = {"version": 1, "dataset": "D", "cache": "C", "start": "scratch", "preset": "test", "device": "cpu"}
    document |= {"workers": 0, "devices": 0, "precision": "auto", "config": {"epochs": 2, "batch_size": None}}
    (run / "training.json").write_text(json.dumps(document), encoding="utf-8")
    result = run_cli("train", "--resume", "run", cwd=tmp_path)
    assert result.returncode == 2, result.stderr
    assert f"{Path('run') / 'training.json'}: --devices: 0 is out of range" in result.stderr
    assert "Traceback" not in result.stderr
