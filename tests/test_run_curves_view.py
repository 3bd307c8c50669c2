"""The Runs tab's view (Qt offscreen): two runs' val_mel and epoch-time curves overlaid, the legend beside
the plots, the table of times; Add run… and Remove."""

from __future__ import annotations

import math

import pytest
from PySide6.QtWidgets import QFileDialog
from test_run_curves import _run

pytestmark = pytest.mark.gui


@pytest.fixture
def runs(tmp_path):
    """Two run folders with events files as the trainer writes them."""
    slow = _run(tmp_path / "slow", [1.4, None, 1.1, 1.2], [30.0, 10.0, 11.0, 12.0])
    fast = _run(tmp_path / "fast", [1.3, 1.0], [8.0, 6.0])
    return slow, fast


def _view(qtbot):
    from studio.widgets.run_curves import RunCurvesView

    view = RunCurvesView()
    qtbot.addWidget(view)
    view.show()
    return view


def test_two_runs_are_overlaid_with_a_table(qtbot, runs):
    """Each run's val_mel (a gap where an epoch had none) and epoch seconds are drawn; the legend names
    both runs outside the plots; the table has total and median epoch time."""
    view = _view(qtbot)
    view.set_runs(list(runs))
    (slow_x, slow_mel), (fast_x, fast_mel) = (line["val_mel"].getData() for line in view.lines)
    assert list(slow_x) == [1, 2, 3, 4] and slow_mel[0] == 1.4 and math.isnan(slow_mel[1])
    assert list(fast_x) == [1, 2] and list(fast_mel) == [1.3, 1.0]
    assert list(view.lines[0]["epoch_s"].getData()[1]) == [30.0, 10.0, 11.0, 12.0]
    assert [label.text for _, label in view.legend.items] == ["slow", "fast"]
    assert view.legend not in view.plots["val_mel"].vb.addedItems  # beside the plot, not over it
    cells = [[view.table.item(r, c).text() for c in range(5)] for r in range(2)]
    assert cells == [["slow", "4", "1.1000", "1 min 03 s", "11.5 s"], ["fast", "2", "1.0000", "14.0 s", "7.0 s"]]
    assert view.chart.backgroundBrush().color().name() != "#000000"


def test_add_and_remove_runs(qtbot, runs, tmp_path, monkeypatch):
    """Add run… appends the folder chosen (once); Remove drops the selected row and its curves."""
    view = _view(qtbot)
    view.set_runs([runs[0]])
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(runs[1]))
    view.add_button.click()
    view.add_button.click()
    assert view.folders == list(runs) and "already shown" in view.status.text()
    view.table.selectRow(0)
    view.remove_button.click()
    assert view.folders == [runs[1]] and len(view.lines) == 1
    assert len(view.plots["val_mel"].listDataItems()) == 1 and view.table.rowCount() == 1
    view.add_run(tmp_path / "missing")
    assert "not a folder" in view.status.text() and view.folders == [runs[1]]
