"""``voice-studio dataset record``: the Dataset page's Record tab in a terminal, on the same booth
(``trainer.dataset.recording``; the session's keys and line commands are ``studio.cli.record_session``'s).

The prompts are the next ``--count`` of the shipped set chosen for coverage (as ``dataset prompts`` chooses them,
after the lines the project has recorded), or ``--prompts FILE``'s lines in order, those recorded skipped. The
dialogue goes to stdout, the level meter to stderr. Quitting, the end of a script's input or Ctrl+C keeps every
take accepted and drops only the take in progress; a summary says what the session added.
"""

from __future__ import annotations

import argparse
import queue
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engines.words import count
from trainer.time_left import duration_text


def run(args: argparse.Namespace) -> int:
    """List the inputs, or record into ``args.project``; 130 after Ctrl+C, 1 when no prompt is left to record.

    Raises:
        RecordingError: no project folder given, no input device, none named ``--device``, or it refuses the rate.
        NotAProject: ``args.project`` is a folder with other things in it and no project.
        PromptsError: ``--prompts`` cannot be read.
    """
    from trainer.dataset.recording.capture import RecordingError, find_input

    if args.list_devices:
        return _list_devices()
    if args.project is None:
        raise RecordingError("dataset record needs the PROJECT folder to record into (or --list-devices)")
    device = find_input(args.device)
    with _undone_on_failure(args.project):
        project = _project(args.project)
        prompts, corpus = _prompts(project, args.prompts, args.count)
        if not prompts:
            print(f"every line of {args.prompts or 'the shipped prompts'} is recorded already", file=sys.stderr)
            return 1
        return _record(project, prompts, corpus, device, args.rate)


@contextmanager
def _undone_on_failure(folder: Path) -> Iterator[None]:
    """A project this command makes in ``folder`` is removed again when the command fails before a take is kept
    (a ``--prompts`` file that cannot be read, a device that refuses to open): a failed command leaves no project
    behind. A project that was there before is left as it is."""
    import shutil

    existed, had = folder.exists(), (folder / "manifest.json").is_file()
    try:
        yield
    except Exception:
        if not had and not any((folder / "clips").glob("*.wav")):
            if existed:  # an empty folder given: empty again
                (folder / "manifest.json").unlink(missing_ok=True)
                shutil.rmtree(folder / "clips", ignore_errors=True)
            else:
                shutil.rmtree(folder, ignore_errors=True)
        raise


def _list_devices() -> int:
    """Print the inputs, one a line: index, name, default rate."""
    from trainer.dataset.recording.capture import input_devices

    devices = input_devices()
    for device in devices:
        print(f"{device.index}: {device.name} ({device.rate:,} Hz)")
    if not devices:
        print("no input device: PortAudio lists none that can record", file=sys.stderr)
    return 0


def _project(folder: Path):
    """The project in ``folder``, made when the folder is missing or empty.

    Raises:
        NotAProject: the folder holds other things and no project (takes would be mixed into them).
    """
    from trainer.dataset.project import DatasetProject, check_project_or_new

    check_project_or_new(folder)
    if (folder / "manifest.json").is_file():
        return DatasetProject(folder)
    project = DatasetProject.create(folder)
    project.save()  # a project from now on, takes or not
    return project


def _prompts(project, path: Path | None, number: int) -> tuple[list[str], list[str]]:
    """The session's prompts and the corpus its coverage is counted in (lines too long for one clip are named on
    stderr and left out)."""
    from trainer.dataset.prompts.corpus import read_corpus, shipped_corpus
    from trainer.dataset.prompts.plan import for_project, left_out_notes

    corpus = read_corpus(path or shipped_corpus())
    selection, _ = for_project(project, number, corpus, ordered=path is not None)
    for line in left_out_notes(selection):
        print(line, file=sys.stderr)
    return [p.text for p in selection.chosen], corpus


def _record(project, prompts: list[str], corpus: list[str], device: int | None, rate: int | None) -> int:
    """The session on a TTY's keys or a script's lines; its summary at the end, however it ends."""
    from studio.cli.record_session import KEYS_HELP, LINES_HELP, Session
    from trainer.dataset.recording.booth import Booth
    from trainer.dataset.recording.capture import Capture

    booth = Booth(project, prompts, Capture(device, rate))
    tty = sys.stdin.isatty()
    with _commands(tty) as commands:
        session = Session(booth, commands, sys.stdout, meter=tty)
        session.say(f"{count(len(prompts), 'prompt')} into {project.folder}; {KEYS_HELP if tty else LINES_HELP}")
        booth.open()
        status = 0
        try:
            session.run()
        except KeyboardInterrupt:
            status = 130
        finally:
            booth.close()
    _summary(session, project, corpus)
    return status


@contextmanager
def _commands(tty: bool) -> Iterator[queue.Queue]:
    """The commands: single keys from a terminal in cbreak mode (restored after), else stdin's lines."""
    from studio.cli.record_keys import terminal_keys
    from studio.cli.record_session import line_commands

    if not tty:
        yield line_commands(sys.stdin)
        return
    with terminal_keys(sys.stdin) as keys:
        yield keys


def _summary(session, project, corpus: list[str]) -> None:
    """What the session added, the frames lost if any, and the project's coverage of ``corpus`` now."""
    from trainer.dataset.prompts.plan import for_project

    tally, lost = session.tally, session.booth.capture.lost
    session.say(f"accepted {count(len(tally.clips), 'take')} ({duration_text(tally.seconds)})")
    if lost:
        session.say(f"{lost:,} frames were lost (the terminal stalled longer than the ring buffer holds)")
    selection, _ = for_project(project, 0, corpus)  # its clips are the manifest's: write_take adds each
    session.say(f"the project: {selection.before.describe()}")
