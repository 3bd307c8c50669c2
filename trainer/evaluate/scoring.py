"""Scoring the renders of one leaderboard: what is loaded once and shared between them.

A :class:`Scorer` serves each render's measures from the cache (``trainer.evaluate.scores``) or measures them,
loading only what a cache miss needs, once: a line's reference recording, a candidate's phonemizer, the
speech recognizer. Speaker similarity compares the renders' embeddings with the references' (cached in
``<cache>/references/``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from trainer.evaluate.lines import Line
from trainer.evaluate.measures import MeasureError
from trainer.evaluate.render import Candidate, Rendered, file_sha256
from trainer.evaluate.scores import (
    Clip,
    Scores,
    cached,
    heard_path,
    heard_scores,
    reference_path,
    render_scores,
    score_path,
)

NO_REFERENCE = "no line has a reference recording (use held-out clips or an LJSpeech metadata.csv)"


class Scorer:
    """Measures renders of ``lines`` against their references, caching under ``cache_dir``; ``language`` (the
    voices' espeak-ng voice, ``en-us``) chooses the WER recognizer and text normalization.

    Attributes:
        hits: renders whose scores came from the cache; computed: renders measured now.
    """

    def __init__(self, lines: list[Line], cache_dir: Path, language: str = "en") -> None:
        self.lines, self.cache_dir, self.language = lines, Path(cache_dir), language
        self.hits = self.computed = 0
        self._references: dict[int, Clip] = {}
        self._phonemizers: dict[Path, Any] = {}
        self._recognizer: Any = None

    def render_scores(self, candidate: Candidate, index: int, rendered: Rendered) -> Scores:
        """The measures of ``rendered`` (line ``index`` spoken by ``candidate``), cached beside its audio.

        Raises:
            OSError: the cache cannot be written.
        """
        line = self.lines[index]
        path = score_path(rendered.path, self._reference_sha(index), line.text)
        return self._served(path, lambda: self._measure(candidate, index, rendered))

    def similarity(self, per_line: list[Scores]) -> tuple[float | None, str | None]:
        """Cosine of the mean embedding of the renders (``per_line``) and of every reference, or None and why."""
        from trainer.evaluate.similarity import cosine, mean_embedding

        with_reference = [i for i, line in enumerate(self.lines) if line.reference is not None]
        if not with_reference:
            return None, NO_REFERENCE
        synthesized = [np.asarray(s.values["embedding"]) for s in per_line if "embedding" in s.values]
        references = [self._reference_embedding(i) for i in with_reference]
        found = [r.values["embedding"] for r in references if "embedding" in r.values]
        if not synthesized or not found:
            failed = [s for s in per_line if "embedding" not in s.values] + references
            return None, _reason(failed[0], "embedding")
        return cosine(mean_embedding(synthesized), mean_embedding([np.asarray(e) for e in found])), None

    def recording_scores(self, index: int) -> Scores | None:
        """Line ``index``'s recording heard as a render is (``scores.heard_scores``: DNSMOS, WER), cached under
        ``<cache>/references/``; ``None`` where the line has no recording. One that cannot be read is its error.

        Raises:
            OSError: the cache cannot be written.
        """
        line = self.lines[index]
        if line.reference is None:
            return None

        def measure() -> Scores:
            try:
                clip = self._checked_reference(index)
            except MeasureError as exc:
                names = ("dnsmos_sig", "dnsmos_bak", "dnsmos_ovrl", "wer")
                return Scores(errors=dict.fromkeys(names, str(exc)))
            return heard_scores(clip, line.text, self._recognizer_of, self.language)

        sha = self._reference_sha(index) or ""
        return self._served(heard_path(self.cache_dir, sha, line.text, self.language), measure)

    def _served(self, path: Path, measure: Callable[[], Scores]) -> Scores:
        """The scores cached at ``path``, else ``measure()``'s (cached there), counted in :attr:`hits` or
        :attr:`computed`."""
        scores, hit = cached(path, measure)
        self.hits, self.computed = self.hits + hit, self.computed + (not hit)
        return scores

    def _reference_sha(self, index: int) -> str | None:
        reference = self.lines[index].reference
        if reference is None:
            return None
        try:
            return file_sha256(reference)
        except OSError:
            return f"unreadable:{reference}"  # measured as an error (not cached under a real digest)

    def _reference(self, index: int) -> Clip | None:
        """Line ``index``'s reference recording, read once. Raises MeasureError when it cannot be read."""
        if self.lines[index].reference is None:
            return None
        if index not in self._references:
            try:
                clip = self.lines[index].reference_audio()
            except (ValueError, OSError) as exc:  # ClipError is a ValueError
                raise MeasureError(f"reference {self.lines[index].reference}: {exc}") from None
            assert clip is not None
            self._references[index] = clip
        return self._references[index]

    def _reference_embedding(self, index: int) -> Scores:
        from trainer.evaluate.similarity import utterance_embedding

        def measure() -> Scores:
            scores = Scores()
            scores.measure(("embedding",), lambda: utterance_embedding(*self._checked_reference(index)).tolist())
            return scores

        sha = self._reference_sha(index) or ""
        return cached(reference_path(self.cache_dir, sha), measure)[0]

    def _checked_reference(self, index: int) -> Clip:
        clip = self._reference(index)
        assert clip is not None
        return clip

    def _measure(self, candidate: Candidate, index: int, rendered: Rendered) -> Scores:
        """Measure one render now (the cache had none)."""
        from trainer.evaluate.measures import phoneme_rate

        line, phonemizer = self.lines[index], self._phonemizer(candidate)
        clip = (rendered.audio, rendered.sample_rate)
        try:
            reference, failure = self._reference(index), None
        except MeasureError as exc:
            reference, failure = None, str(exc)
        scores = render_scores(clip, line.text, reference, phonemizer, self._recognizer_of, self.language)
        if reference is not None:
            scores.measure(("reference_rate_pps",), lambda: phoneme_rate(phonemizer, line.text, *reference))
        elif failure is not None:
            scores.errors.update(dict.fromkeys(("mcd_db", "f0_rmse_hz", "f0_gap_hz", "reference_rate_pps"), failure))
        return scores

    def _phonemizer(self, candidate: Candidate):
        """The candidate's phonemizer (its voice's espeak-ng voice and lexicon), made once per model."""
        from engines.frontend.lexicon import voice_lexicon
        from engines.phonemes import Phonemizer

        if candidate.model_path not in self._phonemizers:
            voice = candidate.voice()
            self._phonemizers[candidate.model_path] = Phonemizer(voice.config, voice_lexicon(voice.model_path))
        return self._phonemizers[candidate.model_path]

    def _recognizer_of(self) -> Any:
        """The WER recognizer (``measures.wer_recognizer``: Whisper, else PocketSphinx), loaded once per process.

        Raises:
            MeasureUnavailable: none is installed, or none knows the voice's language.
        """
        from trainer.evaluate.measures import wer_recognizer

        if self._recognizer is None:
            self._recognizer = wer_recognizer(self.language)
        return self._recognizer


def _reason(scores: Scores, name: str) -> str:
    return scores.errors.get(name) or scores.unavailable.get(name) or "not measured"
