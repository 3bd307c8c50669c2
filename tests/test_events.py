"""The training event stream: typed events, their records, the schema check from the fields, old files."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from trainer.events import schema as events
from trainer.events.log import EventLog, read_events

TODAYS_LINES = [
    '{"v": 1, "kind": "run_start", "time": 1764540000.5, "config": {"epochs": 2}, "num_utterances": 12, '
    '"device": "cuda:0", "epochs": 2, "start": "joe", "precision": "bf16-mixed", "batch_size": 16}',
    '{"v": 1, "kind": "progress", "time": 1764540001.0, "epoch": 0, "step": 20, "batches": 20, "items_per_s": 35.5}',
    '{"v": 1, "kind": "epoch", "time": 1764540002.25, "epoch": 0, "step": 6, "seconds": 3.5, "train_s": 3.0, '
    '"losses": {"train_mel": 1.25, "val_mel": 1.5}, "learning_rates": {"generator": 0.0002}, "val_s": 0.4, '
    '"preview_s": 0.0, "checkpoint_wait_s": 0.1, "max_memory_gib": 3.25}',
    '{"v": 1, "kind": "epoch", "time": 1764540003, "epoch": 1, "step": 12, "seconds": 3, "train_s": 3, '
    '"losses": {}, "learning_rates": {}, "val_s": 0, "preview_s": 0, "checkpoint_wait_s": 0}',
    '{"v": 1, "kind": "preview", "time": 1764540004.0, "epoch": 1, "path": "previews/epoch=0001/1.wav"}',
    '{"v": 1, "kind": "checkpoint", "time": 1764540004.5, "epoch": 1, "path": "last.ckpt", "role": "resume"}',
    '{"v": 1, "kind": "evaluation", "time": 1764540004.75, "epoch": 1, "values": {"wer": 0.125, "similarity": 0.8}, '
    '"lines": 5, "seconds": 41.5, "recognizer": "whisper", "bands": {"wer": 0.03}, "bands_source": "this run\'s", '
    '"errors": {"f0_gap_hz": "unvoiced"}}',
    '{"v": 1, "kind": "eta", "time": 1764540005.0, "epoch": 1, "seconds_left": 0.0, "next_preview_s": 0.0, '
    '"next_checkpoint_s": 0.0}',
    '{"v": 1, "kind": "stage", "time": 1764540005.5, "name": "recovery", "message": "recovering: step 1 of 9"}',
    '{"v": 1, "kind": "recovery", "time": 1764540006.0, "part": "dp", "metric": "duration_nll", "value": 1.75}',
    '{"v": 1, "kind": "warning", "time": 1764540006.5, "message": "converting the start: 1 speaker to 3"}',
    '{"v": 1, "kind": "error", "time": 1764540007.0, "message": "RuntimeError: out of memory"}',
    '{"v": 1, "kind": "finish", "time": 1764540008.0, "epochs": 1, "seconds": 9.5, "setup_s": 1.0, "status": "done"}',
]
"""One line of each kind as the trainer wrote them before events were typed (json.dumps, default separators; the
evaluation, a later kind, as the trainer writes it)."""


def test_events_modules_do_not_import_torch():
    """The studio reads events without loading torch."""
    code = "import sys, trainer.events.schema, trainer.events.log; assert 'torch' not in sys.modules, 'torch loaded'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_todays_records_read_as_typed_events_and_write_back_byte_for_byte(tmp_path):
    """Every kind of an events file written before the events were typed reads into its dataclass, and
    to_record gives the same line back (fields, order and values): old files and the GUI stay compatible."""
    path = tmp_path / "events.jsonl"
    path.write_text("\n".join(TODAYS_LINES) + "\n", encoding="utf-8")
    read = list(read_events(path))
    assert [type(e) for e in read] == [events.KINDS[json.loads(line)["kind"]] for line in TODAYS_LINES]
    assert set(events.KINDS) == {e.kind for e in read}  # one line of every kind
    assert [json.dumps(e.to_record()) for e in read] == TODAYS_LINES
    start, _, epoch, short = read[:4]
    assert isinstance(start, events.RunStart) and start.precision == "bf16-mixed" and start.batch_size == 16
    assert isinstance(epoch, events.Epoch) and epoch.max_memory_gib == 3.25 and epoch.split() == [3.0, 0.4, 0.0, 0.1]
    assert isinstance(short, events.Epoch) and short.max_memory_gib is None
    assert events.Epoch.from_record(json.loads(TODAYS_LINES[2])) == epoch


def test_log_round_trip_and_echo(tmp_path):
    """Emitted events read back equal, in order, and echo a readable line."""
    echo = io.StringIO()
    log = EventLog(tmp_path / "events.jsonl", echo)
    written = [
        events.RunStart(config={"preset": "test"}, num_utterances=12, device="cpu", epochs=2, start="onnx"),
        events.Epoch(
            epoch=0,
            step=6,
            seconds=3.5,
            train_s=3.0,
            val_s=0.4,
            preview_s=0.0,
            checkpoint_wait_s=0.1,
            losses={"mel": 1.25},
            learning_rates={"generator": 2e-4},
        ),
        events.Finish(epochs=1, seconds=5.0, setup_s=1.0, status="done"),
    ]
    for event in written:
        log.emit(event)
    log.close()
    assert list(read_events(tmp_path / "events.jsonl")) == written
    assert "Epoch 1 finished in 3.5 s" in echo.getvalue() and "mel 1.2500" in echo.getvalue()
    assert "max_memory_gib" not in (tmp_path / "events.jsonl").read_text()  # absent on the CPU, as before


def test_bad_records_name_the_field(tmp_path):
    """A missing or mistyped field, an unknown kind and a wrong version are refused with the field named;
    the check follows the dataclass fields (a bool is no int; an optional field may be absent, not mistyped)."""
    epoch = json.loads(TODAYS_LINES[2])
    del epoch["losses"]
    with pytest.raises(events.EventError, match="epoch: field 'losses' must be a dict, got None"):
        events.parse_event(epoch)
    with pytest.raises(events.EventError, match="preview: field 'epoch' must be an int, got True"):
        events.parse_event({"v": 1, "kind": "preview", "time": 0, "epoch": True, "path": "p.wav"})
    with pytest.raises(events.EventError, match="run_start: field 'batch_size' must be an int, got 'x'"):
        events.parse_event({**json.loads(TODAYS_LINES[0]), "batch_size": "x"})
    with pytest.raises(events.EventError, match="warning: field 'time' must be a number"):
        events.parse_event({"v": 1, "kind": "warning", "message": "x"})
    with pytest.raises(events.EventError, match="unknown event kind 'nope'"):
        events.parse_event({"v": 1, "kind": "nope", "time": 0})
    with pytest.raises(events.EventError, match="schema version 2"):
        events.validate({"v": 2, "kind": "warning", "time": 0, "message": "x"})
    with pytest.raises(events.EventError, match="is not a 'finish' event"):
        events.Finish.from_record(json.loads(TODAYS_LINES[0]))
    with pytest.raises(events.EventError, match="preview: field 'epoch'"):
        EventLog(tmp_path / "e.jsonl").emit(events.Preview(epoch=True, path="p.wav"))  # type: ignore[arg-type]


def test_an_epochs_step_split_is_optional_and_fills_up_train_s(tmp_path):
    """step_s round-trips and splits train_s (the rest: what no part timed); older records have none; a
    mistyped one is refused."""
    record = {**json.loads(TODAYS_LINES[2]), "step_s": {"data": 0.5, "generator": 1.5, "alignment": 0.25}}
    epoch = events.parse_event(record)
    assert isinstance(epoch, events.Epoch) and epoch.to_record() == record
    assert epoch.step_split() == [0.5, 1.5, 0.25, 0.0, 0.0, 0.0, 0.75]  # STEP_PARTS, then 3.0 s less the parts
    assert events.Epoch.from_record(json.loads(TODAYS_LINES[2])).step_split() is None
    with pytest.raises(events.EventError, match="epoch: field 'step_s' must be a dict"):
        events.parse_event({**record, "step_s": [0.5]})


def test_cut_last_line_is_skipped_but_a_bad_middle_line_is_not(tmp_path):
    """A crash mid-write leaves a cut last line, which readers skip; damage elsewhere is an error with the line."""
    good = json.dumps(events.WarningEvent(message="low disk").to_record())
    path = tmp_path / "events.jsonl"
    path.write_text(good + "\n" + good[:20], encoding="utf-8")
    assert len(list(read_events(path))) == 1
    path.write_text(good + "\n{broken\n" + good + "\n", encoding="utf-8")
    with pytest.raises(events.EventError, match="events.jsonl:2"):
        list(read_events(path))
    path.write_text(good + "\n[1, 2]\n" + good + "\n", encoding="utf-8")
    with pytest.raises(events.EventError, match="events.jsonl:2: a record must be a JSON object"):
        list(read_events(path))


def test_a_cut_last_line_is_dropped_before_a_log_appends_again(tmp_path):
    """An events file a crash or a full disk left with a cut last line: a log opened on it (a resume) appends after
    the last whole line, so the file reads back whole, the cut record gone and the new one there."""
    path = tmp_path / "events.jsonl"
    log = EventLog(path)
    log.emit(events.Stage(name="setup", message="first"))
    log.close()
    with path.open("ab") as f:
        f.write(b'{"kind": "stage", "name": "epo')  # the disk filled part-way through this line
    log = EventLog(path)
    log.emit(events.Stage(name="setup", message="resumed"))
    log.close()
    assert [e.message for e in read_events(path)] == ["first", "resumed"]
