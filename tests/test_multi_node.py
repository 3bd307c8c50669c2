"""Multi-node training: which process writes (trainer.run.ranks), and a real 2-node torchrun run on 127.0.0.1."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import target_voice_slice, whole_last_ckpt, write_started_run

from trainer.events.log import read_events
from trainer.run.errors import RunError
from trainer.run.ranks import global_rank, rank_zero, wait_for_run

TORCHRUN_NODE_1 = {"TORCHELASTIC_RUN_ID": "none", "RANK": "1", "LOCAL_RANK": "0", "GROUP_RANK": "1", "WORLD_SIZE": "2"}
SLURM_TASK_2 = {
    "SLURM_NTASKS": "4",
    "SLURM_NTASKS_PER_NODE": "2",
    "SLURM_JOB_NAME": "train",
    "SLURM_PROCID": "2",
    "SLURM_LOCALID": "0",
}


@pytest.mark.parametrize(
    ("environ", "zero"),
    [
        ({}, True),
        ({"LOCAL_RANK": "1"}, False),  # Lightning's launcher re-running the command on this machine
        ({"LOCAL_RANK": "0", "NODE_RANK": "1"}, False),  # Lightning's launcher on a second machine
        (TORCHRUN_NODE_1, False),  # LOCAL_RANK 0 and no NODE_RANK: only RANK tells
        ({**TORCHRUN_NODE_1, "RANK": "0", "GROUP_RANK": "0"}, True),
        (SLURM_TASK_2, False),
        ({**SLURM_TASK_2, "SLURM_PROCID": "0"}, True),
        ({**SLURM_TASK_2, "SLURM_JOB_NAME": "bash", "LOCAL_RANK": "1"}, False),  # interactive: not SLURM's ranks
        ({**SLURM_TASK_2, "SLURM_JOB_NAME": "interactive"}, True),
    ],
)
def test_rank_zero_follows_the_launcher(environ, zero):
    """Global rank 0 is found from torchrun's, SLURM's or Lightning's own variables, as Lightning finds it."""
    assert rank_zero(environ) is zero


@pytest.mark.parametrize("environ", [TORCHRUN_NODE_1, SLURM_TASK_2])
def test_global_rank_agrees_with_lightnings_cluster_environment(environ, monkeypatch):
    """Under torchrun's and SLURM's variables Lightning's own environment class gives the same rank."""
    from lightning.fabric.plugins.environments import SLURMEnvironment, TorchElasticEnvironment

    for key in [k for k in os.environ if k.startswith(("SLURM_", "TORCHELASTIC_"))] + ["RANK", "LOCAL_RANK"]:
        monkeypatch.delenv(key, raising=False)
    for key, value in environ.items():
        monkeypatch.setenv(key, value)
    chosen = next(kind for kind in (TorchElasticEnvironment, SLURMEnvironment) if kind.detect())
    assert chosen().global_rank() == global_rank(environ)


def test_a_waiting_rank_gives_up_naming_the_shared_folder(tmp_path):
    """No training.json within the time allowed: a RunError that says the folder must be shared."""
    with pytest.raises(RunError, match="must be on storage they all share"):
        wait_for_run(tmp_path / "run", lambda out: False, timeout_s=0.2, poll_s=0.05)
    assert wait_for_run(tmp_path, lambda out: True) == tmp_path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_torchrun_on_two_nodes_shards_the_epoch_and_writes_once(tmp_path):
    """torchrun --nnodes 2 (two launches on 127.0.0.1, gloo), preset test, 2 epochs: both exit 0; per epoch the
    ranks train on disjoint utterances that together are the training set; one events file with one start,
    two epochs and one finish, each file written once; the best checkpoint exports. About 2 min on 2 cores."""
    from trainer.checkpoints.export import export_voice
    from trainer.data.datamodule import CacheDataModule
    from trainer.run.presets import preset

    data, run, seen = target_voice_slice(tmp_path / "data", 16), tmp_path / "run", tmp_path / "seen"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": os.getcwd(), "VOICE_STUDIO_SEEN_UTTERANCES": str(seen), "OMP_NUM_THREADS": "1"}
    train = ["-m", "studio.cli", "train", "--dataset", str(data), "--out", str(run), "--preset", "test"]
    train += ["--epochs", "2", "--device", "cpu", "--num-nodes", "2", "--devices", "1", "--batch-size", "4"]
    nodes = [
        subprocess.Popen(
            [sys.executable, "-m", "torch.distributed.run", "--nnodes", "2", "--nproc-per-node", "1"]
            + ["--node-rank", str(rank), "--master-addr", "127.0.0.1", "--master-port", str(port), *train],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for rank in (0, 1)
    ]
    outputs = [node.communicate(timeout=900) for node in nodes]
    for node, (_, err) in zip(nodes, outputs, strict=True):
        assert node.returncode == 0, err[-3000:]
    module = CacheDataModule(run / "cache", 4, preset("test").segment_frames)
    module.setup()
    training = sorted(module.train_set.cache.utterances[i].id for i in module.train_set.indices)
    lines = {rank: (seen / f"rank-{rank}.txt").read_text().split("\n") for rank in (0, 1)}
    for epoch in ("0", "1"):
        shards = [[line.split()[1] for line in lines[rank] if line.split()[:1] == [epoch]] for rank in (0, 1)]
        assert shards[0] and shards[1] and sorted(shards[0] + shards[1]) == training  # disjoint, and all
    records = list(read_events(run / "events.jsonl"))
    kinds = [r.kind for r in records]
    assert (kinds.count("run_start"), kinds.count("epoch"), kinds.count("finish")) == (1, 2, 1)
    written = [(r.epoch, r.path) for r in records if r.kind in ("checkpoint", "preview")]
    assert len(written) == len(set(written))
    best = Path(outputs[0][0].strip().splitlines()[-1])
    assert best.parent == run / "checkpoints" and not outputs[1][0].strip()  # rank 1 does not say it
    onnx_path, _ = export_voice(best, tmp_path / "two-nodes.onnx")
    assert onnx_path.stat().st_size > 100_000


def test_a_resume_plan_is_what_resume_settings_writes_and_writes_nothing(tmp_path, make_tiny_checkpoint):
    """The ranks other than 0 of a DDP resume plan the same training.json that rank 0 writes, without writing."""
    from trainer.run.document import RunDocument, read_run, write_run
    from trainer.run.options import RunOptions
    from trainer.run.resume import resume_plan, resume_settings

    run = tmp_path / "run"
    run.mkdir()
    options = RunOptions(dataset=tmp_path, out=run, preset="test", epochs=2, devices=2, num_nodes=2)
    write_run(RunDocument(options=options, cache=tmp_path, config={"epochs": 2, "batch_size": None}))
    whole_last_ckpt(run, make_tiny_checkpoint)  # a damaged or foreign one is refused first
    before = (run / "training.json").read_bytes()
    planned, said = resume_plan(run, {"num_nodes": 2}, epochs=5, workers=1)
    assert (run / "training.json").read_bytes() == before and len(said) == 2
    with pytest.raises(RunError, match="--num-nodes 3 \\(the run's: 2\\)"):
        resume_plan(run, {"num_nodes": 3})
    assert resume_settings(run, {}, epochs=5, workers=1) == said and read_run(run) == planned
    assert read_run(run).options.num_nodes == 2 and b'"num_nodes": 2' in (run / "training.json").read_bytes()


@pytest.mark.parametrize(
    ("environ", "refused"),
    [
        ({}, True),
        ({"TORCHELASTIC_RUN_ID": "r", "RANK": "1"}, False),
        ({"SLURM_NTASKS": "8", "SLURM_PROCID": "3"}, False),
        ({"NODE_RANK": "1", "MASTER_ADDR": "10.0.0.1"}, False),
        ({"NODE_RANK": "1"}, True),  # no address to meet at
    ],
)
def test_more_than_one_node_needs_a_launcher(environ, refused):
    """--num-nodes 2 from a plain command would wait forever for machines that never join: refused in one
    line naming torchrun and srun; one node needs no launcher."""
    from trainer.run.ranks import check_launcher

    check_launcher(1, {})
    if refused:
        with pytest.raises(RunError, match="--num-nodes 2: start the command on every machine through torchrun"):
            check_launcher(2, environ)
    else:
        check_launcher(2, environ)


def test_a_rank_other_than_zero_refuses_a_run_that_started_instead_of_training_it(tmp_path, monkeypatch):
    """A new run's --out that holds a run which trained: rank 1 refuses it at once, as rank 0 does, rather
    than waiting for a folder rank 0 will never prepare (it waited 30 minutes for the rendezvous)."""
    from trainer.run.train import create_run

    run, data = tmp_path / "run", tmp_path / "data"
    data.mkdir()
    options = write_started_run(run, data, epochs=2, num_nodes=2)
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "launch")
    monkeypatch.setenv("RANK", "1")
    with pytest.raises(RunError, match="already holds a run"):
        create_run(options)
