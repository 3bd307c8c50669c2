"""The Train page's words as a newcomer reads them (issue 17): a resumed session's status, epochs counted from 1
everywhere, a cached recovery kept in view, smoke tests labelled, the preset's size for the start chosen, the
check's findings counted and shown, a preview that cannot play, the log's room, the terminal's sentences."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
import soundfile

from trainer.events import schema as events
from trainer.events.run_state import RunState

pytestmark = pytest.mark.gui

T = 1_800_000_000.0
RECOVERY_CACHED = (
    "recovering the training-only parts of en_US-joe-medium.onnx: using the recovered parts prepared "
    "2026-12-01 05:05 (cached)"
)


def _epoch(n: int, at: float) -> events.Epoch:
    return events.Epoch(time=at, epoch=n, step=2 * (n + 1), seconds=30.0, train_s=20.0, losses={"val_mel": 1.5},
                        learning_rates={}, val_s=8.0, preview_s=1.0, checkpoint_wait_s=1.0)  # fmt: skip


def _first_session(state: RunState) -> None:
    """Setup, a cached recovery, epoch 1 done, epoch 2 under way, then the trainer killed (no finish)."""
    state.apply(events.Stage(time=T, name="setup", message="setting up: reading the training cache"))
    state.apply(events.Stage(time=T + 1, name="recovery", message=RECOVERY_CACHED, elapsed_s=3.0, cached=True))
    state.apply(events.RunStart(time=T + 5, config={}, num_utterances=9, device="cpu", epochs=3, start="joe"))
    state.apply(_epoch(0, T + 35))
    state.apply(events.Eta(time=T + 35, epoch=0, seconds_left=60.0, next_preview_s=30.0, next_checkpoint_s=30.0))
    state.apply(events.Progress(time=T + 50, epoch=1, step=3, batches=1, items_per_s=0.3, batches_total=2,
                                elapsed_s=15.0, seconds_left=15.0))  # fmt: skip


def test_a_resumed_session_says_only_what_it_does(tmp_path):
    """Resumed after a kill mid-epoch: before its first event and after its setup stage, neither line carries
    the killed session's step, clock or ETA; its own step then counts from its own events."""
    from studio.widgets.run_status import following_line, stats_line

    state = RunState(tmp_path / "run", session_since=T + 100)  # the page launched the resumed trainer then
    _first_session(state)
    assert following_line(state, T + 101) == ""  # the page says "Resuming …" with its own clock until then
    state.apply(events.Stage(time=T + 102, name="setup", message="setting up: reading the training cache"))
    assert following_line(state, T + 103) == "Setting up: reading the training cache · 1.0 s elapsed"
    stats = stats_line(state, T + 103)
    assert "train time 30.0 s" in stats and "ETA" not in stats, stats  # the epoch done, nothing from the old step
    state.apply(events.RunStart(time=T + 104, config={}, num_utterances=9, device="cpu", epochs=3, start="resume"))
    state.apply(events.Progress(time=T + 110, epoch=1, step=3, batches=1, items_per_s=0.3, batches_total=2,
                                elapsed_s=6.0, seconds_left=6.0))  # fmt: skip
    now = following_line(state, T + 111)
    assert now.endswith("epoch 2 of 3, step 1 of 2 · 7.0 s elapsed · about 5.0 s left in this epoch"), now


def test_a_session_after_a_killed_one_drops_its_clock_even_when_read_from_the_file(tmp_path):
    """Read from the file (no launch time known): the new session's setup stage ends the old one's step and ETA."""
    from studio.widgets.run_status import stats_line

    state = RunState(tmp_path / "run")
    _first_session(state)
    state.apply(events.Stage(time=T + 200, name="setup", message="setting up: reading the training cache"))
    assert state.progress is None and state.eta is None
    assert "train time 30.0 s" in stats_line(state, T + 201)


def test_every_epoch_shown_counts_from_1(tmp_path):
    """The status line and the stats line name the same epoch under way; a resumable run resumes from the next
    epoch, not the last one done."""
    from studio.widgets.run_status import following_line, stats_line
    from studio.widgets.run_view import outcome_line

    state = RunState(tmp_path / "run")
    state.apply(events.RunStart(time=T, config={}, num_utterances=9, device="cpu", epochs=2, start="joe"))
    state.apply(events.Progress(time=T + 10, epoch=0, step=1, batches=1, items_per_s=0.3, batches_total=2,
                                elapsed_s=10.0, seconds_left=10.0))  # fmt: skip
    assert "epoch 1 of 2, step 1 of 2" in following_line(state, T + 11)
    assert stats_line(state, T + 11).startswith("epoch 1 of 2 · 0.3 it/s")
    state.apply(_epoch(0, T + 30))
    (state.folder).mkdir(parents=True)
    (state.folder / "last.ckpt").write_bytes(b"resume")
    assert "The run resumes from epoch 2." in outcome_line(state, -9, True)


def test_a_cached_recovery_stays_in_view_for_the_whole_run(qtbot, tmp_path):
    """Its stage is long gone once epochs run: the stats line still says the recovery was cached and when its
    parts were prepared, and the log has the stage's line."""
    from studio.widgets.run_log import RunLog
    from studio.widgets.run_status import stats_line

    state = RunState(tmp_path / "run")
    _first_session(state)
    state.apply(_epoch(1, T + 70))
    assert "Recovery: cached (prepared 05:05)" in stats_line(state, T + 80)
    log = RunLog()
    log.add_events([events.Stage(time=T + 1, name="recovery", message=RECOVERY_CACHED, cached=True)])
    assert "using the recovered parts prepared 2026-12-01 05:05 (cached)" in log.toPlainText()


def test_the_recovered_kl_is_said_in_the_log_and_kept_in_the_stats_line(tmp_path):
    """The KL the recovered parts reach on held-out lines: one sentence in the log, and beside the recovery in the
    stats line for the whole run."""
    from studio.widgets.run_status import stats_line
    from trainer.events.words import sentence

    state = RunState(tmp_path / "run")
    _first_session(state)
    kl = events.Recovery(time=T + 2, part="enc_q", metric="kl_held_out", value=1.8765)
    assert sentence(kl) == "Recovered from the voice: KL 1.88 on held-out lines."
    state.apply(kl)
    state.apply(_epoch(1, T + 70))
    assert "Recovery: KL 1.88 on held-out lines, cached (prepared 05:05)" in stats_line(state, T + 80)


def test_a_smoke_test_says_so_when_it_ends_and_first_in_voice_labels(tmp_path):
    """The status line and the terminal's finish line of a test-preset run, and a test-preset voice's label in
    the pickers, which begins with the mark a closed picker still shows."""
    from engines.registry import find_voice
    from engines.voice import load_voice
    from studio.pages.train import start_label
    from studio.widgets.run_view import outcome_line
    from studio.widgets.voice_picker import _label
    from trainer.events.words import sentence

    state = RunState(tmp_path / "run", preset="test")
    state.apply(events.Finish(time=T, epochs=2, seconds=60.0, setup_s=5.0, status="done", preset="test"))
    assert outcome_line(state, 0, False) == "Finished after epoch 0. A smoke test, not a usable voice (test preset)."
    assert sentence(state.finish) == (
        "Finished after epoch 2: 1 min 00 s this session (setup 5.0 s). A smoke test, not a usable voice (test preset)."
    )
    medium = events.Finish(time=T, epochs=2, seconds=60.0, setup_s=5.0, status="done", preset="medium")
    assert "smoke" not in sentence(medium)
    joe = find_voice("joe")
    model = tmp_path / "smoke.onnx"
    model.symlink_to(joe.model_path)
    (tmp_path / "smoke.onnx.json").write_text(json.dumps({**joe.config.raw, "training": {"preset": "test"}}))
    voice = load_voice(model, origin="user")
    assert _label(voice) == "⚠ smoke test: smoke (my voices, 22050 Hz)"
    assert start_label(voice) == "⚠ smoke test: smoke (smoke.onnx)"


def test_the_learning_rate_and_its_schedule_are_said(qtbot, tmp_path):
    """A run read from its folder: the stats line gives the rate and where the schedule ends (before any epoch,
    its start), its tooltip and the log's first line the schedule; a resumed session with more epochs says its
    new last epoch; a run made before the schedule says its rate and its fixed decay."""
    from dataclasses import replace

    from studio.widgets.run_status import stats_line
    from studio.widgets.run_view import RunView
    from trainer.events.run_state import load_run
    from trainer.events.words import sentence
    from trainer.run.document import RunDocument, write_run
    from trainer.run.options import RunOptions
    from trainer.run.presets import BEFORE, preset

    config = preset("medium", epochs=1000).to_dict()
    options = RunOptions(dataset=tmp_path, out=tmp_path, preset="medium", epochs=1000)
    write_run(RunDocument(options=options, cache=tmp_path, config=config))
    state, view = load_run(tmp_path, with_events=False), RunView()
    qtbot.addWidget(view)
    view.show_stats(state, T)
    assert view.stats.text().endswith(" · lr 2e-4 → 1e-5"), view.stats.text()
    said = "exponential per epoch to 5% of the start at the last epoch (1,000)"
    slowed = (
        "the inference path before the decoder at 10% of the generator's rate, "
        "held near the start's weights (anchor 1,000); the generator's first 100 steps rise linearly to its rate"
    )
    assert view.stats.toolTip().endswith(
        f"\n\nLearning rate: {said}: generator 2e-4 → 1e-5, discriminators 1e-4 → 5e-6; {slowed}"
    )
    start = events.RunStart(time=T, config=config, num_utterances=9, device="cpu", epochs=1000, start="joe")
    decoder = "the decoder also trained on the prior's latents, with a multi-resolution STFT loss"
    spoken = "its checkpoints speak with noise_scale 0.333"
    assert (
        sentence(start)
        == f"Training from joe on cpu: 9 utterances, 1000 epochs, learning rate 2e-4 → 1e-5; {decoder}; {spoken}."
    )
    alone = replace(start, config={**config, "prior_mel": 0.0, "voice_noise_scale": None})
    assert sentence(alone).endswith("; the decoder also trained with a multi-resolution STFT loss.")
    state.apply(start)
    state.apply(_epoch(0, T + 30))
    state.apply(replace(_epoch(1, T + 60), learning_rates={"generator": 1.994e-4}))
    assert " · lr 1.99e-4 → 1e-5 · GPU —" in stats_line(state, T + 61)
    state.apply(events.RunStart(time=T + 70, config={**config, "epochs": 2000}, num_utterances=9, device="cpu",
                                epochs=2000, start="resume"))  # fmt: skip
    view.show_stats(state, T + 71)
    assert "at the last epoch (2,000)" in view.stats.toolTip()
    old = {k: v for k, v in config.items() if k not in BEFORE}  # written before the schedule and what came after
    state.apply(events.RunStart(time=T + 80, config=old, num_utterances=9, device="cpu", epochs=2000, start="resume"))
    view.show_stats(state, T + 81)
    assert " · lr 1.99e-4 · GPU —" in view.stats.text()
    fixed = "generator 2e-4 × 0.999875, discriminators 1e-4 × 0.9999"
    assert view.stats.toolTip().endswith(f"\n\nLearning rate: fixed per epoch: {fixed}")


def test_the_test_presets_size_is_said_for_the_start_chosen(qtbot):
    """From scratch the test preset is 0.14 M parameters; from joe the generator keeps joe's size: said so; low's
    16,000 Hz is said from scratch only (from joe, joe's rate wins)."""
    from studio.widgets.train_setup import TrainSetup

    setup = TrainSetup()
    qtbot.addWidget(setup)
    setup.preset.setCurrentText("test")
    setup.start.setCurrentIndex(setup.start.findData("joe"))
    assert setup.about.text() == (
        "Smoke test only, not a usable voice: the start voice's size (from scratch: 0.14 M), 2 epochs by default, "
        "minutes on a CPU."
    )
    setup.start.setCurrentIndex(setup.start.findData("scratch"))
    assert setup.about.text() == (
        "Smoke test only, not a usable voice: 0.14 M parameters, 2 epochs by default, minutes on a CPU."
    )
    setup.preset.setCurrentText("low")  # its rate holds from scratch only: from joe the run is joe's 22,050 Hz
    assert setup.about.text().startswith("Piper low, 16,000 Hz: 23.7 M parameters")
    setup.start.setCurrentIndex(setup.start.findData("joe"))
    assert setup.about.text().startswith("Piper low: the start voice's size (from scratch: 23.7 M)")


def test_a_preview_that_cannot_play_says_cannot_play_once_and_names_its_line(tmp_path):
    """With no audio output device (ALSA's own configuration, no sound card, without the tests' capture device;
    in a process of its own): one "Cannot play", the preview's epoch and line, and the reason."""
    system = Path("/usr/share/alsa/alsa.conf")
    if not system.is_file():
        pytest.skip("needs Linux ALSA's alsa.conf")
    wav = tmp_path / "3.wav"
    soundfile.write(wav, np.zeros(2205, dtype=np.float32), 22050)
    script = textwrap.dedent(f"""
        import os
        from PySide6.QtWidgets import QApplication
        from studio.widgets.preview_list import PreviewList
        app = QApplication([])
        previews = PreviewList()
        previews.add_previews([(1, {str(wav)!r}, "It was a bright cold day in April.")])
        previews.play(previews.list.item(0))
        print(previews.now.text(), flush=True)
        os._exit(0)
    """)
    env = {**os.environ, "ALSA_CONFIG_PATH": str(system), "QT_QPA_PLATFORM": "offscreen"}
    said = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    line = said.stdout.strip()
    if line.startswith("Playing"):
        pytest.skip("this machine has an audio output device")
    assert line.startswith("Cannot play the preview “Epoch 2 · It was a bright cold day in April.”: "), said
    assert line.count("Cannot play") == 1 and "3.wav" not in line, line


def test_the_log_has_room_and_sets_events_apart(qtbot):
    """At the page's width the side tabs take nearly half the run view; a long event wraps between words (a path at
    its slashes, not inside a name) and every other event is shaded; milestones show no row numbers."""
    from PySide6.QtGui import QPalette, QTextOption

    from studio.widgets.run_view import RunView

    view = RunView()
    qtbot.addWidget(view)
    view.resize(830, 420)
    view.show()
    qtbot.waitExposed(view)
    charts, side = view.live.sizes()
    assert side >= 0.4 * (charts + side), (charts, side)
    log = view.log
    assert log.wordWrapMode() == QTextOption.WrapMode.WordWrap
    for n in range(3):
        log.appendPlainText(f"Checkpoint {n} saved: /tmp/runs/joe-test-20261201-050420/checkpoints/best.ckpt")
    shade = log.shade()
    assert shade != log.palette().color(QPalette.ColorRole.Base)
    blocks = [log.document().findBlockByNumber(n).blockFormat() for n in range(3)]
    assert [b.background().color() == shade for b in blocks] == [False, True, False]
    assert not view.milestones.verticalHeader().isVisibleTo(view.milestones)


def test_preview_sentences_end_with_one_period():
    """A line that ends with its own period is not given a second one after its closing quote."""
    from trainer.events.words import sentence

    ended = events.Preview(epoch=0, path="/r/1.wav", text="The quick brown fox jumps over the lazy dog.")
    assert sentence(ended) == "Preview of epoch 1 written: “The quick brown fox jumps over the lazy dog.”"
    bare = events.Preview(epoch=1, path="/r/1.wav", text="No period here")
    assert sentence(bare) == "Preview of epoch 2 written: “No period here”."


@pytest.fixture
def window(qtbot, tmp_path):
    from studio.main_window import MainWindow
    from studio.settings import Settings

    win = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(win)
    win.resize(1024, 640)
    win.show()
    qtbot.waitExposed(win)
    win.show_area("Train")
    yield win
    win.train_page.process.kill()
    win.train_page.process.wait(10_000)


def test_checked_counts_its_findings_and_scrolls_them_into_view(window, qtbot, tmp_path):
    """32 kHz clips checked against joe at 1024x640: the status line counts the warnings the check found and
    the small Setup area scrolls so that they (and the Resample offer) are in view."""
    from conftest import target_voice_slice

    page = window.train_page
    page.setup.dataset.setText(str(target_voice_slice(tmp_path / "piper-data", 4)))
    page.setup.start.setCurrentIndex(page.setup.start.findData("joe"))
    page.setup.preset.setCurrentText("test")
    task = page.check()
    qtbot.waitUntil(lambda: not task.is_running(), timeout=60_000)
    qtbot.waitUntil(lambda: page.status.text().startswith("Checked:"), timeout=5_000)
    warnings = [f for f in page.setup.current if not f.blocking]
    assert warnings and not any(f.blocking for f in page.setup.current), page.setup.current
    assert page.status.text().startswith("Checked: ready, with ") and "(shown under Setup)." in page.status.text()
    assert f"{len(warnings)} " in page.status.text() or " and " in page.status.text()
    area = page._setup_area
    qtbot.wait(100)
    shown = page.setup.resample if page.setup.resample.isVisibleTo(page.setup) else page.setup.findings
    top = shown.mapTo(area.viewport(), shown.rect().topLeft()).y()
    assert 0 <= top and top + shown.height() <= area.viewport().height(), (
        top,
        shown.height(),
        area.viewport().height(),
    )


def test_a_fresh_test_preset_run_is_known_as_a_smoke_test_from_its_start(window, qtbot, tmp_path):
    """Started from the page (before the trainer has written training.json), the run followed is of the test
    preset, so its end and its export say smoke test; an exported voice whose .onnx.json records the test
    preset is said to be one even when the run shown does not say."""
    from conftest import target_voice_slice

    from trainer.checkpoints.best import RankedCheckpoint

    page = window.train_page
    page.setup.dataset.setText(str(target_voice_slice(tmp_path / "piper-data", 4)))
    page.setup.start.setCurrentIndex(page.setup.start.findData("scratch"))
    page.setup.preset.setCurrentText("test")
    task = page.start()
    qtbot.waitUntil(lambda: page.process.is_running(), timeout=60_000)
    assert task is not None and page.state is not None and page.state.preset == "test"
    page.process.kill()
    page.process.wait(10_000)
    page.state.preset = ""  # a run whose settings say no preset: the voice's own config decides
    voice = tmp_path / "voices" / "smoke.onnx"
    voice.parent.mkdir()
    voice.write_bytes(b"")
    (tmp_path / "voices" / "smoke.onnx.json").write_text(json.dumps({"training": {"preset": "test"}}))
    best = RankedCheckpoint(
        path=tmp_path / "best-epoch=0001-val_mel=1.4415.ckpt", epoch=1, metric="val_mel", value=1.44
    )
    page._on_exported(voice, best)
    assert "It is a smoke test (test preset)" in page.status.text()


def test_a_trainers_error_is_shown_as_written(tmp_path):
    """The status line after a failed run quotes the trainer's error as written: a path or setting with ``<`` in
    it is not read as markup (the Train page's label is rich text)."""
    from PySide6.QtGui import QTextDocument

    from studio.widgets.run_view import outcome_line

    state = RunState(tmp_path / "run")
    state.apply(events.RunStart(time=T, config={}, num_utterances=9, device="cpu", epochs=2, start="joe"))
    state.error = "cannot read /data/<b>takes</b>/metadata.csv"
    document = QTextDocument()
    document.setHtml(outcome_line(state, 2, False))
    assert "(cannot read /data/<b>takes</b>/metadata.csv)" in document.toPlainText()
