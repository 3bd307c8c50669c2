"""A run's canary evaluations read as the verdict, the recommended checkpoint kept on disk, and Export taking it
(trainer.evaluate.run_measures, trainer.evaluate.choice) on a run folder written event by event."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trainer.evaluate.bands import Bands
from trainer.evaluate.canary import checkpoint_path
from trainer.evaluate.choice import run_choice
from trainer.evaluate.run_measures import canary_evaluations, keep_recommended, run_verdict
from trainer.events import schema as events
from trainer.events.run_state import load_run
from trainer.run.document import TRAINING_FILE, RunDocument
from trainer.run.options import RunOptions

BANDS = {"wer": 0.03, "dnsmos_ovrl": 0.05, "similarity": 0.01, "val_mel": 0.0}
VAL_MEL = [1.0, 0.9, 0.8, 0.7]
"""val_mel per epoch (from 0): it keeps falling."""
HEARD = [
    {"wer": 0.10, "similarity": 0.60, "dnsmos_ovrl": 3.2},
    {"wer": 0.08, "similarity": 0.62, "dnsmos_ovrl": 3.2},
    {"wer": 0.15, "similarity": 0.63, "dnsmos_ovrl": 3.2},
    {"wer": 0.20, "similarity": 0.64, "dnsmos_ovrl": 3.1},
]
"""The canary's measures per epoch: epoch 2 (from 1) is the most intelligible; later ones mumble, closer to the
speaker: the case val_mel hides."""


def _epoch(epoch: int) -> events.Epoch:
    return events.Epoch(
        epoch=epoch,
        step=10 * (epoch + 1),
        seconds=10.0,
        train_s=8.0,
        losses={"val_mel": VAL_MEL[epoch]},
        learning_rates={},
        val_s=1.0,
        preview_s=0.5,
        checkpoint_wait_s=0.5,
    )


def _evaluation(epoch: int) -> events.Evaluation:
    bands = dict(BANDS) if epoch == 0 else None
    return events.Evaluation(epoch=epoch, values=HEARD[epoch], lines=5, seconds=30.0, bands=bands)


@pytest.fixture
def run(tmp_path) -> Path:
    """A 4-epoch run: val_mel ranks epochs 3 and 4 (from 1) best; every epoch evaluated, its checkpoint kept."""
    folder = tmp_path / "run"
    (folder / "checkpoints").mkdir(parents=True)
    ranking = []
    for epoch in (3, 2):
        name = f"best-epoch={epoch:04d}-val_mel={VAL_MEL[epoch]:.4f}.ckpt"
        (folder / "checkpoints" / name).write_bytes(b"")
        ranking.append([VAL_MEL[epoch], name])
    (folder / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    options = RunOptions(dataset=folder / "data", out=folder, start="joe", preset="test", epochs=4)
    document = RunDocument(options=options, cache=folder / "cache", config={"epochs": 4, "batch_size": None})
    (folder / TRAINING_FILE).write_text(json.dumps(document.to_json()))
    records = [e.to_record() for epoch in range(4) for e in (_epoch(epoch), _evaluation(epoch))]
    (folder / "events.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    for epoch in range(4):
        checkpoint_path(folder, epoch).parent.mkdir(exist_ok=True)
        checkpoint_path(folder, epoch).write_bytes(b"")
    return folder


def test_the_evaluations_carry_their_epochs_val_mel_and_checkpoint(run):
    """Epochs counted from 1, each with its val_mel added to the heard measures and its checkpoint's path."""
    found = canary_evaluations(load_run(run))
    assert [e.epoch for e in found] == [1, 2, 3, 4]
    assert [e.values["val_mel"] for e in found] == VAL_MEL and found[1].values["wer"] == 0.08
    assert [Path(e.path) for e in found] == [checkpoint_path(run, epoch) for epoch in range(4)]


def test_the_verdict_says_getting_worse_while_val_mel_falls_and_keeps_the_intelligible_epoch(run):
    """WER rose beyond its band after epoch 2 while val_mel fell: getting worse, keep epoch 2 (the run's bands)."""
    state = load_run(run)
    assert state.noise_bands == Bands(values=BANDS, source=state.noise_bands.source)
    said = run_verdict(state)
    assert said is not None and said.state == "worse" and said.keep_epoch == 2
    assert said.sentence.startswith("Getting worse") and "val_mel still falls" in said.sentence


def test_only_the_recommended_epochs_checkpoint_is_kept_and_export_takes_it(run):
    """keep_recommended removes the other measured evaluation checkpoints; Export takes the kept one although
    val_mel ranked it out, and names the lowest val_mel beside it."""
    kept = keep_recommended(load_run(run))
    assert kept == checkpoint_path(run, 1)
    assert sorted(p.name for p in checkpoint_path(run, 0).parent.glob("*.ckpt")) == ["checkpoint-epoch=0001.ckpt"]
    choice = run_choice(run)
    assert choice.checkpoint.path == kept and choice.checkpoint.epoch == 1
    assert choice.lowest.epoch == 3 and "The lowest val_mel is epoch 4" in choice.beside
    assert choice.why.startswith("epoch 2 · val_mel 0.9000 (file checkpoint-epoch=0001.ckpt")
    assert run_choice(run, "val_mel").checkpoint.epoch == 3


def test_a_run_without_evaluations_has_no_verdict(run):
    """Before the first evaluation: no verdict, nothing kept or removed."""
    lines = [line for line in (run / "events.jsonl").read_text().splitlines() if '"evaluation"' not in line]
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    state = load_run(run)
    assert run_verdict(state) is None and keep_recommended(state) is None
    assert len(list(checkpoint_path(run, 0).parent.glob("*.ckpt"))) == 4


@pytest.mark.gui
def test_the_train_pages_quality_tab_says_the_verdict(qtbot, run):
    """The Quality tab shows the verdict above its plots; a run not yet evaluated shows none."""
    from studio.widgets.run_view import RunView

    view = RunView()
    qtbot.addWidget(view)
    view.show_state(load_run(run))
    assert view.quality.verdict.isVisibleTo(view.quality)
    assert view.quality.verdict.text() == run_verdict(load_run(run)).sentence
    assert view.quality.verdict.text().startswith("Getting worse") and "keep epoch 2" in view.quality.verdict.text()
    lines = [line for line in (run / "events.jsonl").read_text().splitlines() if '"evaluation"' not in line]
    (run / "events.jsonl").write_text("\n".join(lines) + "\n")
    view.show_state(load_run(run))
    assert not view.quality.verdict.isVisibleTo(view.quality)


def test_an_empty_quality_plot_shows_its_measures_scale(qtbot):
    """Before any evaluation, and for a measure not taken, each quality plot spans its measure's own scale (WER
    and similarity 0-1, DNSMOS 1-5, F0 gap ±20 Hz), never pyqtgraph's -0.5..0.5 (a negative WER)."""
    from studio.widgets.quality_chart import EMPTY_RANGES, QualityChart
    from trainer.evaluate.bands import DEFAULT_BANDS

    chart = QualityChart()
    qtbot.addWidget(chart)
    for name, plot in chart.plots.items():
        assert tuple(round(v, 6) for v in plot.viewRange()[1]) == EMPTY_RANGES[name], name
    chart.set_evaluations({"wer": ([1, 2], [0.2, 0.3])}, DEFAULT_BANDS, epochs=2)
    low, high = chart.plots["similarity"].viewRange()[1]
    assert (low, high) == EMPTY_RANGES["similarity"]
    assert chart.plots["wer"].viewRange()[1] != EMPTY_RANGES["wer"]  # measured: its own points' range


def test_a_checkpoint_named_outright_is_warned_of_as_export_of_the_run_judges(run, joe):
    """``voice-studio export RUN/checkpoints/<epoch 4>.ckpt`` (file_warning) judges as ``export RUN`` does: with the
    run's own noise bands and its kept evaluation checkpoints, so the warning names the recommended epoch 2 (kept
    only in evaluations/), not a ranked epoch nor "no other does better"."""
    from trainer.evaluate.best_row import START_FILE
    from trainer.evaluate.board import Row, to_csv
    from trainer.evaluate.choice import file_warning

    start = Row(label="start: joe", model_path=joe.model_path, recognizer="Whisper tiny.en", wer=0.08, dnsmos_ovrl=3.2)
    (run / START_FILE).write_text(to_csv([start]))
    taken = run_choice(run, "val_mel")  # epoch 4: WER 0.20 against joe's 0.08
    assert taken.recommended is not None and taken.recommended.path == checkpoint_path(run, 1)
    assert taken.warning.endswith(f"the recommended checkpoint is {taken.recommended.label()}.")
    assert file_warning(taken.checkpoint.path) == taken.warning


def test_the_kept_evaluation_checkpoint_named_outright_is_warned_of_too(run, joe):
    """``export RUN/evaluations/checkpoint-epoch=0001.ckpt`` (the recommended epoch 2, kept there) says the warning
    ``export RUN`` says of it: it belongs to the run as much as its ranked checkpoints do."""
    from trainer.evaluate.best_row import START_FILE
    from trainer.evaluate.board import Row, to_csv
    from trainer.evaluate.choice import file_warning

    start = Row(label="start: joe", model_path=joe.model_path, recognizer="Whisper tiny.en", wer=0.04, dnsmos_ovrl=3.2)
    (run / START_FILE).write_text(to_csv([start]))
    taken = run_choice(run)
    assert taken.checkpoint.path == checkpoint_path(run, 1)
    assert taken.warning.startswith("Warning: epoch 2 is measurably worse than the start voice joe: WER 0.08")
    assert file_warning(checkpoint_path(run, 1)) == taken.warning


def test_the_kept_evaluation_checkpoint_is_named_and_labelled_after_its_run(run):
    """A run's evaluation checkpoint (``RUN/evaluations/…``) exports under the run's name and its preset, as its
    ranked checkpoints do, and a repeated label is prefixed with the run's folder, not ``evaluations``."""
    from trainer.checkpoints.naming import default_naming
    from trainer.evaluate.labels import _folder
    from trainer.evaluate.render import Candidate
    from trainer.run.document import run_of

    kept, ranked = checkpoint_path(run, 1), next((run / "checkpoints").glob("*.ckpt"))
    assert run_of(kept) == run_of(ranked) == run
    assert default_naming(kept, None, language="en_US").name == default_naming(ranked, None, language="en_US").name
    assert default_naming(kept, None, language="en_US").name == "run"
    assert _folder(Candidate(label="epoch 2", model_path=kept)) == "run"
