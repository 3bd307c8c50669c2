"""Benchmark: distilling a dataset from a voice server, against the teacher's own speed on the same lines.

The teacher is our own ``voice-studio serve`` (the default voice, en_US-joe-medium, 2 workers) on 127.0.0.1.
``trainer.dataset.distil.run.distil`` asks it for ``--lines`` lines x ``--candidates`` takes into a new project,
in this process, with each part timed: the teacher's synthesis (request to last sample in hand, HTTP and WAV
decoding included), the dataset's checks (measure + health findings + loudness), the recognizer round trip
(Whisper tiny.en, or PocketSphinx), the speaker similarity (resemblyzer), the import of the kept takes, and the
rest (planning the lines: the phonemizer over the prompt corpus). Then the teacher alone speaks the same lines the
same number of times, and its real-time factor (synthesis seconds / audio seconds) is the floor: a distil that
only asked would take ``candidates x RTF`` wall seconds per second of audio kept.

Reported: wall seconds per kept minute of audio; the split; CPU seconds of this process and of the server.

Usage: ``.venv/bin/python tests/bench/distil.py [--lines 10] [--candidates 2]``
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "bench")]

import gpu_streams  # noqa: E402 (after the path)

TICKS = os.sysconf("SC_CLK_TCK")
JOE = "en_US-joe-medium"


def process_cpu(pid: int) -> float:
    """User+sys CPU seconds of process ``pid`` so far."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    fields = stat[stat.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


class Timers:
    """Seconds spent per part, and calls, by name; wraps methods in place."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: dict[str, list[float]] = defaultdict(list)

    def wrap(self, owner, method: str, name: str) -> None:
        original = getattr(owner, method)

        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent = time.perf_counter() - start
                self.seconds[name] += spent
                self.calls[name].append(spent)

        setattr(owner, method, timed)


def audio_seconds(folder: Path) -> float:
    import soundfile

    return sum(soundfile.info(str(path)).duration for path in folder.glob("*.wav"))


def run_distil(url: str, folder: Path, lines: int, candidates: int, timers: Timers):
    """The distillation, timed; returns (result, document, wall s, audio s of every take asked)."""
    from trainer.dataset.distil import judge, run
    from trainer.dataset.distil.record import read_record
    from trainer.dataset.distil.teacher import Teacher, TeacherChoice
    from trainer.dataset.project import DatasetProject

    asked = [0.0]

    class Timed(Teacher):
        def speak(self, text, cancel=None):
            start = time.perf_counter()
            audio, rate = super().speak(text, cancel)
            timers.seconds["teacher synthesis"] += time.perf_counter() - start
            asked[0] += len(audio) / rate
            return audio, rate

    timers.wrap(judge.Judge, "_health", "checks: measure + health + loudness")
    timers.wrap(judge.Judge, "_wer", "recognizer round trip")
    timers.wrap(judge.Judge, "_speaker", "speaker similarity")
    timers.wrap(DatasetProject, "import_sources", "import of the kept takes")
    choice = TeacherChoice(url=url, model=JOE, voice="default")
    request = run.DistilRequest(teacher=choice, count=lines, candidates=candidates, consent=True, licence="MIT")
    teacher = Timed(choice)
    try:
        start = time.perf_counter()
        result = run.distil(folder, request, teacher=teacher)
        wall = time.perf_counter() - start
    finally:
        teacher.close()
    return result, read_record(folder), wall, asked[0]


def teacher_alone(url: str, texts: list[str], candidates: int) -> tuple[float, float]:
    """The teacher speaking ``texts`` ``candidates`` times each: (synthesis s, audio s)."""
    from trainer.dataset.distil.teacher import Teacher, TeacherChoice

    teacher = Teacher(TeacherChoice(url=url, model=JOE, voice="default"))
    try:
        teacher.speak("Hello.")  # the connection, as distil's check makes it
        spent = heard = 0.0
        for text in texts:
            for _ in range(candidates):
                start = time.perf_counter()
                audio, rate = teacher.speak(text)
                spent += time.perf_counter() - start
                heard += len(audio) / rate
        return spent, heard
    finally:
        teacher.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=10)
    parser.add_argument("--candidates", type=int, default=2)
    args = parser.parse_args()
    from trainer.dataset.distil.run import FOLDER

    process, url = gpu_streams.start_server(2)
    timers = Timers()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp) / "from joe"
            cpu, server_cpu = time.process_time(), process_cpu(process.pid)
            result, document, wall, asked_s = run_distil(url, folder, args.lines, args.candidates, timers)
            cpu, server_cpu = time.process_time() - cpu, process_cpu(process.pid) - server_cpu
            kept_s = audio_seconds(folder / FOLDER)
            planned = document.planned[: args.lines]
            alone_s, alone_audio = teacher_alone(url, planned, args.candidates)
    finally:
        process.terminate()
        process.wait(10)
    rtf = alone_s / alone_audio
    kept_min = kept_s / 60
    print(
        f"load average {os.getloadavg()[0]:.2f}; {args.lines} lines x {args.candidates} candidates; {result.counts()}"
    )
    print(f"kept {kept_s:.1f} s of audio ({kept_min:.2f} min) of {asked_s:.1f} s asked for")
    print(f"teacher alone on the same lines: {alone_s:.1f} s for {alone_audio:.1f} s of audio, RTF {rtf:.3f}")
    floor = rtf * asked_s / kept_min  # the same takes asked at the teacher's own speed, nothing checked
    print(f"floor: asking for the same takes alone at that RTF, {floor:.1f} s per kept min")
    print()
    print("| part | wall s | s per kept min | share |")
    print("|---|---:|---:|---:|")
    parts = dict(timers.seconds)
    parts["rest (planning the lines, the check request, writing)"] = wall - sum(parts.values())
    for name, seconds in parts.items():
        first = timers.calls.get(name, [])
        note = f" (first call {first[0]:.1f} s)" if len(first) > 1 and first[0] > 3 * min(first[1:]) else ""
        print(f"| {name}{note} | {seconds:.1f} | {seconds / kept_min:.1f} | {100 * seconds / wall:.0f}% |")
    print(f"| **distil, all** | {wall:.1f} | {wall / kept_min:.1f} | 100% |")
    print(f"\nCPU: this process {cpu:.1f} s, the server {server_cpu:.1f} s; synthesis RTF inside the run "
          f"{timers.seconds['teacher synthesis'] / asked_s:.3f}")  # fmt: skip


if __name__ == "__main__":
    main()
