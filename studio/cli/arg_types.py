"""Argparse ``type=`` helpers that check a numeric option's range while parsing, before any work.

A value out of range is argparse's usual error, which names the option and exits 2:
``voice-studio dataset fix: error: argument --rate: 12345 is not a supported sample rate; ...``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

SAMPLE_RATES = (8000, 11025, 16000, 22050, 24000, 32000, 44100, 48000)
"""Sample rates (Hz) a dataset may be resampled, exported or cached at: the usual rates soxr converts
between and Piper voices are made at (Piper's qualities use 16000 and 22050)."""
SAMPLE_RATES_TEXT = ", ".join(str(r) for r in SAMPLE_RATES)
"""``SAMPLE_RATES`` as help and error text."""


def bounded(kind: type, low: float | None = None, high: float | None = None, *, above: bool = False) -> Callable:
    """An argparse type: ``kind(text)`` within ``[low, high]`` (``above``: strictly more than ``low``).

    Raises (from the returned function):
        argparse.ArgumentTypeError: not a ``kind``, or out of range (argparse names the option).
    """

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if value != value or (low is not None and (value <= low if above else value < low)):  # NaN too
            raise argparse.ArgumentTypeError(f"{text} is out of range: {_range_text(low, high, above)}")
        if high is not None and value > high:
            raise argparse.ArgumentTypeError(f"{text} is out of range: {_range_text(low, high, above)}")
        return value

    parse.__name__ = kind.__name__  # argparse's fallback wording: "invalid int value"
    return parse


def _range_text(low: float | None, high: float | None, above: bool) -> str:
    if low is None:
        return f"at most {high:g}"
    start = f"more than {low:g}" if above else f"at least {low:g}"
    return start if high is None else f"{start} and at most {high:g}"


positive_int = bounded(int, 1)
"""An integer >= 1 (counts of epochs, workers, characters...)."""
non_negative_int = bounded(int, 0)
"""An integer >= 0."""
positive_float = bounded(float, 0, above=True)
"""A number > 0 (seconds, scales)."""
non_negative_float = bounded(float, 0)
"""A number >= 0."""
port = bounded(int, 0, 65535)
"""A TCP port, 0 (pick a free one) to 65535."""


def sample_rate(text: str) -> int:
    """An argparse type: one of ``SAMPLE_RATES`` (Hz).

    Raises:
        argparse.ArgumentTypeError: anything else (argparse names the option).
    """
    if not text.isdigit() or int(text) not in SAMPLE_RATES:
        raise argparse.ArgumentTypeError(f"{text} is not a supported sample rate; use one of {SAMPLE_RATES_TEXT} Hz")
    return int(text)
