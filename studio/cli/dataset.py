"""``voice-studio dataset ...``: the Dataset page's work from the command line (no Qt).

The options of each ``dataset`` subcommand are ``studio.cli.dataset_parser``'s; here is what each one does.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from engines.shell_command import shell_command
from engines.words import count
from studio.cli.dataset_parser import NO_RECOGNIZER
from studio.cli.dataset_parser import add_parser as add_parser  # studio.cli calls dataset.add_parser

MARKDOWN = (".md", ".markdown", ".txt")
"""``dataset report -o`` extensions written as Markdown."""
HTML = (".html", ".htm")
"""``dataset report -o`` extensions written as HTML."""


def _progress(verb: str, unit: str = "", many: str | None = None):
    """``progress(done, total)`` for the terminal: one line rewritten in place on a TTY; in a log, a line
    per tenth of the work, so a pipe gets readable lines. With a ``unit`` (and its plural ``many``) the line
    says what is counted: "analysed 3 of 240 clips", "sliced 7 of 39 s of audio", and work of nothing (a
    total of 0) says nothing; without, "rendering 3/12". A log gets no line for 0 done (a phase's start)."""
    tty, shown = sys.stderr.isatty(), set()

    def show(done: int, total: int) -> None:
        if (unit and not total) or (done == 0 and not tty):  # a log gets lines once work is done, not "0 of"
            return
        line = f"{verb} {done} of {count(total, unit, many)}" if unit else f"{verb} {done}/{total}"
        if tty:
            print(f"\r{line}", end="\n" if done == total else "", file=sys.stderr, flush=True)
            return
        tenth = 10 * done // max(1, total)
        if tenth not in shown:
            shown.add(tenth)
            print(line, file=sys.stderr, flush=True)

    return show


def _task(verb: str, phased: bool = False, unit: str = "", many: str | None = None, stopping: str = ""):
    """A ``trainer.tasks.TaskState`` for long work: progress on the terminal (:func:`_progress`), and the first
    Ctrl+C cancels it (the work stops at its next item, keeping what it finished, and raises ``Cancelled``);
    a second Ctrl+C stops at once. ``phased``: the first word of each status line (``rendering``, ``scoring``)
    becomes the verb of the progress shown after it. ``stopping``: what the first Ctrl+C stops, in words (default:
    the work stops after the items in progress)."""
    import signal
    import threading

    from trainer.tasks import TaskState

    shown = {"progress": _progress(verb, unit, many)}

    def phase(text: str) -> None:
        shown["progress"] = _progress(text.split()[0] if text.split() else verb)

    state = TaskState(progress=lambda done, total: shown["progress"](done, total), status=phase if phased else None)

    def first(signum, frame) -> None:
        state.cancel()
        said = stopping or "stopping after the items in progress"
        print(f"cancelling: {said}; Ctrl+C again to stop now", file=sys.stderr)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    if threading.current_thread() is threading.main_thread():  # only there can a handler be set (run restores it)
        signal.signal(signal.SIGINT, first)
    return state


def _late(state, what: str) -> str:
    """``""``, or a note that a Ctrl+C came after ``what`` had finished (it stopped nothing)."""
    return f"Cancel came after {what} finished: " if state.is_cancelled() else ""


def run(args: argparse.Namespace) -> int:
    """Run one ``dataset`` subcommand; returns the exit status (130 when Ctrl+C cancelled the work, whose
    message says what was kept)."""
    import signal

    from trainer.tasks import Cancelled

    previous = signal.getsignal(signal.SIGINT)
    try:
        return _run(args)
    except Cancelled as exc:
        print(exc, file=sys.stderr)
        return 130
    finally:
        if signal.getsignal(signal.SIGINT) is not previous:  # set by _task, in the main thread
            signal.signal(signal.SIGINT, previous)


def _run(args: argparse.Namespace) -> int:
    from trainer.dataset.curation import speaker_name
    from trainer.dataset.project import DatasetProject, making

    if args.dataset_command == "prompts":  # the one whose project is optional (and never made)
        from studio.cli import dataset_prompts

        return dataset_prompts.run(args)
    if args.dataset_command == "record":  # makes its project only once the device and prompts are settled
        from studio.cli import dataset_record

        return dataset_record.run(args)
    if args.dataset_command == "distil":  # makes its project once the server answered
        from studio.cli import dataset_distil

        stopping = "the request in flight stops now, and the takes kept so far are imported"
        return dataset_distil.run(args, _task("distilled", unit="line", stopping=stopping))
    command = {
        "import": _import,
        "slice": _slice,
        "confirm": _confirm,
        "text": _text,
        "speaker": _speaker,
        "fix": _fix,
        "report": _report,
        "export": _export,
        "cache": _cache,
    }[args.dataset_command]
    if args.dataset_command not in ("import", "slice"):
        return command(DatasetProject(args.project), args)
    if args.speaker is not None:  # the two that make projects: every input checked first
        args.speaker = speaker_name(args.speaker)
    _check_sources(args)
    with making(args.project) as project:  # one that ends with no clip leaves no folder it made
        return command(project, args)


def _check_sources(args: argparse.Namespace) -> None:
    """Refuse, before a project folder is made, what ``import``/``slice`` could not use: a missing source,
    a folder or file with no recording for ``import``, bad slicing bounds or a recognizer not installed.

    Raises:
        ValueError: naming the path or option. RecognizerError: the recognizer is not installed.
    """
    from trainer.dataset.archives import is_archive
    from trainer.dataset.metadata import AUDIO_SUFFIXES

    for source in args.sources:
        if not source.exists():
            raise ValueError(f"{source}: no such file or folder")
    if args.dataset_command == "slice":
        _check_slicing(args)
        return
    reads = f"import reads {', '.join(AUDIO_SUFFIXES)} recordings, metadata.csv files and archives of them"
    for source in args.sources:
        if source.is_dir() and not any(p.suffix.lower() in AUDIO_SUFFIXES or is_archive(p) for p in source.rglob("*")):
            raise ValueError(f"{source}: no recordings found there ({reads})")
        if source.is_file() and not (source.suffix.lower() in (*AUDIO_SUFFIXES, ".csv") or is_archive(source)):
            raise ValueError(f"{source}: not a recording ({reads})")


def _check_slicing(args: argparse.Namespace) -> None:
    """``--min``/``--max`` and ``--recognizer`` of ``slice``, checked before any work."""
    from trainer.dataset.recognizers import BACKENDS, RecognizerError, available, check
    from trainer.dataset.slicing import SliceOptions

    try:
        SliceOptions(min_s=args.min, max_s=args.max)
    except ValueError as exc:
        raise ValueError(f"dataset slice: --min {args.min:g} must be less than --max {args.max:g}") from exc
    if args.recognizer != NO_RECOGNIZER and args.recognizer not in available():
        raise RecognizerError(f"the {args.recognizer} recognizer is not installed: {BACKENDS[args.recognizer][1]}")
    if args.recognizer != NO_RECOGNIZER:
        check(args.recognizer, args.model, args.language)  # a language the back-end has, a model where it needs one


def _import(project, args) -> int:
    state = _task("analysed", unit="clip")
    with _naming_kept(project, args.speaker):
        result = project.import_sources(args.sources, args.workers, state=state, replace_texts=args.refresh)
    for problem in result.problems:
        print(f"skipped: {problem}", file=sys.stderr)
    for clip_id in result.failed:
        print(f"unreadable: {project.clips[clip_id].error}", file=sys.stderr)
    for change in result.changed:
        print(f"changed: {change.describe()}", file=sys.stderr)
    print(f"{_late(state, 'the import')}{result.counts()}", file=sys.stderr)
    for note in result.notes:
        print(f"warning: {note}", file=sys.stderr)
    if offered := result.offered():
        print(
            f"{count(len(offered), 'transcript')} {'differs' if len(offered) == 1 else 'differ'} from "
            f"{'its' if len(offered) == 1 else 'their'} source, not replaced: import again with --refresh to take "
            f"{'it' if len(offered) == 1 else 'them'}",
            file=sys.stderr,
        )
    if not (result.added or result.unchanged or result.failed):
        print(f"no recordings found in {', '.join(map(str, args.sources))}", file=sys.stderr)
    _name_speaker(project, result.added, args.speaker)
    _print_blocked(project, result.added)
    _print_narrow(project, result.added)
    return 0 if result.added or result.unchanged else 1


@contextmanager
def _naming_kept(project, speaker: str | None) -> Iterator[None]:
    """On a Ctrl+C'd import or slicing, give the clips it kept the ``--speaker`` name too (:func:`_name_speaker`)."""
    from trainer.tasks import Cancelled

    try:
        yield
    except Cancelled as exc:
        if exc.partial is not None:
            _name_speaker(project, exc.partial.added, speaker)
        raise


def _name_speaker(project, added: list[str], speaker: str | None) -> None:
    """Give the new clips without a speaker the ``--speaker`` name (recorded in their edits); a name the
    project's other clips do not have is pointed out, as ``dataset speaker`` does."""
    from trainer.dataset.curation import set_speaker

    unnamed = [i for i in added if not project.clips[i].speaker]
    if speaker and unnamed:
        set_speaker(project, unnamed, speaker)
        print(f"speaker of {count(len(unnamed), 'new clip')}: {speaker}", file=sys.stderr)
        _note_new_speaker(project, speaker, set(unnamed))


def _note_new_speaker(project, name: str, clip_ids: set[str]) -> None:
    """Print a note when ``name`` is a speaker no clip outside ``clip_ids`` has (a typo makes one more speaker)."""
    known = sorted({c.speaker for c in project.clips.values() if c.speaker and c.id not in clip_ids})
    if known and name not in known:
        print(f"note: {name!r} is a new speaker (the project had {', '.join(known)})", file=sys.stderr)


def _print_blocked(project, clip_ids: list[str]) -> None:
    """Name the new clips the trainer would skip (NaN samples, peaks over full scale, no speech...), and count
    them apart from the project's (a resumed import added only some of its clips)."""
    from trainer.dataset.export import records
    from trainer.dataset.health import check

    every = {f.clip_id: f for f in check(records(project)) if f.blocking}
    blocked = {clip_id: every[clip_id] for clip_id in clip_ids if clip_id in every}
    for finding in blocked.values():
        print(f"problem: {finding.clip_id}: {finding.message}", file=sys.stderr)
    if blocked:
        print(
            f"{len(blocked)} of the {count(len(clip_ids), 'clip')} added now {'has' if len(blocked) == 1 else 'have'} "
            f"blocking findings ({len(every)} of the project's {count(len(project.clips), 'clip')} in all; left out of "
            "export and the training cache); see them with: "
            + shell_command("voice-studio", "dataset", "report", project.folder),
            file=sys.stderr,
        )


def _print_narrow(project, clip_ids: list[str]) -> None:
    """A note when new clips are narrower than the voice's band (measured, ``trainer.dataset.bandwidth``): how
    many, how wide, and where the report says what it means."""
    from pathlib import Path

    from engines.voice import load_config
    from trainer.dataset.bandwidth import kilohertz, rates_said, width_range
    from trainer.dataset.export import records
    from trainer.dataset.health import check

    rate, added = load_config(Path(project.target_config)).sample_rate, set(clip_ids)
    found = check(records(project), voice_rate=rate)
    narrow = [f.values for f in found if f.kind == "narrow_band" and f.clip_id in added]
    if not narrow:
        return
    clips = f"{len(narrow)} of the {count(len(clip_ids), 'clip')} added ({rates_said(v['rate'] for v in narrow)})"
    are = "is" if len(narrow) == 1 else "are"
    print(
        f"note: {clips} {are} only {width_range(v['width'] for v in narrow)} wide, for a voice at {rate:,} Hz "
        f"(up to {kilohertz(rate / 2)}): see 'voice-studio dataset report {project.folder}'",
        file=sys.stderr,
    )


def _slice(project, args) -> int:
    from trainer.dataset.slicing import SliceOptions
    from trainer.dataset.slicing_run import slice_recordings

    recognizer = None if args.recognizer == NO_RECOGNIZER else args.recognizer
    options = SliceOptions(min_s=args.min, max_s=args.max, min_pause_s=args.min_pause)
    state = _task("sliced", unit="s of audio", many="s of audio")
    with _naming_kept(project, args.speaker):
        result = slice_recordings(
            project, args.sources, options, recognizer, args.model, args.workers, language=args.language, state=state
        )
    for line in result.earlier:
        print(line, file=sys.stderr)
    for problem in result.problems:
        print(f"failed: {problem}", file=sys.stderr)
    for note in result.notes:
        print(f"warning: {note}", file=sys.stderr)
    _name_speaker(project, result.resumed + result.added, args.speaker)
    for clip_id in result.added:
        clip = project.clips[clip_id]
        print(f"{clip_id}\t{clip.span[0]:.2f}-{clip.span[1]:.2f} s\t{clip.text or ''}")
    if not (result.added or result.resumed or result.problems):  # nothing to do: the lines above said why
        return 0 if result.unchanged else 1
    print(
        f"{_late(state, 'the slicing')}{count(len(result.added), 'utterance')} added "
        f"(drafts; confirm them with: {shell_command('voice-studio', 'dataset', 'confirm', project.folder)}), "
        f"{count(result.unchanged, 'recording')} already sliced",
        file=sys.stderr,
    )
    return 0 if result.added or result.unchanged else 1


def _confirm(project, args) -> int:
    from trainer.dataset.curation import confirm

    ids = args.ids or [c.id for c in project.clips.values() if not c.reviewed]
    done = confirm(project, ids)
    for clip_id in args.ids:
        if clip_id not in done:
            why = "already confirmed" if project.clips[clip_id].reviewed else "no transcript to confirm"
            print(f"not confirmed {clip_id}: {why}", file=sys.stderr)
    if not ids:
        print(f"{project.folder}: no draft transcript to confirm", file=sys.stderr)
        return 1
    print(f"confirmed {count(len(done), 'transcript')}", file=sys.stderr)
    return 0 if done else 1


def _text(project, args) -> int:
    from engines.frontend.lexicon import project_lexicon
    from trainer.dataset.curation import preview_text, set_text
    from trainer.dataset.jobs import phonemizer

    clip = set_text(project, args.clip_id, args.text)
    said = phonemizer(project.target_config, project_lexicon(project.folder))
    preview = preview_text(said, clip.text or "")  # set_text refuses empty text
    reads = f"\n  reads: {preview.normalized}" if preview.normalized else ""
    print(
        f"{clip.id}: {clip.text}{reads}\n  {preview.phonemes} ({preview.num_phoneme_ids} phoneme_ids)", file=sys.stderr
    )
    return 0


def _speaker(project, args) -> int:
    """Set the speaker of the clips named and/or (``--missing``) of every clip without one; a new name is
    pointed out (a typo would make one more speaker)."""
    from trainer.dataset.curation import set_speaker

    missing = [c.id for c in project.clips.values() if not c.speaker] if args.missing else []
    ids = list(dict.fromkeys(args.ids + missing))
    if not ids:
        why = f"{project.folder}: every clip has a speaker" if args.missing else "name the clips, or use --missing"
        raise ValueError(f"dataset speaker: {why}")
    name = args.speaker.strip()
    changed = set_speaker(project, ids, name)
    _note_new_speaker(project, name, set(ids))
    print(
        f"set the speaker of {count(len(changed), 'clip')} to {name!r} ({len(ids) - len(changed)} had it already)",
        file=sys.stderr,
    )
    return 0


def _fix(project, args) -> int:
    """Apply the chosen fixes; a command that chose none, a --rate nothing resamples, or a project with no
    clip to fix is refused (nothing would be done)."""
    from trainer.dataset.export import DEFAULT_RATE
    from trainer.dataset.fixes import apply_and_describe

    resample = args.all or args.resample
    if not (resample or args.trim or args.normalize):
        raise ValueError("dataset fix: choose what to fix: --all, --trim, --normalize or --resample")
    if args.rate is not None and not resample:
        raise ValueError("dataset fix: --rate applies only with --resample or --all")
    ok = [c.id for c in project.clips.values() if c.status == "ok"]
    if not ok:
        raise ValueError(
            f"{project.folder}: no clip to fix: all {count(len(project.clips), 'clip')} unreadable or excluded"
        )
    state = _task("fixed", unit="clip")
    said = apply_and_describe(
        project,
        resample_to=(DEFAULT_RATE if args.rate is None else args.rate) if resample else None,
        trim=args.all or args.trim,
        normalize=args.all or args.normalize,
        state=state,
    )
    print(f"{_late(state, 'the fixes')}{said}", file=sys.stderr)
    return 0


def _report(project, args) -> int:
    from engines.files import check_output_path, write_text
    from trainer.dataset.report import build_report, to_html, to_markdown

    if args.output:
        check_output_path(args.output, (*MARKDOWN, *HTML), "report")
    report = build_report(project)
    text = to_html(report) if args.output and args.output.suffix.lower() in HTML else to_markdown(report)
    if args.output:
        write_text(args.output, text)
    else:
        print(text)
    return 0


def _export(project, args) -> int:
    from trainer.dataset.export import export_piper

    result = export_piper(project, args.out, args.rate)
    for clip_id, reason in result.skipped.items():
        print(f"left out {clip_id}: {reason}", file=sys.stderr)
    left = f"; {len(result.skipped)} left out (listed above)" if result.skipped else ""
    print(f"wrote {count(len(result.written), 'clip')} to {args.out}{left}", file=sys.stderr)
    return 0


def _cache(project, args) -> int:
    from engines.extras import require
    from trainer.data.preprocess import CacheSettings, build_cache
    from trainer.dataset.export import selection

    require("train", "Building the training cache")  # before listing what it would leave out
    chosen, left_out = selection(project)
    for clip_id, reason in left_out.items():
        print(f"left out {clip_id}: {reason}", file=sys.stderr)
    state = _task("cached", unit="clip")
    folder = build_cache(project, args.out, CacheSettings(sample_rate=args.rate), args.workers, state=state)
    left = f"; {len(left_out)} left out (listed above)" if left_out else ""
    said = f"wrote the training cache of {count(len(chosen), 'clip')} to {folder}{left}"
    print(f"{_late(state, 'the cache')}{said}", file=sys.stderr)
    return 0
