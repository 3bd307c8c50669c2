"""The background checkpoint writer: snapshots, atomic replace, newest generation wins, errors, best-k."""

from __future__ import annotations

import errno
import io
import os
import random
import subprocess
import sys
import textwrap
import threading
import time

import pytest

torch = pytest.importorskip("torch")

from trainer.checkpoints.best import BestK  # noqa: E402
from trainer.checkpoints.writer import CheckpointError, CheckpointWriter, remove_stale_temps, torch_save  # noqa: E402


def _load(path):
    return torch.load(path, weights_only=True)


def test_snapshot_is_taken_at_save_time(tmp_path):
    """Training may change its tensors right after save(): the file holds the values of the call."""
    gate = threading.Event()

    def slow_save(state, path):
        gate.wait(5)
        torch_save(state, path)

    weights = torch.zeros(1000)
    with CheckpointWriter(save_fn=slow_save) as writer:
        writer.save(tmp_path / "a.ckpt", {"w": weights})
        weights += 1
        gate.set()
    assert _load(tmp_path / "a.ckpt")["w"].sum().item() == 0


def test_newer_pending_save_supersedes_older(tmp_path):
    """Two saves to a path still in the queue write the newer one, once."""
    gate, writes = threading.Event(), []

    def save(state, path):
        gate.wait(5)
        writes.append(state["n"])
        torch_save(state, path)

    with CheckpointWriter(max_pending=3, save_fn=save) as writer:
        writer.save(tmp_path / "busy.ckpt", {"n": 0})  # occupies the writer thread
        time.sleep(0.1)
        writer.save(tmp_path / "last.ckpt", {"n": 1})
        writer.save(tmp_path / "last.ckpt", {"n": 2})
        gate.set()
    assert writes == [0, 2] and _load(tmp_path / "last.ckpt")["n"] == 2


def test_older_generation_never_replaces_newer(tmp_path):
    """With two writer threads, a slow older write that finishes last is discarded."""
    older_started = threading.Event()

    def save(state, path):
        if state["n"] == 1:
            older_started.set()
            time.sleep(0.5)
        torch_save(state, path)

    path = tmp_path / "last.ckpt"
    with CheckpointWriter(max_pending=2, save_fn=save, threads=2) as writer:
        writer.save(path, {"n": 1})
        older_started.wait(5)
        writer.save(path, {"n": 2})
    assert _load(path)["n"] == 2
    assert not list(tmp_path.glob(".*.part"))


def test_full_queue_makes_training_wait(tmp_path):
    """With max_pending snapshots held, save() blocks until the writer catches up; nothing is dropped."""
    gate = threading.Event()

    def save(state, path):
        gate.wait(5)
        torch_save(state, path)

    with CheckpointWriter(max_pending=1, save_fn=save) as writer:
        writer.save(tmp_path / "1.ckpt", {"n": 1})
        returned = threading.Event()
        thread = threading.Thread(target=lambda: (writer.save(tmp_path / "2.ckpt", {"n": 2}), returned.set()))
        thread.start()
        assert not returned.wait(0.3)
        gate.set()
        assert returned.wait(5)
        thread.join()
    assert {p.name for p in tmp_path.iterdir()} == {"1.ckpt", "2.ckpt"}


@pytest.mark.parametrize("code", [errno.EIO, errno.ENOSPC], ids=["io-error", "disk-full"])
def test_failed_write_keeps_the_previous_file_and_reports(tmp_path, code):
    """A write that fails half-way leaves the previous file loadable and raises in the trainer, naming it."""
    path = tmp_path / "last.ckpt"
    with CheckpointWriter() as writer:
        writer.save(path, {"n": 1})
    before = path.read_bytes()

    def failing(state, tmp):
        with open(tmp, "wb") as f:
            f.write(b"\x80\x02 half a checkpoint")
        raise OSError(code, os.strerror(code))

    writer = CheckpointWriter(save_fn=failing)
    writer.save(path, {"n": 2})
    with pytest.raises(CheckpointError, match="last.ckpt: checkpoint not written"):
        writer.flush()
    writer.close()
    assert path.read_bytes() == before and _load(path)["n"] == 1
    assert not list(tmp_path.glob(".*.part"))


class _FillingDisk(io.FileIO):
    """A file on a disk with ``room`` bytes left: a write beyond them raises ``ENOSPC``, as the OS does."""

    room = 4096

    def write(self, data) -> int:
        if self.tell() + len(data) > self.room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return super().write(data)


def test_a_disk_that_fills_is_said_in_the_os_words_and_the_file_never_announced(tmp_path, monkeypatch):
    """torch.save onto a disk that fills part-way (the file's writes raise ENOSPC): the error says "No space left on
    device", not torch's "unexpected pos"; the new file is never announced as written, the previous one stays whole,
    and no temporary file is left."""
    from trainer.checkpoints import writer as writer_module

    path, announced = tmp_path / "last.ckpt", []
    with CheckpointWriter() as writer:
        writer.save(path, {"n": torch.zeros(8)}, on_written=announced.append)
    before = path.read_bytes()
    monkeypatch.setattr(writer_module, "open", lambda name, mode: _FillingDisk(name, mode), raising=False)
    writer = CheckpointWriter()
    writer.save(path, {"n": torch.ones(100_000)}, on_written=announced.append)
    with pytest.raises(CheckpointError) as failed:
        writer.flush()
    writer.close()
    assert str(failed.value) == f"{path}: checkpoint not written: No space left on device"
    assert failed.value.errno == errno.ENOSPC
    assert announced == [path] and path.read_bytes() == before and torch.equal(_load(path)["n"], torch.zeros(8))
    assert not list(tmp_path.glob(".*.part"))


KILL_SCRIPT = textwrap.dedent(
    """
    import os, sys
    from pathlib import Path
    import numpy as np
    from trainer.checkpoints.writer import CheckpointWriter

    def save(state, path):
        with open(path, "wb") as f:
            np.save(f, state)
            f.flush()
            os.fsync(f.fileno())

    folder = Path(sys.argv[1])
    writer = CheckpointWriter(max_pending=2, save_fn=save)
    n = 0
    while True:
        n += 1
        writer.save(folder / f"ckpt-{n % 3}.npy", np.full(2_000_000, n, dtype=np.float32))
        if n == 3:
            print("writing", flush=True)
    """
)


def test_kill_9_never_leaves_a_truncated_checkpoint(tmp_path):
    """20 kill -9 at random moments of a process writing 8 MB files: every final file is whole."""
    import numpy as np

    rng = random.Random(1234)
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    checked = interrupted = 0
    for _ in range(20):
        process = subprocess.Popen(
            [sys.executable, "-c", KILL_SCRIPT, str(tmp_path)], env=env, stdout=subprocess.PIPE, text=True
        )
        assert process.stdout.readline() == "writing\n"
        time.sleep(rng.uniform(0.0, 0.3))
        process.kill()
        process.wait()
        process.stdout.close()
        for path in tmp_path.glob("ckpt-*.npy"):
            values = np.load(path)
            assert values.shape == (2_000_000,) and values.min() == values.max()
            assert path.name == f"ckpt-{int(values[0]) % 3}.npy"
            checked += 1
        interrupted += len(remove_stale_temps(tmp_path))
    assert checked >= 40
    assert interrupted >= 5  # most kills did land in the middle of a write


def test_best_k_keeps_exactly_k_files_and_resumes(tmp_path):
    """Of 12 validations, the 5 best files remain; a new BestK goes on with the saved ranking."""
    values = [5.0, 3.0, 4.0, 9.0, 1.0, 2.5, 7.0, 0.5, 6.0, 2.0, 8.0, 3.5]
    with CheckpointWriter() as writer:
        best = BestK(tmp_path, writer, k=5)
        for epoch, value in enumerate(values):
            best.consider(epoch, value, {"epoch": epoch})
            writer.flush()
    expected = sorted(values)[:5]
    files = sorted(p.name for p in tmp_path.glob("best-*.ckpt"))
    assert len(files) == 5
    assert sorted(float(name.split("val_mel=")[1][:-5]) for name in files) == expected
    names = [f"best-epoch={values.index(v):04d}-val_mel={v:.4f}.ckpt" for v in expected]
    assert [p.name for p in best.files()] == names
    worst = best.files()[-1]
    with CheckpointWriter() as writer:
        again = BestK(tmp_path, writer, k=5)
        assert again.consider(20, 9.5, {"epoch": 20}) is None
        assert again.consider(21, 0.1, {"epoch": 21}) is not None
    assert len(list(tmp_path.glob("best-*.ckpt"))) == 5 and worst.exists() is False
    assert _load(again.files()[0])["epoch"] == 21
