"""Settings are applied or refused, never dropped; a step that produces nothing fails with the reason."""

from __future__ import annotations

import json
import signal

import numpy as np
import pytest
import soundfile
from conftest import shared_path, target_voice_slice

from studio.cli import main


@pytest.fixture
def short_clips(tmp_path):
    """A project of 5 real speech clips cut to 0.25 s: all shorter than one training segment (0.37 s)."""
    from trainer.dataset.project import DatasetProject

    corpus = shared_path("corpus", "target-voice")
    rows = (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()[:5]
    folder = tmp_path / "short"
    (folder / "wavs").mkdir(parents=True)
    for row in rows:
        audio, rate = soundfile.read(corpus / "wavs" / f"{row.split('|')[0]}.flac")
        middle = len(audio) // 2
        soundfile.write(folder / "wavs" / f"{row.split('|')[0]}.wav", audio[middle : middle + rate // 4], rate)
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    project = DatasetProject.create(tmp_path / "project")
    assert len(project.import_sources([folder], workers=1).added) == 5
    return project


def test_dataset_export_of_only_too_short_clips_fails_and_writes_nothing(short_clips, tmp_path, capsys):
    """The reported case: exit 2 with the reason counted, and no (empty) metadata.csv or wavs/ left behind."""
    out = tmp_path / "export"
    assert main(["dataset", "export", str(short_clips.folder), "--out", str(out)]) == 2
    error = capsys.readouterr().err
    assert "no clip can be trained on: all 5 clips are too short for a training segment" in error
    assert not out.exists()


def test_dataset_cache_and_fix_that_would_do_nothing_are_refused(short_clips, tmp_path, capsys):
    """Siblings: a cache of no clip (same reason, no folder), a fix with no fix chosen, a --rate nothing
    resamples: exit 2 naming why; the curated copies are untouched; a confirm with no draft exits 1 saying so."""
    before = {p.name: p.read_bytes() for p in (short_clips.folder / "clips").iterdir()}
    assert main(["dataset", "cache", str(short_clips.folder), "--out", str(tmp_path / "cache")]) == 2
    assert "all 5 clips are too short for a training segment" in capsys.readouterr().err
    assert not (tmp_path / "cache").exists()
    assert main(["dataset", "fix", str(short_clips.folder)]) == 2
    assert "choose what to fix: --all, --trim, --normalize or --resample" in capsys.readouterr().err
    assert main(["dataset", "fix", str(short_clips.folder), "--trim", "--rate", "16000"]) == 2
    assert "--rate applies only with --resample or --all" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in (short_clips.folder / "clips").iterdir()} == before
    assert main(["dataset", "confirm", str(short_clips.folder)]) == 1  # its transcripts came from metadata.csv
    assert "no draft transcript to confirm" in capsys.readouterr().err


def test_resume_refuses_options_it_cannot_apply_and_names_the_ones_it_does(tmp_path, capsys):
    """The reported case: --resume with --batch-size 4 and --preset medium on a batch-size-2 test run is refused
    naming both with the run's values (nothing changed); --epochs and --device apply and are said; an option
    equal to the run's own passes."""
    pytest.importorskip("torch")
    from trainer.events.log import read_events

    data, run = target_voice_slice(tmp_path / "data", 8), tmp_path / "run"
    handler = signal.getsignal(signal.SIGINT)
    try:
        new = ["train", "--dataset", str(data), "--out", str(run), "--preset", "test", "--epochs", "1"]
        assert main([*new, "--batch-size", "2"]) == 0
        before = (run / "training.json").read_text()
        resume = ["train", "--resume", str(run), "--epochs", "2"]
        assert main([*resume, "--batch-size", "4", "--preset", "medium"]) == 2
        error = capsys.readouterr().err
        assert "--batch-size 4 (the run's: 2)" in error and "--preset medium (the run's: test)" in error
        assert (run / "training.json").read_text() == before
        assert main([*resume, "--device", "cpu", "--preset", "test"]) == 0
    finally:
        signal.signal(signal.SIGINT, handler)  # train installs its gentle Ctrl+C handler
    error = capsys.readouterr().err
    assert "resuming to 2 epochs (was 1)" in error and "resuming with --device cpu (was auto)" in error
    document = json.loads((run / "training.json").read_text())
    assert document["device"] == "cpu" and document["config"]["batch_size"] == 2
    epochs = [r for r in read_events(run / "events.jsonl") if r.kind == "epoch"]
    assert [r.epoch for r in epochs] == [0, 1] and all(np.isfinite(r.losses["val_mel"]) for r in epochs)
