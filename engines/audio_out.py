"""Where synthesized audio is written: a regular file, or a stream written as the audio is produced.

A regular path (or a new one) gets the whole audio at the end, atomically
(``engines.audio.write_audio``; a symlink keeps pointing at the file it names).
Standard output (``-``), a named pipe (FIFO) and a character device
(``/dev/null``, ``/dev/stdout``, a sound device node) cannot be replaced or
seeked: they get a stream, opened in place and written chunk by chunk, so a
reader (``aplay``, ``ffplay -``, another program) plays while synthesis goes on.
A stream is 16-bit mono WAV whose RIFF and ``data`` sizes are 0xFFFFFFFF
("unknown", as the speech server streams it, ``engines.server.encode``), or with
``raw`` headerless signed 16-bit little-endian PCM at the voice's sample rate.
FLAC and Ogg Vorbis need the whole audio (their encoders seek back to finish
the header), so they are refused for streams.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import numpy as np

from engines.audio import check_output_path
from engines.server.encode import pcm16, wav_header

STDOUT = "-"
"""The output path that means standard output."""
WHOLE_ONLY = (".flac", ".ogg")
"""Extensions of formats that need the whole audio, refused for streams."""


def is_stream(path: Path | str) -> bool:
    """True for ``-``, an existing FIFO or character device (symlinks followed); False for anything else."""
    if str(path) == STDOUT:
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)


def check_output(path: Path | str, raw: bool = False) -> bool:
    """Check, before any work, that audio can go to ``path``; returns whether it is a stream.

    Raises:
        ValueError: for a stream, a FLAC/Ogg extension, or standard output that is a
            terminal; for a file, ``raw`` or what ``engines.audio.check_output_path`` refuses
            (a folder, a missing folder, an unknown extension).
    """
    if not is_stream(path):
        if raw:
            raise ValueError(f"{path}: --raw is for streams (-o -, a pipe or a device); files are .wav/.flac/.ogg")
        check_output_path(path)
        return False
    if Path(str(path)).suffix.lower() in WHOLE_ONLY:
        raise ValueError(
            f"{path}: a pipe or device is written as it is synthesized, which {Path(str(path)).suffix} cannot be; "
            "it gets WAV (or raw PCM with --raw)"
        )
    if str(path) == STDOUT and sys.stdout.isatty():
        raise ValueError("-o - writes audio to standard output, which is a terminal: pipe it (| aplay) instead")
    return True


class StreamWriter:
    """Writes audio into a stream as it comes: a WAV header with unknown sizes first (unless ``raw``).

    The path is opened at once (so its reader sees the end even when nothing is
    said); the header waits for the first audio, whose sample rate it names.

    Args:
        path: ``-`` (standard output), a FIFO or a character device; opening a FIFO
            waits until a reader opens it.
        raw: headerless s16le PCM instead of WAV.

    Raises:
        OSError: the path cannot be opened, or its reader went away (``write``).
    """

    def __init__(self, path: Path | str, raw: bool = False) -> None:
        self.path = str(path)
        self._own = self.path != STDOUT
        self._file = open(self.path, "wb") if self._own else sys.stdout.buffer  # noqa: SIM115
        self._header_due = not raw

    def write(self, audio: np.ndarray, sample_rate: int) -> None:
        """Append float32 ``[N]`` audio in [-1, 1] at ``sample_rate`` Hz as 16-bit samples, flushed at once."""
        if self._header_due:
            self._send(wav_header(sample_rate, None))
            self._header_due = False
        if len(audio):
            self._send(pcm16(audio))

    def close(self) -> None:
        """Flush, and close what this writer opened (standard output stays open)."""
        try:
            if self._own:
                self._file.close()
            else:
                self._file.flush()
        except BrokenPipeError:  # already reported by write
            pass

    def _send(self, data: bytes) -> None:
        try:
            self._file.write(data)
            self._file.flush()
        except BrokenPipeError as exc:
            if not self._own:  # nothing more can reach stdout; keep Python's exit flush from failing too
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            name = self.path if self._own else "standard output"
            raise BrokenPipeError(f"{name}: the reader closed it; synthesis stopped") from exc
