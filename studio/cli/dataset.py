"""``voice-studio dataset ...``: the Dataset page's work from the command line (no Qt)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NO_RECOGNIZER = "none"
"""``dataset slice --recognizer`` value for no draft transcripts."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``dataset import|slice|text|confirm|speaker|fix|report|export|cache`` to the CLI's subparsers."""
    dataset = sub.add_parser("dataset", help="prepare a training dataset (import, slice, fix, report, export)")
    dsub = dataset.add_subparsers(dest="dataset_command", required=True)
    _add_making(dsub)
    _add_editing(dsub)
    _add_writing(dsub)


def _add_making(dsub: argparse._SubParsersAction) -> None:
    """``import`` and ``slice``, which make projects; the recognizers and slicing bounds are their owners'."""
    from trainer.dataset.recognizers import BACKENDS
    from trainer.dataset.slicing import SliceOptions

    imp = dsub.add_parser("import", help="import recordings (folders, files, zip archives) into a project")
    imp.add_argument("sources", nargs="+", type=Path)
    imp.add_argument("--project", type=Path, required=True, help="project folder (created if missing)")
    imp.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    imp.add_argument("--speaker", help="speaker of the new clips whose metadata names none")
    cut = dsub.add_parser("slice", help="cut long recordings into utterances with draft transcripts")
    cut.add_argument("sources", nargs="+", type=Path, help="long recordings")
    cut.add_argument("--project", type=Path, required=True, help="project folder (created if missing)")
    cut.add_argument("--min", type=float, default=SliceOptions.min_s, help="shortest utterance, seconds of speech")
    cut.add_argument("--max", type=float, default=SliceOptions.max_s, help="longest utterance, seconds of speech")
    cut.add_argument(
        "--recognizer",
        default="pocketsphinx",
        choices=(*BACKENDS, NO_RECOGNIZER),
        help=f"recognizer of the draft transcripts (default: %(default)s, bundled English; {NO_RECOGNIZER}: no drafts)",
    )
    cut.add_argument("--model", help="model for faster-whisper (a folder or a name such as small.en)")
    cut.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")
    cut.add_argument("--speaker", help="speaker of the new clips (a multi-speaker project needs one per clip)")


def _add_editing(dsub: argparse._SubParsersAction) -> None:
    """``text``, ``confirm``, ``speaker`` and ``fix``; the loudness target and rate are ``fixes``' and ``export``'s."""
    from trainer.dataset.export import DEFAULT_RATE
    from trainer.dataset.fixes import DEFAULT_PEAK_DBFS, DEFAULT_TARGET_LUFS

    text = dsub.add_parser("text", help="correct a clip's transcript (it then counts as reviewed)")
    text.add_argument("project", type=Path)
    text.add_argument("clip_id")
    text.add_argument("text", help="the words as spoken")
    confirm = dsub.add_parser("confirm", help="mark draft transcripts as reviewed")
    confirm.add_argument("project", type=Path)
    confirm.add_argument("ids", nargs="*", help="clip ids (default: every draft with text)")
    who = dsub.add_parser("speaker", help="set the speaker of clips (a multi-speaker project needs one per clip)")
    who.add_argument("project", type=Path)
    who.add_argument("speaker", help="the speaker's name, as in metadata.csv's id|speaker|text")
    who.add_argument("ids", nargs="*", help="clip ids")
    who.add_argument("--missing", action="store_true", help="every clip that has no speaker yet")
    fix = dsub.add_parser("fix", help="fix the curated copies (sources are never changed)")
    fix.add_argument("project", type=Path)
    fix.add_argument("--all", action="store_true", help="trim, normalize and resample to --rate")
    fix.add_argument("--trim", action="store_true", help="trim leading and trailing silence (keeps a margin)")
    loudness = f"{DEFAULT_TARGET_LUFS:g} LUFS, peaks <= {DEFAULT_PEAK_DBFS:g} dBFS"
    fix.add_argument("--normalize", action="store_true", help=f"normalize loudness to {loudness}")
    fix.add_argument("--resample", action="store_true", help="resample to --rate")
    rate_help = f"target sample rate of --resample and --all (Hz; default {DEFAULT_RATE})"
    fix.add_argument("--rate", type=int, help=rate_help)


def _add_writing(dsub: argparse._SubParsersAction) -> None:
    """``report``, ``export`` and ``cache``; the rates are ``export``'s and the cache's."""
    from trainer.dataset.export import DEFAULT_RATE
    from trainer.preprocess import CacheSettings

    rep = dsub.add_parser("report", help="health report of a project (Markdown, or HTML for a .html file)")
    rep.add_argument("project", type=Path)
    rep.add_argument("-o", "--output", type=Path, help="write the report to this file (.md or .html)")
    exp = dsub.add_parser("export", help="write Piper's training layout: metadata.csv + wavs/")
    exp.add_argument("project", type=Path)
    exp.add_argument("--out", type=Path, required=True)
    exp.add_argument("--rate", type=int, default=DEFAULT_RATE, help="sample rate of the exported WAVs (Hz)")
    cache = dsub.add_parser("cache", help="build the trainer's preprocessed cache (phoneme_ids, audio, spectrograms)")
    cache.add_argument("project", type=Path)
    cache.add_argument("--out", type=Path, required=True, help="cache folder (replaced whole when it exists)")
    cache.add_argument("--rate", type=int, default=CacheSettings.sample_rate, help="training sample rate (Hz)")
    cache.add_argument("--workers", type=int, default=None, help="worker processes (default: one per core)")


def _progress(verb: str):
    """``progress(done, total)`` for the terminal: one line rewritten in place on a TTY; in a log, a line
    per tenth of the work, so a pipe gets readable lines."""
    tty, shown = sys.stderr.isatty(), set()

    def show(done: int, total: int) -> None:
        if tty:
            print(f"\r{verb} {done}/{total}", end="\n" if done == total else "", file=sys.stderr, flush=True)
            return
        tenth = 10 * done // max(1, total)
        if tenth not in shown:
            shown.add(tenth)
            print(f"{verb} {done}/{total}", file=sys.stderr, flush=True)

    return show


def run(args: argparse.Namespace) -> int:
    """Run one ``dataset`` subcommand; returns the exit status."""
    from trainer.dataset.curation import speaker_name
    from trainer.dataset.project import DatasetProject

    if args.dataset_command in ("import", "slice"):  # the two that make projects
        if args.speaker is not None:
            args.speaker = speaker_name(args.speaker)  # refused before any work
        project = DatasetProject.create(args.project)
    else:
        project = DatasetProject(args.project)
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
    return command(project, args)


def _import(project, args) -> int:
    result = project.import_sources(args.sources, args.workers, _progress("analysed"))
    for problem in result.problems:
        print(f"skipped: {problem}", file=sys.stderr)
    for clip_id in result.failed:
        print(f"failed: {project.clips[clip_id].error}", file=sys.stderr)
    print(
        f"{len(result.added)} clips added, {result.unchanged} already present, {len(result.failed)} failed",
        file=sys.stderr,
    )
    _name_speaker(project, result.added, args.speaker)
    _print_blocked(project, result.added)
    return 0 if result.added or result.unchanged else 1


def _name_speaker(project, added: list[str], speaker: str | None) -> None:
    """Give the new clips without a speaker the ``--speaker`` name (recorded in their edits); a name the
    project's other clips do not have is pointed out, as ``dataset speaker`` does."""
    from trainer.dataset.curation import set_speaker

    unnamed = [i for i in added if not project.clips[i].speaker]
    if speaker and unnamed:
        set_speaker(project, unnamed, speaker)
        print(f"speaker of {len(unnamed)} new clip{'s' if len(unnamed) != 1 else ''}: {speaker}", file=sys.stderr)
        _note_new_speaker(project, speaker, set(unnamed))


def _note_new_speaker(project, name: str, clip_ids: set[str]) -> None:
    """Print a note when ``name`` is a speaker no clip outside ``clip_ids`` has (a typo makes one more speaker)."""
    known = sorted({c.speaker for c in project.clips.values() if c.speaker and c.id not in clip_ids})
    if known and name not in known:
        print(f"note: {name!r} is a new speaker (the project had {', '.join(known)})", file=sys.stderr)


def _print_blocked(project, clip_ids: list[str]) -> None:
    """Name the new clips the trainer would skip (NaN samples, peaks over full scale, no speech...)."""
    from trainer.dataset.export import records
    from trainer.dataset.health import check

    added = set(clip_ids)
    blocked = {f.clip_id: f for f in check(records(project)) if f.blocking and f.clip_id in added}
    for finding in blocked.values():
        print(f"problem: {finding.clip_id}: {finding.kind}: {finding.message}", file=sys.stderr)
    if blocked:
        print(
            f"{len(blocked)} clips have blocking findings (left out of export and the training cache): "
            f"see 'voice-studio dataset report {project.folder}'",
            file=sys.stderr,
        )


def _slice(project, args) -> int:
    from trainer.dataset.slicing import SliceOptions

    recognizer = None if args.recognizer == NO_RECOGNIZER else args.recognizer
    options = SliceOptions(min_s=args.min, max_s=args.max)
    result = project.slice_recordings(args.sources, options, recognizer, args.model, args.workers, _progress("sliced"))
    for problem in result.problems:
        print(f"failed: {problem}", file=sys.stderr)
    _name_speaker(project, result.added, args.speaker)
    for clip_id in result.added:
        clip = project.clips[clip_id]
        print(f"{clip_id}\t{clip.span[0]:.2f}-{clip.span[1]:.2f} s\t{clip.text or ''}")
    print(
        f"{len(result.added)} utterances added (drafts: confirm with 'voice-studio dataset confirm'), "
        f"{result.unchanged} recordings already sliced",
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
    print(f"confirmed {len(done)} transcripts", file=sys.stderr)
    return 0 if done else 1


def _text(project, args) -> int:
    from trainer.dataset.curation import preview_text, set_text
    from trainer.dataset.jobs import phonemizer

    clip = set_text(project, args.clip_id, args.text)
    preview = preview_text(phonemizer(project.target_config), clip.text or "")  # set_text refuses empty text
    print(f"{clip.id}: {clip.text}\n  {preview.phonemes} ({preview.num_phoneme_ids} phoneme_ids)", file=sys.stderr)
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
        f"set the speaker of {len(changed)} clip{'s' if len(changed) != 1 else ''} to {name!r} "
        f"({len(ids) - len(changed)} had it already)",
        file=sys.stderr,
    )
    return 0


def _fix(project, args) -> int:
    """Apply the chosen fixes; a command that chose none, a --rate nothing resamples, or a project with no
    clip to fix is refused (nothing would be done)."""
    from trainer.dataset.export import DEFAULT_RATE

    resample = args.all or args.resample
    if not (resample or args.trim or args.normalize):
        raise ValueError("dataset fix: choose what to fix: --all, --trim, --normalize or --resample")
    if args.rate is not None and not resample:
        raise ValueError("dataset fix: --rate applies only with --resample or --all")
    ok = [c.id for c in project.clips.values() if c.status == "ok"]
    if not ok:
        raise ValueError(f"{project.folder}: no clip to fix: its {len(project.clips)} clips are unreadable or excluded")
    fixed = project.apply_fixes(
        resample_to=(args.rate or DEFAULT_RATE) if resample else None,
        trim=args.all or args.trim,
        normalize=args.all or args.normalize,
    )
    print(f"fixed {len(fixed)} clips", file=sys.stderr)
    return 0


def _report(project, args) -> int:
    from engines.files import check_output_path, write_text
    from trainer.dataset.report import build_report, to_html, to_markdown

    if args.output:
        check_output_path(args.output)  # Markdown, or HTML for a .html file
    report = build_report(project)
    text = to_html(report) if args.output and args.output.suffix.lower() in (".html", ".htm") else to_markdown(report)
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
    print(f"wrote {len(result.written)} clips to {args.out}", file=sys.stderr)
    return 0


def _cache(project, args) -> int:
    from trainer.dataset.export import selection
    from trainer.preprocess import CacheSettings, build_cache

    for clip_id, reason in selection(project)[1].items():
        print(f"left out {clip_id}: {reason}", file=sys.stderr)
    folder = build_cache(project, args.out, CacheSettings(sample_rate=args.rate), args.workers, _progress("cached"))
    print(f"wrote the training cache to {folder}", file=sys.stderr)
    return 0
