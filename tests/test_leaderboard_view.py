"""The leaderboard table (Qt offscreen): numeric sort with missing values last, the best per column in bold,
"—" with the reason as tooltip, headings with units and which way is better, CSV export, Score."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from trainer.evaluate.bands import DEFAULT_BANDS
from trainer.evaluate.leaderboard import COLUMNS, Row, read_csv

pytestmark = pytest.mark.gui

ROWS = [
    Row(label="epoch 9", model_path=Path("/runs/a/best-epoch=0008.ckpt"), val_mel=9.0, similarity=0.71,
        f0_gap_hz=-12.0, rate_pps=14.0, dataset_rate_pps=12.0, missing={"wer": "no pocketsphinx model"}),
    Row(label="epoch 10", model_path=Path("/runs/a/best-epoch=0009.ckpt"), val_mel=10.0, similarity=0.83,
        f0_gap_hz=3.0, rate_pps=11.5, dataset_rate_pps=12.0, wer=0.25),
    Row(label="start: joe", model_path=Path("/voices/joe.onnx"), val_mel=None, similarity=0.42, f0_gap_hz=-40.0,
        rate_pps=13.0, dataset_rate_pps=12.0, wer=0.5, missing={"val_mel": "an ONNX voice keeps no val_mel"}),
]  # fmt: skip


def _view(qtbot, rows=ROWS):
    from studio.widgets.leaderboard_view import LeaderboardView

    view = LeaderboardView()
    qtbot.addWidget(view)
    view.set_rows(rows)
    return view


def _column(name):
    return next(i for i, c in enumerate(COLUMNS) if c.field == name)


def _labels(view):
    """The candidates in the order shown, without the recommendation's marks (★, ≈)."""
    from studio.widgets.leaderboard_view import RECOMMENDED, TIED

    return [
        view.table.item(r, 0).text().removeprefix(RECOMMENDED).removeprefix(TIED) for r in range(view.table.rowCount())
    ]


def test_sorts_by_number_with_missing_last(qtbot):
    """Rows come in the order given; val_mel sorts 9 before 10 (not as text), the missing one last in either
    direction."""
    view = _view(qtbot)
    assert _labels(view) == [row.label for row in ROWS]  # as given, until a heading is clicked
    view.table.sortItems(_column("val_mel"), Qt.SortOrder.AscendingOrder)
    assert _labels(view) == ["epoch 9", "epoch 10", "start: joe"]
    view.table.horizontalHeader().setSortIndicator(_column("val_mel"), Qt.SortOrder.DescendingOrder)
    assert _labels(view) == ["epoch 10", "epoch 9", "start: joe"]
    view.table.sortItems(_column("similarity"), Qt.SortOrder.DescendingOrder)
    assert _labels(view) == ["epoch 10", "epoch 9", "start: joe"]


def test_best_marked_missing_explained_headers_with_units(qtbot):
    """Bold: lowest val_mel and WER, highest similarity, F0 gap closest to 0 and rate closest to the
    dataset's; a missing value reads "—" with its reason; headings carry units and which way is better."""
    view = _view(qtbot)
    bold = {
        COLUMNS[c].field: [_labels(view)[r] for r in range(3) if view.table.item(r, c).font().bold()]
        for c in range(len(COLUMNS))
    }
    assert bold["val_mel"] == ["epoch 9"] and bold["similarity"] == ["epoch 10"] and bold["wer"] == ["epoch 10"]
    assert bold["f0_gap_hz"] == ["epoch 10"] and bold["rate_pps"] == ["epoch 10"]
    assert bold["label"] == [] and bold["dataset_rate_pps"] == [] and bold["mcd_db"] == []
    joe, epoch9 = _labels(view).index("start: joe"), _labels(view).index("epoch 9")
    val_mel = view.table.item(joe, _column("val_mel"))
    assert val_mel.text() == "—" and val_mel.toolTip() == "an ONNX voice keeps no val_mel"
    assert view.table.item(epoch9, _column("wer")).toolTip() == "no pocketsphinx model"
    header = view.table.horizontalHeaderItem(_column("f0_rmse_hz"))
    f0_band = DEFAULT_BANDS.of("f0_rmse_hz")
    assert header.text() == "F0 RMSE (Hz)"
    assert header.toolTip().startswith(f"lower is better; noise band ±{f0_band:.1f} Hz (")
    assert view.table.horizontalHeaderItem(_column("rate_pps")).toolTip() == "closer to dataset rate is better"


def test_export_round_trips_and_score_asks(qtbot, tmp_path, monkeypatch):
    """Export CSV… writes rows that read_csv gives back unchanged; Score emits score_requested."""
    view = _view(qtbot)
    out = tmp_path / "board.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(out), "CSV (*.csv)"))
    view.export_button.click()
    assert read_csv(out.read_text()) == ROWS and str(out) in view.status.text()
    with qtbot.waitSignal(view.score_requested, timeout=1000):
        view.score_button.click()
    empty = _view(qtbot, [])
    assert not empty.export_button.isEnabled()


def test_the_recommended_row_is_marked_and_the_summary_says_why_and_where_measures_disagree(qtbot):
    """★ on the recommended candidate (the rule's: the most similar among those within the WER band of the best),
    ≈ on one within noise of it; the line under the table gives the reason and the disagreement; bands as tooltip."""
    from studio.widgets.leaderboard_view import RECOMMENDED, TIED
    from trainer.evaluate.summary import summarise

    within = 0.83 - DEFAULT_BANDS.of("similarity") / 2  # epoch 10's similarity less half its noise band
    near = Row(label="epoch 11", model_path=Path("/runs/a/best-epoch=0010.ckpt"), val_mel=9.5, similarity=within,
               wer=0.25)  # fmt: skip
    rows = [*ROWS, near]
    view = _view(qtbot, rows)
    said = summarise(rows)
    texts = {view.table.item(r, 0).text() for r in range(view.table.rowCount())}
    assert f"{RECOMMENDED}{said.recommended}" in texts and said.recommended == "epoch 10"
    assert f"{TIED}epoch 11" in texts and said.ties == ["epoch 11"]
    assert view.summary.text() == f"{RECOMMENDED}{said.reason}\n{said.disagreement}"
    assert said.disagreement.startswith("The measures disagree: val_mel favours epoch 9;")
    assert view.summary.toolTip() == said.bands and DEFAULT_BANDS.source in said.bands


def test_values_show_their_standard_error_and_lines_in_the_tooltip(qtbot):
    """A value with a standard error reads ``0.25±0.04``; its tooltip counts the lines it rests on."""
    row = Row(label="x", model_path=Path("/x.onnx"), wer=0.25, similarity=0.8, lines={"wer": 5, "similarity": 5},
              stderr={"wer": 0.04})  # fmt: skip
    view = _view(qtbot, [row])
    wer, similarity = view.table.item(0, _column("wer")), view.table.item(0, _column("similarity"))
    assert wer.text() == "0.25±0.04" and "over 5 lines, ± its standard error over them" in wer.toolTip()
    assert similarity.text() == "0.800" and "over 5 renders" in similarity.toolTip()


def test_the_candidate_column_stays_in_view_when_scrolled_right(qtbot):
    """Scrolled to the far right in a narrow window, the frozen view still shows the candidates over the left
    edge, as wide as the candidate column, and follows a sort."""
    view = _view(qtbot)
    view.resize(420, 300)
    view.show()
    qtbot.waitExposed(view)
    bar = view.table.horizontalScrollBar()
    assert bar.maximum() > 0  # the measures do not fit: it scrolls
    bar.setValue(bar.maximum())
    frozen = view.frozen.view
    assert frozen.isVisible() and frozen.x() <= view.table.frameWidth() + 1
    assert frozen.width() == view.table.columnWidth(0) and not frozen.isColumnHidden(0)
    assert all(frozen.isColumnHidden(c) for c in range(1, len(COLUMNS)))
    assert view.table.columnViewportPosition(0) < 0  # the table's own label column has scrolled away
    shown = frozen.model().index(0, 0).data()
    assert shown == view.table.item(0, 0).text()
    frozen.horizontalHeader().sectionClicked.emit(0)
    assert view.table.horizontalHeader().sortIndicatorSection() == 0


def test_the_recordings_row_is_shown_but_never_best_nor_recommended(qtbot):
    """The lines' recordings show as a row in italics (its tooltip says what it is), never bold nor ★, even where
    its WER and rate are the best of their columns, and the status counts the candidates without it."""
    from studio.widgets.leaderboard_view import RECOMMENDED
    from trainer.evaluate.board import RECORDINGS_MEANING

    heard = Row(label="recordings", model_path=Path("/data/target/wavs"), wer=0.05, dnsmos_ovrl=3.1,
                rate_pps=12.0, dataset_rate_pps=12.0)  # fmt: skip
    view = _view(qtbot, [*ROWS, heard])
    at = _labels(view).index("recordings")
    assert view.table.item(at, _column("wer")).text() == "0.05"
    assert not any(view.table.item(at, c).font().bold() for c in range(len(COLUMNS)))
    assert view.table.item(_labels(view).index("epoch 10"), _column("wer")).font().bold()
    assert view.table.item(at, 0).text() == "recordings" and not view.table.item(at, 0).text().startswith(RECOMMENDED)
    assert view.table.item(at, 0).toolTip() == f"{RECORDINGS_MEANING}\n{heard.model_path}"
    assert all(view.table.item(at, c).font().italic() for c in range(len(COLUMNS)))
    assert view.status.text().startswith("3 candidates and their recordings. Bold: the best")
