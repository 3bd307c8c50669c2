"""``voice-studio compare``: the leaderboard printed and written as CSV; bad candidates are one line, exit 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from studio.cli.compare import listed, resolve_candidate
from trainer.evaluate.leaderboard import read_csv


def compare(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", "compare", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=os.environ.copy(),
    )


def test_compare_prints_the_table_and_writes_the_csv(tmp_path, joe):
    """joe on two typed lines: a header and a row on stdout, each value ± its standard error over the 2 lines it
    rests on, the recommendation and the noise bands under the table; the same row in the CSV; progress on
    stderr."""
    pytest.importorskip("jiwer")
    from trainer.evaluate.bands import DEFAULT_BANDS
    from trainer.evaluate.board import COLUMNS

    out = tmp_path / "board.csv"
    result = compare(
        "joe",
        "--text",
        "Who left the garden gate open?\nThe kettle is on the stove.",
        "--noise-off",
        "--cache",
        str(tmp_path / "c"),
        "--csv",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    header, row = result.stdout.splitlines()[:2]
    assert header.split()[:2] == ["candidate", "val_mel"] and header.split()[-1] == "lines"
    assert row.split()[0] == "joe" and row.split()[-1] == "2"
    assert "MCD: no line has a reference recording" in result.stdout
    assert "rendering 2/2" in result.stderr and "scoring 2/2" in result.stderr and f"wrote {out}" in result.stderr
    assert "scoring 0/" not in result.stderr
    (written,) = read_csv(out.read_text(encoding="utf-8"))
    assert written.label == "joe" and written.model_path == joe.model_path
    assert written.wer is not None and written.dnsmos_ovrl is not None and written.mcd_db is None
    assert written.lines["wer"] == written.lines["dnsmos_ovrl"] == 2 and "mcd_db" not in written.lines
    assert written.stderr["dnsmos_ovrl"] > 0 and "val_mel" not in written.stderr
    wer = next(c for c in COLUMNS if c.field == "wer")
    assert wer.text(written) == f"{written.wer:.2f}±{written.stderr['wer']:.2f}" and wer.text(written) in row.split()
    assert "Recommended: joe, the only candidate measured." in result.stdout
    assert (
        f"Noise bands (how far a value moves for the same checkpoint under another seed; {DEFAULT_BANDS.source})"
        in (result.stdout)
    )


@pytest.mark.parametrize(
    ("candidate", "message"),
    [
        ("{tmp}/missing.ckpt", "{tmp}/missing.ckpt: no such candidate (not a .ckpt, an .onnx voice"),
        ("{tmp}/notes.txt", "{tmp}/notes.txt: a candidate is a .ckpt checkpoint or an .onnx voice"),
        ("{tmp}", "{tmp}: not a run folder (no training.json)"),
        ("nobody", "nobody: no voice named 'nobody'"),
    ],
)
def test_a_bad_candidate_is_one_line_and_exit_2(tmp_path, candidate, message):
    """A missing file, a text file, a plain folder or an unknown voice name: one line naming it, exit 2."""
    (tmp_path / "notes.txt").write_text("not a voice")
    result = compare(candidate.format(tmp=tmp_path), "--text", "Hello.", "--cache", str(tmp_path / "c"))
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("voice-studio: error: ") and message.format(tmp=tmp_path) in line, line


def test_a_csv_into_a_missing_folder_is_refused_before_any_work(tmp_path):
    """--csv into a folder that does not exist: exit 2 naming it, nothing rendered."""
    result = compare("joe", "--text", "Hello.", "--cache", str(tmp_path / "c"), "--csv", str(tmp_path / "no/b.csv"))
    assert result.returncode == 2 and "does not exist" in result.stderr
    assert not (tmp_path / "c").exists()


@pytest.mark.parametrize(
    ("csv", "message"),
    [
        ("/proc/x.csv", "/proc/x.csv: cannot write in folder /proc: "),
        ("{tmp}/somefile/x.csv", "{tmp}/somefile/x.csv: {tmp}/somefile is a file, not a folder"),
    ],
)
def test_a_csv_that_cannot_be_written_is_refused_before_any_work(tmp_path, csv, message):
    """--csv into a folder we cannot write in, or under a file: one line naming the CSV (no temporary name)."""
    (tmp_path / "somefile").write_text("")
    result = compare("joe", "--text", "Hello.", "--cache", str(tmp_path / "c"), "--csv", csv.format(tmp=tmp_path))
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert message.format(tmp=tmp_path) in line and ".part" not in line, line
    assert not (tmp_path / "c").exists()


def test_an_atomic_write_that_fails_names_the_file_not_its_temporary_copy(tmp_path):
    """Creating the temporary file fails (/proc) or replacing fails (the target is a folder): the target is named."""
    from engines.files import write_text

    with pytest.raises(OSError) as refused:
        write_text("/proc/x.csv", "a")
    assert refused.value.filename == "/proc/x.csv" and ".part" not in str(refused.value)
    (tmp_path / "board.csv").mkdir()
    with pytest.raises(IsADirectoryError) as replaced:
        write_text(tmp_path / "board.csv", "a")
    assert replaced.value.filename == str(tmp_path / "board.csv") and ".part" not in str(replaced.value)
    assert [p.name for p in tmp_path.iterdir()] == ["board.csv"]


def test_candidates_resolve_names_and_files_and_repeated_labels_get_their_folder(tmp_path, joe, make_tiny_checkpoint):
    """A voice name is its model; two last.ckpt are told apart by their run folder; a file named twice is once."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    a, b = make_tiny_checkpoint(tmp_path / "a" / "last.ckpt"), make_tiny_checkpoint(tmp_path / "b" / "last.ckpt")
    (named,) = resolve_candidate("joe")
    assert (named.label, named.model_path) == ("joe", joe.model_path)
    found = listed([str(a), str(b), str(a)])
    assert [(c.label, c.model_path) for c in found] == [("a/last.ckpt", a), ("b/last.ckpt", b)]


def _not_a_piper_voice(folder, joe):
    """An ONNX model y = sigmoid(x) with joe's config beside it: a valid graph without Piper's inputs."""
    import shutil

    import onnx
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    graph = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["y"])], "sigmoid", [x], [y])
    path = folder / "sigmoid.onnx"
    onnx.save(helper.make_model(graph), str(path))
    from engines.voice import config_path_for

    shutil.copy(config_path_for(joe.model_path), folder / "sigmoid.onnx.json")
    return path


@pytest.mark.parametrize("command", ["say", "compare"])
def test_a_graph_that_is_not_a_piper_voice_is_one_line_and_exit_2(tmp_path, joe, command):
    """say and compare load a non-Piper ONNX graph: one line naming the file and Piper's inputs, exit 2."""
    model = _not_a_piper_voice(tmp_path, joe)
    args = ["--voice", str(model), "-o", str(tmp_path / "o.wav"), "Hello."] if command == "say" else [str(model)]
    extra = [] if command == "say" else ["--text", "Hello.", "--cache", str(tmp_path / "c")]
    result = subprocess.run(
        [sys.executable, "-m", "studio", command, *args, *extra], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 2, result.stderr
    (line,) = [line for line in result.stderr.splitlines() if not line.startswith("rendering")]
    assert line.startswith(f"voice-studio: error: {model}: not a Piper voice") and "input_lengths" in line, line


def test_a_candidate_that_cannot_be_rendered_does_not_sink_the_others(tmp_path, joe):
    """A non-Piper graph beside joe: joe is scored, the other's row is empty and says why (table and CSV)."""
    pytest.importorskip("jiwer")
    model, out = _not_a_piper_voice(tmp_path, joe), tmp_path / "board.csv"
    result = compare(
        str(model), "joe", "--text", "Hello there.", "--noise-off", "--cache", str(tmp_path / "c"), "--csv", str(out)
    )
    assert result.returncode == 0, result.stderr
    assert f"sigmoid.onnx: not rendered: {model}: not a Piper voice" in result.stdout
    assert "rendering 2/2" in result.stderr and "scoring 1/1" in result.stderr
    failed, scored = read_csv(out.read_text(encoding="utf-8"))
    assert failed.label == "sigmoid.onnx" and "not a Piper voice" in (failed.failed or "")
    assert failed.dnsmos_ovrl is None and failed.wer is None
    assert scored.label == "joe" and scored.failed is None and scored.dnsmos_ovrl is not None


def test_two_candidates_within_noise_get_the_blind_tie_break_offered_in_one_line(tmp_path, joe):
    """joe and a copy of it with another config (its own renders) score alike within noise: one line under the
    recommendation offers to settle it by ear on the Compare page."""
    pytest.importorskip("jiwer")
    import shutil

    from engines.voice import config_path_for
    from trainer.evaluate.tie_break import TRIALS, offer_of

    copy, out = tmp_path / "joe-copy.onnx", tmp_path / "board.csv"
    shutil.copy(joe.model_path, copy)
    config = json.loads(config_path_for(joe.model_path).read_text(encoding="utf-8"))
    config["inference"]["length_scale"] = 1.05  # another config: renders of its own (the same voice twice is no tie)
    (tmp_path / "joe-copy.onnx.json").write_text(json.dumps(config), encoding="utf-8")
    result = compare(
        "joe", str(copy), "--text", "Hello there.", "--noise-off", "--cache", str(tmp_path / "c"), "--csv", str(out)
    )
    assert result.returncode == 0, result.stderr
    offer = offer_of(read_csv(out.read_text(encoding="utf-8")))
    assert offer is not None and set(offer.candidates) == {"joe", "joe-copy.onnx"}
    lines = result.stdout.splitlines()
    reason = next(i for i, line in enumerate(lines) if line.startswith("Recommended: "))
    assert lines[reason + 1] == offer.line()
    assert (
        "are within noise on every measure taken (DNSMOS and WER): settle it by ear with " in offer.line()
        and f"{TRIALS} blind" in offer.line()
    )


def test_lines_with_recordings_get_the_recordings_row_and_its_meaning(tmp_path, joe):
    """``--lines metadata.csv``: the recordings are scored too, as the last row of the table and the CSV, with
    the note saying what it is; the progress counts them."""
    pytest.importorskip("jiwer")
    from conftest import target_voice_slice

    from trainer.evaluate.board import RECORDINGS_MEANING, is_recordings

    folder = target_voice_slice(tmp_path / "lines", 2)
    out = tmp_path / "board.csv"
    result = compare("joe", "--lines", str(folder / "metadata.csv"), "--cache", str(tmp_path / "c"), "--csv", str(out))
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[1:3]] == ["joe", "recordings"]
    assert RECORDINGS_MEANING in result.stdout and "scoring 4/4" in result.stderr
    joe_row, heard = read_csv(out.read_text(encoding="utf-8"))
    assert is_recordings(heard) and heard.model_path == folder / "wavs" and heard.dnsmos_ovrl is not None
    assert "Recommended: joe" in result.stdout
