"""``voice-studio voices``: list the voices the studio finds (no Qt)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Add ``voices`` to the CLI's subparsers."""
    voices = sub.add_parser("voices", help="list the voices the studio finds")
    voices.add_argument("--json", action="store_true", help="machine-readable output")
    voices.add_argument("paths", nargs="*", type=Path, help="extra voice files or folders")


def run(args: argparse.Namespace) -> int:
    """Print the voices found (each model checked as loading it does); the ones that failed go to stderr. A voice's
    ``language`` is its code as Piper's catalog writes it (``en_US``), ``espeak_voice`` the espeak-ng voice
    (``en-us``)."""
    from engines import registry
    from engines.languages import voice_language

    found = registry.discover(args.paths, check_models=True)
    rows = [
        {
            "name": v.name,
            "origin": v.origin,
            "sample_rate": v.sample_rate,
            "speakers": v.config.num_speakers,
            "language": voice_language(v.config),
            "espeak_voice": v.config.espeak_voice,
            "model": str(v.model_path),
        }
        for v in found.voices
    ]
    if args.json:
        print(json.dumps({"voices": rows, "errors": [str(e) for e in found.errors]}, ensure_ascii=False, indent=2))
    else:
        for row in rows:
            print(f"{row['name']}\t{row['origin']}\t{row['sample_rate']} Hz\t{row['language']}\t{row['model']}")
        for error in found.errors:
            print(f"skipped: {error}", file=sys.stderr)
    return 0
