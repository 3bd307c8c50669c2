"""One training request: RunOptions through argv and the train CLI's parser, and training.json's one reader."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from conftest import whole_last_ckpt

from engines.base import VoiceError
from trainer.run.document import RunDocument, read_run, write_run
from trainer.run.options import RunOptions, add_arguments, flag, run_name


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_options_travel_through_argv_unchanged(tmp_path):
    """to_argv, parsed by the train command's own parser, gives the same options back; None stays unsaid."""
    options = RunOptions(
        dataset=tmp_path / "project",
        out=tmp_path / "runs" / "joe-test",
        start="joe",
        preset="test",
        epochs=40,
        batch_size=6,
        device="cpu",
        workers=2,
        devices=1,
        precision="bf16-mixed",
    )
    assert RunOptions.from_args(_parse(options.to_argv())) == options
    short = RunOptions(dataset=tmp_path / "d", out=tmp_path / "o")
    assert "--epochs" not in short.to_argv() and RunOptions.from_args(_parse(short.to_argv())) == short
    assert flag("start") == "--from" and flag("batch_size") == "--batch-size"


def test_a_chosen_gpu_travels_in_the_environment(tmp_path):
    """The Train page's cuda:1 is --device cuda for a trainer that sees only GPU 1."""
    options = RunOptions(dataset=tmp_path, out=tmp_path / "o", device="cuda:1")
    argv = options.to_argv()
    assert argv[argv.index("--device") + 1] == "cuda" and options.environment() == {"CUDA_VISIBLE_DEVICES": "1"}
    assert replace(options, device="auto").environment() == {}


def test_from_args_needs_dataset_and_out():
    """A new run without --dataset or --out is refused in words."""
    from trainer.run.errors import RunError

    with pytest.raises(RunError, match="train needs --dataset and --out"):
        RunOptions.from_args(_parse(["--dataset", "x"]))


def test_run_name_names_start_and_preset():
    """scratch, joe, or the start file's stem; then the preset and the local time."""
    assert run_name("/v/en_US-amy-low.onnx", "low", 0.0).startswith("en_US-amy-low-low-19")
    assert run_name("joe", "test").startswith("joe-test-")


TODAYS_TRAINING_JSON = {
    "version": 1,
    "dataset": "/data/project",
    "cache": "/runs/a/cache",
    "start": "joe",
    "preset": "test",
    "device": "auto",
    "workers": 0,
    "devices": 1,
    "precision": "auto",
    "config": {"epochs": 40, "batch_size": None, "seed": 1234},
    "conversions": ["generator: 1 speaker to 3"],
}
"""A training.json as create_run wrote it before RunOptions travelled to it (json.dumps, indent 2)."""


def test_todays_training_json_reads_and_writes_back_byte_for_byte(tmp_path):
    """The one reader gives the run's options (epochs and batch size from its config); the one writer
    writes the same bytes back; an older file without device, workers, devices, precision and conversions
    reads with the values it ran with."""
    run = tmp_path / "a"
    run.mkdir()
    text = json.dumps(TODAYS_TRAINING_JSON, indent=2)
    (run / "training.json").write_text(text, encoding="utf-8")
    document = read_run(run)
    assert document.options == RunOptions(dataset=Path("/data/project"), out=run, start="joe", preset="test", epochs=40)
    assert document.cache == Path("/runs/a/cache") and document.conversions == ["generator: 1 speaker to 3"]
    write_run(document)
    assert (run / "training.json").read_text(encoding="utf-8") == text
    write_run(document.with_epochs(60))
    assert json.loads((run / "training.json").read_text())["config"] == {**TODAYS_TRAINING_JSON["config"], "epochs": 60}
    older = {
        k: v
        for k, v in TODAYS_TRAINING_JSON.items()
        if k not in ("device", "workers", "devices", "precision", "conversions")
    }
    (run / "training.json").write_text(json.dumps(older), encoding="utf-8")
    assert read_run(run) == RunDocument(options=document.options, cache=document.cache, config=document.config)


def test_a_bad_training_json_names_the_field(tmp_path):
    """A mistyped or missing field is one error naming the file and the field."""
    run = tmp_path / "a"
    run.mkdir()
    (run / "training.json").write_text(json.dumps({**TODAYS_TRAINING_JSON, "workers": "two"}))
    with pytest.raises(VoiceError, match=r"training.json: field 'workers': must be an integer, got 'two'"):
        read_run(run)
    config = {k: v for k, v in TODAYS_TRAINING_JSON["config"].items() if k != "epochs"}
    (run / "training.json").write_text(json.dumps({**TODAYS_TRAINING_JSON, "config": config}))
    with pytest.raises(VoiceError, match=r"field 'config.epochs': missing"):
        read_run(run)


def test_train_cli_refuses_an_unknown_flag_value_before_any_work(tmp_path):
    """The parser built from the fields keeps the choices: --precision fp8 is refused by argparse."""
    command = ["train", "--dataset", str(tmp_path), "--out", str(tmp_path / "o"), "--precision", "fp8"]
    result = subprocess.run([sys.executable, "-m", "studio", *command], capture_output=True, text=True)
    assert result.returncode == 2 and "invalid choice: 'fp8'" in result.stderr and not (tmp_path / "o").exists()


def test_the_train_pages_choices_are_the_options_the_trainer_parses(qtbot, tmp_path):
    """What the setup shows becomes one RunOptions, and the trainer's parser reads exactly it back from argv."""
    from studio.widgets.train_setup import TrainSetup

    setup = TrainSetup()
    qtbot.addWidget(setup)
    setup.dataset.setText(str(tmp_path / "project"))
    setup.start.setCurrentIndex(setup.start.findData("scratch"))
    setup.preset.setCurrentText("test")
    setup.epochs.setValue(7)
    setup.device.setCurrentIndex(setup.device.findData("cpu"))
    options = setup.options(tmp_path / "runs")
    assert (options.dataset, options.start, options.preset, options.epochs, options.device) == (
        tmp_path / "project",
        "scratch",
        "test",
        7,
        "cpu",
    )
    assert options.out.parent == tmp_path / "runs" and options.out.name.startswith("scratch-test-")
    assert RunOptions.from_args(_parse(options.to_argv())) == options
    setup.dataset.setText("")
    with pytest.raises(ValueError, match="Choose a dataset first"):
        setup.options(tmp_path / "runs")


def test_the_train_pages_epochs_box_has_the_parsers_range(qtbot):
    """The epochs box offers exactly what RunOptions and `train --epochs` accept (1..MAX_EPOCHS)."""
    from studio.widgets.train_setup import TrainSetup
    from trainer.run.options import MAX_EPOCHS, bounds

    setup = TrainSetup()
    qtbot.addWidget(setup)
    assert (setup.epochs.minimum(), setup.epochs.maximum()) == bounds("epochs") == (1, MAX_EPOCHS)
    args = _parse(["--epochs", str(MAX_EPOCHS)])
    assert args.epochs == MAX_EPOCHS
    with pytest.raises(SystemExit):
        _parse(["--epochs", str(MAX_EPOCHS + 1)])


def test_the_canary_options_travel_through_argv_training_json_and_a_resume(tmp_path, make_tiny_checkpoint):
    """--eval-every and --eval-lines parse into RunOptions and back; training.json keeps them (and leaves them
    out when not given, as it always was); a resume may change them and says so."""
    from trainer.run.presets import preset
    from trainer.run.resume import resume_settings

    options = RunOptions(dataset=tmp_path / "d", out=tmp_path / "run", preset="test", eval_every=3, eval_lines=4)
    assert RunOptions.from_args(_parse(options.to_argv())) == options
    assert _parse(["--eval-every", "0"]).eval_every == 0
    with pytest.raises(SystemExit):
        _parse(["--eval-lines", "0"])
    (tmp_path / "run").mkdir()
    document = RunDocument(options=replace(options, epochs=2), cache=tmp_path / "c", config=preset("test").to_dict())
    write_run(document)
    read = read_run(tmp_path / "run").options
    assert (read.eval_every, read.eval_lines) == (3, 4)
    write_run(replace(document, options=replace(document.options, eval_every=None, eval_lines=None)))
    assert "eval_every" not in json.loads((tmp_path / "run" / "training.json").read_text())
    whole_last_ckpt(tmp_path / "run", make_tiny_checkpoint)  # a damaged or foreign one is refused first
    assert resume_settings(tmp_path / "run", {}, eval_every=5) == ["resuming with --eval-every 5 (was None)"]
    assert read_run(tmp_path / "run").options.eval_every == 5


def test_the_train_pages_quality_choice_is_the_runs_eval_every(qtbot, tmp_path):
    """Measure quality: with the previews (None), every N epochs (N), off (0): the option the run is given."""
    from studio.widgets.train_setup import TrainSetup

    setup = TrainSetup()
    qtbot.addWidget(setup)
    setup.dataset.setText(str(tmp_path / "project"))
    assert setup.options(tmp_path).eval_every is None and not setup.eval_every.isEnabled()
    setup.evaluate.setCurrentIndex(setup.evaluate.findText("Every"))
    setup.eval_every.setValue(3)
    assert setup.eval_every.isEnabled() and setup.options(tmp_path).eval_every == 3
    assert RunOptions.from_args(_parse(setup.options(tmp_path).to_argv())).eval_every == 3
    setup.evaluate.setCurrentIndex(setup.evaluate.findText("Off"))
    assert setup.options(tmp_path).eval_every == 0
