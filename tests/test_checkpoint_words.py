"""Checkpoint epochs in words vs file names: the words count epochs from 1 (``epoch 2 · val_mel 0.7100``), the
file names from 0 as Lightning and Piper write them (``best-epoch=0001-…``); wherever both show, it says so."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_train_leaderboard import RANKING, finished, page  # noqa: F401 - fixtures

from trainer.evaluate.leaderboard import COLUMNS, Row
from trainer.events import schema as events

pytestmark = pytest.mark.gui


def test_train_page_names_the_best_checkpoint_by_epoch_with_its_file_in_the_tooltip(page, finished):  # noqa: F811
    """The Run tab's caption says "epoch 2 · val_mel 0.7100" (not "best-epoch=0001… (epoch 2, …)"); the file
    name, with how it counts, is its tooltip."""
    from trainer.events.run_state import load_run

    page.state = load_run(finished)
    page.show_best_row(score=False)
    caption = page.view.best_row.caption
    assert caption.text().startswith("Best checkpoint: epoch 2 · val_mel 0.7100 — ")
    assert "epoch=" not in caption.text()
    assert caption.toolTip().startswith(str(finished / "checkpoints" / RANKING[0][1]))
    assert caption.toolTip().endswith("(the file name counts epochs from 0: epoch=0001 is epoch 2)")


def test_log_and_leaderboard_say_how_a_file_name_counts_epochs(qtbot):
    """The Log's line for a best checkpoint counts from 1 and says the file's name counts from 0; the
    leaderboard's (and the Compare candidates') label tooltip does the same."""
    from studio.widgets.leaderboard_view import leaderboard_cell
    from trainer.events.words import sentence

    saved = events.Checkpoint(epoch=0, path="/r/checkpoints/best-epoch=0000-val_mel=1.2848.ckpt", role="best")
    assert sentence(saved) == (
        "Checkpoint after epoch 1 saved among the best "
        "(file best-epoch=0000-val_mel=1.2848.ckpt, whose name counts epochs from 0)."
    )
    path = Path("/r/checkpoints/best-epoch=0000-val_mel=1.2848.ckpt")
    cell = leaderboard_cell(Row(label="epoch 1 · val_mel 1.2848", model_path=path), COLUMNS[0], False)
    assert cell.text() == "epoch 1 · val_mel 1.2848"
    assert cell.toolTip() == f"{path}\n(the file name counts epochs from 0: epoch=0000 is epoch 1)"
    onnx = leaderboard_cell(Row(label="joe", model_path=Path("/v/joe.onnx")), COLUMNS[0], False)
    assert onnx.toolTip() == "/v/joe.onnx"  # no epoch in the name: nothing to explain
