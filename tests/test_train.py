"""Training runs end to end on the CPU with the ``test`` preset and real recordings."""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import target_voice_slice

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from trainer.events.log import read_events  # noqa: E402
from trainer.run.errors import RunError  # noqa: E402
from trainer.run.options import RunOptions  # noqa: E402
from trainer.run.train import create_run, fit  # noqa: E402

CLIPS = 16


@pytest.fixture(scope="module")
def piper_folder(tmp_path_factory):
    """The first 24 target-voice clips in Piper's layout (metadata.csv + wavs/)."""
    return target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", CLIPS)


@pytest.fixture(scope="module")
def finished_run(piper_folder, tmp_path_factory):
    """A 2-epoch run from scratch."""
    run = create_run(
        RunOptions(dataset=piper_folder, out=tmp_path_factory.mktemp("runs") / "run", preset="test", epochs=2)
    )
    best = fit(run)
    return run, best


def test_two_epochs_write_valid_events_checkpoints_and_previews(finished_run):
    """Events validate against the schema; two epoch records with their time split; both rates anneal to 5% of
    their start at the last epoch; files exist."""
    run, best = finished_run
    records = list(read_events(run / "events.jsonl"))
    kinds = [r.kind for r in records]
    assert kinds[:2] == ["stage", "run_start"] and kinds[-1] == "finish" and kinds.count("epoch") == 2
    epochs = [r for r in records if r.kind == "epoch"]
    for record in epochs:
        parts = record.train_s + record.val_s + record.preview_s + record.checkpoint_wait_s
        assert parts == pytest.approx(record.seconds, rel=1e-6) and record.val_s > 0
        assert {"val_mel", "train_mel", "train_disc"} <= set(record.losses)
    assert epochs[0].learning_rates == {"generator": 2e-4, "discriminator": 1e-4}  # the rates each epoch trained with
    assert epochs[1].learning_rates["generator"] == pytest.approx(2e-4 * 0.05, rel=1e-9)
    assert epochs[1].learning_rates["discriminator"] == pytest.approx(1e-4 * 0.05, rel=1e-9)
    assert {r.role for r in records if r.kind == "checkpoint"} == {"best", "resume"}
    etas = [r for r in records if r.kind == "eta"]
    assert etas[0].seconds_left == pytest.approx(epochs[0].seconds) and etas[-1].seconds_left == 0
    assert len(list((run / "previews").glob("epoch=0001/*.wav"))) == 3
    state = torch.load(run / "last.ckpt", weights_only=False)
    assert state["epoch"] == 1 and len(state["optimizer_states"]) == 2 and "voice_studio_rng" in state
    assert best.parent == run / "checkpoints" and best.stat().st_size < (run / "last.ckpt").stat().st_size


def test_epoch_records_split_the_training_step(finished_run):
    """Each epoch's step_s: every part timed, none negative, alignment and generator above 0, all within train_s."""
    from trainer.events.schema import STEP_PARTS

    run, _ = finished_run
    for record in (r for r in read_events(run / "events.jsonl") if r.kind == "epoch"):
        assert record.step_s is not None and list(record.step_s) == list(STEP_PARTS)
        assert min(record.step_s.values()) >= 0 and record.step_s["alignment"] > 0
        assert record.step_s["generator"] > 0 and record.step_s["backward"] > 0
        assert sum(record.step_s.values()) <= record.train_s + 1e-3


def test_best_checkpoint_exports_a_voice_piper_speaks(finished_run, tmp_path):
    """The best generator checkpoint exports to a Piper voice that piper-tts loads and speaks."""
    from piper import PiperVoice

    from trainer.checkpoints.export import export_voice

    _, best = finished_run
    onnx_path, json_path = export_voice(best, tmp_path / "trained.onnx")
    assert json.loads(json_path.read_text())["audio"]["sample_rate"] == 22050
    audio = np.concatenate([c.audio_float_array for c in PiperVoice.load(onnx_path).synthesize("Hello there.")])
    assert len(audio) > 2000 and np.isfinite(audio).all()


def test_kill_9_then_resume_continues_from_the_last_checkpoint(piper_folder, tmp_path, monkeypatch):
    """A run killed mid-epoch resumes from last.ckpt: the next epoch, the rate the schedule gives it (from the
    saved one on to 5% of the start at the last epoch), both optimizers' Adam moments bit for bit."""
    from trainer.checkpoints.writer import snapshot
    from trainer.run.callbacks import EventsCallback

    restored = []
    monkeypatch.setattr(  # copy the optimizers' state once Lightning has restored it, before the first step
        EventsCallback,
        "on_train_start",
        lambda self, trainer, module: restored.extend(snapshot(o.state_dict()) for o in trainer.optimizers),
        raising=False,
    )
    run = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    command = ["-m", "studio.cli", "train", "--dataset", str(piper_folder), "--out", str(run), "--preset", "test"]
    process = subprocess.Popen(
        [sys.executable, *command, "--epochs", "3"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 300  # a loaded 2-core machine took over 120 s to its second epoch
    while time.monotonic() < deadline and not _has_epoch(run, 1):
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    saved = torch.load(run / "last.ckpt", weights_only=False)
    saved_lr = saved["lr_schedulers"][0]["_last_lr"][0]
    fit(run, resume=True)
    records = list(read_events(run / "events.jsonl"))
    restart = max(i for i, r in enumerate(records) if r.kind == "run_start")
    assert records[restart].start == "resume"
    resumed = [r for r in records[restart:] if r.kind == "epoch"]
    assert resumed[0].epoch == saved["epoch"] + 1 and resumed[-1].epoch == 2
    assert saved_lr == pytest.approx(2e-4 * 0.05 ** (saved["epoch"] / 2), rel=1e-9)
    for record in resumed:
        assert record.learning_rates["generator"] == pytest.approx(2e-4 * 0.05 ** (record.epoch / 2), rel=1e-9)
    assert len(restored) == len(saved["optimizer_states"]) == 2
    for ours, theirs in zip(restored, saved["optimizer_states"], strict=True):
        assert ours["state"].keys() == theirs["state"].keys() and len(ours["state"]) > 10
        for key, moments in theirs["state"].items():
            for name in ("exp_avg", "exp_avg_sq", "step"):
                assert torch.equal(ours["state"][key][name].cpu(), moments[name].cpu()), (key, name)


def test_previews_keep_their_schedule_across_a_resume_and_come_when_asked(piper_folder, tmp_path):
    """Previews every 4 epochs over 5, trained as 1 epoch then resumed to 5: scheduled after epochs 1, 2, 4 and 5
    (from 1) whichever session trains them, each ETA counting to the next; a request left before training is
    answered after the first training step, in a folder of its own, marked as asked for, and taken away. The
    learning rate, flat over the 1 epoch planned first, anneals from there to 5% at the 5th. Previews speak with
    the run's voice config's inference settings, as its checkpoints do (here noise 0: the epoch's checkpoint says
    the first line as its preview did)."""
    from dataclasses import replace

    import soundfile

    from engines.audio import concat, snr_db
    from engines.base import SynthesisOptions
    from engines.torch.engine import TorchEngine
    from trainer.events.preview_lines import PREVIEW_LINES
    from trainer.events.preview_schedule import epochs_to_next
    from trainer.events.run_state import PREVIEW_FILE, request_preview
    from trainer.run.document import read_run, write_run
    from trainer.run.train import extend_run

    run = create_run(RunOptions(dataset=piper_folder, out=tmp_path / "run", preset="test", epochs=1))
    document = read_run(run)
    write_run(replace(document, config={**document.config, "preview_every": 4}))
    voice = json.loads((run / "config.json").read_text(encoding="utf-8"))
    voice["inference"].update(noise_scale=0.0, noise_w=0.0)
    (run / "config.json").write_text(json.dumps(voice), encoding="utf-8")
    request_preview(run)
    fit(run)
    (checkpoint,) = (run / "checkpoints").glob("best-epoch=0000-*.ckpt")
    noiseless = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
    said = concat(c.audio for c in TorchEngine.from_path(checkpoint).synthesize(PREVIEW_LINES[0], noiseless))
    preview, _ = soundfile.read(run / "previews" / "epoch=0000" / "1.wav", dtype="float32")
    assert abs(len(said) - len(preview)) <= 256 and snr_db(preview[: len(said)], said[: len(preview)]) > 30
    extend_run(run, 5)
    fit(run, resume=True)
    records = list(read_events(run / "events.jsonl"))
    previews = [r for r in records if r.kind == "preview"]
    asked = [p for p in previews if p.requested]
    assert len(asked) == 3 and asked[0].step is not None and asked[0].step > 0 and asked[0].epoch == 0
    assert all("epoch=0000-batch=0001" in p.path and os.path.isfile(p.path) for p in asked)
    assert not (run / PREVIEW_FILE).exists()
    scheduled = [p.epoch for p in previews if not p.requested]
    assert scheduled == [e for e in (0, 1, 3, 4) for _ in range(3)]
    for eta in (r for r in records if r.kind == "eta" and 0 < r.epoch < 4):  # the resumed session's, but the last
        mean = eta.seconds_left / (5 - eta.epoch - 1)
        assert eta.next_preview_s == pytest.approx(mean * epochs_to_next(eta.epoch, 5, 4)), eta
    rates = [r.learning_rates["generator"] for r in records if r.kind == "epoch"]
    assert rates == pytest.approx([2e-4 * 0.05 ** (epoch / 4) for epoch in range(5)], rel=1e-9)


def test_train_says_its_time_and_schedule_then_preview_now_is_answered(tmp_path):
    """``voice-studio train`` says before training how long its epochs take and when previews come;
    ``train --preview-now RUN`` from another terminal brings previews within the epoch; Ctrl+C stops it; asked
    again with no trainer (or of no run, or with other options), it is one line and exit 2."""
    folder = target_voice_slice(tmp_path / "piper-data", 12)
    run, said = tmp_path / "run", tmp_path / "stderr.txt"
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    train = [sys.executable, "-m", "studio.cli", "train"]
    command = [*train, "--dataset", str(folder), "--out", str(run), "--preset", "test", "--epochs", "50"]
    with said.open("w") as stderr:
        process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not _has(run, lambda r: r.kind == "progress" and r.batches >= 1):
        time.sleep(0.05)
    asked = subprocess.run([*train, "--preview-now", str(run)], env=env, capture_output=True, text=True)
    assert asked.returncode == 0 and "asked for previews" in asked.stdout, asked.stderr
    while time.monotonic() < deadline and not _has(run, lambda r: r.kind == "preview" and r.requested):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)  # stops after this epoch
    assert process.wait(timeout=300) == 0
    records = list(read_events(run / "events.jsonl"))
    within = [r for r in records if r.kind == "preview" and r.requested]
    assert len(within) == 3 and all("-batch=" in r.path for r in within)
    lines = said.read_text().splitlines()
    assert any(line.startswith("50 epochs ≈ ") and "on this CPU" in line for line in lines), lines[:8]
    assert f"previews after every epoch; for one now: voice-studio train --preview-now {run}" in lines
    for args, why in (
        (["--preview-now", str(run)], "no trainer is training this run now"),
        (["--preview-now", str(folder)], "not a run folder"),
        (["--preview-now", str(run), "--epochs", "3"], "takes no other option"),
    ):
        refused = subprocess.run([*train, *args], env=env, capture_output=True, text=True)
        assert refused.returncode == 2 and why in refused.stderr and len(refused.stderr.splitlines()) == 1


def _has(run, wanted) -> bool:
    path = run / "events.jsonl"
    return path.exists() and any(wanted(r) for r in read_events(path))


def _has_epoch(run, epoch: int) -> bool:
    path = run / "events.jsonl"
    return path.exists() and any(r.kind == "epoch" and r.epoch >= epoch for r in read_events(path))


def test_bad_starts_are_refused_clearly(piper_folder, tmp_path, finished_run):
    """An empty folder, a missing start voice, a taken run folder, nothing to resume."""
    (tmp_path / "empty").mkdir()
    with pytest.raises(RunError, match="not a dataset"):
        create_run(RunOptions(dataset=tmp_path / "empty", out=tmp_path / "run1", preset="test"))
    with pytest.raises(RunError, match="must be 'scratch', 'joe', or an existing"):
        create_run(RunOptions(dataset=piper_folder, out=tmp_path / "run2", start="missing.onnx", preset="test"))
    run, _ = finished_run
    with pytest.raises(RunError, match="already holds a run"):
        create_run(RunOptions(dataset=piper_folder, out=run, preset="test"))
    with pytest.raises(RunError, match="nothing to resume"):
        fit(create_run(RunOptions(dataset=run / "cache", out=tmp_path / "run3", preset="test")), resume=True)


def test_ddp_two_cpu_processes_train_an_epoch_and_write_each_file_once(piper_folder, tmp_path):
    """Lightning's DDP over 2 CPU processes (gloo): one epoch; one run_start, epoch and finish; files once; the
    speed counts both processes' utterances."""
    run = tmp_path / "ddp"
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    command = [sys.executable, "-m", "studio.cli", "train", "--dataset", str(piper_folder), "--out", str(run)]
    result = subprocess.run(
        [*command, "--preset", "test", "--epochs", "1", "--devices", "2", "--device", "cpu"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    records = list(read_events(run / "events.jsonl"))
    kinds = [r.kind for r in records]
    assert (kinds.count("run_start"), kinds.count("epoch"), kinds.count("finish")) == (1, 1, 1)
    written = [r.path for r in records if r.kind in ("checkpoint", "preview")]
    assert len(written) == len(set(written)) == 5  # best, last, 3 previews
    assert len(list((run / "checkpoints").glob("best-*.ckpt"))) == 1 and (run / "last.ckpt").exists()
    assert not (run / "trainer.json").exists()  # kept by rank 0 while it trained (trainer.events.live), then removed
    batch = next(r for r in records if r.kind == "run_start").batch_size
    first = next(r for r in records if r.kind == "progress" and r.batches == 1)  # one batch per process so far
    assert 2 * (batch - 1) - 0.5 <= first.items_per_s * first.elapsed_s <= 2 * batch + 0.5, (batch, first)


@pytest.mark.filterwarnings("error:Found .* module\\(s\\) in eval mode")
def test_fine_tune_from_the_default_onnx_voice(piper_folder, tmp_path, monkeypatch):
    """From joe (ONNX): recovery reported, discriminator warmed up first, exported voice speaks in piper-tts."""
    from piper import PiperVoice

    from trainer.checkpoints.export import export_voice

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # an empty recovery cache: joe is recovered

    run = create_run(RunOptions(dataset=piper_folder, out=tmp_path / "run", start="joe", preset="test", epochs=2))
    config = json.loads((run / "training.json").read_text())["config"]
    assert config["model"]["hidden_channels"] == 192  # joe's size (medium), not the test preset's
    best = fit(run)
    records = list(read_events(run / "events.jsonl"))
    recovered = {r.part: r.value for r in records if r.kind == "recovery"}
    stages = [r.message for r in records if r.kind == "stage" and r.name == "recovery"]
    assert stages[1].endswith("en_US-joe-medium.onnx: 6 lines to speak, then 6 fitting steps")  # 4 warm + 2 fit
    assert set(recovered) == {"enc_q", "dp"} and all(np.isfinite(v) for v in recovered.values())
    assert [r.epoch for r in records if r.kind == "epoch"] == [0, 1]
    warmup = [r for r in records if r.kind == "stage" and r.name == "d_warmup"]
    assert warmup[0].step == 0 and warmup[-1].step == warmup[-1].steps  # begun, then over (ready or at its cap)
    saved = torch.load(run / "last.ckpt", weights_only=False)
    state = saved["state_dict"]
    assert state["d_warmup.left"] == 0 and 2 <= state["d_warmup.done"] <= 4  # the test preset's: 2 to 4 steps
    from trainer.run.disk import network_size

    anchor = saved["voice_studio_anchor"]  # the start's inference path, which the disk estimate counts
    size = network_size("medium", anchored=True)
    assert size.anchored == sum(t.numel() for t in anchor.values()) and size.anchored_tensors == len(anchor)
    onnx_path, _ = export_voice(best, tmp_path / "tuned.onnx")
    audio = np.concatenate([c.audio_float_array for c in PiperVoice.load(onnx_path).synthesize("Good morning.")])
    assert len(audio) > 5000 and np.isfinite(audio).all()


def test_dataset_at_another_rate_than_the_start_voice_is_refused(piper_folder, tmp_path):
    """A 32 kHz cache against joe (22,050 Hz): a clear error naming both rates and the fix."""
    from trainer.data.preprocess import CacheSettings, build_cache
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path / "project")
    project.import_sources([piper_folder], workers=2)
    cache = build_cache(project, tmp_path / "cache32", CacheSettings(sample_rate=32000), workers=2)
    with pytest.raises(RunError, match="speaks at 22050 Hz but the dataset is prepared at 32000 Hz.*--rate 22050"):
        create_run(RunOptions(dataset=cache, out=tmp_path / "run", start="joe", preset="test"))


def test_discriminator_warm_up_leaves_the_generator_alone(finished_run):
    """During the warm-up only the discriminators learn; afterwards the generator does too. Its state survives in
    the state dict: a system given it (as a resume is) warms up for the steps left, then trains."""
    import lightning as L

    from trainer.data.datamodule import CacheDataModule
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    run, _ = finished_run
    # its cap alone ends it; each one-epoch fit stands for part of a longer run (no cut to a share of it)
    config = preset("test", num_symbols=256, d_warmup_ready_loss=0.0, d_warmup_max_share=10.0)
    data = CacheDataModule(run / "cache", 4, config.segment_frames)

    def one_epoch(system):
        before_g = {k: v.clone() for k, v in system.model_g.state_dict().items()}
        before_d = {k: v.clone() for k, v in system.model_d.state_dict().items()}
        trainer = L.Trainer(
            max_epochs=1,
            limit_train_batches=2,
            limit_val_batches=0,
            accelerator="cpu",
            logger=False,
            enable_checkpointing=False,
            enable_progress_bar=False,
            enable_model_summary=False,
        )
        trainer.fit(system, datamodule=data)
        g_moved = any(not torch.equal(before_g[k], v) for k, v in system.model_g.state_dict().items())
        d_moved = any(not torch.equal(before_d[k], v) for k, v in system.model_d.state_dict().items())
        return g_moved, d_moved, int(system.d_warmup.left)

    first = VitsSystem(config.to_dict())
    first.d_warmup.arm(3)
    assert one_epoch(first) == (False, True, 1)  # two of the three warm-up steps
    resumed = VitsSystem(config.to_dict())
    resumed.load_state_dict(first.state_dict())
    assert one_epoch(resumed) == (True, True, 0)  # the last warm-up step, then one that trains the generator


def test_disk_estimate_matches_the_files_a_run_keeps(finished_run, piper_folder):
    """The pre-flight estimate of last.ckpt, a best checkpoint and the cache is within 30% of the real files."""
    from trainer.run.disk import generator_bytes, network_size, resume_bytes
    from trainer.run.preflight import summarize

    run, best = finished_run
    size = network_size("test")
    assert 0.7 < (run / "last.ckpt").stat().st_size / resume_bytes(size) < 1.3
    assert 0.7 < best.stat().st_size / generator_bytes(size) < 1.3
    cache = run / "cache"
    seconds = summarize(cache).seconds
    expected_cache = seconds * 22050 * 4 * (1 + 513 / 256)
    actual_cache = sum(p.stat().st_size for p in cache.iterdir())
    assert 0.7 < actual_cache / expected_cache < 1.3


class _FullDisk(io.FileIO):
    """A file on a full disk: every write raises ``ENOSPC``, as the OS does."""

    def write(self, data) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_disk_that_fills_during_training_stops_the_run_and_keeps_it_resumable(finished_run, tmp_path, monkeypatch):
    """Resumed for a third epoch on a disk that is full by its end (writing last.ckpt raises ENOSPC): the run stops
    at once in one line with the OS's reason and the way on, never says that checkpoint was saved, and keeps the
    last.ckpt it had, from which it resumes; a resume that would not fit is refused before it trains."""
    import shutil

    from trainer.checkpoints import writer as writer_module
    from trainer.run.train import check_resumable, extend_run

    run = tmp_path / "run"
    shutil.copytree(finished_run[0], run, ignore=shutil.ignore_patterns("cache"))  # the cache is read where it is
    extend_run(run, 3)
    before = (run / "last.ckpt").read_bytes()
    real_open = open
    full = lambda name, mode: _FullDisk(name, mode) if ".last.ckpt." in str(name) else real_open(name, mode)  # noqa: E731
    monkeypatch.setattr(writer_module, "open", full, raising=False)
    with pytest.raises(RunError) as stopped:
        fit(run, resume=True)
    said = str(stopped.value)
    assert said.startswith(f"{run / 'last.ckpt'}: checkpoint not written: No space left on device. Training stopped;")
    assert said.endswith(
        f"keeps its resume checkpoint: free space on its disk, then resume with: voice-studio train --resume {run}"
    )
    records = list(read_events(run / "events.jsonl"))
    assert records[-1].kind == "error" and records[-1].message == said
    assert not [r for r in records if r.kind == "checkpoint" and r.role == "resume" and r.epoch == 2]
    assert (run / "last.ckpt").read_bytes() == before and not list(run.glob(".*.part"))
    monkeypatch.undo()
    check_resumable(run, 3)  # resumable: a whole last.ckpt and an epoch to train
    usage = shutil.disk_usage(run)
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: usage._replace(free=2**20))
    with pytest.raises(
        RunError, match=rf"are needed in {run} for a resume's checkpoints and previews; 1.0 MiB are free"
    ):
        check_resumable(run, 3)


def test_train_checks_free_space_before_it_writes_anything(piper_folder, tmp_path, monkeypatch, capsys):
    """A disk with 10 MiB free: voice-studio train refuses in one line, naming the folder and both sizes (checkpoints,
    cache and previews), before it writes anything, as the Train page's Check does."""
    import shutil

    from studio.cli import main

    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda folder: usage._replace(free=10 * 2**20))
    out = tmp_path / "run"
    command = ["train", "--dataset", str(piper_folder), "--out", str(out), "--preset", "test", "--epochs", "1"]
    assert main(command) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"MiB are needed in {tmp_path} for checkpoints, the cache and previews" in err
    assert "10.0 MiB are free" in err and not out.exists()


def test_ctrl_c_stops_after_the_epoch_and_resume_trains_on(piper_folder, tmp_path):
    """One Ctrl+C: the epoch ends, the resume checkpoint is written, the run says 'stopped' and exits 0;
    resuming a finished run asks for more epochs, and --epochs trains on to that many."""
    run = tmp_path / "run"
    command = [sys.executable, "-m", "studio", "train", "--dataset", str(piper_folder), "--out", str(run)]
    process = subprocess.Popen([*command, "--preset", "test", "--epochs", "30"], stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and not _has_epoch(run, 0):
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=180)
    assert process.returncode == 0, stderr
    assert "stopping after this epoch" in stderr and "LeafSpec" not in stderr
    records = list(read_events(run / "events.jsonl"))
    assert records[-1].kind == "finish" and records[-1].status == "stopped"
    done = records[-1].epochs
    assert done < 30 and (run / "last.ckpt").exists()

    from trainer.run.train import extend_run

    extend_run(run, done + 1)
    fit(run, resume=True)
    assert list(read_events(run / "events.jsonl"))[-1].status == "done"
    with pytest.raises(RunError, match="finished all its .* epochs; give --epochs"):
        fit(run, resume=True)
    from trainer.run.resume import resume_settings

    before = (run / "training.json").read_bytes()
    with pytest.raises(RunError, match="finished all its .* epochs; give --epochs"):  # refused before any change
        resume_settings(run, {}, workers=1, compile="on", device="cpu")
    assert (run / "training.json").read_bytes() == before
    with pytest.raises(RunError, match=r": \d+ epochs? done already; give --epochs more than \d+"):
        extend_run(run, done)


def test_a_failed_start_leaves_no_folder(piper_folder, tmp_path):
    """An unknown preset or a missing dataset is refused before anything is written."""
    with pytest.raises(ValueError, match="unknown preset"):
        create_run(RunOptions(dataset=piper_folder, out=tmp_path / "a", preset="huge"))
    with pytest.raises(RunError, match="no such dataset folder"):
        create_run(RunOptions(dataset=tmp_path / "nope", out=tmp_path / "b", preset="test"))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_bf16_autocast_epoch_on_the_cpu(finished_run, tmp_path):
    """bf16-mixed (the CUDA default) runs the same autocast paths on the CPU (float32 mel, alignment and
    losses inside): an epoch with finite losses; fp16 on the CPU and unknown precisions are refused."""
    run_dir, _ = finished_run
    run = create_run(
        RunOptions(dataset=run_dir / "cache", out=tmp_path / "bf16", preset="test", epochs=1, precision="bf16-mixed")
    )
    fit(run)
    records = list(read_events(run / "events.jsonl"))
    start = next(r for r in records if r.kind == "run_start")
    losses = next(r for r in records if r.kind == "epoch").losses
    assert start.precision == "bf16-mixed"
    assert {"val_mel", "train_mel", "train_disc"} <= set(losses) and all(np.isfinite(v) for v in losses.values())
    with pytest.raises(RunError, match="needs a CUDA GPU"):
        fit(
            create_run(
                RunOptions(dataset=run_dir / "cache", out=tmp_path / "fp16", preset="test", precision="16-mixed")
            )
        )
    with pytest.raises(RunError, match="use auto"):
        create_run(RunOptions(dataset=run_dir / "cache", out=tmp_path / "fp8", preset="test", precision="fp8"))


def test_an_utterance_with_more_phoneme_ids_than_frames_is_left_out(finished_run, tmp_path):
    """MAS has no path for more text positions than frames: such a clip is left out on the host (named), never
    handed to the search (whose GPU back-end does not check lengths). The pre-flight check counts it too."""
    import shutil

    from trainer.data.datamodule import CacheDataModule
    from trainer.run.preflight import UNALIGNABLE, preflight
    from trainer.run.presets import preset

    run, _ = finished_run
    cache = shutil.copytree(run / "cache", tmp_path / "cache")
    manifest = json.loads((cache / "cache.json").read_text())
    utterances = manifest["utterances"]
    first, total_ids = utterances[0], sum(u["phoneme_ids"][1] for u in utterances)
    assert total_ids > first["spec"][1]  # the phoneme file holds enough ids to make one clip's text too long
    first["phoneme_ids"] = [0, first["spec"][1] + 1]
    (cache / "cache.json").write_text(json.dumps(manifest))
    data = CacheDataModule(cache, 4, preset("test").segment_frames)
    data.setup()
    assert data.unalignable == [first["id"]]
    kept = data.train_set.indices + data.val_set.indices
    assert 0 not in kept and len(kept) + len(data.skipped) == len(utterances) - 1
    said = [f.message for f in preflight(RunOptions(dataset=cache, out=tmp_path / "run", preset="test"))]
    assert f"1 clip will be left out: 1 × {UNALIGNABLE}." in said, said
