"""``voice-studio dataset ...``: the subcommands' parsers and options (what they do is ``studio.cli.dataset``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from engines.extras import explain
from studio.cli.arg_types import SAMPLE_RATES_TEXT, positive_float, positive_int, sample_rate

NO_RECOGNIZER = "none"
"""``dataset slice --recognizer`` value for no draft transcripts."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``dataset import|slice|prompts|record|distil|text|confirm|speaker|fix|report|export|cache`` to the CLI's
    subparsers."""
    dataset = sub.add_parser("dataset", help="prepare a training dataset (import, slice, fix, report, export)")
    dsub = dataset.add_subparsers(dest="dataset_command", required=True)
    _add_making(dsub)
    _add_prompts(dsub)
    _add_record(dsub)
    _add_distil(dsub)
    _add_editing(dsub)
    _add_writing(dsub)


def _add_making(dsub: argparse._SubParsersAction) -> None:
    """``import`` and ``slice``, which make projects; the recognizers and slicing bounds are their owners'."""
    from trainer.dataset.recognizers import BACKENDS
    from trainer.dataset.slicing import SliceOptions

    imp = dsub.add_parser(
        "import",
        help="import recordings (folders, files, archives) into a project; again, to take their sources' fixes",
        description="Clips imported before are not read again; their missing transcripts and speakers are "
        "filled in from what their source (metadata.csv, clip.txt) says now, and transcripts it words otherwise "
        "are listed (--refresh takes them).",
    )
    imp.add_argument("sources", nargs="+", type=Path)
    imp.add_argument("--project", type=Path, required=True, help="project folder (created if missing)")
    imp.add_argument(
        "--refresh",
        action="store_true",
        help="replace the transcripts of clips imported before by what their source says now (texts typed in "
        "the studio are kept; the old text is kept in the clip's edits)",
    )
    imp.add_argument("--workers", type=positive_int, default=None, help="worker processes (default: one per core)")
    imp.add_argument("--speaker", help="speaker of the new clips whose metadata names none")
    cut = dsub.add_parser("slice", help="cut long recordings into utterances with draft transcripts")
    cut.add_argument("sources", nargs="+", type=Path, help="long recordings")
    cut.add_argument("--project", type=Path, required=True, help="project folder (created if missing)")
    cut.add_argument(
        "--min", type=positive_float, default=SliceOptions.min_s, help="shortest utterance, seconds of speech"
    )
    cut.add_argument(
        "--max",
        type=positive_float,
        default=SliceOptions.max_s,
        help="longest clip, seconds (a hard limit, the silence kept around the speech included)",
    )
    cut.add_argument(
        "--recognizer",
        default="pocketsphinx",
        choices=(*BACKENDS, NO_RECOGNIZER),
        help=f"recognizer of the draft transcripts (default: %(default)s, bundled English; {NO_RECOGNIZER}: no drafts)",
    )
    cut.add_argument(
        "--min-pause",
        type=positive_float,
        default=SliceOptions.min_pause_s,
        help="shortest pause to cut at, seconds (a shorter one only in speech that runs past --max without one)",
    )
    cut.add_argument("--model", help="model for faster-whisper (a folder or a name such as small.en)")
    cut.add_argument("--language", help="language of the drafts (pocketsphinx: en-us; faster-whisper: e.g. de)")
    cut.add_argument("--workers", type=positive_int, default=None, help="worker processes (default: one per core)")
    cut.add_argument("--speaker", help="speaker of the new clips (a multi-speaker project needs one per clip)")


def _add_prompts(dsub: argparse._SubParsersAction) -> None:
    """``prompts``: the next lines to record, chosen for coverage (``trainer.dataset.prompts``)."""
    from trainer.dataset.prompts.corpus import SHIPPED

    prompts = dsub.add_parser(
        "prompts",
        help="the next lines to record, chosen to cover the phonemes and phoneme pairs not yet recorded",
        description="Each line of the corpus is read by the voice's text front end and phonemizer; the lines are "
        "then taken greedily for the phonemes, then the phoneme pairs (across words too), the project's recordings "
        "do not have yet. The prompts go to stdout (or -o), one a line; the coverage, the minutes and how much to "
        "record, with sources, to stderr.",
    )
    prompts.add_argument(
        "project", type=Path, nargs="?", help="a project whose recorded lines count as covered and are skipped"
    )
    prompts.add_argument(
        "--corpus",
        type=Path,
        help=f"a UTF-8 text file, one prompt a line ('#' starts a comment; default: the studio's {SHIPPED}, "
        "490 English lines, CC0)",
    )
    prompts.add_argument("--count", type=positive_int, default=50, help="how many prompts (default: %(default)s)")
    prompts.add_argument(
        "--voice", help="voice whose phonemizer reads the lines: a name or NAME.onnx (default: the project's voice)"
    )
    prompts.add_argument("-o", "--output", type=Path, help="write the prompts to this .txt file, one a line")


def _add_record(dsub: argparse._SubParsersAction) -> None:
    """``record``: the Record tab's booth in a terminal (``studio.cli.dataset_record``)."""
    from studio.cli.record_session import COMMANDS, KEYS_HELP
    from trainer.dataset.prompts.corpus import SHIPPED

    record = dsub.add_parser(
        "record",
        help="record prompts into a project from a microphone, each take checked at once (the Record tab's booth)",
        description="The first 3 s measure the room's noise floor: stay quiet. Then each prompt is shown; a take "
        "stops itself after 1 s of silence, is checked at once (the Record tab's checks, the recognizer's round "
        "trip included) and, accepted, lands in the project as the prompt's clip with its text confirmed, ready "
        f"for Train. On a terminal, keys: {KEYS_HELP}, with a level meter on stderr. Otherwise one command a line "
        f"on stdin ({', '.join(COMMANDS)}); a command waits until the booth can do it, and the end of the input "
        "quits. Quitting or Ctrl+C keeps every accepted take and drops only the one in progress.",
    )
    record.add_argument("project", type=Path, nargs="?", help="project folder (created if missing or empty)")
    record.add_argument("--device", help="input device: its index or (part of) its name (default: the default input)")
    record.add_argument(
        "--list-devices", action="store_true", help="list the input devices, with their default rates, and exit"
    )
    record.add_argument(
        "--rate",
        type=sample_rate,
        help=f"capture rate (Hz: {SAMPLE_RATES_TEXT}; default: the device's own); takes are resampled to the "
        "project's voice's rate",
    )
    record.add_argument(
        "--prompts",
        type=Path,
        help=f"a UTF-8 text file, one prompt a line, recorded in order, lines recorded already skipped (default: "
        f"the studio's {SHIPPED}, chosen for coverage after the lines the project has)",
    )
    record.add_argument("--count", type=positive_int, default=50, help="prompts this session (default: %(default)s)")


def _add_distil(dsub: argparse._SubParsersAction) -> None:
    """``distil``: a dataset spoken by a voice on a speech server (``trainer.dataset.distil``)."""
    from trainer.dataset.distil import CANDIDATES, LINES
    from trainer.dataset.prompts.corpus import SHIPPED

    distil = dsub.add_parser(
        "distil",
        help="a dataset spoken by a voice on an OpenAI-compatible speech server, each line's best take kept",
        description="The lines are chosen for coverage (as dataset prompts chooses them); each is asked of the "
        "server --candidates times, and a take is kept only when the dataset's checks find nothing wrong with "
        "it, it is loud enough, the recognizer hears the prompt in it and it sounds like the first takes kept. "
        "The kept takes become clips with confirmed text; distil.json in the project records the server, model, "
        "voice, date and your consent, and a voice trained on the project carries them in its config. Running "
        "again skips the lines done.",
    )
    distil.add_argument("project", type=Path, help="project folder (created if missing or empty)")
    distil.add_argument("--url", required=True, help="the server's base URL, e.g. http://127.0.0.1:5000")
    distil.add_argument("--model", required=True, help="the server's model (a Voice Studio server: a voice name)")
    distil.add_argument("--voice", required=True, help="the server's voice (a Voice Studio server: a speaker)")
    distil.add_argument(
        "--lines",
        type=Path,
        help=f"a UTF-8 text file, one line a prompt, to choose from (default: the studio's {SHIPPED}, English)",
    )
    distil.add_argument(
        "--count",
        type=positive_int,
        default=LINES,
        help="lines the project should hold from this voice (default: %(default)s; again with more adds lines)",
    )
    distil.add_argument(
        "--candidates", type=positive_int, default=CANDIDATES, help="takes asked per line (default: "
        "%(default)s)"
    )  # fmt: skip
    distil.add_argument("--api-key", help="bearer key (default: $VOICE_STUDIO_API_KEY, then $OPENAI_API_KEY)")
    distil.add_argument("--licence", default="", help="the voice's licence or terms, recorded as given")
    distil.add_argument(
        "--i-may-use-this-voice",
        dest="consent",
        action="store_true",
        help="required: you may train on this voice (its licence allows it, or its owner consents)",
    )


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
    rate_help = f"target sample rate of --resample and --all (Hz: {SAMPLE_RATES_TEXT}; default {DEFAULT_RATE})"
    fix.add_argument("--rate", type=sample_rate, help=rate_help)


def _add_writing(dsub: argparse._SubParsersAction) -> None:
    """``report``, ``export`` and ``cache``; the rates are ``export``'s and the cache's."""
    from trainer.data.preprocess import CacheSettings
    from trainer.dataset.export import DEFAULT_RATE

    rep = dsub.add_parser("report", help="health report of a project (Markdown, or HTML for a .html file)")
    rep.add_argument("project", type=Path)
    rep.add_argument(
        "-o", "--output", type=Path, help="write the report to this file (.md, .markdown, .txt; .html, .htm: HTML)"
    )
    exp = dsub.add_parser("export", help="write Piper's training layout: metadata.csv + wavs/")
    exp.add_argument("project", type=Path)
    exp.add_argument("--out", type=Path, required=True, help="new, empty, or an earlier export (replaced whole)")
    exp.add_argument(
        "--rate", type=sample_rate, default=DEFAULT_RATE, help=f"sample rate of the WAVs (Hz: {SAMPLE_RATES_TEXT})"
    )
    cache = dsub.add_parser(
        "cache",
        help="build the trainer's preprocessed cache (phoneme_ids, audio, spectrograms)",
        description=explain("train", "Building the training cache") or None,
    )
    cache.add_argument("project", type=Path)
    cache.add_argument("--out", type=Path, required=True, help="new, empty, or an earlier cache (replaced whole)")
    cache.add_argument(
        "--rate", type=sample_rate, default=CacheSettings.sample_rate, help=f"training rate (Hz: {SAMPLE_RATES_TEXT})"
    )
    cache.add_argument("--workers", type=positive_int, default=None, help="worker processes (default: one per core)")
