"""One rule for candidate labels (trainer.evaluate.labels): ``voice-studio compare`` and the Compare page's list
name the same files alike, the epoch stays readable after a run's prefix, and repeats are told apart."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from trainer.evaluate.evaluation import Evaluation
from trainer.evaluate.labels import labelled
from trainer.evaluate.render import Candidate
from trainer.run.document import TRAINING_FILE, RunDocument
from trainer.run.options import RunOptions


def _run(folder: Path, make_tiny_checkpoint) -> Path:
    """A run folder (training.json) with one ranked checkpoint (epoch 2) and last.ckpt."""
    (folder / "checkpoints").mkdir(parents=True)
    name = "best-epoch=0001-val_mel=0.6171.ckpt"
    make_tiny_checkpoint(folder / "checkpoints" / name)
    (folder / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": [[0.6171, name]]}))
    make_tiny_checkpoint(folder / "last.ckpt")
    options = RunOptions(dataset=folder / "data", out=folder, start="joe", preset="test", epochs=3)
    document = RunDocument(options=options, cache=folder / "cache", config={"epochs": 3, "batch_size": None})
    (folder / TRAINING_FILE).write_text(json.dumps(document.to_json()))
    return folder


def test_two_runs_prefix_their_own_and_the_epoch_stays_readable(tmp_path, make_tiny_checkpoint, joe):
    """Two runs: each run's checkpoints get ``RUN/``, the start voice none; an evaluation of such a label still
    finds its epoch and names it ``tune-a/epoch 2``; one run alone gets no prefix."""
    from trainer.evaluate.lines import file_candidate

    a, b = _run(tmp_path / "tune-a", make_tiny_checkpoint), _run(tmp_path / "tune-b", make_tiny_checkpoint)
    start = Candidate(label="start: joe", model_path=joe.model_path)
    ranked = file_candidate(a / "checkpoints" / "best-epoch=0001-val_mel=0.6171.ckpt")
    listed = [(ranked, None), (file_candidate(a / "last.ckpt"), a), (start, a), (file_candidate(b / "last.ckpt"), None)]
    found = labelled(listed)
    assert [c.label for c in found] == ["tune-a/epoch 2 · val_mel 0.6171", "tune-a/last", "start: joe", "tune-b/last"]
    named = Evaluation(epoch=2, label=found[0].label)
    assert named.name() == "tune-a/epoch 2"
    alone = labelled([(ranked, None), (start, None)])
    assert [c.label for c in alone] == ["epoch 2 · val_mel 0.6171", "start: joe"]


def test_a_file_listed_twice_is_once_and_repeated_labels_get_their_folder_then_a_number(tmp_path, joe):
    """The same file twice is one candidate; two files of one label are told apart by their folders; two
    folders of one name as well, then by number."""
    copies = []
    for folder in ("x", "y", "deep/x"):
        (tmp_path / folder).mkdir(parents=True)
        copies.append(shutil.copy(joe.model_path, tmp_path / folder / "joe.onnx"))
    entries = [(Candidate(label="joe", model_path=Path(p)), None) for p in [*copies, copies[0]]]
    assert [c.label for c in labelled(entries)] == ["x/joe", "y/joe", "x/joe (2)"]


def test_the_leaderboard_tab_plays_the_renders_it_scored_without_rendering_again(tmp_path, joe, monkeypatch):
    """The Compare page's scoring returns the renders ``scored`` measured (one per candidate and line) and
    renders nothing after it (``render_all`` is not called a second time)."""
    from studio.pages import compare_board
    from trainer.evaluate import leaderboard
    from trainer.evaluate.lines import typed_lines
    from trainer.evaluate.render import RenderSettings

    calls = []
    real = leaderboard.render_all
    monkeypatch.setattr(leaderboard, "render_all", lambda *a, **k: calls.append(1) or real(*a, **k))

    def again(*_args, **_kwargs):
        raise AssertionError("rendered again after scoring")

    monkeypatch.setattr(compare_board, "render_all", again, raising=False)  # the page's own, where it has one
    candidates = [Candidate(label="joe", model_path=joe.model_path)]
    lines = typed_lines("Who left the garden gate open?")
    rows, renders = compare_board._score(candidates, lines, RenderSettings(seed=1), tmp_path, None, None)
    assert [r.label for r in rows] == ["joe"] and set(renders) == {("joe", 0)} and len(calls) == 1
    assert renders[("joe", 0)].audio.size > 0


def test_short_labels_and_the_order_a_run_made_them_for_two_runs_and_two_start_voices():
    """Labels of two runs (as ``labelled`` gives them), two start voices and a library voice: short labels keep
    the run's prefix (``tune-b/ep 3``) and a start voice's name where two would both read ``start``; the order is
    the start voices, then each run (first listed first) by epoch, its last and export, then the other voice."""
    from trainer.evaluate.labels import short_labels, training_order

    labels = [
        "tune-b/epoch 12 · val_mel 0.6120",
        "tune-b/epoch 3 · val_mel 0.7100",
        "en_US-amy-medium",
        "tune-a/last",
        "start: joe",
        "tune-b/export",
        "tune-a/epoch 2 · val_mel 0.6500",
        "start: amy",
        "tune-b/last",
    ]
    assert short_labels(labels) == [
        "tune-b/ep 12",
        "tune-b/ep 3",
        "en_US-amy-medium",
        "tune-a/last",
        "start: joe",
        "tune-b/export",
        "tune-a/ep 2",
        "start: amy",
        "tune-b/last",
    ]
    assert short_labels(["epoch 6 · val_mel 0.6120", "start: joe"]) == ["ep 6", "start"]
    assert [labels[i] for i in training_order(labels)] == [
        "start: joe",
        "start: amy",
        "tune-b/epoch 3 · val_mel 0.7100",
        "tune-b/epoch 12 · val_mel 0.6120",
        "tune-b/last",
        "tune-b/export",
        "tune-a/epoch 2 · val_mel 0.6500",
        "tune-a/last",
        "en_US-amy-medium",
    ]
