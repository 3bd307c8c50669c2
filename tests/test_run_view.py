"""The Train page's run view (Qt offscreen): the log in plain words, following the newest line; previews
listed with the line they speak, and playback (what plays, its position, Stop)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import soundfile
from PySide6.QtCore import QRectF

from trainer.events import schema as events
from trainer.events.run_state import RunState

pytestmark = pytest.mark.gui


@pytest.fixture
def view(qtbot):
    from studio.widgets.run_view import RunView

    widget = RunView()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    widget.show()
    qtbot.waitExposed(widget)
    return widget


def _epoch(n: int, val_mel: float) -> events.Epoch:
    return events.Epoch(
        epoch=n,
        step=4 * (n + 1),
        seconds=12.0,
        train_s=10.5,
        val_s=1.0,
        preview_s=0.3,
        checkpoint_wait_s=0.2,
        losses={"train_mel": 1.4, "val_mel": val_mel, "train_kl": 480.0},
        learning_rates={"generator": 2e-4},
    )


STEP_S = {"data": 4.2, "generator": 2.0, "alignment": 1.0, "discriminator": 1.5, "backward": 1.0, "optimizer": 0.3}
"""A step split where waiting for data is the biggest part (4.2 of train_s 10.5)."""


def test_known_events_read_as_sentences_unknown_ones_generically(monkeypatch):
    from trainer.events.words import WORDS, sentence

    assert sentence(_epoch(2, 0.8123)) == (
        "Epoch 3 finished in 12.0 s (train 10.5 s, validation 1.0 s); val_mel 0.8123."
    )
    assert sentence(replace(_epoch(2, 0.8123), step_s={**STEP_S, "backward": 5.0})) == (
        "Epoch 3 finished in 12.0 s (train 10.5 s, 48% of it in backward passes, validation 1.0 s); val_mel 0.8123."
    )
    best = events.Checkpoint(epoch=2, path="/r/checkpoints/best-epoch=0002-val_mel=0.8123.ckpt", role="best")
    assert sentence(best) == (
        "Checkpoint after epoch 3 saved among the best "
        "(file best-epoch=0002-val_mel=0.8123.ckpt, whose name counts epochs from 0)."
    )
    resume = events.Checkpoint(epoch=2, path="/r/last.ckpt", role="resume")
    assert sentence(resume) == "Resume checkpoint saved after epoch 3 (last.ckpt)."
    preview = events.Preview(epoch=0, path="/r/previews/epoch=0000/2.wav")  # an older run: no text recorded
    assert sentence(preview) == (
        "Preview of epoch 1 written: “How much wood would a woodchuck chuck, if a woodchuck could chuck wood?”"
    )
    assert sentence(events.Stage(name="stopping", message="stopping: writing the resume checkpoint")) == (
        "Stopping: writing the resume checkpoint."
    )
    assert sentence(events.WarningEvent(message="2 utterances left out")) == "Warning: 2 utterances left out"
    finish = events.Finish(epochs=1, seconds=75.0, setup_s=20.0, status="stopped")
    assert sentence(finish) == "Stopped after epoch 1: 1 min 15 s this session (setup 20.0 s). Resume any time."
    start = events.RunStart(config={}, num_utterances=1, device="cpu", epochs=1, start="scratch", batch_size=4)
    assert sentence(start) == "Training from scratch on cpu: 1 utterance, 1 epoch, batches of 4."
    for precision, words in (("bf16-mixed", "bf16 autocast"), ("32-true", "float32"), ("16-mixed", "fp16 autocast")):
        start = events.RunStart(
            config={}, num_utterances=2, device="cpu", epochs=3, start="scratch", precision=precision
        )
        assert sentence(start) == f"Training from scratch on cpu ({words}): 2 utterances, 3 epochs."
    eta = events.Eta(epoch=0, seconds_left=130.0, next_preview_s=65.0, next_checkpoint_s=5.0)
    assert sentence(eta) == "About 2 min 10 s left; next preview in 1 min 05 s, next checkpoint in 5.0 s."
    assert sentence(events.Eta(epoch=1, seconds_left=0.0, next_preview_s=0, next_checkpoint_s=0)) == (
        "That was the last epoch."
    )
    values = {"wer": 0.125, "similarity": 0.8123, "dnsmos_ovrl": 3.104, "f0_gap_hz": -4.24, "mcd_db": 7.0}
    evaluation = events.Evaluation(epoch=4, values=values, lines=5, seconds=41.0, bands={"wer": 0.03})
    assert sentence(evaluation) == (
        "Quality of epoch 5 on 5 held-out lines: WER 0.12, similarity 0.812, DNSMOS 3.10, F0 gap -4.2 Hz "
        "(41.0 s; its noise bands measured)."
    )
    failed = events.Evaluation(epoch=0, values={}, lines=0, seconds=3.0, errors={"evaluation": "no clip is held out"})
    assert sentence(failed) == "Quality of epoch 1 not measured (3.0 s): no clip is held out."
    for event in (_epoch(0, 1.0), best, preview, finish, start):
        assert "=" not in sentence(event).replace("epoch=", "").replace("val_mel=", "")
    recovery = events.Recovery(part="enc_q", metric="mel_l1_vs_voice", value=0.123456)
    monkeypatch.delitem(WORDS, "recovery")  # a kind without words: its fields, generically
    assert sentence(recovery) == "recovery: part enc_q, metric mel_l1_vs_voice, value 0.123456"


def test_log_follows_the_newest_line_unless_scrolled_up(view, qtbot):
    """Lines added while the Log tab is hidden: opening it shows the newest. Scrolled up, new lines leave the
    view where the person is reading; back at the end, it follows again. Past events read as sentences."""
    log = view.log
    for n in range(200):
        log.appendPlainText(f"line {n}")
    tabs = log.parentWidget().parentWidget()
    tabs.setCurrentWidget(log)
    qtbot.wait(20)
    bar = log.verticalScrollBar()
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    assert log.cursorForPosition(log.viewport().rect().bottomLeft()).block().text() in ("line 198", "line 199")
    bar.setValue(10)  # the person scrolls up to read
    for n in range(200, 260):
        log.appendPlainText(f"line {n}")
    assert bar.value() == 10
    bar.setValue(bar.maximum())  # and back to the end
    log.add_events([_epoch(0, 0.9), events.Checkpoint(epoch=0, path="/r/last.ckpt", role="resume")])
    assert bar.value() == bar.maximum()
    lines = log.toPlainText().splitlines()
    assert lines[-2:] == [
        "Epoch 1 finished in 12.0 s (train 10.5 s, validation 1.0 s); val_mel 0.9000.",
        "Resume checkpoint saved after epoch 1 (last.ckpt).",
    ]


def _state_with_previews(tmp_path) -> RunState:
    state = RunState(tmp_path)
    rate = 22050
    tone = (0.2 * np.sin(2 * np.pi * 220 * np.arange(rate) / rate)).astype(np.float32)
    written = []
    for number in (1, 2):
        path = tmp_path / "previews" / "epoch=0000" / f"{number}.wav"
        path.parent.mkdir(parents=True, exist_ok=True)
        soundfile.write(path, tone, rate)
        written.append(path)
    state.apply(events.Preview(epoch=0, path=str(written[0]), text="A line of our own."))
    state.apply(events.Preview(epoch=0, path=str(written[1])))  # as older runs wrote them: the text from the name
    return state


def test_previews_list_their_lines(view, tmp_path):
    view.show_state(_state_with_previews(tmp_path))
    texts = [view.previews.list.item(i).text() for i in range(view.previews.count())]
    assert texts == [
        "Epoch 1 · How much wood would a woodchuck chuck, if a woodchuck could chuck wood?",
        "Epoch 1 · A line of our own.",
    ]
    assert view.previews.now.text() == "2 previews: click one (or press Enter) to play it."


def test_playing_a_preview_shows_what_plays_and_stops(view, qtbot, tmp_path, capture):
    """Clicking a preview plays it: marked as playing, named, its position moving; Stop ends it."""
    view.show_state(_state_with_previews(tmp_path))
    previews = view.previews
    item = previews.list.item(1)
    assert previews.play(item)
    assert previews.now.text() == "Playing Epoch 1 · A line of our own."
    assert item.text().startswith("▶ ") and item.font().bold() and previews.stop.isEnabled()
    assert previews.progress.isVisibleTo(previews)
    assert previews.progress.maximum() == 1000
    qtbot.waitUntil(lambda: previews.progress.value() > 0 or not previews.stop.isEnabled(), timeout=5_000)
    if previews.stop.isEnabled():
        assert previews.progress.format().endswith("/ 1.0 s")
        previews.stop.click()
    qtbot.waitUntil(lambda: not previews.stop.isEnabled(), timeout=5_000)
    assert item.text() == "Epoch 1 · A line of our own." and not item.font().bold()
    assert "click one" in previews.now.text()
    missing = previews.list.item(0)
    (tmp_path / "previews" / "epoch=0000" / "2.wav").unlink()
    with qtbot.waitSignal(view.message) as said:
        assert not previews.play(missing)
    assert said.args[0].startswith("Cannot play the preview “Epoch 1 · How much wood would a woodchuck")
    assert previews.now.text() == said.args[0] and said.args[0].count("Cannot play") == 1


def test_the_log_keeps_moving_figures_out_but_an_epochs_last_step_in():
    """Progress once a second and a stage's middle steps go to the status line; the log keeps the ends."""
    from trainer.events.schema import Progress, Stage
    from trainer.events.words import sentence, worth_a_line

    middle = Progress(time=0.0, epoch=1, step=7, batches=3, items_per_s=4.0, batches_total=5, elapsed_s=6.0)
    last = Progress(time=0.0, epoch=1, step=9, batches=5, items_per_s=4.0, batches_total=5, elapsed_s=10.0)
    assert not worth_a_line(middle) and worth_a_line(last)
    assert sentence(last) == "Epoch 2: step 5 of 5 in 10.0 s (4.0 utterances/s)."
    steps = [Stage(time=0.0, name="recovery", message=f"fitting step {i + 1} of 4", step=i, steps=4) for i in range(4)]
    assert [worth_a_line(s) for s in steps] == [True, False, False, True]


def _events_file(folder, *epochs: events.Epoch):
    from trainer.events.log import EventLog

    folder.mkdir()
    log = EventLog(folder / "events.jsonl")
    for epoch in epochs:
        log.emit(epoch)
    log.close()
    return folder


def test_a_run_with_step_splits_shows_where_the_step_time_goes(view, qtbot, tmp_path):
    """A run folder whose epochs carry step_s: the Training step tab charts them, the legend gives the latest
    epoch's shares (the biggest in bold), whole and beside the plot."""
    from studio.widgets.step_chart import StepChart
    from trainer.events.run_state import load_run

    folder = _events_file(
        tmp_path / "run", replace(_epoch(0, 1.0), step_s=STEP_S), replace(_epoch(1, 0.9), step_s=STEP_S)
    )
    view.show_state(load_run(folder))
    chart = view.step_chart
    assert isinstance(chart, StepChart) and view.time_tabs.indexOf(chart) == 1
    assert [epoch for epoch, _ in chart.data] == [0, 1]
    assert [label.text for _, label in chart.legend.items][:3] == [
        "data wait 40%",
        "generator 19%",
        "alignment 10%",
    ]
    assert chart.legend.items[-1][1].text == "other 5%"  # 0.5 s of 10.5 s timed by no part
    assert [label.opts["bold"] for _, label in chart.legend.items] == [True] + [False] * 6  # the biggest part
    view.time_tabs.setCurrentWidget(chart)
    qtbot.wait(50)
    assert chart.plot.titleLabel.text == ("shares of epoch 2" if chart.legend.columnCount == 1 else "epoch 2")
    legend = chart.legend.sceneBoundingRect()  # whole, beside the plot, at the page's width
    assert QRectF(chart.rect()).contains(legend) and not legend.intersects(chart.plot.vb.sceneBoundingRect())


def test_an_older_run_without_step_splits_shows_none_and_no_error(view, tmp_path):
    """Events written before the trainer timed its steps: no bars, a title that says why, plain legend labels."""
    from studio.widgets.step_chart import NO_SPLIT
    from trainer.events.run_state import load_run

    view.show_state(load_run(_events_file(tmp_path / "old", _epoch(0, 1.0), _epoch(1, 0.9))))
    chart = view.step_chart
    assert chart.data == [] and chart.plot.titleLabel.text == NO_SPLIT
    assert [label.text for _, label in chart.legend.items][0] == "data wait"
    assert len(view.epoch_chart.data) == 2  # the epoch-time chart as before
