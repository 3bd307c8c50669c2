"""The recording session a page drives: prompts in order, room tone, record, stop (or auto-stop), check, accept,
retake, skip and back. Qt-free and poll-driven: the page calls :meth:`Booth.poll` from a timer (30 fps or more) and
reads ``phase``, ``levels`` and the take; the capture itself runs in PortAudio's thread (``capture``).

Phases: ``room`` (the first ``ROOM_TONE_S`` seconds measure the noise floor; ``room_doubt`` then says when they held
speech or a room too loud to judge takes by, and :meth:`measure_room` measures again), ``ready``, ``recording``,
``review`` (a take stopped; :meth:`check` it, then :meth:`accept` or :meth:`retake`). Accepting writes the take as
the prompt's curated clip (``takes.write_take``); going back to a prompt and accepting a new take replaces it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from engines.imports import importing
from trainer.dataset.analysis import CLIP_LEVEL
from trainer.dataset.recording.capture import Capture
from trainer.dataset.recording.levels import QUIET, Levels
from trainer.dataset.recording.silence import ROOM_TONE_S, SilenceJudge, noise_floor_dbfs, room_doubt
from trainer.dataset.recording.takes import TakeCheck, check_take, median_pace, write_take
from trainer.dataset.vad import RATE as VAD_RATE

KEEP_AFTER_S = 0.3
"""Seconds of silence kept after the last speech when a take stops itself."""

ROOM, READY, RECORDING, REVIEW = "room", "ready", "recording", "review"


def project_rate(project) -> int:
    """The sample rate, Hz, of the voice a ``DatasetProject`` is for: takes are resampled to it."""
    from engines.voice import load_config

    return load_config(Path(project.target_config)).sample_rate


def _stream(rate_in: int, rate_out: int):
    with importing("soxr"):
        import soxr

    return soxr.ResampleStream(rate_in, rate_out, 1, dtype="float32")


class Booth:
    """A recording session of ``prompts`` into ``project`` (a ``DatasetProject``) from ``capture``.

    ``auto_stop``: a take stops itself after trailing silence (``silence.SilenceJudge``).
    """

    def __init__(self, project, prompts: list[str], capture: Capture, *, auto_stop: bool = True) -> None:
        self.project, self.prompts, self.capture = project, list(prompts), capture
        self.auto_stop = auto_stop
        self.rate = project_rate(project)
        self.index = 0
        self.phase = ROOM
        self.noise_floor_dbfs: float | None = None
        self.room_doubt = ""
        """Why the room tone measured is no floor to judge takes by (``silence.room_doubt``); ``""``: it is one."""
        self.levels: Levels = QUIET
        self.take: np.ndarray | None = None
        """The take in review, float32 ``[N]`` at ``rate`` Hz."""
        self.take_clipped = False
        self._room: list[np.ndarray] = []
        self._room_judge = SilenceJudge(0.0)
        """Silero VAD over the room tone: speech heard in it makes the floor doubtful."""
        self._pieces: list[np.ndarray] = []
        self._judge: SilenceJudge | None = None
        self._to_rate: Any = None
        self._to_vad: Any = None

    @property
    def prompt(self) -> str | None:
        return self.prompts[self.index] if self.index < len(self.prompts) else None

    def open(self) -> None:
        """Start the device; the room tone is measured from its first ``ROOM_TONE_S`` seconds."""
        self.capture.start()
        rate = self.capture.rate
        assert rate is not None  # start() settles it
        self._to_rate = _stream(rate, self.rate)
        self._to_vad = _stream(rate, VAD_RATE)

    def close(self) -> None:
        """Stop the device (a take not accepted is dropped)."""
        self.capture.stop()
        self._to_rate = self._to_vad = None

    def poll(self) -> Levels:
        """Take in what was captured since the last poll; moves room → ready and recording → review (auto-stop)."""
        raw = self.capture.read()
        # a device's samples lie within full scale; soxr's ringing past it on a clipped input is no sound heard
        audio = np.clip(self._to_rate.resample_chunk(raw), -1.0, 1.0) if len(raw) else raw
        if self.phase == ROOM:
            self._room.append(audio)
            self._room_judge.feed(self._to_vad.resample_chunk(raw) if len(raw) else raw)
            if sum(map(len, self._room)) >= ROOM_TONE_S * self.rate:
                self._measured()
        elif self.phase == RECORDING:
            assert self._judge is not None  # record() made it
            self._pieces.append(audio)
            self.take_clipped |= bool(len(raw)) and float(np.max(np.abs(raw))) >= CLIP_LEVEL
            self._judge.feed(self._to_vad.resample_chunk(raw) if len(raw) else raw)
        self.levels = self.capture.levels()
        if self.phase == RECORDING and self.auto_stop and self._judge is not None and self._judge.ended:
            self.stop(trim=True)
        return self.levels

    def _measured(self) -> None:
        """The room tone is in: its noise floor, and whether it can be trusted."""
        self.noise_floor_dbfs = noise_floor_dbfs(np.concatenate(self._room), self.rate)
        self.room_doubt = room_doubt(self.noise_floor_dbfs, self._room_judge.speech_s)
        self.phase, self._room = READY, []

    def measure_room(self) -> None:
        """Measure the room tone again (from ready or review; a take in review is dropped)."""
        if self.phase not in (READY, REVIEW):
            return
        self._room, self._room_judge, self.take = [], SilenceJudge(0.0), None
        self.noise_floor_dbfs, self.room_doubt, self.phase = None, "", ROOM

    def record(self) -> None:
        """Start a take of the current prompt (from ready or review; a take in review is dropped)."""
        if self.phase not in (READY, REVIEW) or self.prompt is None:
            return
        self._pieces, self.take, self.take_clipped = [], None, False
        self._judge = SilenceJudge(self.noise_floor_dbfs if self.noise_floor_dbfs is not None else -90.0)
        self.phase = RECORDING

    def stop(self, *, trim: bool = False) -> None:
        """End the take (``trim``: after ``KEEP_AFTER_S`` past the last speech) and put it in review."""
        if self.phase != RECORDING:
            return
        take = np.concatenate(self._pieces) if self._pieces else np.zeros(0, np.float32)
        end = self._judge.speech_end_s if self._judge is not None else None
        if trim and end is not None:
            take = take[: round((end + KEEP_AFTER_S) * self.rate)]
        self.take, self.phase = take, REVIEW

    def check(self, *, recognizer=None) -> TakeCheck:
        """Check the take in review (``takes.check_take``; seconds with a recognizer: run it off the GUI thread)."""
        assert self.take is not None and self.prompt is not None
        return check_take(
            self.take,
            self.rate,
            self.prompt,
            self.project.target_config,
            recognizer=recognizer,
            median_pace=median_pace(self.project),
        )

    def accept(self, check: TakeCheck):
        """Write the take in review as the prompt's clip and move to the next prompt; returns its ``ClipEntry``."""
        assert self.phase == REVIEW and self.take is not None and self.prompt is not None
        entry = write_take(self.project, self.prompt, self.take, self.rate, check.analysis)
        self.take, self.phase = None, READY
        self.index += 1
        return entry

    def retake(self) -> None:
        """Drop the take in review and record the prompt again."""
        self.record()

    def skip(self) -> None:
        """Go to the next prompt (a take in review is dropped)."""
        self._move(+1)

    def back(self) -> None:
        """Go to the previous prompt (a take accepted for it is replaced by the next one accepted)."""
        self._move(-1)

    def _move(self, step: int) -> None:
        if self.phase == RECORDING:
            self.stop()
        self.index = min(max(0, self.index + step), len(self.prompts))
        self.take = None
        if self.phase == REVIEW:
            self.phase = READY
