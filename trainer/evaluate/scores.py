"""The measures of one render (and of one reference recording), cached on disk as JSON.

A render's scores are kept beside its audio as ``<render key>.<score key>.scores.json``; the score key is
the SHA-256 of (``MEASURES_VERSION``, the reference file's SHA-256 or none, the line's text), and the render
key already names the model, its config, the text and the settings. A reference's own measures are kept in
``<cache>/references/``: its speaker embedding (``<key>.json``) and, for the recordings' row of a leaderboard,
what is heard of it as of a render (``<key>.heard.json``: DNSMOS and WER of its line). Writes are atomic. A measure that
fails on this audio (``MeasureError``) is cached as its error; one whose package is missing
(``MeasureUnavailable``) is not cached, so installing the package later measures it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engines.files import write_text
from trainer.evaluate.measures import MeasureError, MeasureUnavailable

MEASURES_VERSION = 5  # 2: WER no longer depends on the clips transcribed before; 3: Whisper WER on normalized
# text, MCD over the reference's speech frames, F0 error without voicing edges and gross errors; 4: Whisper at
# temperature 0 only (no sampling fallback); 5: WER reads a line's words in parentheses (they were dropped)
"""Bump when any measure would score the same audio differently: cached scores of other versions are ignored."""

Clip = tuple[np.ndarray, int]
"""Mono float32 audio ``[N]`` and its sample rate in Hz."""


@dataclass(kw_only=True)
class Scores:
    """Measures by name (``mcd_db``, ``f0_rmse_hz``, ``dnsmos_ovrl``, ``embedding``...) and, for those that
    failed, why. A value is a float, or a list of floats for ``embedding`` (``[256]``)."""

    values: dict[str, Any] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)
    unavailable: dict[str, str] = field(default_factory=dict)

    def measure(self, names: tuple[str, ...], compute: Callable[[], Any]) -> None:
        """Store ``compute()`` under ``names`` (one value, or a tuple of one per name); record its MeasureError."""
        try:
            result = compute()
        except MeasureUnavailable as exc:
            self.unavailable.update(dict.fromkeys(names, str(exc)))
            return
        except MeasureError as exc:
            self.errors.update(dict.fromkeys(names, str(exc)))
            return
        self.values.update(zip(names, result if len(names) > 1 else (result,), strict=True))

    def to_json(self) -> str:
        """The cached form (what was unavailable is left out)."""
        return json.dumps({"version": MEASURES_VERSION, "values": self.values, "errors": self.errors})

    @classmethod
    def from_json(cls, text: str) -> Scores | None:
        """Scores read back from :meth:`to_json`; None when unreadable or of another ``MEASURES_VERSION``."""
        try:
            document = json.loads(text)
            if document.get("version") != MEASURES_VERSION:
                return None
            return cls(values=dict(document["values"]), errors=dict(document["errors"]))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


def cached(path: Path, compute: Callable[[], Scores]) -> tuple[Scores, bool]:
    """``(scores, True)`` read from ``path``, or ``(compute(), False)`` written there when complete.

    Scores with an unavailable measure are not written (the next call tries again). Raises ``OSError``.
    """
    if path.is_file():
        scores = Scores.from_json(path.read_text(encoding="utf-8"))
        if scores is not None:
            return scores, True
    scores = compute()
    if not scores.unavailable:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text(path, scores.to_json())
    return scores, False


def score_path(render_path: Path, reference_sha: str | None, text: str) -> Path:
    """Where the scores of the render at ``render_path`` against a reference (its SHA-256, or None) are kept."""
    fields = {"version": MEASURES_VERSION, "reference": reference_sha, "text": text}
    key = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]
    return render_path.with_name(f"{render_path.stem}.{key}.scores.json")


def reference_path(cache_dir: Path, reference_sha: str) -> Path:
    """Where a reference recording's own measures (its speaker embedding) are kept."""
    key = hashlib.sha256(json.dumps({"version": MEASURES_VERSION, "reference": reference_sha}).encode()).hexdigest()
    return Path(cache_dir) / "references" / f"{key}.json"


def heard_path(cache_dir: Path, reference_sha: str, text: str, language: str) -> Path:
    """Where a reference recording's DNSMOS and WER (of its line ``text``, normalized for ``language``) are kept."""
    fields = {"version": MEASURES_VERSION, "reference": reference_sha, "text": text, "language": language}
    key = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()
    return Path(cache_dir) / "references" / f"{key}.heard.json"


def heard_scores(clip: Clip, text: str, recognizer: Callable[[], Any], language: str = "en") -> Scores:
    """What is heard of ``clip`` speaking ``text``, whoever spoke it: DNSMOS (``dnsmos_sig``, ``dnsmos_bak``,
    ``dnsmos_ovrl``) and WER (``wer``, ``recognizer``), measured as :func:`render_scores` measures a render, so a
    recording and the renders of its line compare like for like."""
    scores = Scores()
    _heard(scores, clip, text, recognizer, language)
    return scores


def _heard(scores: Scores, clip: Clip, text: str, recognizer: Callable[[], Any], language: str) -> None:
    """Add ``clip``'s DNSMOS and WER to ``scores``."""
    from trainer.evaluate import quality

    audio, rate = clip
    scores.measure(("dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl"), lambda: _dnsmos(quality.dnsmos(audio, rate)))
    scores.measure(("wer", "recognizer"), lambda: _wer(audio, rate, text, recognizer, language))


def render_scores(
    clip: Clip, text: str, reference: Clip | None, phonemizer, recognizer: Callable[[], Any], language: str = "en"
) -> Scores:
    """The measures of a render ``clip`` speaking ``text``: speaker embedding (``[256]`` list), speaking rate by
    ``phonemizer``, DNSMOS, WER (the recognizer made by ``recognizer()``, text normalized for ``language``;
    ``recognizer`` names it, a string) and, with a ``reference``, MCD and F0 error against it."""
    from trainer.evaluate import measures, similarity

    (audio, rate), scores = clip, Scores()
    scores.measure(("embedding",), lambda: similarity.utterance_embedding(audio, rate).tolist())
    scores.measure(("rate_pps",), lambda: measures.phoneme_rate(phonemizer, text, audio, rate))
    _heard(scores, clip, text, recognizer, language)
    if reference is not None:
        _against(scores, reference, clip)
    return scores


def _against(scores: Scores, reference: Clip, clip: Clip) -> None:
    """MCD and F0 error of ``clip`` to ``reference``, from one WORLD analysis and DTW (``measures.align``)."""
    from trainer.evaluate import measures

    try:
        aligned = measures.align(*reference, *clip)
    except MeasureError as exc:
        scores.errors.update(dict.fromkeys(("mcd_db", "f0_rmse_hz", "f0_gap_hz"), str(exc)))
        return
    scores.measure(("mcd_db",), lambda: measures.mcd_of(aligned))
    scores.measure(("f0_rmse_hz", "f0_gap_hz"), lambda: measures.f0_error_of(aligned))


def _dnsmos(result) -> tuple[float, float, float]:
    return result.sig, result.bak, result.ovrl


def _wer(audio: np.ndarray, rate: int, text: str, recognizer: Callable[[], Any], language: str) -> tuple[float, str]:
    """(``measures.word_error_rate`` with the recognizer of ``recognizer()``, that recognizer's name); a missing
    one is unavailable."""
    from trainer.dataset.recognizers import RecognizerError
    from trainer.evaluate import measures

    try:
        chosen = recognizer()
        return measures.word_error_rate(audio, rate, text, chosen, language), measures.recognizer_label(chosen)
    except RecognizerError as exc:
        raise MeasureUnavailable(f"word error rate: {exc}") from None
