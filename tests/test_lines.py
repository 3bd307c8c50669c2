"""What the Compare page and ``voice-studio compare`` speak and who speaks it: typed lines, lines files, the
clips a run held out (with their recordings), and a run's candidates."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import soundfile
from conftest import target_voice_slice

from trainer.evaluate.lines import (
    LinesError,
    file_candidate,
    held_out_lines,
    preview_lines,
    read_lines_file,
    run_candidates,
    typed_lines,
)

pytest.importorskip("torch")


@pytest.fixture(scope="module")
def new_run(tmp_path_factory):
    """A run prepared (cache, training.json) on 24 target-voice clips, started from joe; not trained."""
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", 24)
    out = tmp_path_factory.mktemp("runs") / "tune"
    return create_run(RunOptions(dataset=folder, out=out, start="joe", preset="test", epochs=2))


def test_typed_text_gives_one_line_per_line_and_blank_text_is_refused():
    lines = typed_lines("Hello there.\n\n  Second line \n")
    assert [(x.name, x.text, x.reference) for x in lines] == [
        ("line 1", "Hello there.", None),
        ("line 2", "Second line", None),
    ]
    with pytest.raises(LinesError, match="no line"):
        typed_lines(" \n\t\n")
    assert len(preview_lines()) >= 3 and all(x.text and x.reference is None for x in preview_lines())


def test_a_metadata_file_gives_its_recordings_as_references(tmp_path):
    (tmp_path / "wavs").mkdir()
    tone = 0.3 * np.sin(np.linspace(0, 400 * np.pi, 8000, dtype=np.float32))
    soundfile.write(tmp_path / "wavs" / "a1.wav", np.stack([tone, tone], axis=1), 16000)
    (tmp_path / "metadata.csv").write_text("a1|First line.\nb2|speaker|Second line.\n", encoding="utf-8")
    first, second = read_lines_file(tmp_path / "metadata.csv")
    assert (first.name, first.text, first.reference) == ("a1", "First line.", tmp_path / "wavs" / "a1.wav")
    audio, rate = first.reference_audio()
    assert rate == 16000 and audio.shape == (8000,) and np.allclose(audio, tone, atol=1e-4)
    assert (second.name, second.text, second.reference, second.reference_audio()) == ("b2", "Second line.", None, None)
    assert second.no_reference == f"no recording b2.wav in {tmp_path / 'wavs'} or {tmp_path}" and not first.no_reference


def test_recordings_beside_the_metadata_file_are_references_too(tmp_path):
    """No wavs/ folder: ID.wav beside metadata.csv (as the corpus's cards/) is the reference."""
    tone = 0.3 * np.sin(np.linspace(0, 400 * np.pi, 8000, dtype=np.float32))
    soundfile.write(tmp_path / "a1.flac", tone, 16000)
    (tmp_path / "metadata.csv").write_text("a1|First line.\n", encoding="utf-8")
    (line,) = read_lines_file(tmp_path / "metadata.csv")
    assert line.reference == tmp_path / "a1.flac" and line.reference_audio()[1] == 16000


def test_plain_files_and_bad_files_name_what_is_wrong(tmp_path):
    plain = tmp_path / "lines.txt"
    plain.write_text("# my lines\nOne.\n\nTwo.\n", encoding="utf-8")
    assert [x.text for x in read_lines_file(plain)] == ["One.", "Two."]
    bad = tmp_path / "metadata.csv"
    bad.write_text("a|ok\n|no id\n", encoding="utf-8")
    with pytest.raises(LinesError, match=r"metadata\.csv:2"):
        read_lines_file(bad)
    with pytest.raises(LinesError, match="cannot read"):
        read_lines_file(tmp_path / "missing.txt")
    (tmp_path / "latin.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(LinesError, match="latin.txt"):
        read_lines_file(tmp_path / "latin.txt")


def test_a_run_holds_out_what_its_validation_loader_sees(new_run):
    from trainer.run.document import read_run
    from trainer.run.presets import TrainingConfig
    from trainer.run.train import _data

    document = read_run(new_run)
    config = TrainingConfig.from_dict(document.config)
    data = _data(document, config, 2)
    validation = [data.val_set.cache.utterances[i].id for i in data.val_set.indices]
    lines = held_out_lines(new_run, limit=None)
    assert [x.name for x in lines] == validation and validation
    for line in lines:
        audio, rate = line.reference_audio()
        assert line.reference.is_file() and rate > 0 and audio.size > rate // 2
    assert len(held_out_lines(new_run, limit=1)) == 1


def test_run_candidates_rank_checkpoints_then_last_export_and_start(new_run, make_tiny_checkpoint, tmp_path):
    folder = new_run / "checkpoints"
    folder.mkdir(exist_ok=True)
    ranking = [[0.71, "best-epoch=0001-val_mel=0.7100.ckpt"], [0.95, "best-epoch=0000-val_mel=0.9500.ckpt"]]
    for _, name in ranking:
        make_tiny_checkpoint(folder / name)
    (folder / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    make_tiny_checkpoint(new_run / "last.ckpt")
    voices = tmp_path / "voices"
    voices.mkdir()
    (voices / f"{new_run.name}.onnx").write_bytes(b"not read here")
    found = run_candidates(new_run, voices)
    assert [c.label for c in found] == [
        "epoch 2 · val_mel 0.7100",
        "epoch 1 · val_mel 0.9500",
        "last",
        "export",
        "start: joe",
    ]
    assert found[0].model_path == folder / ranking[0][1] and found[-1].model_path.suffix == ".onnx"
    assert [c.label for c in run_candidates(new_run)][-2:] == ["last", "start: joe"]


def test_folders_that_are_neither_runs_nor_projects_are_named(tmp_path):
    with pytest.raises(LinesError, match=str(tmp_path.name)):
        held_out_lines(tmp_path)
    with pytest.raises(LinesError, match="not a run"):
        run_candidates(Path(tmp_path))


@pytest.fixture
def trained_run(new_run, make_tiny_checkpoint, tmp_path):
    """A copy of ``new_run`` (named ``tune`` too) with a ranked checkpoint of epoch 2 and a ``last.ckpt``: the module's
    run stays as it was made, so no test depends on another having added them."""
    import shutil

    run = shutil.copytree(new_run, tmp_path / "runs" / new_run.name)
    folder = run / "checkpoints"
    folder.mkdir(exist_ok=True)
    ranking = [[0.6171204447746277, "best-epoch=0001-val_mel=0.6171.ckpt"]]
    make_tiny_checkpoint(folder / ranking[0][1])
    (folder / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    make_tiny_checkpoint(run / "last.ckpt")
    return run


def test_a_checkpoint_of_a_run_is_labelled_as_the_run_labels_it(trained_run, make_tiny_checkpoint, tmp_path):
    """A ranked .ckpt or last.ckpt given as a file gets its run's label; candidates of two runs get the run's name."""
    import shutil

    from studio.cli.compare import listed, resolve_candidate

    new_run = trained_run
    ranked = new_run / "checkpoints" / "best-epoch=0001-val_mel=0.6171.ckpt"
    last = new_run / "last.ckpt"
    assert file_candidate(ranked).label == "epoch 2 · val_mel 0.6171" == resolve_candidate(str(ranked))[0].label
    assert file_candidate(last).label == "last" == resolve_candidate(str(last))[0].label
    loose = make_tiny_checkpoint(tmp_path / "best-epoch=0001-val_mel=0.6171.ckpt")
    assert file_candidate(loose).label == loose.name
    other = tmp_path / "other"
    shutil.copytree(new_run, other)
    one_run = listed([str(new_run), str(loose)])
    assert [c.label for c in one_run][:2] == ["epoch 2 · val_mel 0.6171", "last"]
    other_last = str(other / "last.ckpt")
    two_runs = listed([str(new_run), other_last])
    assert [c.label for c in two_runs] == ["tune/epoch 2 · val_mel 0.6171", "tune/last", "start: joe", "other/last"]


def test_the_cli_and_the_compare_page_label_two_runs_alike(trained_run, tmp_path, qtbot):
    """The same two runs listed by ``voice-studio compare`` and by the Compare page's candidate list: the same
    labels for the same files (trainer.evaluate.labels), each run's own prefixed with its folder name."""
    import shutil

    from engines.registry import user_voice_dir
    from studio.cli.compare import listed
    from studio.pages.compare_sources import CandidatesBox
    from studio.state import VoiceLibrary, Workspace

    new_run = trained_run
    other = shutil.copytree(new_run, tmp_path / "tune-b")
    cli = {c.model_path.resolve(): c.label for c in listed([str(new_run), str(other)])}
    box = CandidatesBox(Workspace(runs_dir=tmp_path, voices_dir=user_voice_dir()), VoiceLibrary())
    qtbot.addWidget(box)
    box.add_run(new_run)
    box.add_run(other)
    page = {e.candidate.model_path.resolve(): e.candidate.label for e in box.entries()}
    assert page == cli and any(label.startswith("tune-b/") for label in page.values()), (page, cli)


def test_a_runs_held_out_clips_are_read_without_lightning(new_run):
    """Reading a run's held-out clips (the canary evaluation process's first step, and ``compare`` of a run) imports
    neither Lightning nor the training data module (about 4 CPU-seconds each evaluation paid), and gives the same
    clips as in this process."""
    code = (
        "import sys; from trainer.evaluate.lines import held_out_lines; "
        "print(' '.join(x.name for x in held_out_lines(sys.argv[1]))); "
        "print([m for m in ('lightning', 'trainer.data.datamodule') if m in sys.modules])"
    )
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", code, str(new_run)], capture_output=True, text=True, cwd=root)
    assert done.returncode == 0, done.stderr
    names, imported = done.stdout.splitlines()
    assert names == " ".join(x.name for x in held_out_lines(new_run)) and names and imported == "[]"


def test_an_error_names_the_line_of_the_file_it_is_on(tmp_path):
    """Blank lines, ``#`` comments and a BOM before the faulty line do not shift the line number an error names: it
    is the line of the file (or of the typed text) the user opens to fix it."""
    plain = tmp_path / "lines.txt"
    plain.write_text("\ufeff# my lines\n\nHello there.\n\n?!\n", encoding="utf-8")
    with pytest.raises(LinesError, match=r"lines\.txt, line 5: nothing to speak in '\?!'"):
        read_lines_file(plain)
    metadata = tmp_path / "metadata.csv"
    metadata.write_text("# header\n\nLJ001|Hello there.\nLJ002\n", encoding="utf-8")
    with pytest.raises(LinesError, match=r"metadata\.csv:4: expected id\|text, got 'LJ002'"):
        read_lines_file(metadata)
    with pytest.raises(LinesError, match=r"the typed text, line 3: nothing to speak in '\.\.\.'"):
        typed_lines("Hi.\n\n...")
