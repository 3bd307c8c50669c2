"""The training event stream: schema, validation, cut last lines, no torch import."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from trainer import events


def test_events_module_does_not_import_torch():
    """The studio reads events without loading torch."""
    code = "import sys, trainer.events; assert 'torch' not in sys.modules, 'torch loaded'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_log_round_trip_and_echo(tmp_path):
    """Emitted records validate, read back in order, and echo a readable line."""
    echo = io.StringIO()
    log = events.EventLog(tmp_path / "events.jsonl", echo)
    log.emit("run_start", config={"preset": "test"}, num_utterances=12, device="cpu", epochs=2, start="onnx")
    log.emit(
        "epoch",
        epoch=0,
        step=6,
        seconds=3.5,
        train_s=3.0,
        val_s=0.4,
        preview_s=0.0,
        checkpoint_wait_s=0.1,
        losses={"mel": 1.25},
        learning_rates={"generator": 2e-4},
    )
    log.emit("finish", epochs=1, seconds=5.0, setup_s=1.0, status="done")
    log.close()
    records = list(events.read_events(tmp_path / "events.jsonl"))
    assert [r["kind"] for r in records] == ["run_start", "epoch", "finish"]
    assert "epoch 1: 3.5 s" in echo.getvalue() and "mel 1.250" in echo.getvalue()


def test_bad_records_name_the_field(tmp_path):
    """A missing or mistyped field, an unknown kind and a wrong version are refused with the field named."""
    with pytest.raises(events.EventError, match="epoch: field 'losses' must be a dict"):
        events.make("epoch", epoch=1, step=1, seconds=1, train_s=1, val_s=0, preview_s=0, checkpoint_wait_s=0)
    with pytest.raises(events.EventError, match="preview: field 'epoch' must be an int, got True"):
        events.make("preview", epoch=True, path="p.wav")
    with pytest.raises(events.EventError, match="unknown event kind 'nope'"):
        events.make("nope")
    with pytest.raises(events.EventError, match="schema version 2"):
        events.validate({"v": 2, "kind": "warning", "time": 0, "message": "x"})


def test_cut_last_line_is_skipped_but_a_bad_middle_line_is_not(tmp_path):
    """A crash mid-write leaves a cut last line, which readers skip; damage elsewhere is an error with the line."""
    good = json.dumps(events.make("warning", message="low disk"))
    path = tmp_path / "events.jsonl"
    path.write_text(good + "\n" + good[:20], encoding="utf-8")
    assert len(list(events.read_events(path))) == 1
    path.write_text(good + "\n{broken\n" + good + "\n", encoding="utf-8")
    with pytest.raises(events.EventError, match="events.jsonl:2"):
        list(events.read_events(path))
