"""Output folders the user names (dataset cache/export --out, train --out) are checked before anything is written:
absent, empty or ours; never the project, its sources, the dataset, a folder holding them, or a file."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest
from conftest import shared_path

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def cards(tmp_path_factory):
    """A project (``vs/pc``) made from copies of the five 'cards' recordings (``vs/src``), beside a user's file."""
    from trainer.dataset.project import DatasetProject

    root = tmp_path_factory.mktemp("vs")
    source = root / "src"
    shutil.copytree(shared_path("corpus", "real-speech", "cards"), source)
    (root / "keep.wav").write_bytes(b"RIFF user file")
    project = DatasetProject.create(root / "pc")
    project.import_sources([source], workers=1)
    return project


def _files(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def _dataset(capsys, *argv) -> tuple[int, str]:
    from studio.cli import main

    code = main(["dataset", *map(str, argv)])
    return code, capsys.readouterr().err.strip()


@pytest.mark.parametrize("command", ["cache", "export"])
def test_out_that_is_or_holds_the_project_is_refused(cards, capsys, command):
    """``--out PROJECT`` and ``--out`` a folder holding it (and the user's other files) delete nothing: one line,
    exit 2."""
    root, what = cards.folder.parent, "training cache folder" if command == "cache" else "export folder"
    before = _files(root)
    code, err = _dataset(capsys, command, cards.folder, "--out", cards.folder)
    assert code == 2 and err == (
        f"voice-studio: error: {cards.folder}: the {what} is made from this folder, so it may not be replaced; "
        f"choose a new or empty folder outside it as the {what}"
    )
    code, err = _dataset(capsys, command, cards.folder, "--out", root)
    assert code == 2 and err.startswith(f"voice-studio: error: {root}: holds ") and "\n" not in err
    code, err = _dataset(capsys, command, cards.folder, "--out", cards.folder / "clips")
    assert code == 2 and f"lies in {cards.folder}" in err
    assert _files(root) == before


def test_out_holding_a_source_recording_is_refused(cards, capsys):
    """The folder the project imported from (a Piper layout, as an earlier export looks) is not replaced."""
    source = cards.folder.parent / "src"
    before = _files(source)
    code, err = _dataset(capsys, "export", cards.folder, "--out", source)
    assert code == 2 and f"{source}: holds {source}/" in err
    assert _files(source) == before


@pytest.mark.parametrize("command", ["cache", "export"])
def test_out_with_other_files_is_refused_and_ours_is_replaced_whole(cards, capsys, tmp_path, command):
    """A folder holding files we did not write is refused; an earlier output of ours is replaced whole."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    code, err = _dataset(capsys, command, cards.folder, "--out", mine)
    assert code == 2 and "holds files voice-studio did not write there" in err
    assert _files(mine) == ["notes.txt"]
    out = tmp_path / "out"
    assert _dataset(capsys, command, cards.folder, "--out", out)[0] == 0
    first = _files(out)
    if command == "export":
        (out / "wavs" / "zz.wav").write_bytes(b"x")  # a clip of the earlier export: gone with it
    assert _dataset(capsys, command, cards.folder, "--out", out)[0] == 0
    assert _files(out) == first and sorted(p.name for p in tmp_path.iterdir()) == ["mine", "out"]


def test_a_users_own_piper_folder_is_not_taken_for_an_earlier_export(cards, capsys, tmp_path):
    """A folder of the exported layout (metadata.csv + wavs/) that our export did not write is refused, not
    replaced: only a folder with the export's mark is ours."""
    theirs = tmp_path / "theirs"
    (theirs / "wavs").mkdir(parents=True)
    (theirs / "metadata.csv").write_text("a|A line of theirs.\n")
    (theirs / "wavs" / "a.wav").write_bytes(b"RIFF theirs")
    code, err = _dataset(capsys, "export", cards.folder, "--out", theirs)
    assert code == 2 and "did not write" in err
    assert _files(theirs) == ["metadata.csv", "wavs", "wavs/a.wav"]


@pytest.mark.parametrize("command", ["cache", "export"])
def test_out_that_is_a_file_is_one_line(cards, capsys, tmp_path, command):
    """``--out a.wav`` (an existing file) or a folder under it: one line naming it, not an OS error."""
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"RIFF")
    code, err = _dataset(capsys, command, cards.folder, "--out", wav)
    assert code == 2 and err.startswith(f"voice-studio: error: {wav}: is a file, not a folder; give a folder")
    code, err = _dataset(capsys, command, cards.folder, "--out", wav / "sub")
    assert code == 2 and err.startswith(f"voice-studio: error: {wav / 'sub'}: lies under {wav}, a file, not a folder")
    assert wav.read_bytes() == b"RIFF"


def _train(*argv) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "studio.cli", "train", *map(str, argv)]
    return subprocess.run(command, capture_output=True, text=True, timeout=120)


def test_run_that_never_started_can_be_started_again(cards, tmp_path):
    """A run folder with no epoch and no checkpoint (its start failed) is replaced, saying so; a started run is
    not; the dataset inside it is never replaced."""
    from trainer.data.preprocess import build_cache
    from trainer.run.errors import RunError
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run, fit

    cache = build_cache(cards, tmp_path / "cache", workers=1)
    run = create_run(RunOptions(dataset=cache, out=tmp_path / "tr", preset="test"))  # fit never ran
    with pytest.raises(
        RunError, match=f"nothing to resume yet .no last.ckpt.: it never started; start it again with train --out {run}"
    ):
        fit(run, resume=True)
    messages = tmp_path / "echo.txt"
    with messages.open("w") as echo:
        assert create_run(RunOptions(dataset=cache, out=run, preset="test", epochs=3), echo) == run
    *before, said = messages.read_text().splitlines()  # the cards are 16 kHz recordings: the band is warned of first
    assert said == f"replacing {run}, a run that never started" and all(w.startswith("warning: ") for w in before)
    assert '"epochs": 3' in (run / "training.json").read_text()
    (run / "last.ckpt").write_bytes(b"checkpoint")
    with pytest.raises(RunError, match="already holds a run: resume it with --resume"):
        create_run(RunOptions(dataset=cache, out=run, preset="test"))
    (run / "last.ckpt").unlink()
    shutil.move(cache, run / "cache")
    with pytest.raises(ValueError, match=f"{run}: holds {run / 'cache'}, which the run folder"):
        create_run(RunOptions(dataset=run / "cache", out=run, preset="test"))
    assert (run / "cache" / "cache.json").is_file()


def test_train_out_that_is_a_file_or_holds_other_files(cards, tmp_path):
    """``train --out a.wav`` and ``--out`` a folder of the user's: one line, exit 2, nothing written."""
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"RIFF")
    result = _train("--dataset", cards.folder, "--out", wav, "--preset", "test")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        f"voice-studio: error: {wav}: is a file, not a folder; give a folder as the run folder (--out)"
    )
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "config.json").write_text("{}")
    result = _train("--dataset", cards.folder, "--out", mine, "--preset", "test")
    assert result.returncode == 2 and "holds files voice-studio did not write there" in result.stderr
    assert _files(mine) == ["config.json"] and (mine / "config.json").read_text() == "{}"


@pytest.mark.skipif(torch.cuda.is_available(), reason="needs a machine without a CUDA GPU")
def test_train_on_a_missing_gpu_writes_no_run_folder(cards, tmp_path):
    """``--device cuda`` without a GPU fails before the run folder is written, so the same --out works next."""
    result = _train("--dataset", cards.folder, "--out", tmp_path / "tr", "--preset", "test", "--device", "cuda")
    assert result.returncode == 2
    assert result.stderr.strip() == "voice-studio: error: CUDA was requested but no CUDA GPU is available to torch"
    assert not (tmp_path / "tr").exists()


@pytest.mark.parametrize("command", ["import", "slice"])
def test_project_that_is_a_file_is_one_line(capsys, tmp_path, command):
    """``dataset import/slice --project a.wav``: one line naming the file, not ``[Errno 20] Not a directory``."""
    wav = tmp_path / "a.wav"
    wav.write_bytes(b"RIFF")
    code, err = _dataset(capsys, command, "--project", wav, tmp_path)
    assert (
        code == 2 and err == f"voice-studio: error: {wav}: is a file, not a folder; give a folder as the project folder"
    )
    assert wav.read_bytes() == b"RIFF"
