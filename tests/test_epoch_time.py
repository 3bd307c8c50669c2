"""How long a run's epochs take, said before it starts: the arithmetic, its sentence and its figures
(``trainer.run.epoch_time``, ``trainer.run.step_timing``)."""

from __future__ import annotations

import json
import math
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.events.words import duration
from trainer.run.epoch_time import (
    DECODER_LOSSES_COST,
    EVENING_S,
    FIGURES_VERSION,
    PRESET_STEP_S,
    StepFigure,
    StepKey,
    estimate,
    estimate_basis,
    estimate_sentence,
    evening_epochs,
    figure_from_runs,
    held_out,
    preset_figure,
    remember,
    remembered,
    steps_per_epoch,
)

HERE = StepKey(host=socket.gethostname(), device="cpu", quality="medium", precision="32-true")


def test_an_epoch_is_its_steps_and_the_time_around_them():
    """38 training clips in batches of 8 are 5 steps; 1,000 epochs of 5 steps of 8.5 s and 0.7 s around them
    take 1,000 x 43.2 s; on a CPU that is more than an evening, so the count that fits one is suggested."""
    figure = StepFigure(step_s=8.5, batch_size=8, source="a step timed on this machine", around_s=0.7)
    e = estimate(figure, epochs=1000, train_clips=38, batch_size=8, cpu=True)
    assert e.steps == math.ceil(38 / 8) and e.epoch_s == pytest.approx(e.steps * 8.5 + 0.7)
    assert e.total_s == pytest.approx(1000 * e.epoch_s)
    fits = int(EVENING_S // e.epoch_s)
    assert e.evening == fits // 10 * 10 and e.evening * e.epoch_s <= EVENING_S
    assert estimate_sentence(e) == (
        f"1,000 epochs ≈ {duration(e.total_s)} on this CPU; {e.evening:,} epochs fit an evening (4 h)."
    )
    assert estimate_sentence(e, flag=True).endswith(f"(4 h): --epochs {e.evening}.")
    assert estimate_basis(e) == (
        f"{duration(e.epoch_s)} an epoch: 5 steps of {duration(8.5)} and {duration(0.7)} of validation and "
        "checkpoints, from a step timed on this machine."
    )


def test_a_step_scales_with_the_batch_and_a_gpu_gets_no_evening_suggestion():
    """A figure timed with 4 clips a step stands for twice the time with 8; on a GPU nothing is suggested,
    and a CPU run that fits an evening is not told to shorten."""
    figure = StepFigure(step_s=1.0, batch_size=4, source="x")
    gpu = estimate(figure, epochs=100_000, train_clips=16, batch_size=8, cpu=False)
    assert gpu.epoch_s == pytest.approx(2 * 2.0) and gpu.evening is None
    assert estimate_sentence(gpu) == f"100,000 epochs ≈ {duration(gpu.total_s)} on this GPU."
    short = estimate(figure, epochs=10, train_clips=16, batch_size=8, cpu=True)
    assert short.evening is None and estimate_sentence(short) == f"10 epochs ≈ {duration(40.0)} on this CPU."
    resumed = estimate(figure, epochs=1, train_clips=16, batch_size=8, cpu=True, more=True)
    assert estimate_sentence(resumed).startswith("1 more epoch ≈ ")


@pytest.mark.parametrize(("fits", "suggested"), [(337, 330), (1937, 1900), (48, 48), (7, 7), (12_345, 12_000)])
def test_the_evening_count_is_rounded_down_to_two_significant_figures(fits, suggested):
    """The epochs that fit an evening, rounded down to two significant figures: never more than fit."""
    epoch_s = EVENING_S / (fits + 0.5)  # ``fits`` whole epochs fit, ``fits + 1`` do not
    assert evening_epochs(epoch_s) == suggested


def test_one_epoch_longer_than_an_evening_is_said():
    """An epoch that alone takes more than 4 h: no count is suggested, the sentence says why."""
    e = estimate(
        StepFigure(step_s=EVENING_S + 60, batch_size=8, source="x"), epochs=3, train_clips=8, batch_size=8, cpu=True
    )
    assert e.evening == 0 and estimate_sentence(e).endswith("one epoch takes longer than an evening (4 h).")


def test_held_out_counts_what_the_data_split_holds_out():
    """The validation count the estimate leaves out of each epoch's steps is the data module's split's."""
    from trainer.data.split import split
    from trainer.run.presets import preset

    config = preset("medium")
    for clips in (1, 2, 3, 20, 40, 240, 2000):
        _, validation = split(clips, config.val_fraction, config.max_val, config.seed)
        assert held_out(clips, config.val_fraction, config.max_val) == len(validation)
    assert steps_per_epoch(0, 8) == 1 and steps_per_epoch(16, 8) == 2 and steps_per_epoch(17, 8) == 3


def test_preset_figures_stand_for_a_cpu_only():
    """The preset's figure: medium's on a CPU in float32 (batch 8), low takes medium's generator's; a GPU and a
    preset never measured have none."""
    figure = preset_figure(HERE)
    assert figure is not None and figure.step_s == PRESET_STEP_S[("medium", "32-true")] and figure.batch_size == 8
    low = preset_figure(StepKey(host="h", device="cpu", quality="low", precision="32-true"))
    assert low is not None and low.step_s == figure.step_s
    assert preset_figure(StepKey(host="h", device="NVIDIA H200", quality="medium", precision="bf16-mixed")) is None
    assert preset_figure(StepKey(host="h", device="cpu", quality="high", precision="32-true")) is None


def test_a_timed_step_is_remembered_per_machine_device_generator_and_precision(tmp_path):
    """A figure kept for one key is found for that key only; a garbled file is no figure (and is replaced)."""
    path = tmp_path / "step-times.json"
    figure = StepFigure(step_s=9.25, batch_size=8, source="a step timed on this machine")
    assert remembered(HERE, path) is None
    remember(HERE, figure, path)
    assert remembered(HERE, path) == figure
    other = StepKey(host=HERE.host, device="cpu", quality="medium", precision="bf16-mixed")
    assert remembered(other, path) is None
    path.write_text("{not json", encoding="utf-8")
    assert remembered(HERE, path) is None
    remember(other, figure, path)
    assert remembered(other, path) == figure and json.loads(path.read_text())["version"] == FIGURES_VERSION


def _run(
    folder: Path,
    *,
    model: dict,
    host: str | None,
    precision: str,
    train_s: list[float],
    batches: int,
    config: dict | None = None,
) -> Path:
    """A run folder as a trainer leaves it: ``training.json`` naming its generator (and ``config``'s other
    settings), and events of its epochs."""
    from trainer.events.log import EventLog
    from trainer.events.schema import Epoch, Progress, RunStart

    folder.mkdir(parents=True)
    document = {"version": 1, "config": {**(config or {}), "model": model}}
    (folder / "training.json").write_text(json.dumps(document), encoding="utf-8")
    log = EventLog(folder / "events.jsonl")
    log.emit(
        RunStart(
            config={},
            num_utterances=38,
            device="cpu",
            epochs=9,
            start="joe",
            precision=precision,
            batch_size=8,
            host=host,
        )
    )
    for epoch, seconds in enumerate(train_s):
        log.emit(Progress(epoch=epoch, step=epoch * batches, batches=batches, items_per_s=1.0, batches_total=batches))
        times = {
            "seconds": seconds + 1.0,
            "train_s": seconds,
            "val_s": 0.75,
            "preview_s": 0.0,
            "checkpoint_wait_s": 0.25,
        }
        log.emit(Epoch(epoch=epoch, step=(epoch + 1) * batches, losses={}, learning_rates={}, **times))
    log.close()
    return folder


def test_earlier_runs_of_the_same_generator_here_give_the_figure(tmp_path):
    """The newest run of the same generator, precision and machine gives the median epoch's training time per
    step and the median time around the steps; runs elsewhere, in another precision, of another generator or
    without an epoch are passed over."""
    from trainer.run.presets import preset

    medium, x_low = preset("medium").model.to_dict(), preset("x-low").model.to_dict()
    mine = _run(tmp_path / "mine", model=medium, host=HERE.host, precision="32-true", train_s=[50, 40, 45], batches=5)
    _run(tmp_path / "older-no-host", model=medium, host=None, precision="32-true", train_s=[99], batches=5)
    for name, changes in {
        "elsewhere": {"host": "another-machine"},
        "bf16": {"precision": "bf16-mixed"},
        "x-low": {"model": x_low},
        "no-epoch": {"train_s": []},
    }.items():
        settings = {"model": medium, "host": HERE.host, "precision": "32-true", "train_s": [1.0], "batches": 5}
        _run(tmp_path / name, **{**settings, **changes})
    older = figure_from_runs([tmp_path / "older-no-host"], HERE, {**medium, "num_symbols": 999})  # symbols aside
    assert older is not None and older.step_s == pytest.approx(99 / 5)  # before hosts were recorded: this one
    folders = [p for p in tmp_path.iterdir() if p.name != "older-no-host"]
    figure = figure_from_runs(folders, HERE, medium)
    assert figure is not None and figure.step_s == pytest.approx(45 / 5) and figure.around_s == pytest.approx(1.0)
    assert figure.batch_size == 8 and figure.source == f"run {mine.name}'s 3 epochs on this machine"


def test_a_step_of_the_test_preset_is_timed_in_a_child_process(tmp_path):
    """A real step timed in a child process on real clips: a positive figure with the preset's batch size,
    then remembered, so the next estimate needs no timing (and says where its figure comes from)."""
    pytest.importorskip("lightning")
    from conftest import target_voice_slice

    from trainer.run.options import RunOptions
    from trainer.run.step_timing import TIMED_HERE, estimate_run, step_key, time_in_child

    folder = target_voice_slice(tmp_path / "piper-data", 12)
    options = RunOptions(dataset=folder, out=tmp_path / "runs" / "new", preset="test", device="cpu")
    figure = time_in_child(options)
    assert 0 < figure.step_s < 60 and figure.batch_size == 4 and figure.source == TIMED_HERE
    remember(step_key(options), figure)
    timed = []
    e = estimate_run(options, 12, time_now=True, timing=timed.append)
    assert not timed and e is not None and e.figure == figure and e.epochs == 2
    assert e.steps == steps_per_epoch(12 - 1, 4) and estimate_sentence(e).startswith("2 epochs ≈ ")


def test_a_run_with_settings_is_timed_on_its_own_and_not_remembered(tmp_path):
    """--set may change a step's cost (the decoder's losses, more discriminators): an estimate for such a run
    times a real step though a figure is remembered for its key, and leaves that figure as it was."""
    pytest.importorskip("lightning")
    from dataclasses import replace

    from conftest import target_voice_slice

    from trainer.run.epoch_time import StepFigure
    from trainer.run.options import RunOptions
    from trainer.run.step_timing import TIMED_HERE, estimate_run, step_key

    folder = target_voice_slice(tmp_path / "piper-data", 12)
    plain = RunOptions(dataset=folder, out=tmp_path / "runs" / "new", preset="test", device="cpu")
    kept = StepFigure(step_s=123.0, batch_size=4, source="an earlier timing")
    remember(step_key(plain), kept)
    timed = []
    e = estimate_run(replace(plain, settings=("stft_loss=0",)), 12, time_now=True, timing=timed.append)
    assert timed and e is not None and e.figure.source == TIMED_HERE and e.figure.step_s < 60
    assert remembered(step_key(plain)) == kept


def test_train_check_prints_the_findings_and_the_estimate(tmp_path):
    """``voice-studio train --check`` says what Check says, time included, and trains nothing; a dataset
    that cannot train is one line and exit 2."""
    pytest.importorskip("lightning")
    from conftest import ROOT, target_voice_slice

    folder = target_voice_slice(tmp_path / "piper-data", 6)
    out = tmp_path / "runs" / "new"
    command = [sys.executable, "-m", "studio.cli", "train", "--dataset", str(folder), "--out", str(out)]
    done = subprocess.run(
        [*command, "--preset", "test", "--epochs", "30", "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    assert "warning: Only 6 clips" in done.stdout and "30 epochs ≈ " in done.stdout and "on this CPU" in done.stdout
    assert not out.exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "metadata.csv").write_text("", encoding="utf-8")
    refused = subprocess.run(
        [*command[:5], str(empty), "--out", str(out), "--check"], capture_output=True, text=True, cwd=ROOT
    )
    assert refused.returncode == 2 and refused.stderr.strip().splitlines()[-1].endswith("to fix before training")


def test_a_smoke_test_from_joe_is_timed_with_joes_generator(tmp_path):
    """A ``test`` run from joe trains joe's medium generator: its step key says so, so neither the test preset's
    figure nor a step timed from scratch stands in for it (the reported 51 s estimate of an 8-minute run)."""
    pytest.importorskip("torch")
    from trainer.run.options import RunOptions
    from trainer.run.step_timing import step_key

    def key(start: str) -> StepKey:
        return step_key(RunOptions(dataset=tmp_path, out=tmp_path / "run", preset="test", device="cpu", start=start))

    scratch, joe = key("scratch"), key("joe")
    assert scratch.generator == "" and joe.generator == "medium" and joe.quality == "test"
    assert joe.text() != scratch.text() and "test+medium-generator" in joe.text()
    assert preset_figure(joe) is None and preset_figure(scratch) is not None


def test_a_fine_tunes_step_and_one_from_scratch_are_told_apart(tmp_path):
    """A fine-tune's step computes the decoder's own losses (about a third longer) and one from scratch does not:
    their keys differ, so neither a remembered figure nor an earlier run of one kind stands in for the other, and
    the preset's figure is scaled for a fine-tune (a scratch run was estimated from fine-tunes' steps); a fine-tune
    with both losses set to 0 is timed as a step without them."""
    pytest.importorskip("torch")
    from dataclasses import replace

    from trainer.run.options import RunOptions
    from trainer.run.presets import preset
    from trainer.run.step_timing import step_key

    base = RunOptions(dataset=tmp_path, out=tmp_path / "run", preset="medium", device="cpu", precision="32-true")
    scratch, joe = step_key(base), step_key(replace(base, start="joe"))
    assert not scratch.decoder_losses and joe.decoder_losses and scratch.text() != joe.text()
    off = step_key(replace(base, start="joe", settings=("stft_loss=0", "prior_mel=0")))
    assert not off.decoder_losses and off.text() == scratch.text()
    path = tmp_path / "step-times.json"
    remember(joe, StepFigure(step_s=7.0, batch_size=8, source="x"), path)
    assert remembered(scratch, path) is None and remembered(joe, path) is not None
    medium = preset("medium").model.to_dict()
    losses = {"stft_loss": 0.5, "prior_mel": 0.5}
    tuned = _run(
        tmp_path / "tuned", model=medium, host=HERE.host, precision="32-true", train_s=[70.0], batches=5, config=losses
    )
    keys = {k: replace(k, precision="32-true") for k in (scratch, joe)}
    assert figure_from_runs([tuned], keys[scratch], medium) is None
    assert figure_from_runs([tuned], keys[joe], medium).step_s == pytest.approx(70 / 5)
    plain, tuned_figure = preset_figure(keys[scratch]), preset_figure(keys[joe])
    assert tuned_figure.step_s == pytest.approx(plain.step_s * DECODER_LOSSES_COST)
    assert "with the decoder's own losses" in tuned_figure.source and "losses" not in plain.source
