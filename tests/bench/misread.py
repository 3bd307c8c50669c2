"""Benchmark: where a recognizer round trip tells a correct read from a misread (the booth's and distil's WER limit).

Every clip of ``../shared/corpus/target-voice`` (240 lines, one voice, 32 kHz) and ``real-speech/cards`` and
``real-speech/librivox`` (10 human recordings, 16 kHz) is heard once by the studio's best installed recognizer
(``trainer.evaluate.measures.wer_recognizer``: Whisper tiny.en, else PocketSphinx), and the transcript is scored
(``trainer.evaluate.measures.transcript_wer``: one normalization for both sides) against:

- **correct**: the clip's own text (a correct read);
- **another line**: the text of another clip of the same corpus (the next one: a take read for the wrong prompt);
- **1 word** / **2 words**: the clip's own text with one (two) of its words replaced by another word of the corpus
  (the reader said one word, the prompt another; seeded, so repeatable).

Reported: each case's WER distribution (quantiles), and for each candidate threshold the share of correct reads
flagged (false flags) and of each misread kind not flagged (misses). Transcripts are cached in ``--cache`` (JSON)
so that the scoring can be rerun without the recognizer.

Usage: ``.venv/bin/python tests/bench/misread.py [--cache /tmp/misread.json]``
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT)]
CORPUS = ROOT.parent / "shared" / "corpus"
SETS = {
    "target-voice": CORPUS / "target-voice",
    "cards": CORPUS / "real-speech" / "cards",
    "librivox": CORPUS / "real-speech" / "librivox",
}
THRESHOLDS = (0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8)


def clips(folder: Path) -> list[tuple[Path, str]]:
    """(audio path, text) of each ``id|text`` line of ``folder/metadata.csv`` (audio in ``wavs/`` or beside it)."""
    out = []
    for line in (folder / "metadata.csv").read_text().splitlines():
        clip_id, text = line.split("|", 1)
        found = [p for p in (folder / "wavs" / f"{clip_id}.flac", folder / f"{clip_id}.wav") if p.exists()]
        out.append((found[0], text))
    return out


def transcribe_all(cache: Path) -> dict[str, list[dict]]:
    """Set name -> [{path, text, heard, seconds}], from ``cache`` when there, else heard now and cached."""
    if cache.exists():
        return json.loads(cache.read_text())
    import soundfile as sf

    from trainer.evaluate.measures import recognizer_label, wer_recognizer

    recognizer = wer_recognizer("en")
    result: dict[str, list[dict]] = {"recognizer": recognizer_label(recognizer)}  # type: ignore[dict-item]
    for name, folder in SETS.items():
        rows = []
        for path, text in clips(folder):
            audio, rate = sf.read(path, dtype="float32")
            rows.append({"path": str(path), "text": text, "heard": _hear(recognizer, audio, rate)})
        result[name] = rows
        print(f"{name}: {len(rows)} clips heard", file=sys.stderr)
    cache.write_text(json.dumps(result, indent=1))
    return result


def _hear(recognizer, audio: np.ndarray, rate: int) -> str:
    """What ``recognizer`` hears in ``audio`` (float32 ``[N]`` at ``rate`` Hz)."""
    import soxr

    from trainer.dataset.recognizers import RATE

    return recognizer.transcribe(soxr.resample(audio, rate, RATE).astype(np.float32) if rate != RATE else audio)


def changed(text: str, words: list[str], count: int, rng: random.Random) -> str:
    """``text`` with ``count`` of its words (at distinct places) replaced by other words drawn from ``words``."""
    tokens = text.split()
    for place in rng.sample(range(len(tokens)), min(count, len(tokens))):
        tokens[place] = rng.choice([w for w in words if w.lower() != tokens[place].lower().strip(".,?!;:'\"")])
    return " ".join(tokens)


def scores(rows: list[dict], rng: random.Random) -> dict[str, list[float]]:
    """Case name -> WERs of ``rows`` (one set) against the case's reference text."""
    from trainer.evaluate.measures import transcript_wer

    words = sorted({w.strip(".,?!;:'\"").lower() for r in rows for w in r["text"].split()} - {""})
    cases: dict[str, list[float]] = {"correct": [], "another line": [], "1 word": [], "2 words": []}
    for i, row in enumerate(rows):
        other = rows[(i + 1) % len(rows)]["text"]
        references = {
            "correct": row["text"],
            "another line": other,
            "1 word": changed(row["text"], words, 1, rng),
            "2 words": changed(row["text"], words, 2, rng),
        }
        for case, reference in references.items():
            cases[case].append(transcript_wer(reference, row["heard"], "en"))
    return cases


def report(cases: dict[str, list[float]], title: str) -> None:
    """Quantiles of each case and false flags / misses at each threshold, as Markdown."""
    print(f"\n### {title}\n\n| case | n | min | 10% | median | 90% | 95% | max |\n|---|---|---|---|---|---|---|---|")
    for case, values in cases.items():
        q = np.quantile(values, [0, 0.1, 0.5, 0.9, 0.95, 1])
        print(f"| {case} | {len(values)} | " + " | ".join(f"{v:.2f}" for v in q) + " |")
    head = " | ".join(f"{c} missed" for c in cases if c != "correct")
    print(f"\n| WER over | correct flagged | {head} |\n|---|---|" + "---|" * (len(cases) - 1))
    for limit in THRESHOLDS:
        flagged = np.mean(np.array(cases["correct"]) > limit)
        missed = [np.mean(np.array(v) <= limit) for c, v in cases.items() if c != "correct"]
        print(f"| {limit} | {flagged:.1%} | " + " | ".join(f"{m:.1%}" for m in missed) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/misread_transcripts.json"))
    args = parser.parse_args()
    start = time.perf_counter()
    heard = transcribe_all(args.cache)
    print(f"recognizer: {heard['recognizer']}; {time.perf_counter() - start:.0f} s", file=sys.stderr)
    everything: dict[str, list[float]] = {}
    for name in SETS:
        cases = scores(heard[name], random.Random(34))
        report(cases, f"{name} ({len(heard[name])} clips)")
        for case, values in cases.items():
            everything.setdefault(case, []).extend(values)
    report(everything, "all")
    worst = sorted(((transcript_wer_of(r), r) for s in SETS for r in heard[s]), key=lambda p: -p[0])[:8]
    print("\nWorst correct reads:")
    for wer, row in worst:
        print(f"- {wer:.2f}: {row['text']!r} heard as {row['heard']!r}")


def transcript_wer_of(row: dict) -> float:
    """WER of a row's transcript against its own text."""
    from trainer.evaluate.measures import transcript_wer

    return transcript_wer(row["text"], row["heard"], "en")


if __name__ == "__main__":
    main()
