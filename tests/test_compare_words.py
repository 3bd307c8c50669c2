"""The Compare page's words and long-task figures (issue 17): counts agree with their nouns, and rendering names
its step (which candidate, n of m) while it runs (Qt offscreen, the real joe voice)."""

from __future__ import annotations

from pathlib import Path

import pytest

from trainer.evaluate.leaderboard import Row
from trainer.evaluate.render import Candidate

pytestmark = pytest.mark.gui


@pytest.fixture
def page(qtbot, tmp_path):
    from engines.pool import EnginePool
    from studio.pages.compare import ComparePage
    from studio.state import VoiceLibrary, Workspace

    workspace = Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices")
    page = ComparePage(workspace, VoiceLibrary(), EnginePool())
    qtbot.addWidget(page)
    yield page
    page.shutdown()
    page.listen.slot.join(30)


def test_rendering_one_line_by_one_candidate_counts_in_words_and_names_its_step(page, qtbot, joe):
    """One typed line by joe: "1 typed line", "Rendering 1 line by 1 candidate…", then the step ("Rendering joe:
    candidate 1 of 1…"), then "Rendered 1 clip"."""
    listen = page.listen
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    listen.lines_box.choose_typed("Only one line.")
    assert listen.lines_box.summary.text() == "1 typed line"
    listen.start_render()
    seen = [listen.status.text()]
    while listen.slot.busy():
        qtbot.wait(2)
        if seen[-1] != listen.status.text():
            seen.append(listen.status.text())
    assert seen[0] == "Rendering 1 line by 1 candidate…"
    assert "Rendering joe: candidate 1 of 1…" in seen, seen
    status = listen.status.text()  # none or 1 from the cache: it is shared
    assert status in ("Rendered 1 clip, none from the cache", "Rendered 1 clip, 1 from the cache"), status


def test_leaderboard_counts_one_candidate_and_one_row(qtbot, tmp_path):
    """One scored row: "1 candidate.", and its export says "1 row"."""
    from studio.widgets.leaderboard_view import LeaderboardView

    view = LeaderboardView()
    qtbot.addWidget(view)
    view.set_rows([Row(label="joe", model_path=Path("/voices/joe.onnx"), similarity=0.5)])
    assert view.status.text().startswith("1 candidate. ")
    view.export_csv(tmp_path / "board.csv")
    assert view.status.text() == f"Exported 1 row to {tmp_path / 'board.csv'}."


def test_an_export_to_a_missing_folder_names_the_path_once(qtbot, tmp_path):
    """The leaderboard's CSV export into a folder that does not exist: one line, the path said once."""
    from studio.widgets.leaderboard_view import LeaderboardView

    view = LeaderboardView()
    qtbot.addWidget(view)
    view.set_rows([Row(label="joe", model_path=Path("/voices/joe.onnx"), similarity=0.5)])
    target = tmp_path / "missing" / "board.csv"
    assert view.export_csv(target) is None
    assert view.status.text().startswith(f"Could not write {target}: ")
    assert view.status.text().count(str(target)) == 1
