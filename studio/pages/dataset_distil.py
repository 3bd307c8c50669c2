"""The Dataset page's **New dataset from a voice…**: a project spoken by a voice on a speech server
(``trainer.dataset.distil``), run as the page's other jobs are (``studio.pages.dataset_jobs``: off the GUI thread,
with progress and Cancel; distilling again goes on where it stopped)."""

from __future__ import annotations

from pathlib import Path

from engines.errors import VoiceStudioError
from studio.workers import Task


def on_distil_clicked(page) -> None:
    """Ask for the project's folder (new, empty, or a project distilled before, to go on) and what to distil."""
    from studio.widgets.distil_dialog import DistilDialog
    from studio.widgets.locations import choose_folder

    start = page.start_folders.start(page.project_dir)
    folder = choose_folder(page, "New dataset from a voice: choose an empty folder or type a new one", start)
    if not folder:
        return
    page.start_folders.picked(folder.parent)
    dialog = DistilDialog(page.workspace, page)
    if not dialog.exec():
        return
    try:
        request = dialog.request()
    except (VoiceStudioError, ValueError) as exc:
        page.hint.setText(str(exc))
        return
    distil_into(page, folder, request)


def distil_into(page, folder: Path, request) -> Task | None:
    """Distil ``request`` (a ``trainer.dataset.distil.run.DistilRequest``) into ``folder``, shown on ``page``: the
    progress line counts lines and names the line and take being asked for, and the hint says at the end what was
    kept and refused."""
    from trainer.dataset.distil.run import distil

    if folder != page.project_dir:
        page.open_project(folder)

    def work(project, state):
        return distil(project.folder, request, state)

    return page.run_job("Distilling", work, describe, create=True, cancellable=True)


def describe(result) -> str:
    """What a run kept and refused, as the command line says it (``voice-studio dataset distil``)."""
    said = [f"Distilled: {result.counts()}"]
    if result.imported is not None:
        said.append(result.imported.counts())
    said += [f"refused {line.text!r}: {_why(line)}" for line in result.refused[:3]]
    said += result.notes
    return "; ".join(said)


def _why(line) -> str:
    return "; ".join(sorted({take["rejected"] for take in line.takes if take["rejected"]}))
