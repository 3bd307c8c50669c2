"""A checkpoint at a strength (trainer.checkpoints.strength, ``voice-studio export --strength``): its generator moved
back towards the run's start voice along the line between them, written as a checkpoint every engine reads."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from engines.torch.vits.onnx_import import load_onnx_generator  # noqa: E402
from trainer.checkpoints.strength import (  # noqa: E402
    STRENGTH_KEY,
    StrengthError,
    at_strength,
    write_at_strength,
)
from trainer.run.document import TRAINING_FILE, RunDocument, run_of  # noqa: E402
from trainer.run.options import RunOptions  # noqa: E402

NAME = "best-epoch=0004-val_mel=0.5123.ckpt"


@pytest.fixture(scope="module")
def joe_weights(joe):
    """joe's generator as imported: ``(config, state dict)``."""
    model, _ = load_onnx_generator(joe.model_path)
    return model.config, {k: v.clone() for k, v in model.state_dict().items()}


def _run(folder: Path, start: str) -> Path:
    options = RunOptions(dataset=folder / "data", out=folder, start=start, preset="test", epochs=5)
    document = RunDocument(options=options, cache=folder / "cache", config={"epochs": 5, "batch_size": None})
    folder.mkdir(parents=True, exist_ok=True)
    (folder / TRAINING_FILE).write_text(json.dumps(document.to_json()))
    return folder


@pytest.fixture
def tuned(tmp_path, joe_weights) -> tuple[Path, dict]:
    """A run from joe with one ranked checkpoint: joe's generator with its decoder and text encoder moved by a known
    step and a posterior encoder of its own (a part joe's ONNX file does not hold). Returns ``(checkpoint, step)``."""
    config, state = joe_weights
    generator = torch.Generator().manual_seed(3)
    step = {
        k: torch.randn(v.shape, generator=generator) * 0.01
        for k, v in state.items()
        if k.startswith(("dec.", "enc_p."))
    }
    moved = {k: v + step[k] if k in step else v for k, v in state.items()}
    moved = {k: torch.full_like(v, 0.5) if k.startswith("enc_q.") else v for k, v in moved.items()}
    hparams = {**config.to_dict(), "sample_rate": 22050}
    run = _run(tmp_path / "runs" / "tune", "joe")
    (run / "checkpoints").mkdir()
    path = run / "checkpoints" / NAME
    checkpoint = {"epoch": 4, "global_step": 100, "val_mel": 0.5123, "hyper_parameters": hparams}
    checkpoint["state_dict"] = {f"model_g.{k}": v for k, v in moved.items()}
    checkpoint["optimizer_states"] = [{"state": {}}]
    torch.save(checkpoint, path)
    (run / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": [[0.5123, NAME]]}))
    return path, step


def test_a_strength_moves_the_shared_weights_along_the_line_and_keeps_the_rest(tuned, joe_weights):
    """At 0.25 every weight joe has lies a quarter of the way from joe's to the checkpoint's; the posterior encoder
    (not in joe's file) is the checkpoint's; the file keeps the epoch and val_mel, says what it is, drops the
    optimizer states, and lies in the run's ``strengths/`` folder, still the run's."""
    path, step = tuned
    _, joe = joe_weights
    out = write_at_strength(path, 0.25)
    assert out == path.parent.parent / "strengths" / "best-epoch=0004-val_mel=0.5123-strength=0.25.ckpt"
    assert run_of(out) == path.parent.parent
    written = torch.load(out, map_location="cpu", weights_only=False)
    state = written["state_dict"]
    for name, delta in step.items():
        torch.testing.assert_close(state[f"model_g.{name}"], joe[name] + 0.25 * delta, atol=1e-6, rtol=0)
    assert all((v == 0.5).all() for k, v in state.items() if k.startswith("model_g.enc_q."))
    torch.testing.assert_close(state["model_g.flow.flows.0.pre.weight"], joe["flow.flows.0.pre.weight"])
    assert (written["epoch"], written["val_mel"]) == (4, 0.5123) and "optimizer_states" not in written
    assert written[STRENGTH_KEY] == {"checkpoint": NAME, "start": "joe", "strength": 0.25}


def test_the_ends_are_the_start_and_the_checkpoint(tuned, joe_weights):
    """Strength 0 gives joe's inference weights exactly, 1 the checkpoint's."""
    path, step = tuned
    _, joe = joe_weights
    at_zero = torch.load(write_at_strength(path, 0), map_location="cpu", weights_only=False)["state_dict"]
    at_one = torch.load(write_at_strength(path, 1), map_location="cpu", weights_only=False)["state_dict"]
    own = torch.load(path, map_location="cpu", weights_only=False)["state_dict"]
    assert all(torch.equal(at_zero[f"model_g.{k}"], v) for k, v in joe.items() if not k.startswith("enc_q."))
    assert all(torch.equal(at_one[k], v) for k, v in own.items())


def test_a_speaker_embedding_is_kept_and_another_network_refused():
    """The speaker embedding (which a speaker conversion resizes) keeps the checkpoint's; any other weight of
    another shape means another network: refused, naming the weight and both shapes."""
    own = {"emb_g.weight": torch.ones(4, 8), "dec.conv_pre.weight": torch.ones(2, 3)}
    start = {"emb_g.weight": torch.zeros(1, 8), "dec.conv_pre.weight": torch.zeros(2, 3)}
    moved, count = at_strength(own, start, 0.5)
    assert count == 1 and torch.equal(moved["emb_g.weight"], own["emb_g.weight"])
    assert torch.equal(moved["dec.conv_pre.weight"], torch.full((2, 3), 0.5))
    with pytest.raises(StrengthError, match=r"dec.conv_pre.weight: \[2, 4\] against \[2, 3\]"):
        at_strength(own, {"dec.conv_pre.weight": torch.zeros(2, 4)}, 0.5)


@pytest.mark.parametrize("strength", [1.5, -0.1, float("nan")])
def test_a_strength_outside_0_to_1_is_refused(tuned, strength):
    """Outside [0, 1] (or not a number): a StrengthError naming the strength; nothing written."""
    path, _ = tuned
    with pytest.raises(StrengthError, match="strength: .* is not between 0"):
        write_at_strength(path, strength)
    assert not (path.parent.parent / "strengths").exists()


def test_no_start_to_move_towards_is_said(tmp_path, make_tiny_checkpoint, tuned):
    """A checkpoint in no run, a run from scratch, and a start of another network each fail with a reason."""
    loose = make_tiny_checkpoint(tmp_path / "loose.ckpt")
    with pytest.raises(StrengthError, match="not a run's checkpoint"):
        write_at_strength(loose, 0.5)
    scratch = _run(tmp_path / "scratch", "scratch")
    tiny = make_tiny_checkpoint(scratch / "last.ckpt")
    with pytest.raises(StrengthError, match="from scratch has no start voice"):
        write_at_strength(tiny, 0.5)
    with pytest.raises(StrengthError, match="loose.ckpt, against the start voice joe: .* not the network"):
        write_at_strength(loose, 0.5, start="joe")


def _export(checkpoint: Path, strength: str, out: Path) -> subprocess.CompletedProcess:
    """``voice-studio export CHECKPOINT --strength STRENGTH -o OUT``, as a user runs it."""
    command = [sys.executable, "-m", "studio", "export", str(checkpoint), "--strength", strength, "-o", str(out)]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def test_export_at_a_strength_writes_a_voice_that_speaks(tuned, tmp_path):
    """``voice-studio export CKPT --strength 0.5 -o NAME.onnx`` says what it did and writes a voice that our ONNX
    engine and piper-tts speak; a voice given with --strength is refused in one line (exit 2)."""
    from piper import PiperVoice

    from engines.onnx.engine import OnnxEngine
    from engines.voice import load_voice

    path, _ = tuned
    out = tmp_path / "half.onnx"
    done = _export(path, "0.5", out)
    assert done.returncode == 0, done.stderr
    assert "At strength 0.5: best-epoch=0004-val_mel=0.5123.ckpt moved back towards the start voice joe" in done.stderr
    import numpy as np

    audio = np.concatenate([c.audio for c in OnnxEngine(load_voice(out)).synthesize("Half way there.")])
    assert audio.size > 0.3 * 22050 and float(abs(audio).max()) > 0.05
    piper = b"".join(chunk.audio_int16_bytes for chunk in PiperVoice.load(out).synthesize("Half way there."))
    assert len(piper) > 0.3 * 22050 * 2
    refused = subprocess.run(
        [sys.executable, "-m", "studio", "export", "joe", "--strength", "0.5", "-o", str(tmp_path / "j.onnx")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 2 and "is a voice, not a run's checkpoint" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_run_offers_its_checkpoints_at_a_strength_by_name(tuned):
    """Written at 0.7, the checkpoint is one of what its run offers to compare, labelled after it (and shortened
    so on the Compare page's buttons); a file of another name in ``strengths/`` is not offered."""
    from trainer.evaluate.labels import short_labels
    from trainer.evaluate.lines import file_candidate, run_candidates

    path, _ = tuned
    out = write_at_strength(path, 0.7)
    (out.parent / "notes.ckpt").write_bytes(b"")
    offered = {c.label: c.model_path for c in run_candidates(path.parent.parent)}
    assert offered["epoch 5 at 70% · val_mel 0.5123"] == out and out.parent / "notes.ckpt" not in offered.values()
    assert file_candidate(out).label == "epoch 5 at 70% · val_mel 0.5123"
    assert short_labels(["epoch 5 · val_mel 0.5123", "epoch 5 at 70% · val_mel 0.5123"]) == ["ep 5", "ep 5 at 70%"]


def test_compare_scores_a_checkpoint_at_strengths(tuned, tmp_path):
    """``compare CKPT --strengths 0.5`` scores the checkpoint and it at 0.5, each named; bad strengths, and
    strengths with no checkpoint named, are refused in one line (exit 2)."""
    path, _ = tuned

    def compare(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "studio", "compare", *args, "--text", "Half way.", "--cache", str(tmp_path)]
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    done = compare(str(path), "--strengths", "0.5")
    assert done.returncode == 0, done.stderr
    rows = [line.split("  ")[0] for line in done.stdout.splitlines()]
    assert "epoch 5 · val_mel 0.5123" in rows and "epoch 5 at 50% · val_mel 0.5123" in rows
    for bad, said in [(["--strengths", "0.5,2"], "is not between 0"), (["--strengths", "0.5"], "name a run's .ckpt")]:
        refused = compare(*(["joe"] if said.startswith("name") else [str(path)]), *bad)
        assert refused.returncode == 2 and said in refused.stderr and "Traceback" not in refused.stderr
    shutil.rmtree(path.parent.parent / "strengths")
    missing = compare(str(path), str(tmp_path / "nowhere.onnx"), "--strengths", "0.5")
    assert missing.returncode == 2 and "nowhere.onnx: no such candidate" in missing.stderr
    assert not (path.parent.parent / "strengths").exists()  # nothing written before every candidate was found


def test_the_last_checkpoint_at_a_strength_is_named_by_its_epoch(tuned):
    """``last.ckpt`` at 0.7 is written as its epoch's (``last-epoch=0004-strength=0.70.ckpt``, offered as ``epoch 5
    at 70% · last``); once ``last.ckpt`` has moved on to another epoch, that file is still epoch 5's and the new
    epoch's strength is a file of its own."""
    from trainer.evaluate.lines import run_candidates

    path, _ = tuned
    run = path.parent.parent
    shutil.copyfile(path, run / "last.ckpt")
    first = write_at_strength(run / "last.ckpt", 0.7)
    assert first == run / "strengths" / "last-epoch=0004-strength=0.70.ckpt"
    raw = torch.load(path, weights_only=False)
    torch.save({**raw, "epoch": 5}, run / "last.ckpt")
    second = write_at_strength(run / "last.ckpt", 0.7)
    offered = {c.label: c.model_path for c in run_candidates(run)}
    assert offered["epoch 5 at 70% · last"] == first and offered["epoch 6 at 70% · last"] == second


def test_a_checkpoint_at_a_strength_is_not_taken_to_another_and_strengths_read_as_typed(tuned):
    """A file at a strength already is refused, naming the checkpoint to take instead (no strength of a strength,
    which would be named after neither); typed strengths are read in order, each once, to two decimals."""
    from trainer.checkpoints.strength import parse_strengths

    path, _ = tuned
    at = write_at_strength(path, 0.7)
    with pytest.raises(StrengthError, match=f"is at strength 0.70 already: take its checkpoint, {NAME}, to"):
        write_at_strength(at, 0.5)
    assert parse_strengths("0.6, 0.8 1,0.6") == [0.6, 0.8, 1.0] and parse_strengths("0.666") == [0.67]
    for typed, said in [("0.6, 1.5", "1.5 is not between 0"), ("0.6 most", "'most' is not a number"), (" ", "no")]:
        with pytest.raises(StrengthError, match=said):
            parse_strengths(typed)


def _box(qtbot, tmp_path: Path, run: Path):
    """The Compare page's candidates box with ``run`` listed, and the lines it says (its ``message``)."""
    from studio.pages.compare_sources import CandidatesBox
    from studio.state import VoiceLibrary, Workspace

    box = CandidatesBox(Workspace(runs_dir=run.parent, voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(box)
    said: list[str] = []
    box.message.connect(said.append)
    box.add_run(run)
    return box, said


def _select(box, model_path: Path) -> None:
    files = [e.candidate.model_path.absolute() for e in box.entries()]
    box.list.setCurrentRow(files.index(model_path.absolute()))


@pytest.mark.gui
def test_at_strength_writes_off_the_gui_thread_and_lists_them_checked(qtbot, tuned, tmp_path, joe, monkeypatch):
    """The "At strength…" button is enabled for one selected checkpoint of a run only (not the start voice, not a
    file at a strength); asked 0.6, 0.8 it writes both on a worker thread (the click returns while they are
    written), then lists them checked, labelled as the run labels them, and says so."""
    import threading

    from PySide6.QtWidgets import QInputDialog

    import trainer.checkpoints.strength as strength

    path, _ = tuned
    run = path.parent.parent
    box, said = _box(qtbot, tmp_path, run)
    assert not box.strengths.button.isEnabled()  # nothing selected
    _select(box, joe.model_path)
    assert not box.strengths.button.isEnabled()
    _select(box, path)
    assert box.strengths.button.isEnabled()
    threads, real = [], strength.write_at_strength
    monkeypatch.setattr(
        strength, "write_at_strength", lambda *a, **k: threads.append(threading.current_thread()) or real(*a, **k)
    )
    monkeypatch.setattr(QInputDialog, "getText", lambda *args, **kwargs: ("0.6, 0.8", True))
    with qtbot.waitSignal(box.strengths.finished, timeout=120_000):
        box.strengths.button.click()
        assert box.strengths.writer.busy() and not box.strengths.button.isEnabled()
    assert len(threads) == 2 and threading.main_thread() not in threads
    checked = {e.candidate.label: e for e in box.entries(checked_only=True)}
    for percent, name in [(60, "0.60"), (80, "0.80")]:
        entry = checked[f"epoch 5 at {percent}% · val_mel 0.5123"]
        assert entry.candidate.model_path == run / "strengths" / f"{Path(NAME).stem}-strength={name}.ckpt"
        assert entry.run == run.absolute() and entry.candidate.model_path.is_file()
    assert said[-1] == "Listed epoch 5 at 60% · val_mel 0.5123 and epoch 5 at 80% · val_mel 0.5123 (in tune/strengths/)"
    assert box.strengths.button.isEnabled()
    _select(box, checked["epoch 5 at 60% · val_mel 0.5123"].candidate.model_path)
    assert not box.strengths.button.isEnabled()  # no strength of a strength


@pytest.mark.gui
def test_at_strength_refuses_bad_strengths_and_says_why_a_run_cannot_be_taken(
    qtbot, tuned, tmp_path, make_tiny_checkpoint, monkeypatch
):
    """Strengths that are not numbers in [0, 1] are one line and nothing is written; a run from scratch, and a run
    whose start voice is gone, are each one line naming why, with nothing written or listed."""
    from PySide6.QtWidgets import QInputDialog

    path, _ = tuned
    box, said = _box(qtbot, tmp_path, path.parent.parent)
    _select(box, path)
    for typed, why in [("0.6, 1.5", "strength: 1.5 is not between 0"), ("0.6, most", "'most' is not a number")]:
        monkeypatch.setattr(QInputDialog, "getText", lambda *args, typed=typed, **kwargs: (typed, True))
        box.strengths.button.click()
        assert said[-1].startswith("At strength: ") and why in said[-1] and said[-1].endswith("; nothing written")
    assert not box.strengths.writer.busy() and not (path.parent.parent / "strengths").exists()
    scratch, gone = _run(tmp_path / "runs" / "scratch", "scratch"), _run(tmp_path / "runs" / "gone", "/gone/v.onnx")
    for run, why in [
        (scratch, "a run from scratch has no start voice"),
        (gone, "last.ckpt: its start voice, /gone/v.onnx (as its run's training.json says), is not there"),
    ]:
        last = make_tiny_checkpoint(run / "last.ckpt")
        box.add_run(run)
        _select(box, last)
        listed = len(box.entries())
        with qtbot.waitSignal(box.strengths.finished, timeout=60_000):
            assert box.at_strengths([0.5]) is not None
        assert said[-1].startswith(f"Cannot take a checkpoint of {run.name} to a strength: {why}")
        assert "\n" not in said[-1] and "Traceback" not in said[-1]
        assert len(box.entries()) == listed and not (run / "strengths").exists()


@pytest.mark.gui
def test_cancel_stops_between_strengths_and_lists_what_was_written(qtbot, tuned, tmp_path, monkeypatch):
    """Cancel while the first of three strengths is written: it is finished and listed, the others are not
    written, and the line says so."""
    import threading

    import trainer.checkpoints.strength as strength

    path, _ = tuned
    run = path.parent.parent
    box, said = _box(qtbot, tmp_path, run)
    _select(box, path)
    writing, cancelled, real = threading.Event(), threading.Event(), strength.write_at_strength

    def write_once_cancelled(*args, **kwargs):  # the real write, once Cancel was pressed during it
        writing.set()
        assert cancelled.wait(60)
        return real(*args, **kwargs)

    older = real(path, 0.6)  # asked again below, but not written this time: not listed
    monkeypatch.setattr(strength, "write_at_strength", write_once_cancelled)
    task = box.at_strengths([0.2, 0.4, 0.6])
    assert task is not None and box.strengths.progress.cancel_button.isVisibleTo(box)
    assert writing.wait(60)
    with qtbot.waitSignal(box.strengths.finished, timeout=120_000):
        box.strengths.progress.cancel_button.click()
        cancelled.set()
    on_disk = sorted(p.name for p in (run / "strengths").iterdir())
    assert on_disk == [f"{Path(NAME).stem}-strength=0.20.ckpt", older.name]
    listed = "listed epoch 5 at 20% · val_mel 0.5123 (in tune/strengths/)"
    assert said[-1] == f"At strength cancelled: 1 of 3 strengths written; {listed}"
    assert "epoch 5 at 20% · val_mel 0.5123" in [e.candidate.label for e in box.entries(checked_only=True)]


def test_a_strength_is_taken_to_the_two_decimals_its_file_is_named_by(tuned, joe_weights):
    """0.333 is written as 0.33, in its weights, its record and its name alike."""
    path, step = tuned
    _, joe = joe_weights
    out = write_at_strength(path, 0.333)
    written = torch.load(out, map_location="cpu", weights_only=False)
    assert out.name.endswith("-strength=0.33.ckpt") and written[STRENGTH_KEY]["strength"] == 0.33
    name, delta = next(iter(step.items()))
    torch.testing.assert_close(written["state_dict"][f"model_g.{name}"], joe[name] + 0.33 * delta, atol=1e-6, rtol=0)


def test_minus_zero_is_the_start_voice_named_as_such(tuned):
    """``-0`` (typed, or ``--strength -0``) is strength 0: its file is named ``strength=0.00`` (not ``-0.00``, which
    no run would list as its strength nor refuse to take to another) and the run offers it."""
    from trainer.checkpoints.strength import checked_strength, parse_strengths, strength_of
    from trainer.evaluate.lines import run_candidates

    path, _ = tuned
    assert str(parse_strengths("-0")[0]) == "0.0" and str(checked_strength(-0.0)) == "0.0"
    out = write_at_strength(path, -0.0)
    assert out.name == "best-epoch=0004-val_mel=0.5123-strength=0.00.ckpt" and strength_of(out) == (NAME, 0.0)
    assert {c.label: c.model_path for c in run_candidates(path.parent.parent)}["epoch 5 at 0% · val_mel 0.5123"] == out


def test_a_checkpoint_at_a_strength_renamed_is_still_refused_by_what_it_holds(tuned):
    """A file at a strength copied under another name (``out=``, a user's copy) still says what it is inside: taking
    it to a strength again would compound the two (0.5 of 0.7 is 0.35 of the fine-tune), so it is refused."""
    import shutil

    path, _ = tuned
    at = write_at_strength(path, 0.7, out=path.parent.parent / "mine.ckpt")
    copy = shutil.copy(at, path.parent / "best-epoch=0005-val_mel=0.5000.ckpt")
    for source in (at, Path(copy)):
        with pytest.raises(StrengthError, match=f"is at strength 0.70 already: take its checkpoint, {NAME}, to"):
            write_at_strength(source, 0.5)


def test_a_file_holding_minus_zero_from_before_is_said_and_recorded_as_zero(tuned):
    """A file written before -0 became 0 holds ``strength: -0.0``: taking it to a strength again is refused saying
    0.00 (not -0.00), and what it holds reads as 0.0, the strength an export of it records."""
    import math

    from trainer.checkpoints.strength import STRENGTH_KEY, held_strength

    path, _ = tuned
    at = write_at_strength(path, 0.0, out=path.parent.parent / "old.ckpt")
    raw = torch.load(at, map_location="cpu", weights_only=False)
    raw[STRENGTH_KEY]["strength"] = -0.0
    torch.save(raw, at)
    with pytest.raises(StrengthError, match=f"old.ckpt is at strength 0.00 already: take its checkpoint, {NAME}"):
        write_at_strength(at, 0.5)
    assert math.copysign(1, held_strength(raw)) == 1 and held_strength({"epoch": 3}) is None


def test_export_says_the_strength_it_wrote_and_the_voice_records_it(tuned, tmp_path):
    """``export --strength 0.333`` says 0.33 (the strength written and named), and the voice's ``.onnx.json``
    records it beside the epochs trained (the voice is not the checkpoint as trained)."""
    path, _ = tuned
    out = tmp_path / "third.onnx"
    done = _export(path, "0.333", out)
    assert done.returncode == 0, done.stderr
    assert "At strength 0.33: " in done.stderr and "strength=0.33.ckpt" in done.stderr
    training = json.loads(out.with_name("third.onnx.json").read_text())["training"]
    assert training["strength"] == 0.33 and training["epochs"] == 5


def test_export_refuses_a_bad_strength_or_a_voice_before_any_work(tuned, tmp_path):
    """A strength outside 0-1 is refused before the run's checkpoint is chosen and said; a voice with --strength is
    refused for a sherpa-onnx bundle too (it was bundled as it is, the strength ignored), nothing written."""
    path, _ = tuned

    def export(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "studio", "export", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=300)

    bad = export(str(path.parent.parent), "--strength", "2", "-o", str(tmp_path / "x.onnx"))
    assert bad.returncode == 2 and "is not between 0" in bad.stderr and "Exporting" not in bad.stderr
    bundle = tmp_path / "bundle"
    voice = export("joe", "--strength", "0.5", "--sherpa-onnx", str(bundle))
    assert voice.returncode == 2 and "is a voice, not a run's checkpoint" in voice.stderr, voice.stderr
    assert "Traceback" not in voice.stderr and not (bundle.exists() and any(bundle.iterdir()))


def test_a_start_voice_moved_away_is_said_as_the_runs(tuned, tmp_path, joe):
    """A run started from a voice file since moved or deleted (training.json keeps its path): taking a checkpoint to
    a strength says that start voice is gone, as the run's training.json names it, not how to start a run."""
    import shutil

    from engines.voice import config_path_for

    path, _ = tuned
    voice = tmp_path / "voices" / "en_US-mine-medium.onnx"
    voice.parent.mkdir()
    shutil.copy(joe.model_path, voice)
    shutil.copy(config_path_for(joe.model_path), voice.with_name(voice.name + ".json"))
    _run(path.parent.parent, str(voice))
    assert write_at_strength(path, 0.5).is_file()
    voice.unlink()
    with pytest.raises(StrengthError, match=f"its start voice, {voice} \\(as its run's training.json says\\), is not"):
        write_at_strength(path, 0.6)
    assert not (path.parent.parent / "strengths" / f"{NAME.removesuffix('.ckpt')}-strength=0.60.ckpt").exists()


def test_a_checkpoint_at_a_strength_has_no_val_mel_of_its_own_on_the_leaderboard(tuned):
    """The val_mel a file at a strength keeps (in it, in its name) is its checkpoint's as trained: the leaderboard
    must not show or rank it as the strength's own (it had recommended 'epoch 40 at 70%' for 'the lowest val_mel',
    the one it shared with epoch 40 as trained)."""
    from trainer.evaluate.leaderboard import val_mel_at_save

    path, _ = tuned
    assert val_mel_at_save(path) == pytest.approx(0.5123)
    at = write_at_strength(path, 0.7)
    assert val_mel_at_save(at) is None
    assert val_mel_at_save(write_at_strength(path, 0.6, out=path.parent.parent / "mine.ckpt")) is None
