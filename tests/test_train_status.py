"""The Train page's status line while a run prepares and trains its first epoch: what, step n of m, a moving clock."""

from __future__ import annotations

import gc
import re

import pytest
from conftest import target_voice_slice

from trainer.events.log import EventTail
from trainer.events.run_state import RunState
from trainer.events.schema import Eta, Progress, RunStart, Stage

pytestmark = pytest.mark.gui


def test_status_and_stats_lines_move_on_between_events(qtbot, tmp_path):
    """Fed a recovery step and then a first-epoch step, the lines say the step in words and their clocks move
    with time alone (no newer event), the remaining time counting down."""
    from studio.widgets.run_status import following_line
    from studio.widgets.run_view import RunView

    state, t = RunState(tmp_path / "joe-test-run"), 1_000_000.0
    state.apply(
        Stage(
            time=t,
            name="recovery",
            message="recovering the training-only parts of joe.onnx: fitting step 3 of 4",
            step=2,
            steps=4,
            elapsed_s=20.0,
            seconds_left=6.0,
        )
    )
    assert following_line(state, t + 1) == (
        "Recovering the training-only parts of joe.onnx: fitting step 3 of 4 · 21.0 s elapsed · about 5.0 s left"
    )
    assert "23.0 s elapsed · about 3.0 s left" in following_line(state, t + 3)
    state.apply(RunStart(time=t + 30, config={}, num_utterances=16, device="cpu", epochs=3, start="joe"))
    state.apply(Progress(time=t + 40, epoch=0, step=2, batches=1, items_per_s=0.5, batches_total=4, elapsed_s=8.0,
                         seconds_left=24.0))  # fmt: skip
    line = following_line(state, t + 42)
    assert line == (
        "Training joe-test-run: epoch 1 of 3, step 1 of 4 · 10.0 s elapsed · about 22.0 s left in this epoch"
    )
    view = RunView()
    qtbot.addWidget(view)
    view.show_stats(state, t + 42)
    first = view.stats.text()
    view.show_stats(state, t + 50)
    assert "train time 10.0 s" in first and "train time 18.0 s" in view.stats.text()
    assert "ETA about 1 min 26 s" in first  # 22 s of this epoch, then two more of 32 s
    state.apply(Eta(time=t + 60, epoch=0, seconds_left=64.0, next_preview_s=32.0, next_checkpoint_s=32.0))
    view.show_stats(state, t + 70)
    assert "ETA 54.0 s · next preview 22.0 s · next checkpoint 22.0 s" in view.stats.text()  # counted down


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    from studio.main_window import MainWindow
    from studio.settings import Settings

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # an empty recovery cache: joe is recovered
    win = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(win)
    win.show_area("Train")
    yield win
    win.train_page.process.kill()
    win.train_page.process.wait(10_000)
    gc.collect()


def test_train_page_says_what_a_run_from_joe_does_until_its_first_epoch_ends(window, qtbot, tmp_path):
    """A real 1-epoch run from joe, watched every 100 ms: the setup, each recovery part with step n of m, the
    first epoch's start and its steps n of m reach the page; the status line shows them with a clock that moves
    while no event comes; Stop is available all along."""
    from PySide6.QtCore import QTimer

    pytest.importorskip("lightning")
    page = window.train_page
    page.setup.dataset.setText(str(target_voice_slice(tmp_path / "piper-data", 8)))
    page.setup.start.setCurrentIndex(page.setup.start.findData("joe"))
    page.setup.preset.setCurrentText("test")
    page.setup.epochs.setValue(1)
    seen: list[tuple[str, str, bool]] = []
    sampler = QTimer()
    sampler.timeout.connect(
        lambda: seen.append((page.status.text(), page.view.stats.text(), page.buttons["stop"].isEnabled()))
    )
    finished = []
    page.process.finished.connect(lambda code, crashed: finished.append(code))
    sampler.start(100)
    page.start()
    qtbot.waitUntil(lambda: bool(finished), timeout=900_000)
    sampler.stop()
    assert finished == [0], seen[-3:]
    running = [(status, stats, stop) for status, stats, stop in seen if "elapsed" in status]
    said = [status for status, _, _ in running]
    told = page.state.messages  # every stage the page was handed, in order (the status shows the newest)
    for stage in ("Setting up: reading the training cache", "speaking line 1 of 6", "fitting step 1 of 6"):
        assert any(stage.lower() in message.lower() for message in told), (stage, told)
    assert any(m.startswith("epoch 1: loading the first batch, then the first training step") for m in told)
    assert any(re.search(r"joe-medium\.onnx: (speaking line \d of 6|fitting step \d of 6) · ", s) for s in said)
    assert any(re.search(r"epoch 1 of 1, step \d of \d+ · .* elapsed", s) for s in said)
    clocks: dict[str, set[str]] = {}  # the same event shown with another elapsed: the clock moved by itself
    for status in said:
        what, _, figure = status.partition(" · ")
        clocks.setdefault(what, set()).add(figure)
    assert max(len(figures) for figures in clocks.values()) >= 2, clocks
    assert all(stop for _, _, stop in running)
    epoch = [stats for status, stats, _ in running if "epoch 1 of 1, step" in status]
    assert epoch and any("train time" in stats and "train time 0.0 s" not in stats for stats in epoch)
    records = EventTail(page.state.folder / "events.jsonl").read()  # setup counts from the session's start,
    began, fitting = records[0].time, next(e.time for e in records if e.kind == "run_start")  # recovery included
    assert page.state.finish is not None and page.state.finish.setup_s >= fitting - began > 1.0


def test_stage_and_progress_records_of_older_trainers_still_read():
    """The step fields are optional: a record without them parses; one with them keeps them; a mistyped one is
    refused, naming the field."""
    from trainer.events.schema import EventError, parse_event

    record = {"v": 1, "kind": "progress", "time": 1.0, "epoch": 0, "step": 20, "batches": 20, "items_per_s": 3}
    old = parse_event(record)
    assert old.batches_total is None and old.elapsed_s is None and old.seconds_left is None
    stage = Stage(name="recovery", message="using the recovered parts prepared 2026-12-01 04:43 (cached)", cached=True)
    assert parse_event(stage.to_record()) == stage and "step" not in stage.to_record()
    with pytest.raises(EventError, match="stage: field 'steps' must be an int"):
        parse_event({**Stage(name="x", message="y").to_record(), "steps": "four"})


def test_while_recovering_the_lines_agree_on_time_and_show_no_placeholder(qtbot, tmp_path):
    """A run of 1 epoch recovering its start for 55.6 s: the status line says so; the stats line gives no other
    figure for the time (no "elapsed 0.0 s": it has trained for none yet), the step not yet settled says it is
    estimating, and the milestones list no epoch not reached ("1 —")."""
    from studio.widgets.run_status import following_line
    from studio.widgets.run_view import RunView

    state, t = RunState(tmp_path / "joe-test-run", epochs_total=1), 1_000_000.0
    state.apply(
        Stage(
            time=t,
            name="recovery",
            message="recovering the training-only parts of joe.onnx: fitting step 2 of 4",
            step=1,
            steps=4,
            elapsed_s=55.6,
        )  # fmt: skip
    )
    view = RunView()
    qtbot.addWidget(view)
    view.show_state(state)
    view.show_stats(state, t)
    status, stats = following_line(state, t), view.stats.text()
    assert status.endswith("fitting step 2 of 4 · 55.6 s elapsed · estimating the time left…"), status
    figures = re.findall(r"([\d.]+ s) elapsed|elapsed ([\d.]+ s)|train time ([\d.]+ s)", f"{status} {stats}")
    assert figures == [("55.6 s", "", "")], stats
    assert view.milestones.rowCount() == 0
