"""How uncertain a leaderboard value is: its standard error over the lines it is measured on.

A value that is a mean over lines (MCD, F0, DNSMOS, WER, rate) has the standard error of a mean, ``s / sqrt(n)``
with the sample standard deviation ``s`` (``n - 1`` in its denominator). Speaker similarity is not a mean (the
cosine of the mean embeddings): its standard error is the jackknife's over the renders (Efron & Tibshirani,
*An Introduction to the Bootstrap*, 1993, ch. 11), which for a mean gives ``s / sqrt(n)`` exactly. Fewer than 2
lines have no standard error.
"""

from __future__ import annotations

import math


def standard_error(values: list[float]) -> float | None:
    """``s / sqrt(n)`` of ``values`` (one per line), in their unit; ``None`` for fewer than 2."""
    n = len(values)
    if n < 2:
        return None
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return math.sqrt(variance / n)


def jackknife_error(estimates: list[float]) -> float | None:
    """The jackknife standard error ``sqrt((n - 1) / n * sum((e_i - mean(e))^2))`` from the ``n`` leave-one-out
    estimates ``e_i`` (the value recomputed without line ``i``); ``None`` for fewer than 2."""
    n = len(estimates)
    if n < 2:
        return None
    mean = sum(estimates) / n
    return math.sqrt((n - 1) / n * sum((e - mean) ** 2 for e in estimates))
