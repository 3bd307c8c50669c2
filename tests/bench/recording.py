"""Benchmark: what the recording booth costs while it records, and how late it sees the microphone.

The microphone is the tests' (``tests/microphone.py``): ALSA's ``file`` plugin over the ``null`` device reading a
FIFO that a thread of this process fills in real time at 48 kHz, 1,024 frames a write. The booth records it at
48 kHz into a new project (takes resampled to 22,050 Hz) two ways:

- ``booth``: the Qt-free ``Booth`` polled from a plain loop every 30 ms (33 Hz), as a page's timer would;
- ``booth + tab``: the Dataset page's ``RecordTab`` (offscreen Qt) with its own 30 ms timer: the booth's poll,
  the ``LevelMeter`` repainted and the status line set at every tick.

Each way is measured in two phases, ``SECONDS`` each: ``ready`` (between takes: the ring, the meter) and
``recording`` (a take of continuous speech: also soxr to 22,050 and 16 kHz and Silero VAD on every 32 ms; the
auto-stop is off so the take lasts the whole phase). CPU is the process's user+sys time (``time.process_time``)
less the FIFO feeder's thread (it stands in for the sound card, read from ``/proc/self/task``), per second of
capture, as % of one core; the main thread and PortAudio's callback thread are given apart.

Latency: a click (48 samples at 0.9, every 0.5 s, over the room noise or speech peaking at 0.25) is written into
the FIFO; we time from that write to the callback block holding it (``ring``) and to the first poll whose
meter reads it above -4.4 dBFS (``meter``; with the tab, to the meter's paint). On this fake device the FIFO is
read as soon as it holds data, so ``ring`` is PortAudio's and ALSA's own hand-over (no converter, no hardware
period); ``meter`` adds the wait for the next 30 ms poll. A real card adds its period (PortAudio's reported
input latency, printed beside) before the data exists at all.

Usage: ``.venv/bin/python tests/bench/recording.py [--seconds 15]``
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import microphone  # noqa: E402 (after the path)

CLICK = 0.9
"""The marker's amplitude (-0.9 dBFS): nothing else the microphone gives reaches ``SEEN``."""
SEEN = 0.6
"""A block or meter peak above this amplitude holds a click."""
CLICK_EVERY_S = 0.5
SPEECH_PEAK = 0.25
TICKS = os.sysconf("SC_CLK_TCK")


class MarkingMicrophone(microphone.Microphone):
    """The tests' microphone noting when each chunk holding a click went into the FIFO (``time.monotonic``)."""

    def __init__(self, folder: Path) -> None:
        self.written_at: list[float] = []
        super().__init__(folder)

    def _chunk(self) -> np.ndarray:
        chunk = super()._chunk()
        if np.max(np.abs(chunk)) > SEEN:
            self.written_at.append(time.monotonic())  # the feeder writes it next, microseconds later
        return chunk


def marking_capture(*args, **kwargs):
    """A ``Capture`` noting when each callback block holding a click arrived."""
    from trainer.dataset.recording.capture import Capture

    class Marking(Capture):
        def __init__(self, *a, **k) -> None:
            super().__init__(*a, **k)
            self.seen_at: list[float] = []

        def _callback(self, indata, frames, when, status) -> None:
            super()._callback(indata, frames, when, status)
            if np.max(np.abs(indata)) > SEEN:
                self.seen_at.append(time.monotonic())

    return Marking(*args, **kwargs)


def marked(audio: np.ndarray) -> np.ndarray:
    """``audio`` (float32 at 48 kHz) with a click every ``CLICK_EVERY_S``."""
    out = audio.copy()
    for start in range(microphone.RATE // 4, len(out) - 48, round(CLICK_EVERY_S * microphone.RATE)):
        out[start : start + 48] = CLICK
    return out


def speech(seconds: float) -> np.ndarray:
    """The target voice's recordings back to back, resampled to 48 kHz, peaks at ``SPEECH_PEAK``."""
    import soundfile
    import soxr

    folder = ROOT.parent / "shared" / "corpus" / "target-voice" / "wavs"
    pieces, total = [], 0
    for path in sorted(folder.glob("*.flac")):
        audio, rate = soundfile.read(path, dtype="float32")
        audio = soxr.resample(audio, rate, microphone.RATE).astype(np.float32)
        pieces.append(audio * SPEECH_PEAK / np.max(np.abs(audio)))
        total += len(audio)
        if total >= seconds * microphone.RATE:
            break
    return np.concatenate(pieces)[: round(seconds * microphone.RATE)]


def room(seconds: float) -> np.ndarray:
    rng = np.random.default_rng(1)
    return rng.normal(0.0, microphone.NOISE_RMS, round(seconds * microphone.RATE)).astype(np.float32)


def thread_cpu() -> dict[str, float]:
    """CPU seconds (user+sys) of each of this process's threads, by ``tid:name``."""
    out = {}
    for task in Path("/proc/self/task").iterdir():
        try:
            stat = (task / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        out[f"{task.name}:{name}"] = (int(fields[11]) + int(fields[12])) / TICKS
    return out


class Phase:
    """CPU and wall time over one phase, split by thread."""

    def __enter__(self) -> Phase:
        self.wall, self.cpu, self.threads = time.monotonic(), time.process_time(), thread_cpu()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.monotonic() - self.wall
        self.cpu = time.process_time() - self.cpu
        after = thread_cpu()
        self.threads = {k: v - self.threads.get(k, 0.0) for k, v in after.items()}

    def part(self, tid: int | None) -> float:
        """CPU seconds of thread ``tid``."""
        return sum(v for k, v in self.threads.items() if tid is not None and k.startswith(f"{tid}:"))


def latencies(written: list[float], seen: list[float]) -> tuple[list[float], int]:
    """Seconds from each click's FIFO write to the first ``seen`` time within ``CLICK_EVERY_S`` after it, and how
    many clicks were never seen (a meter that polled too late for the 50 ms window it measures)."""
    out, missed = [], 0
    for at in written:
        after = [s - at for s in seen if 0.0 <= s - at < CLICK_EVERY_S]
        if after:
            out.append(min(after))
        else:
            missed += 1
    return out, missed


def run_phase(booth, mic, audio, seconds, wait, meter_seen: list[float]):
    """Say ``audio`` and wait ``seconds`` with ``wait``; returns (Phase, ring latencies, meter latencies)."""
    start, ring_start, meter_start = len(mic.written_at), len(booth.capture.seen_at), len(meter_seen)
    with Phase() as phase:
        mic.say(audio)
        wait(seconds)
    ended = time.monotonic() - 0.1  # a click written in the last 0.1 s may be seen after the phase: not counted
    written = [at for at in mic.written_at[start:] if at < ended]
    return phase, latencies(written, booth.capture.seen_at[ring_start:]), latencies(written, meter_seen[meter_start:])


def measure(booth, mic, seconds: float, wait, meter_seen, *, label: str) -> list[dict]:
    """The ``ready`` and ``recording`` phases of an open booth past its room tone."""
    rows = []
    for name, audio in (("ready", marked(room(seconds))), ("recording", marked(speech(seconds)))):
        if name == "recording":
            booth.auto_stop = False
            booth.record()
        phase, ring, meter = run_phase(booth, mic, audio, seconds, wait, meter_seen)
        feeder = phase.part(mic._thread.native_id)
        main = phase.part(os.getpid())
        rows.append(
            dict(
                way=label,
                phase=name,
                cpu=100 * (phase.cpu - feeder) / phase.wall,
                main=100 * main / phase.wall,
                audio=100 * (phase.cpu - feeder - main) / phase.wall,
                feeder=100 * feeder / phase.wall,
                ring=ring[0],
                meter=meter[0],
                missed=meter[1] + ring[1],
                lost=booth.capture.lost,
                threads=phase.threads,
                wall=phase.wall,
            )
        )
        if name == "recording":
            booth.stop()
    return rows


def plain_wait(booth, meter_seen: list[float]):
    """A 33 Hz poll loop (the page's timer without Qt) noting when the meter first reads each click."""

    def wait(seconds: float) -> None:
        end = time.monotonic() + seconds
        tick, above = time.monotonic(), False
        while time.monotonic() < end:
            levels = booth.poll()
            loud = levels.peak_dbfs > 20 * np.log10(SEEN)
            if loud and not above:
                meter_seen.append(time.monotonic())
            above = loud
            tick += 0.030
            time.sleep(max(0.0, tick - time.monotonic()))

    return wait


def until_ready(booth, poll) -> None:
    from trainer.dataset.recording.booth import READY

    end = time.monotonic() + 15
    while booth.phase != READY:
        assert time.monotonic() < end, "the room tone never ended"
        poll()
        time.sleep(0.03)


def qt_free(project, mic, seconds: float) -> tuple[list[dict], float | None]:
    from trainer.dataset.recording.booth import Booth

    booth = Booth(project, ["One line to read."], marking_capture(microphone.DEVICE, microphone.RATE))
    booth.open()
    try:
        until_ready(booth, booth.poll)
        seen: list[float] = []
        reported = booth.capture._stream.latency
        return measure(booth, mic, seconds, plain_wait(booth, seen), seen, label="booth"), reported
    finally:
        booth.close()


def with_tab(project, mic, seconds: float) -> tuple[list[dict], float]:
    """The same through the Record tab: its timer polls, its meter paints (offscreen)."""
    from PySide6.QtCore import QEvent, QEventLoop, QObject, QTimer
    from PySide6.QtWidgets import QApplication

    import studio.pages.dataset_record as record
    from trainer.dataset.recording.booth import Booth

    app = QApplication.instance() or QApplication([])
    record.make_booth = lambda project, prompts, device, rate: Booth(project, prompts, marking_capture(device, rate))
    tab = record.RecordTab(lambda: project)
    tab.resize(1000, 600)
    tab.show()
    tab.list_devices()
    tab.devices.setCurrentIndex(tab.devices.findData(microphone.DEVICE))
    tab.rates.setCurrentIndex(tab.rates.findData(microphone.RATE))
    seen: list[float] = []
    paints = [0]

    class Painted(QObject):
        above = False

        def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt override
            if event.type() == QEvent.Type.Paint:
                paints[0] += 1
                loud = tab.meter.levels.peak_dbfs > 20 * np.log10(SEEN)
                if loud and not self.above:
                    seen.append(time.monotonic())
                self.above = loud
            return False

    painted = Painted()
    tab.meter.installEventFilter(painted)

    def wait(seconds: float) -> None:
        loop = QEventLoop()
        QTimer.singleShot(round(seconds * 1000), loop.quit)
        loop.exec()

    tab._open(project, ["One line to read."], ["recorded: nothing yet"])
    assert tab.booth is not None, tab.status.text()
    try:
        until_ready(tab.booth, app.processEvents)
        before = paints[0]
        rows = measure(tab.booth, mic, seconds, wait, seen, label="booth + tab")
        fps = (paints[0] - before) / sum(r["wall"] for r in rows)
        for row in rows:
            row["fps"] = fps
        return rows, tab.booth.capture._stream.latency
    finally:
        tab.close_booth()
        tab.close()
        app.processEvents()


def ms(values: list[float], q: float) -> str:
    if not values:
        return "-"
    return f"{1000 * float(np.quantile(values, q)):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=15.0, help="seconds per phase")
    parser.add_argument("--threads", action="store_true", help="print every thread's CPU per phase")
    args = parser.parse_args()
    if not microphone.SYSTEM_CONF.exists():
        sys.exit("needs ALSA (/usr/share/alsa/alsa.conf)")
    microphone.Microphone = MarkingMicrophone  # listed_microphone makes ours
    from trainer.dataset.project import DatasetProject
    from trainer.dataset.recording.capture import BLOCK

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = os.environ["XDG_DATA_HOME"] = tmp
        with microphone.listed_microphone(Path(tmp)) as mic:
            project = DatasetProject.create(Path(tmp) / "project")
            rows, reported = qt_free(project, mic, args.seconds)
            tab_rows, tab_reported = with_tab(project, mic, args.seconds)
    print(f"load average {os.getloadavg()[0]:.2f}; {args.seconds:.0f} s a phase; block {BLOCK} frames at 48 kHz")
    print(f"PortAudio's reported input latency: {1000 * reported:.1f} ms (booth), {1000 * tab_reported:.1f} ms (tab)")
    print()
    print("| way | phase | CPU, % of a core | main thread | other threads | meter fps | click → ring, ms | "
          "click → meter, ms | clicks missed | frames lost |")  # fmt: skip
    print("|---|---|---:|---:|---:|---:|---|---|---:|---:|")
    for row in rows + tab_rows:
        fps = f"{row['fps']:.0f}" if "fps" in row else "-"
        print(
            f"| {row['way']} | {row['phase']} | {row['cpu']:.1f} | {row['main']:.1f} | {row['audio']:.1f} | {fps} | "
            f"{ms(row['ring'], 0.5)} (p95 {ms(row['ring'], 0.95)}, n={len(row['ring'])}) | "
            f"{ms(row['meter'], 0.5)} (p95 {ms(row['meter'], 0.95)}, n={len(row['meter'])}) | "
            f"{row['missed']} | {row['lost']} |"
        )
    feeder = statistics.mean(r["feeder"] for r in rows + tab_rows)
    print(f"\n(the FIFO feeder thread, left out above: {feeder:.1f}% of a core)")
    if args.threads:
        for row in rows + tab_rows:
            busy = {k: round(100 * v / row["wall"], 1) for k, v in row["threads"].items() if v}
            print(row["way"], row["phase"], busy)


if __name__ == "__main__":
    main()
