"""Slicing is resumable: a slicing cut short (Cancel, Ctrl+C, a kill) and run again drafts only the utterances
not yet drafted, at the cuts and ids one uninterrupted run gives; a recording sliced in full is skipped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import soundfile
from conftest import shared_path

from engines.words import count
from trainer.dataset.project import DatasetProject
from trainer.dataset.slicing import SliceOptions
from trainer.dataset.slicing_run import slice_recordings
from trainer.tasks import Cancelled, TaskState

OPTIONS = SliceOptions(min_s=1.0, max_s=4.0)
"""Short utterances, so a 20 s excerpt gives several drafts."""


@pytest.fixture(scope="module")
def reading(tmp_path_factory) -> Path:
    """The first 20 s of the shared corpus's long reading (two_cities.wav), as ``part.wav``."""
    audio, rate = soundfile.read(str(shared_path("corpus", "real-speech", "long", "two_cities.wav")), dtype="float32")
    part = tmp_path_factory.mktemp("reading") / "part.wav"
    soundfile.write(str(part), audio[: 20 * rate], rate)
    return part


@pytest.fixture(scope="module")
def full(reading, tmp_path_factory) -> dict[str, list[float]]:
    """``{clip id: span}`` of one uninterrupted slicing of ``reading`` (no drafts)."""
    project = DatasetProject.create(tmp_path_factory.mktemp("full") / "project")
    result = slice_recordings(project, [reading], OPTIONS, recognizer=None, workers=1)
    assert len(result.added) >= 5 and not result.problems, result
    return {clip_id: project.clips[clip_id].span for clip_id in result.added}


def _cancel_at_draft(n: int) -> TaskState:
    """A state that cancels when draft ``n`` starts (the drafts in flight, at most one a worker, are kept)."""
    state = TaskState(status=lambda line: state.cancel() if line.startswith(f"Recognising draft {n} of") else None)
    return state


def _spans(project: DatasetProject) -> dict[str, list[float]]:
    return {clip_id: clip.span for clip_id, clip in project.clips.items()}


def test_cancelled_slicing_resumes_to_the_drafts_of_a_full_run(reading, full, tmp_path):
    """Cancel after a few drafts, slice again: only the rest is drafted, said as resumed; the union is the full run's
    (ids and cuts), no duplicates; a third slicing skips the recording and says it is sliced in full."""
    folder = tmp_path / "project"
    with pytest.raises(Cancelled) as cut:
        slice_recordings(
            DatasetProject.create(folder), [reading], OPTIONS, recognizer=None, workers=1, state=_cancel_at_draft(3)
        )
    kept = cut.value.partial.added
    assert 2 <= len(kept) < len(full)
    assert str(cut.value) == f"Slicing cancelled: {len(kept)} drafts of {len(full)} kept; slicing again resumes"
    project = DatasetProject(folder)  # what was kept is on disk, as after a restart
    assert _spans(project) == {i: full[i] for i in kept} and not project.slicings[0].complete
    result = slice_recordings(project, [reading], OPTIONS, recognizer=None, workers=1)
    assert result.earlier == [f"part.wav resumed: {len(kept)} of {len(full)} drafts already made"]
    assert sorted(result.added) == sorted(set(full) - set(kept)) and result.unchanged == 0
    again = DatasetProject(folder)
    assert _spans(again) == full and all(again.clip_path(i).is_file() for i in full)
    assert again.slicings[0].complete
    skipped = slice_recordings(again, [reading], OPTIONS, recognizer=None, workers=1)
    assert skipped.added == [] and skipped.unchanged == 1
    assert skipped.earlier == [f"part.wav already sliced: all {len(full)} drafts made"]


def test_a_resumed_recording_keeps_its_first_cuts_and_says_so(reading, full, tmp_path):
    """Resumed with other options, the recording is still cut where its first slicing chose (no overlapping
    drafts), and the result says the options given now were not used for it."""
    project = DatasetProject.create(tmp_path / "project")
    with pytest.raises(Cancelled):
        slice_recordings(project, [reading], OPTIONS, recognizer=None, workers=1, state=_cancel_at_draft(2))
    result = slice_recordings(project, [reading], SliceOptions(max_s=12.0), recognizer=None, workers=1)
    assert result.earlier[0].endswith("(cut where its first slicing chose, not with the options given now)")
    assert _spans(project) == full


def test_an_import_between_takes_no_id_the_resumed_slicing_will_make(reading, full, tmp_path):
    """A recording named like a draft not made yet (part_00N.wav), imported while the slicing is cut short, gets
    another id; slicing again still makes that draft, at its cut."""
    project = DatasetProject.create(tmp_path / "project")
    with pytest.raises(Cancelled):
        slice_recordings(project, [reading], OPTIONS, recognizer=None, workers=1, state=_cancel_at_draft(2))
    last = sorted(full)[-1]
    audio, rate = soundfile.read(str(reading), dtype="float32")
    soundfile.write(str(tmp_path / f"{last}.wav"), audio[: 2 * rate], rate)
    imported = project.import_sources([tmp_path / f"{last}.wav"], workers=1).added
    assert imported == [f"{last}_2"]
    slice_recordings(project, [reading], OPTIONS, recognizer=None, workers=1)
    assert {i: s for i, s in _spans(project).items() if i != imported[0]} == full


def test_a_slicing_killed_before_its_mark_is_finished_on_the_next_run(reading, full, tmp_path):
    """Every draft made but the recording not yet marked sliced (killed between the two writes): slicing again
    drafts nothing, marks it and says it is sliced in full."""
    folder = tmp_path / "project"
    slice_recordings(DatasetProject.create(folder), [reading], OPTIONS, recognizer=None, workers=1)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["slicings"][0]["complete"] = False
    (folder / "manifest.json").write_text(json.dumps(manifest))
    project = DatasetProject(folder)
    result = slice_recordings(project, [reading], OPTIONS, recognizer=None, workers=1)
    assert result.added == [] and result.unchanged == 1 and result.earlier[0].startswith("part.wav already sliced")
    assert DatasetProject(folder).slicings[0].complete and _spans(project) == full


def _cli(reading: Path, folder: Path, recognizer: str = "none") -> list[str]:
    return [sys.executable, "-m", "studio", "dataset", "slice", str(reading), "--project", str(folder)] + [
        "--min", "1", "--max", "4", "--recognizer", recognizer, "--workers", "1", "--speaker", "bob",
    ]  # fmt: skip


def _drafts_on_disk(folder: Path) -> int:
    try:
        return len(json.loads((folder / "manifest.json").read_text())["clips"])
    except (OSError, ValueError, KeyError):
        return 0


def test_cli_slicing_killed_mid_way_resumes(reading, full, tmp_path):
    """``dataset slice`` killed (SIGKILL) after 2 drafts, then Ctrl+C'd, then run to the end: it resumes each
    time, says so, and ends with the full run's drafts, every one named with ``--speaker``."""
    folder = tmp_path / "project"
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    process = subprocess.Popen(_cli(reading, folder), env=env, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 120
    while _drafts_on_disk(folder) < 2 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGKILL)  # the CLI and its worker processes, at once
    process.wait()
    killed = _drafts_on_disk(folder)
    assert 2 <= killed < len(full), killed
    done = subprocess.run(_cli(reading, folder), env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"part.wav resumed: {killed} of {len(full)} drafts already made" in done.stderr
    project = DatasetProject(folder)
    assert _spans(project) == full and project.slicings[0].complete
    assert {clip.speaker for clip in project.clips.values()} == {"bob"}
    again = subprocess.run(_cli(reading, folder), env=env, capture_output=True, text=True, timeout=300)
    assert f"part.wav already sliced: all {len(full)} drafts made" in again.stderr and again.returncode == 0


def test_cli_ctrl_c_says_slicing_again_resumes(reading, full, tmp_path):
    """Ctrl+C during ``dataset slice``: exit 130, the drafts made are kept, named with ``--speaker``, and the
    message says that slicing again resumes."""
    folder = tmp_path / "project"
    env = {**os.environ, "PYTHONPATH": str(Path.cwd())}
    log = tmp_path / "stderr.txt"
    with log.open("w") as stderr:
        cli = _cli(reading, folder, "pocketsphinx")  # slower drafts
        process = subprocess.Popen(cli, env=env, stderr=stderr, start_new_session=True)
    deadline = time.monotonic() + 120
    while _drafts_on_disk(folder) < 1 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal sends Ctrl+C: to the CLI and its workers
    process.wait(timeout=120)
    err = log.read_text()
    assert process.returncode == 130, err
    assert "slicing again resumes" in err.splitlines()[-1], err
    project = DatasetProject(folder)
    assert project.clips and {clip.speaker for clip in project.clips.values()} == {"bob"}
    assert len(project.clips) < len(full) and _spans(project) == {i: full[i] for i in project.clips}


@pytest.mark.gui
def test_page_slices_again_to_resume_and_then_skips(qtbot, tmp_path):
    """On the Dataset page, the whole 44 s reading: Cancel after a few PocketSphinx drafts says slicing again
    resumes; Slice again drafts the rest at the recorded cuts, says how many were already made and selects the
    recording's drafts; a third Slice says it is sliced in full."""
    from PySide6.QtCore import Qt

    from engines.words import count
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace
    from trainer.dataset.slicing_run import Drafting

    reading = shared_path("corpus", "real-speech", "long", "two_cities.wav")
    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    left = Qt.MouseButton.LeftButton
    task = page.slice_paths([reading], OPTIONS, Drafting(recognizer="pocketsphinx"))
    cancel = page.job_progress.cancel_button
    task.status.connect(lambda s: s.startswith("Recognising draft 2 of") and qtbot.mouseClick(cancel, left))
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    assert page.hint.text().endswith("kept; slicing again resumes"), page.hint.text()
    plan = page.project().slicings[0]
    full = {plan.clip_id(i): [round(s, 3), round(e, 3)] for i, (s, e) in enumerate(plan.spans)}
    kept = page.model.rowCount()
    assert 1 <= kept < len(full)
    page.slice_paths([reading], OPTIONS, Drafting(recognizer=None))
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    assert page.hint.text() == (
        f"{count(len(full) - kept, 'utterance')} added as clips: type their texts; "
        f"two_cities.wav resumed: {kept} of {len(full)} drafts already made"
    )
    assert page.model.rowCount() == len(full) and sorted(page.selected_ids()) == sorted(full)
    assert _spans(page.project()) == full
    page.slice_paths([reading], OPTIONS, Drafting(recognizer=None))
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=120_000)
    assert page.hint.text() == f"No utterance added; two_cities.wav already sliced: all {len(full)} drafts made"
    assert page.model.rowCount() == len(full)


def test_cli_ctrl_c_import_names_the_kept_clips_speaker(tmp_path):
    """The sibling: ``dataset import --speaker`` Ctrl+C'd gives the clips it kept the speaker too."""
    folder = tmp_path / "project"
    log = tmp_path / "stderr.txt"
    source = shared_path("corpus", "target-voice")
    cli = [sys.executable, "-m", "studio", "dataset", "import", str(source), "--project", str(folder)]
    with log.open("w") as stderr:
        process = subprocess.Popen(cli + ["--speaker", "bob"], stderr=stderr, start_new_session=True)
    deadline = time.monotonic() + 120
    while _drafts_on_disk(folder) < 1 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=120)
    err = log.read_text()
    assert process.returncode == 130 and "import again to go on" in err, err
    clips = DatasetProject(folder).clips.values()
    assert 0 < len(clips) < 240 and {clip.speaker for clip in clips} == {"bob"}, err


@pytest.mark.gui
def test_studio_closed_mid_slicing_resumes_on_the_next_slice(qtbot, reading, full, tmp_path):
    """The window closed while slicing (the page's ``shutdown``): the drafts made are kept; a page opened on the
    project afterwards resumes the recording to the full run's drafts."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace
    from trainer.dataset.slicing_run import Drafting

    folder = tmp_path / "project"
    page = DatasetPage(Workspace(dataset_project=folder))
    qtbot.addWidget(page)
    page.slice_paths([reading], OPTIONS, Drafting(recognizer="pocketsphinx"))
    qtbot.waitUntil(lambda: _drafts_on_disk(folder) >= 1, timeout=120_000)
    page.shutdown()
    kept = len(DatasetProject(folder).clips)
    assert 1 <= kept < len(full)
    reopened = DatasetPage(Workspace(dataset_project=folder))
    qtbot.addWidget(reopened)
    reopened.slice_paths([reading], OPTIONS, Drafting(recognizer=None))
    qtbot.waitUntil(lambda: not reopened.is_busy(), timeout=120_000)
    assert f"part.wav resumed: {kept} of {len(full)} drafts already made" in reopened.hint.text()
    assert _spans(reopened.project()) == full


def test_cancel_after_the_first_draft_stops_the_drafts_in_flight(tmp_path):
    """The whole 44 s reading at the page's default options, with PocketSphinx drafts and as many workers as
    drafts (as on a many-core machine, where every draft is in flight at once): a Cancel once the first draft is
    made stops the others; the finished ones are kept and said, and slicing again drafts the rest."""
    reading = shared_path("corpus", "real-speech", "long", "two_cities.wav")
    project = DatasetProject.create(tmp_path / "project")
    state = TaskState(progress=lambda done, total: done > 0 and state.cancel())  # seconds of audio drafted
    with pytest.raises(Cancelled) as cut:
        slice_recordings(project, [reading], SliceOptions(), "pocketsphinx", workers=6, state=state)
    drafts = len(project.slicings[0].spans)
    kept = len(cut.value.partial.added)
    assert drafts >= 5 and 1 <= kept < drafts, (kept, drafts)
    assert str(cut.value) == f"Slicing cancelled: {count(kept, 'draft')} of {drafts} kept; slicing again resumes"
    assert len(DatasetProject(project.folder).clips) == kept
    rest = slice_recordings(DatasetProject(project.folder), [reading], SliceOptions(), None, workers=2)
    assert len(rest.added) == drafts - kept
