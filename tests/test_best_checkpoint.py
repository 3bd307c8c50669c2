"""The run's best checkpoint is the one its ranking (``checkpoints/best.json``) puts first: Export voice on the
Train page, the Runs tab and ``voice-studio export RUN_DIR`` all take it, never the newest file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.events import schema as events

pytest.importorskip("torch")

# epoch (from 0) -> (val_mel, sample_rate that tells the exported voices apart)
EPOCHS = {0: (1.3012, 16000), 1: (1.1247, 22050), 2: (1.1885, 24000)}

DESCRIBED = "epoch 2 · val_mel 1.1247 (file best-epoch=0001-val_mel=1.1247.ckpt, whose name counts epochs from 0)"
"""How the best checkpoint is named in words: epochs counted from 1, its file name from 0."""


@pytest.fixture
def run_dir(tmp_path, make_tiny_checkpoint) -> Path:
    """A finished 3-epoch run as the trainer leaves it: best.json ranks epoch 1 first, epoch 2 is the newest."""
    import torch

    run = tmp_path / "runs" / "three"
    folder = run / "checkpoints"
    folder.mkdir(parents=True)
    records: list[events.Event] = [
        events.RunStart(config={}, num_utterances=4, device="cpu", epochs=3, start="scratch")
    ]
    for epoch, (val_mel, rate) in EPOCHS.items():
        path = make_tiny_checkpoint(folder / f"best-epoch={epoch:04d}-val_mel={val_mel:.4f}.ckpt")
        checkpoint = torch.load(path, weights_only=False)
        checkpoint["hyper_parameters"]["sample_rate"] = rate
        torch.save(checkpoint, path)
        losses = {"train_mel": 2.0, "val_mel": val_mel}
        split = {"train_s": 1.0, "val_s": 0.5, "preview_s": 0.0, "checkpoint_wait_s": 0.0, "seconds": 1.5}
        records.append(events.Epoch(epoch=epoch, step=epoch, losses=losses, learning_rates={}, **split))
        records.append(events.Checkpoint(epoch=epoch, path=str(path), role="best"))
    records.append(events.Finish(epochs=3, seconds=4.5, setup_s=1.0, status="done"))
    ranking = sorted([v, f"best-epoch={e:04d}-val_mel={v:.4f}.ckpt"] for e, (v, _) in EPOCHS.items())
    (folder / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    (run / "events.jsonl").write_text("".join(json.dumps(r.to_record()) + "\n" for r in records))
    (run / "training.json").write_text(json.dumps({"start": "scratch", "preset": "test", "config": {"epochs": 3}}))
    return run


def _exported_rate(onnx: Path) -> int:
    return json.loads(onnx.with_name(onnx.name + ".json").read_text())["audio"]["sample_rate"]


def test_ranking_reads_best_json_not_file_names(run_dir):
    """best_checkpoint is epoch 1 (val_mel 1.1247); a ranked file deleted from disk is skipped."""
    from trainer.checkpoints.best import CheckpointError, best_checkpoint, ranked_checkpoints
    from trainer.events.run_state import load_run

    best = best_checkpoint(run_dir)
    assert (best.epoch, best.value) == (1, 1.1247)
    assert best.describe() == DESCRIBED
    assert [c.epoch for c in ranked_checkpoints(run_dir)] == [1, 2, 0]
    assert load_run(run_dir).best_val_mel == 1.1247
    best.path.unlink()
    assert best_checkpoint(run_dir).epoch == 2
    (run_dir / "checkpoints" / "best.json").write_text("{not json")
    with pytest.raises(CheckpointError, match="best.json"):
        best_checkpoint(run_dir)


@pytest.mark.gui
def test_export_voice_takes_the_best_ranked_checkpoint(qtbot, run_dir, tmp_path):
    """The reported case: Export voice wrote epoch 2's checkpoint; it must write epoch 1's and say so."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    page = TrainPage(Workspace(runs_dir=run_dir.parent, voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.tabs.setCurrentIndex(1)
    assert page.runs.table.item(0, 4).text() == "1.1247"
    page.runs.table.selectRow(0)
    assert page.buttons["export"].isEnabled()
    with qtbot.waitSignal(page.voice_exported, timeout=60_000) as exported:
        page.export()
    onnx = Path(exported.args[0])
    assert _exported_rate(onnx) == EPOCHS[1][1]
    named = DESCRIBED
    assert named in page.status.text() and named in page.view.log.toPlainText()


def test_cli_export_of_a_run_folder_takes_the_best_ranked_checkpoint(run_dir, tmp_path):
    """``voice-studio export RUN_DIR`` exports the best-ranked checkpoint and names it; no ranking: one-line error."""
    out = tmp_path / "cli.onnx"
    command = [sys.executable, "-m", "studio", "export", str(run_dir), "-o", str(out)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert DESCRIBED in result.stderr
    assert _exported_rate(out) == EPOCHS[1][1]
    (run_dir / "checkpoints" / "best.json").unlink()
    result = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and "no ranked checkpoint" in result.stderr and "Traceback" not in result.stderr


def test_a_folder_that_is_not_a_run_is_named_as_such(tmp_path):
    """export FOLDER on a plain folder says it is not a run folder (it said "no ranked checkpoint yet")."""
    from trainer.checkpoints.best import CheckpointError, best_checkpoint

    with pytest.raises(CheckpointError, match="not a run folder"):
        best_checkpoint(tmp_path)
