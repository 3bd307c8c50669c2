"""What the Train page reads: run state from events, and the pre-flight checks on real data."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from conftest import target_voice_slice

from trainer.events import schema as events
from trainer.events.log import EventTail
from trainer.events.run_state import RunState, list_runs, load_run
from trainer.run.options import RunOptions


def _epoch(epoch: int, seconds: float, val_mel: float) -> events.Epoch:
    return events.Epoch(
        epoch=epoch,
        step=10 * (epoch + 1),
        seconds=seconds,
        train_s=seconds - 1.5,
        val_s=1.0,
        preview_s=0.25,
        checkpoint_wait_s=0.25,
        losses={"train_mel": 2.0 - epoch / 10, "val_mel": val_mel},
        learning_rates={"generator": 2e-4, "discriminator": 2e-4},
    )


def test_event_tail_waits_for_a_line_to_end(tmp_path):
    """A record cut mid-line is read once its newline arrives; nothing is read twice."""
    path = tmp_path / "events.jsonl"
    tail = EventTail(path)
    assert tail.read() == []
    line = json.dumps(events.WarningEvent(message="half").to_record()) + "\n"
    path.write_text(line[:20])
    assert tail.read() == []
    with path.open("a") as f:
        f.write(line[20:] + "not json\n")
    assert [(e.kind, e.message) for e in tail.read() if isinstance(e, events.WarningEvent)] == [("warning", "half")]
    assert tail.read() == []


def test_run_state_folds_a_resumed_run(tmp_path):
    """Epochs seen twice keep the latest record; milestones are quarters of a short run; best val_mel; the step
    split of the epochs whose records carry one."""
    state = RunState(tmp_path)
    start = events.RunStart(config={}, num_utterances=16, device="cpu", epochs=8, start="joe")
    state.apply_all([start, _epoch(0, 10.0, 1.5), _epoch(1, 10.0, 1.4), _epoch(2, 99.0, 9.9)])
    assert state.status == "running"
    resume = events.RunStart(config={}, num_utterances=16, device="cpu", epochs=8, start="resume")
    state.apply_all([resume, _epoch(2, 10.0, 1.2), _epoch(3, 10.0, 1.3)])
    assert state.start == "joe" and state.epochs_done == 4 and state.train_seconds == 40.0
    assert state.best_val_mel == 1.2
    assert state.milestones() == [(2, 20.0), (4, 40.0), (6, None), (8, None)]
    assert state.epoch_split()[0] == (0, [8.5, 1.0, 0.25, 0.25])
    assert state.step_split() == []  # these records carry no step split
    state.apply(replace(_epoch(4, 10.0, 1.3), step_s={"data": 4.0, "backward": 2.0}))
    assert state.step_split() == [(4, [4.0, 0.0, 0.0, 0.0, 2.0, 0.0, 2.5])]
    state.apply(events.Finish(epochs=4, seconds=50.0, setup_s=5.0, status="stopped"))
    assert state.status == "stopped"


def test_milestones_of_a_long_run_are_the_fixed_epochs(tmp_path):
    """A 1,000-epoch run shows epochs 100, 250, 500 and 1,000."""
    state = RunState(tmp_path, epochs_total=1000)
    assert [m for m, _ in state.milestones()] == [100, 250, 500, 1000]


def test_list_runs_reads_run_folders(tmp_path):
    """Folders with a training.json are runs; their events give the state."""
    run = tmp_path / "a-run"
    run.mkdir()
    (run / "training.json").write_text(json.dumps({"version": 1, "start": "scratch", "config": {"epochs": 3}}))
    (run / "events.jsonl").write_text(json.dumps(_epoch(0, 5.0, 1.0).to_record()) + "\n")
    (tmp_path / "not-a-run").mkdir()
    runs = list_runs(tmp_path)
    assert [r.folder.name for r in runs] == ["a-run"] and runs[0].epochs_done == 1
    assert load_run(run, with_events=False).epochs_done == 0


@pytest.fixture(scope="module")
def project_32k(tmp_path_factory):
    """A project of 6 target-voice clips as recorded (32 kHz)."""
    from trainer.dataset.project import DatasetProject

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "data", 6)
    project = DatasetProject.create(tmp_path_factory.mktemp("p") / "project")
    project.import_sources([folder], workers=1)
    return project


def test_preflight_on_real_clips(project_32k, tmp_path):
    """32 kHz clips against joe: the resample offer, the few-clips warning; a missing GPU is an error."""
    pytest.importorskip("torch")
    import torch

    from trainer.run.preflight import preflight

    options = RunOptions(dataset=project_32k.folder, out=tmp_path / "run", start="joe", preset="test", epochs=2)
    findings = preflight(replace(options, device="cpu"))
    assert not any(f.blocking for f in findings)
    assert any(f.fix == "resample" and f.fix_rate == 22050 and "6 at 32,000 Hz" in f.message for f in findings)
    assert any("Only 6 clips" in f.message for f in findings)
    if not torch.cuda.is_available():
        cuda = preflight(replace(options, device="cuda"))
        assert cuda[0].blocking and "cuda:0" in cuda[0].message
    missing = preflight(replace(options, start=str(tmp_path / "nope.onnx"), device="cpu"))
    assert missing[0].blocking and "nope.onnx" in missing[0].message


def test_the_train_pages_preset_list_agrees_with_the_trainer():
    """The Train page writes the presets out (no torch on the GUI thread); they are the trainer's, epochs too."""
    pytest.importorskip("torch")
    from studio.widgets.train_setup import PRESET_EPOCHS, PRESETS
    from trainer.run.presets import QUALITIES, preset

    assert PRESETS == ("test", *QUALITIES)
    assert {name: preset(name).epochs for name in PRESETS} == {name: PRESET_EPOCHS.get(name, 1000) for name in PRESETS}
