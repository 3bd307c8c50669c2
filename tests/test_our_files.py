"""Everything we write is read back by everything we ship: a run's resume checkpoint (``last.ckpt``) exports,
speaks and starts a run; ``export`` takes the voice names ``say --voice`` takes; every file the CLI writes
names a missing folder before any work, never a temporary name."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from conftest import target_voice_slice

from engines.base import VoiceError
from studio.cli import main

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    """A real one-epoch ``--preset test`` run on 8 target-voice clips (its ``last.ckpt`` as the trainer writes)."""
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run, fit

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", 8)
    run = create_run(RunOptions(dataset=folder, out=tmp_path_factory.mktemp("runs") / "run", preset="test", epochs=1))
    fit(run)
    return run


def _resume_checkpoint_with_numpy_rng(run_dir, path):
    """``last.ckpt`` as runs before this fix wrote it: numpy's RNG state holds an ``ndarray``."""
    checkpoint = torch.load(run_dir / "last.ckpt", weights_only=False)
    checkpoint["voice_studio_rng"]["numpy"] = np.random.get_state()
    torch.save(checkpoint, path)
    return path


def test_last_ckpt_exports_and_speaks_with_the_torch_engine(run_dir, tmp_path, capsys):
    """The reported case: export RUN/last.ckpt and say --engine torch --voice RUN/last.ckpt both work."""
    last = run_dir / "last.ckpt"
    voice = tmp_path / "l.onnx"
    assert main(["export", str(last), "-o", str(voice)]) == 0, capsys.readouterr().err
    from piper import PiperVoice

    spoken = b"".join(c.audio_int16_bytes for c in PiperVoice.load(voice).synthesize("Hello there."))
    assert len(spoken) > 0
    wav = tmp_path / "s.wav"
    command = [sys.executable, "-m", "studio", "say", "--engine", "torch", "--voice", str(last), "Hello there."]
    result = subprocess.run([*command, "-o", str(wav), "--quiet"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert wav.stat().st_size > 1000


def test_resume_checkpoint_rng_state_is_plain_data(run_dir):
    """The trainer writes numpy's RNG state as plain data: torch finds no global outside its own allow-list."""
    assert torch.serialization.get_unsafe_globals_in_checkpoint(run_dir / "last.ckpt") == []


def test_no_checkpoint_names_a_module_of_ours(run_dir):
    """Every checkpoint a run writes (resume and best) holds tensors and plain data only, no class or function of
    ours by its module path: moving a module (trainer/ by concern) leaves the checkpoints written before loadable."""
    files = [run_dir / "last.ckpt", *sorted((run_dir / "checkpoints").glob("*.ckpt"))]
    found = {f.name: torch.serialization.get_unsafe_globals_in_checkpoint(f) for f in files}
    assert len(found) > 1 and found == dict.fromkeys(found, [])


def test_rng_state_survives_a_weights_only_round_trip(tmp_path):
    """What the checkpoint callback saves, read back with weights_only=True, restores numpy's (and Python's)
    random streams exactly: resuming draws the numbers the run would have drawn."""
    import random

    from trainer.run.callbacks import CheckpointCallback

    callback = CheckpointCallback.__new__(CheckpointCallback)  # the hooks use no state of the callback
    saved = {}
    callback.on_save_checkpoint(None, None, saved)
    torch.save(saved, tmp_path / "rng.ckpt")
    expected = (np.random.rand(4), random.random(), torch.rand(2))
    callback.on_load_checkpoint(None, None, torch.load(tmp_path / "rng.ckpt", weights_only=True))
    restored = (np.random.rand(4), random.random(), torch.rand(2))
    assert np.array_equal(restored[0], expected[0]) and restored[1] == expected[1]
    assert torch.equal(restored[2], expected[2])


def test_last_ckpt_of_an_older_run_with_numpy_rng_reads(run_dir, tmp_path):
    """A last.ckpt holding numpy arrays (as written before) is read: its generator and its config.json."""
    from engines.torch.vits.checkpoint import load_checkpoint_voice, load_generator

    path = _resume_checkpoint_with_numpy_rng(run_dir, run_dir / "older.ckpt")
    try:
        assert "numpy.ndarray" in torch.serialization.get_unsafe_globals_in_checkpoint(path)
        model, checkpoint = load_generator(path)
        assert checkpoint.discriminator and sum(p.numel() for p in model.parameters()) > 0
        voice = load_checkpoint_voice(path)  # what the Synthesize page's Add voice… and the Train page read
        assert voice.config.path == run_dir / "config.json"
    finally:
        path.unlink()


def test_numpy_allow_list_still_refuses_code(tmp_path):
    """An object array (its items could be any pickled object) is refused, naming its dtype: numpy's arrays
    of numbers open no hole."""
    from engines.torch.vits.checkpoint import read_checkpoint

    path = tmp_path / "object.ckpt"
    torch.save({"state_dict": {}, "extra": np.array([print], dtype=object)}, path)
    with pytest.raises(VoiceError, match="refused.*ObjectDType"):
        read_checkpoint(path)


def test_train_from_last_ckpt_starts(run_dir):
    """Sibling: train --from RUN/last.ckpt reads it as a start point (its shape and rate)."""
    from trainer.start.points import start_rate
    from trainer.start.shape import start_shape

    assert start_rate(str(run_dir / "last.ckpt")) == 22050
    assert start_shape(str(run_dir / "last.ckpt")).num_speakers == 1


def test_export_takes_the_voice_names_say_takes(tmp_path, capsys, joe):
    """export joe exports the embedded voice (its phoneme map, its rate); en_US-joe-medium and default name
    it too, through the resolver export shares with say --voice and train --from."""
    import json

    from engines.registry import find_voice, is_voice_name

    out = tmp_path / "x.onnx"
    assert main(["export", "joe", "-o", str(out)]) == 0, capsys.readouterr().err
    written = json.loads(out.with_name("x.onnx.json").read_text())
    assert written["audio"]["sample_rate"] == joe.sample_rate
    assert written["phoneme_id_map"] == {k: list(v) for k, v in joe.config.phoneme_id_map.items()}
    for name in ("en_US-joe-medium", "default"):
        assert is_voice_name(name) and find_voice(name).model_path == joe.model_path
    assert not is_voice_name(str(out)) and not is_voice_name("runs/missing")


def test_export_of_an_unknown_name_lists_the_known_voices(tmp_path, capsys):
    assert main(["export", "nobody", "-o", str(tmp_path / "x.onnx")]) == 2
    assert "no voice named 'nobody'; known voices: en_US-joe-medium" in capsys.readouterr().err


def test_train_from_takes_the_full_voice_name():
    """Sibling: train --from en_US-joe-medium (not only joe) is the embedded voice; an unknown name is named."""
    from engines.registry import default_voice
    from trainer.run.errors import RunError
    from trainer.start.points import resolve_start

    assert resolve_start("en_US-joe-medium") == ("onnx", default_voice().model_path)
    with pytest.raises(RunError, match="no voice named 'nobody'"):
        resolve_start("nobody")


def test_files_written_into_a_missing_folder_name_the_folder(run_dir, tmp_path, capsys):
    """export -o, dataset report -o and any atomic write: 'folder … does not exist', no temp name, nothing left."""
    from engines.files import write_text

    missing = tmp_path / "nodir"
    best = next((run_dir / "checkpoints").glob("best-*.ckpt"))
    assert main(["export", str(best), "-o", str(missing / "x.onnx")]) == 2
    assert f"{missing / 'x.onnx'}: folder {missing} does not exist" in capsys.readouterr().err
    from trainer.dataset.project import DatasetProject

    project = DatasetProject.create(tmp_path / "project")
    project.save()
    assert main(["dataset", "report", str(project.folder), "-o", str(missing / "r.md")]) == 2
    error = capsys.readouterr().err
    assert f"{missing / 'r.md'}: folder {missing} does not exist" in error and ".part" not in error
    with pytest.raises(FileNotFoundError, match=f"folder {missing} does not exist"):
        write_text(missing / "notes.txt", "text")
    assert not missing.exists()
    assert main(["export", str(best), "-o", str(tmp_path / "x.onx")]) == 2
    assert "unsupported voice file type '.onx'" in capsys.readouterr().err
