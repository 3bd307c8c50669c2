"""Damaged checkpoints (cut short by an interrupted copy or sync): named in one line before anything reads them,
with the way on, in ``train --resume``, ``train --from-best``, ``export`` and ``say``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import write_started_run

pytest.importorskip("torch")

from studio.cli import main  # noqa: E402

RANKING = [[0.71, "best-epoch=0001-val_mel=0.7100.ckpt"], [0.95, "best-epoch=0000-val_mel=0.9500.ckpt"]]


def _run(tmp_path: Path, make_tiny_checkpoint, epochs: int = 3) -> Path:
    """A finished run (two epochs, ``epochs`` asked for) with two ranked tiny checkpoints and a whole last.ckpt."""
    from trainer.events.log import EventLog
    from trainer.events.schema import Epoch, Finish

    run = tmp_path / "runs" / "run"
    write_started_run(run, tmp_path, epochs=epochs)
    log = EventLog(run / "events.jsonl")
    times = {"seconds": 1.0, "train_s": 1.0, "val_s": 0.0, "preview_s": 0.0, "checkpoint_wait_s": 0.0}
    log.emit(Epoch(epoch=1, step=10, losses={"val_mel": 0.71}, learning_rates={}, **times))
    log.emit(Finish(epochs=1, seconds=2.0, setup_s=0.1, status="done", preset="test"))
    log.close()
    (run / "checkpoints").mkdir()
    for seed, (_, name) in enumerate(RANKING):
        make_tiny_checkpoint(run / "checkpoints" / name, seed=seed)
    (run / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": RANKING}))
    make_tiny_checkpoint(run / "last.ckpt", seed=9)
    return run


def _cut(path: Path) -> None:
    """Cut ``path`` in half, as an interrupted copy leaves it."""
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _files(run: Path) -> dict[str, bytes]:
    return {str(p.relative_to(run)): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}


def test_resume_from_a_cut_last_ckpt_is_refused_in_one_line_before_anything_runs(
    tmp_path, capsys, make_tiny_checkpoint
):
    """A finished run whose last.ckpt was cut in half: train --resume --epochs 4 exits 2 with one line naming
    RUN/last.ckpt as damaged, and the flag that goes on from its best intact checkpoint; nothing is written."""
    run = _run(tmp_path, make_tiny_checkpoint)
    _cut(run / "last.ckpt")
    before = _files(run)
    assert main(["train", "--resume", str(run), "--epochs", "4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"voice-studio: error: {run / 'last.ckpt'}: damaged: cut short at ")
    assert "best intact checkpoint (epoch 2 · val_mel 0.7100)" in err and f"voice-studio train --from-best {run}" in err
    assert _files(run) == before


def test_a_garbled_last_ckpt_is_found_by_its_checksums(tmp_path, capsys, make_tiny_checkpoint):
    """A last.ckpt of the right length with bytes changed in the middle (a disk's fault): refused the same way,
    naming the entry whose checksum fails."""
    import zipfile

    run = _run(tmp_path, make_tiny_checkpoint)
    data = bytearray((run / "last.ckpt").read_bytes())
    with zipfile.ZipFile(run / "last.ckpt") as archive:  # the largest tensor's bytes (not a header's padding)
        entry = max(archive.infolist(), key=lambda info: info.file_size)
    header = data[entry.header_offset : entry.header_offset + 30]
    start = entry.header_offset + 30 + int.from_bytes(header[26:28], "little") + int.from_bytes(header[28:30], "little")
    data[start + 100 : start + 116] = bytes(b ^ 0xFF for b in data[start + 100 : start + 116])
    (run / "last.ckpt").write_bytes(bytes(data))
    assert main(["train", "--resume", str(run), "--epochs", "4"]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'last.ckpt'}: damaged: garbled: " in err and "does not match its checksum" in err
    assert err.count("\n") == 1


def test_from_best_goes_on_from_the_best_intact_checkpoint_in_a_new_run(tmp_path, capsys, make_tiny_checkpoint):
    """--from-best: the run's settings, its best-ranked checkpoint that is whole as the start (a cut one passed
    over), a new folder beside it, the epochs it had left; none left asks for --epochs; none intact is refused."""
    from trainer.run.errors import RunError
    from trainer.run.from_best import from_best

    run = _run(tmp_path, make_tiny_checkpoint)
    _cut(run / "last.ckpt")
    _cut(run / "checkpoints" / RANKING[0][1])
    chosen = from_best(run)
    assert chosen.options.start == str(run / "checkpoints" / RANKING[1][1])
    assert chosen.options.out == run.parent / "run-from-epoch-1" and chosen.options.epochs == 2
    assert (chosen.options.preset, chosen.options.dataset) == ("test", tmp_path)
    assert "epoch 1 · val_mel 0.9500" in chosen.line()
    other = from_best(run, {"epochs": 5, "out": tmp_path / "elsewhere", "workers": 2}).options
    assert (other.epochs, other.out, other.workers) == (5, tmp_path / "elsewhere", 2)
    (run / "training.json").write_text((run / "training.json").read_text().replace('"epochs": 3', '"epochs": 1'))
    assert main(["train", "--from-best", str(run)]) == 2  # the flag itself: nothing left after epoch 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no epoch left after its epoch 1 · val_mel 0.9500; give --epochs N" in err
    _cut(run / "checkpoints" / RANKING[1][1])
    with pytest.raises(RunError, match="none of its ranked checkpoints is intact"):
        from_best(run)


def test_export_of_a_run_whose_best_checkpoint_is_cut_names_it_and_the_intact_one(
    tmp_path, capsys, make_tiny_checkpoint
):
    """export RUN whose lowest-val_mel checkpoint was cut: one line naming that file as damaged and the command
    that exports the run's best intact one, before anything else is said; the same for the cut file named."""
    run = _run(tmp_path, make_tiny_checkpoint)
    cut, intact = run / "checkpoints" / RANKING[0][1], run / "checkpoints" / RANKING[1][1]
    _cut(cut)
    out = tmp_path / "voice.onnx"
    for source in (run, cut):
        assert main(["export", str(source), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"voice-studio: error: {cut}: damaged: cut short at ")
        assert f"voice-studio export {intact} -o {out}" in err
    assert not out.exists()


def test_say_with_a_cut_checkpoint_of_a_run_names_the_intact_one(tmp_path, capsys, make_tiny_checkpoint):
    """say --voice with a run's cut checkpoint: one line naming it as damaged and the run's best intact checkpoint to
    give --voice instead (it said only "copy it again from where it came, or use another checkpoint")."""
    run = _run(tmp_path, make_tiny_checkpoint)
    cut, intact = run / "checkpoints" / RANKING[0][1], run / "checkpoints" / RANKING[1][1]
    _cut(cut)
    assert main(["say", "--voice", str(cut), "-o", str(tmp_path / "a.wav"), "Hello."]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"voice-studio: error: {cut}: damaged: cut short at ")
    assert err.rstrip().endswith(
        f"speak with its best intact checkpoint (epoch 1 · val_mel 0.9500): give --voice {intact}"
    )
    assert not (tmp_path / "a.wav").exists()


def test_a_whole_last_ckpt_of_another_network_or_without_run_state_is_refused(tmp_path, make_tiny_checkpoint, capsys):
    """A whole file that cannot resume the run (weights alone, as ``torch.save`` writes them; another run's checkpoint
    of another network) is named in one line before anything runs, with the way on, and left as it was."""
    from dataclasses import replace

    import torch

    from trainer.run.document import read_run, write_run

    run = _run(tmp_path, make_tiny_checkpoint)
    torch.save({"state_dict": {"x": torch.zeros(2)}, "epoch": 3}, run / "last.ckpt")
    before = (run / "last.ckpt").read_bytes()
    assert main(["train", "--resume", str(run), "--epochs", "4"]) == 2
    err = capsys.readouterr().err
    assert f"{run / 'last.ckpt'}: damaged: not a training run's resume checkpoint" in err and "--from-best" in err
    assert len(err.strip().splitlines()) == 1 and (run / "last.ckpt").read_bytes() == before
    make_tiny_checkpoint(run / "last.ckpt")  # hidden_channels 32
    document = read_run(run)
    write_run(replace(document, config={**document.config, "model": {"hidden_channels": 192}}))
    assert main(["train", "--resume", str(run), "--epochs", "4"]) == 2
    err = capsys.readouterr().err
    assert "the checkpoint of another network (hidden_channels 32 where the run has 192)" in err, err
