"""Predicted speech quality without a reference: DNSMOS P.835.

DNSMOS P.835 (Reddy, Gopal and Cutler, ICASSP 2022, "DNSMOS P.835: A Non-Intrusive Perceptual Objective
Speech Quality Metric to Evaluate Noise Suppressors") predicts the three ITU-T P.835 ratings on a 1-5 scale:
SIG (the speech itself), BAK (the background) and OVRL (overall). The ONNX model is the one Microsoft ships
in the ``speechmos`` wheel (``speechmos/dnsmos_models/sig_bak_ovr.onnx``, the ``compare`` extra); we run it
through our own onnxruntime session (one per process, made at first use) and take from
``speechmos/dnsmos.py`` (the same as ``DNSMOS/dnsmos_local.py`` of microsoft/DNS-Challenge) only the input
framing and the polynomial fit below.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from engines.imports import importing
from trainer.evaluate.measures import MeasureError, MeasureUnavailable

RATE = 16000
"""Hz: the model's input rate (``speechmos.dnsmos.SR``)."""
INPUT_SECONDS = 9.01
"""Seconds per model input (``speechmos.dnsmos.INPUT_LENGTH``): 144,160 samples; shorter clips are repeated
to this length, longer ones scored in windows ``HOP_SECONDS`` apart and averaged."""
HOP_SECONDS = 1.0
"""Seconds between windows (``speechmos.dnsmos``: ``hop_len_samples = fs``)."""
POLYFIT = {
    "sig": (-0.08397278, 1.22083953, 0.0052439),
    "bak": (-0.13166888, 1.60915514, -0.39604546),
    "ovrl": (-0.06766283, 1.11546468, 0.04602535),
}
"""Quadratic maps (highest power first, ``numpy.poly1d``) from the model's raw outputs to MOS, the
non-personalised ones of ``speechmos.dnsmos.DNSMOS.get_polyfit_val`` (``is_personalized_MOS=False``)."""
MISSING = "DNSMOS needs speechmos: pip install speechmos"
"""Why quality is not measured where ``speechmos`` is not installed."""

_session: Any = None
_lock = threading.Lock()


@dataclass(frozen=True, kw_only=True)
class Dnsmos:
    """DNSMOS P.835 ratings, mean opinion scores from 1 (bad) to 5 (excellent).

    Attributes:
        sig: speech signal quality. bak: background (noise) quality. ovrl: overall quality.
    """

    sig: float
    bak: float
    ovrl: float


def model_path() -> Path:
    """The DNSMOS P.835 ONNX model in the installed ``speechmos`` package. Raises MeasureUnavailable."""
    import importlib.util

    spec = importlib.util.find_spec("speechmos")  # the path only: speechmos.dnsmos imports librosa and requests
    if spec is None or not spec.submodule_search_locations:
        raise MeasureUnavailable(MISSING)
    path = Path(next(iter(spec.submodule_search_locations))) / "dnsmos_models" / "sig_bak_ovr.onnx"
    if not path.is_file():
        raise MeasureUnavailable(f"{path}: the DNSMOS model is missing; reinstall speechmos")
    return path


def _model():
    """The process's one onnxruntime session of the model (CPU; options from ``engines.onnx.session``)."""
    global _session
    with _lock:
        if _session is None:
            with importing("onnxruntime"):
                import onnxruntime

            from engines.onnx.session import session_options

            _session = onnxruntime.InferenceSession(
                str(model_path()), sess_options=session_options(), providers=["CPUExecutionProvider"]
            )
        return _session


def _windows(audio: np.ndarray) -> np.ndarray:
    """float32 ``[N]`` at ``RATE`` -> the model's inputs ``[W, 144160]`` (framing of ``speechmos.dnsmos``)."""
    length = int(INPUT_SECONDS * RATE)
    while audio.size < length:  # short clips are repeated, as speechmos does
        audio = np.concatenate([audio, audio])
    count = int(np.floor(audio.size / RATE) - INPUT_SECONDS) + 1
    hop = int(HOP_SECONDS * RATE)
    windows = [audio[i * hop : i * hop + length] for i in range(count)]
    return np.stack([w for w in windows if w.size == length]).astype(np.float32)


def dnsmos(audio: np.ndarray, rate: int) -> Dnsmos:
    """DNSMOS P.835 of a clip (float ``[N]`` mono at ``rate`` Hz, resampled to 16 kHz with soxr, clipped to [-1, 1]).

    Raises:
        MeasureError: the clip is empty or silent.
        MeasureUnavailable: speechmos is not installed.
    """
    with importing("soxr"):
        import soxr

    samples = np.asarray(audio, dtype=np.float32).reshape(-1)
    if not np.any(samples):
        raise MeasureError(f"DNSMOS: the audio is empty or silent ({samples.size} samples)")
    session = _model()
    if rate != RATE:
        samples = soxr.resample(samples, rate, RATE, quality="HQ")
    windows = _windows(np.clip(samples, -1.0, 1.0))
    raw = np.concatenate([session.run(None, {"input_1": w[None, :]})[0] for w in windows])  # [W, 3]
    sig, bak, ovrl = (float(np.mean(np.poly1d(POLYFIT[k])(raw[:, i]))) for i, k in enumerate(("sig", "bak", "ovrl")))
    return Dnsmos(sig=sig, bak=bak, ovrl=ovrl)
