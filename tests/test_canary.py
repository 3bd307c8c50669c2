"""Canary evaluations during training: a test-preset run with ``--eval-every 1`` measures held-out lines each
epoch in processes of their own; a killed evaluation does not stop training; the run state, the leaderboard's
cache and the Train page's Quality chart read them."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import target_voice_slice

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from trainer.events.log import read_events  # noqa: E402
from trainer.run.options import RunOptions  # noqa: E402
from trainer.run.train import create_run, fit  # noqa: E402

CLIPS, BATCH_SIZE = 11, 2
"""10 clips train (the run holds one out) in 5 steps an epoch: more than the test preset's longest discriminator
warm-up (4 steps), so the first epoch ends with the generator trained and is measured; batches of 2 halve the cost
of a step against the preset's 4."""


def _needs_measures() -> None:
    from trainer.evaluate.best_row import missing_measures

    if missing_measures():
        pytest.skip(f"the compare extra is not installed ({', '.join(missing_measures())})")


@pytest.fixture(scope="module")
def piper_folder(tmp_path_factory):
    """The first CLIPS target-voice clips in Piper's layout (one of them held out)."""
    return target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", CLIPS)


def _run(folder, out, **options):
    return create_run(
        RunOptions(dataset=folder, out=out, preset="test", epochs=2, eval_every=1, batch_size=BATCH_SIZE, **options)
    )


@pytest.fixture(scope="module")
def evaluated_run(piper_folder, tmp_path_factory):
    """A 2-epoch test-preset run from scratch that evaluates every epoch."""
    _needs_measures()
    run = _run(piper_folder, tmp_path_factory.mktemp("runs") / "run", eval_lines=2)
    fit(run)
    return run


def _kinds(run, kind: str) -> list:
    return [r for r in read_events(run / "events.jsonl") if r.kind == kind]


def test_each_epoch_is_evaluated_with_its_own_checkpoint(evaluated_run):
    """One evaluation per epoch before the finish, scored on the held-out clip with that epoch's generator (its
    val_mel), the first with the run's noise bands, each with the verdict so far; of the evaluation checkpoints
    only the recommended epoch's is kept, and no output."""
    from trainer.evaluate.lines import held_out_lines

    run = evaluated_run
    records = list(read_events(run / "events.jsonl"))
    evaluations = [r for r in records if r.kind == "evaluation"]
    assert [e.epoch for e in evaluations] == [0, 1]
    assert max(records.index(e) for e in evaluations) < records.index(records[-1]) and records[-1].kind == "finish"
    epochs = {r.epoch: r for r in records if r.kind == "epoch"}
    for evaluation in evaluations:
        assert evaluation.values["val_mel"] == pytest.approx(epochs[evaluation.epoch].losses["val_mel"])
        assert 0 <= evaluation.values["wer"] and 1 <= evaluation.values["dnsmos_ovrl"] <= 5
        assert evaluation.lines == len(held_out_lines(run)) and evaluation.seconds > 0
    first, second = evaluations
    assert first.bands is not None and {"wer", "dnsmos_ovrl"} <= set(first.bands)
    assert min(first.bands.values()) >= 0 and "3 noise seeds at epoch 1" in (first.bands_source or "")
    assert second.bands is None
    assert first.recordings is not None and set(first.recordings) == {"dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "wer"}
    assert 1 <= first.recordings["dnsmos_ovrl"] <= 5 and second.recordings is None  # heard once, by the first
    assert not _kinds(run, "warning")
    from trainer.evaluate.run_measures import run_verdict
    from trainer.events.run_state import load_run

    said = run_verdict(load_run(run))
    assert said is not None and said.keep_epoch in (1, 2) and second.verdict == said.sentence and first.verdict
    kept = f"checkpoint-epoch={said.keep_epoch - 1:04d}.ckpt"  # the recommended epoch's, for Export
    assert sorted(p.name for p in (run / "evaluations").iterdir()) == [kept, "epoch=0000.json", "epoch=0001.json"]


def test_the_run_state_reads_the_evaluations(evaluated_run):
    """load_run gives the evaluations by epoch, a measure's series over the epochs and the run's own bands."""
    from trainer.events.run_state import load_run

    state = load_run(evaluated_run)
    assert sorted(state.evaluations) == [0, 1]
    epochs, wer = state.evaluation_series("wer")
    assert epochs == [1, 2] and wer == [state.evaluations[e].values["wer"] for e in (0, 1)]
    assert state.noise_bands.values == state.evaluations[0].bands
    assert state.noise_bands.source.startswith("this run's 1 held-out line under 3 noise seeds")
    from trainer.evaluate.run_measures import run_recordings

    heard = run_recordings(state)
    assert heard is not None and heard.is_recordings() and heard.values == state.evaluations[0].recordings


def test_the_leaderboard_finds_the_canary_renders_cached(evaluated_run):
    """The run's best checkpoint speaks its held-out clip from the shared cache: the canary evaluation rendered it
    with the same bytes (no second render)."""
    from trainer.checkpoints.best import best_checkpoint
    from trainer.evaluate.lines import held_out_lines
    from trainer.evaluate.render import Candidate, RenderSettings, default_cache_dir, render

    best = best_checkpoint(evaluated_run)
    candidate = Candidate(label=best.label(), model_path=best.path)
    for line in held_out_lines(evaluated_run):
        assert render(candidate, line.text, RenderSettings(seed=0), default_cache_dir()).cached


def test_killing_the_evaluation_process_does_not_stop_training(piper_folder, tmp_path, monkeypatch):
    """The first epoch's evaluation process killed: the run finishes, a warning says that evaluation has no
    result, and the second epoch's evaluation measures the noise bands instead."""
    import trainer.run.canary_callback as canary

    _needs_measures()
    launched, launch = [], canary.launch

    def launch_then_kill_the_first(job):
        process = launch(job)
        if not launched:
            process.kill()
        launched.append(job.epoch)
        return process

    monkeypatch.setattr(canary, "launch", launch_then_kill_the_first)
    run = _run(piper_folder, tmp_path / "run")
    fit(run)
    assert launched == [0, 1] and _kinds(run, "finish")[-1].status == "done"
    warnings = [w.message for w in _kinds(run, "warning")]
    assert len(warnings) == 1 and "of epoch 1 ended without a result (exit code -9" in warnings[0]
    (evaluation,) = _kinds(run, "evaluation")
    assert evaluation.epoch == 1 and evaluation.bands is not None
    assert [p.name for p in (run / "evaluations").glob("*.ckpt")] == ["checkpoint-epoch=0001.ckpt"]


def test_one_evaluation_runs_at_a_time_and_a_newer_one_replaces_a_waiting_one(tmp_path):
    """While one process runs, a second job waits; a third replaces it (the second is skipped); the waiting job
    starts when the running one ends; stop kills what runs."""
    from trainer.evaluate.canary import Job
    from trainer.run.canary_callback import Evaluations

    processes: dict[int, subprocess.Popen] = {}

    def start(job: Job) -> subprocess.Popen:  # a process that lives until its stdin is closed
        command = [sys.executable, "-c", "import sys; sys.stdin.read()"]
        processes[job.epoch] = subprocess.Popen(command, stdin=subprocess.PIPE)
        return processes[job.epoch]

    jobs = [Job(run_dir=tmp_path, checkpoint=tmp_path / f"{n}.ckpt", epoch=n, cache_dir=tmp_path) for n in range(3)]
    evaluations = Evaluations(start)
    for job in jobs:
        evaluations.submit(job)
    assert list(processes) == [0] and evaluations.skipped == [jobs[1]] and evaluations.busy() == [jobs[0], jobs[2]]
    processes[0].stdin.close()
    processes[0].wait()
    assert evaluations.poll() == [(jobs[0], 0)] and list(processes) == [0, 2]
    assert evaluations.stop() == [jobs[2]] and processes[2].returncode != 0 and evaluations.busy() == []


def test_an_epoch_spent_warming_up_the_discriminators_is_not_measured(tmp_path):
    """A due epoch whose generator stayed frozen (the warm-up still on at its end) queues no evaluation and says
    why; once the warm-up is over the due epoch is measured."""
    from types import SimpleNamespace

    from trainer.events.log import EventLog
    from trainer.gan.d_warmup import DiscriminatorWarmup
    from trainer.run.callbacks import Timing
    from trainer.run.canary_callback import CanaryCallback, Evaluations
    from trainer.run.presets import preset

    warmup = DiscriminatorWarmup(preset("test"))
    warmup.arm()
    log = EventLog(tmp_path / "events.jsonl")
    callback = CanaryCallback(
        tmp_path, None, log, Timing(), due=lambda trainer: True, lines=2, cache_dir=tmp_path, evaluations=Evaluations()
    )
    submitted = []
    callback._submit = lambda trainer, module: submitted.append(trainer.current_epoch)
    trainer, module = SimpleNamespace(is_global_zero=True, current_epoch=0), SimpleNamespace(d_warmup=warmup)
    callback.on_train_epoch_end(trainer, module)
    warmup.arm(0)  # the warm-up is over
    trainer.current_epoch = 1
    callback.on_train_epoch_end(trainer, module)
    log.close()
    said = [r.message for r in read_events(tmp_path / "events.jsonl") if r.kind == "stage"]
    assert said == ["epoch 1 not measured: the generator was frozen all epoch (discriminator warm-up), so it still"
                    " speaks as the start voice"]  # fmt: skip
    assert submitted == [1]


@pytest.mark.gui
def test_the_train_pages_quality_chart_shows_the_evaluations(evaluated_run, qtbot):
    """The run view's Quality tab (beside the loss curves) charts each measure over the evaluated epochs with
    ± the run's band as bars, its band in each title and the band's source under the plots."""
    from studio.widgets.run_view import RunView
    from trainer.events.run_state import load_run

    view = RunView()
    qtbot.addWidget(view)
    view.resize(900, 600)
    view.show()
    qtbot.waitExposed(view)
    state = load_run(evaluated_run)
    view.show_state(state)
    chart = view.quality
    assert chart.data["wer"] == state.evaluation_series("wer") and chart.data["wer"][0] == [1, 2]
    band = state.noise_bands.of("dnsmos_ovrl")
    bars = chart._bars["dnsmos_ovrl"].opts
    assert list(bars["x"]) == [1, 2] and list(bars["height"]) == pytest.approx([2 * band, 2 * band])
    assert chart.plots["dnsmos_ovrl"].titleLabel.text == f"DNSMOS ↑ ±{band:.2f}"
    assert state.noise_bands.source in chart.caption.text()
    tabs = chart.parentWidget().parentWidget()
    assert tabs.tabText(tabs.indexOf(chart)) == "Quality" and tabs.currentWidget() is chart


def test_an_evaluation_runs_at_low_priority_until_training_is_over_and_ends_with_the_trainer():
    """Linux with autogroups: the process (a session leader, as the trainer starts it) runs SCHED_IDLE in an
    autogroup of nice 19, back to 0 when the trainer says "now"; the test's own group is left alone; when the
    trainer closes its end of the pipe (as when it dies), the process ends."""
    from trainer.evaluate.background import AUTOGROUP, NICE, NOW, autogroups_on

    if not autogroups_on():
        pytest.skip("no scheduler autogroups here (Linux with kernel.sched_autogroup_enabled)")
    script = (
        "import time\n"
        "from pathlib import Path\n"
        "from trainer.evaluate.background import follow_trainer, lower_priority\n"
        "def nice(): return Path('/proc/self/autogroup').read_text().split()[-1]\n"
        "lower_priority()\n"
        "follow_trainer()\n"
        "print(nice(), flush=True)\n"
        "while nice() != '0': time.sleep(0.05)\n"
        "print(nice(), flush=True)\n"
        "time.sleep(60)\n"
    )
    own = AUTOGROUP.read_text()
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, start_new_session=True
    )
    assert process.stdout.readline().strip() == str(NICE).encode()
    assert os.sched_getscheduler(process.pid) == os.SCHED_IDLE and AUTOGROUP.read_text() == own
    process.stdin.write(NOW)
    process.stdin.flush()
    assert process.stdout.readline().strip() == b"0"
    process.stdin.close()
    assert process.wait(timeout=30) == 3


def test_evaluations_come_every_n_epochs_and_at_the_last_or_with_the_previews():
    """--eval-every 3 of 10 epochs: epochs 3, 6, 9 and 10; without it, the preview callback's own "is this epoch
    due" (the previews' schedule may change; the evaluations follow it)."""
    from types import SimpleNamespace

    from trainer.events.log import NoLog
    from trainer.run.callbacks import PreviewCallback, Timing
    from trainer.run.canary_callback import schedule

    trainers = [SimpleNamespace(current_epoch=e, max_epochs=10) for e in range(10)]
    due = schedule(3, lambda trainer: False)
    assert [t.current_epoch + 1 for t in trainers if due(t)] == [3, 6, 9, 10]
    previews = PreviewCallback(".", None, Timing(), NoLog(), every=4)
    assert schedule(None, previews.due) == previews.due  # whatever the previews' schedule is
