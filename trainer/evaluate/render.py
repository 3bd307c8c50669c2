"""Rendering lines by candidates under identical noise, cached on disk.

A render's cache key is the SHA-256 of (cache format version, the model file's SHA-256, its config's SHA-256
where one exists, the engine, the cleaned text, the text front end's version (``engines.frontend.VERSION``: what
the text is said as), the voice's lexicon's digest where it has one, the settings); the audio is a float32
WAV named by the key, written atomically. Noise is identical between candidates: with noise on, each render starts from
``settings.seed`` (torch: ``torch.manual_seed`` inside ``torch.random.fork_rng``, so the caller's generator is
untouched; ONNX: a fresh engine whose graph's random nodes carry the seed, see
``engines.onnx.engine.seed_random_ops``); with ``noise_scale = noise_w = 0`` there is no noise and the seed
is left out of the key.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from engines import frontend
from engines.base import Engine, EngineError, SynthesisOptions, VoiceError
from engines.cleaning import clean_text
from engines.errors import VoiceStudioError
from engines.files import atomic_path, sha256_file
from engines.frontend import markup
from engines.frontend.lexicon import voice_lexicon
from engines.imports import importing
from engines.pool import EnginePool
from engines.voice import Voice, config_path_for
from trainer.tasks import Cancelled, TaskState

CACHE_VERSION = 3  # 2: ONNX seeds are seed + 1 (seed 0 had given seed 1's noise); 3: steady chunks
"""Bump when the cached audio of the same key would change (engine output, file format)."""

ENGINE_BY_SUFFIX = {".ckpt": "torch", ".onnx": "onnx"}


def default_cache_dir() -> Path:
    """``<user data>/compare/cache``: the render cache (and the scores beside the renders) that the Compare page,
    ``voice-studio compare``, the Train page's leaderboard row and the canary evaluations during training share,
    so a render made by one is found by the others."""
    from engines.registry import user_data_dir

    return user_data_dir() / "compare" / "cache"


class RenderError(VoiceStudioError, ValueError):
    """A candidate cannot be rendered (unknown model kind, nothing to speak)."""


@dataclass(frozen=True, kw_only=True)
class Candidate:
    """One model to compare.

    Attributes:
        label: the name shown for it (hidden in blind tests).
        model_path: a ``.ckpt`` checkpoint (torch engine) or a ``.onnx`` voice with its ``.onnx.json`` (ONNX).

    Raises:
        RenderError: the file is neither ``.ckpt`` nor ``.onnx``.
    """

    label: str
    model_path: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "model_path", Path(self.model_path))
        if self.model_path.suffix.lower() not in ENGINE_BY_SUFFIX:
            raise RenderError(f"{self.model_path}: a candidate is a .ckpt checkpoint or an .onnx voice")

    @property
    def engine(self) -> str:
        """The engine name that speaks it: ``torch`` for ``.ckpt``, ``onnx`` for ``.onnx``."""
        return ENGINE_BY_SUFFIX[self.model_path.suffix.lower()]

    def voice(self) -> Voice:
        """The candidate as a voice (a checkpoint's config comes from its hyper-parameters or a JSON beside it).

        Raises:
            VoiceError: the model or its config is missing or invalid.
        """
        from engines.registry import find_voice

        return find_voice(self.model_path)


@dataclass(frozen=True, kw_only=True)
class RenderSettings:
    """Synthesis settings shared by every candidate; ``None`` takes each voice's own default.

    Attributes:
        noise_scale, noise_w, length_scale, speaker: as ``engines.base.SynthesisOptions``.
        seed: the noise seed; ignored (and left out of the cache key) when noise is off.
    """

    noise_scale: float | None = None
    noise_w: float | None = None
    length_scale: float | None = None
    speaker: str | int | None = None
    seed: int = 0

    @classmethod
    def noiseless(cls, **kwargs) -> RenderSettings:
        """Settings with "noise 0": ``noise_scale = noise_w = 0`` (the same audio whatever the seed)."""
        return cls(noise_scale=0.0, noise_w=0.0, **kwargs)

    @property
    def noisy(self) -> bool:
        """Whether synthesis draws noise (anything but ``noise_scale = noise_w = 0``)."""
        return not (self.noise_scale == 0 and self.noise_w == 0)

    def options(self) -> SynthesisOptions:
        """The engine options of these settings."""
        return SynthesisOptions(
            speaker=self.speaker,
            length_scale=self.length_scale,
            noise_scale=self.noise_scale,
            noise_w=self.noise_w,
            steady=True,  # what is measured must not depend on how busy the machine was
        )

    def key_fields(self) -> dict:
        """What the cache key takes from the settings (no seed when noise is off)."""
        fields = asdict(self)
        if not self.noisy:
            fields["seed"] = None
        return fields


@dataclass(frozen=True, kw_only=True)
class Rendered:
    """One line rendered by one candidate.

    Attributes:
        audio: mono float32 samples in [-1, 1], shape ``[N]``.
        sample_rate: Hz (the voice's ``sample_rate``).
        path: the cache file (float32 WAV).
        cached: True when read back from the cache, False when synthesized now.
    """

    audio: np.ndarray
    sample_rate: int
    path: Path
    cached: bool


_HASHES: dict[tuple[Path, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """Hex SHA-256 of a file's bytes, remembered per (path, size, mtime) in this process. Raises ``OSError``."""
    path = Path(path).absolute()
    stat = path.stat()
    memo = (path, stat.st_size, stat.st_mtime_ns)
    if memo not in _HASHES:
        _HASHES[memo] = sha256_file(path)
    return _HASHES[memo]


def cache_key(candidate: Candidate, text: str, settings: RenderSettings) -> str:
    """Hex SHA-256 naming the render of ``text`` by ``candidate`` under ``settings``; the voice's lexicon's digest
    is in it where the voice has one (``engines.frontend.lexicon``). Raises ``OSError``, ``LexiconError``."""
    fields = {
        "version": CACHE_VERSION,
        "model": file_sha256(candidate.model_path),
        "config": _config_sha256(candidate.model_path),
        "engine": candidate.engine,
        "text": clean_text(text),
        "frontend": frontend.VERSION,
        "settings": settings.key_fields(),
    }
    lexicon = voice_lexicon(candidate.model_path)
    if lexicon:  # a voice without one keeps the key renders made before lexicons had
        fields["lexicon"] = lexicon.digest
    if markup.has_markup(text):  # read as markup since markup.VERSION (before it, its tags were read aloud)
        fields["markup"] = markup.VERSION
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _config_sha256(model_path: Path) -> str | None:
    """SHA-256 of the JSON config beside a model, or ``None`` when it has none (a checkpoint's own hyper-parameters)."""
    try:
        return file_sha256(config_path_for(model_path))
    except VoiceError:
        return None


def render(
    candidate: Candidate,
    text: str,
    settings: RenderSettings,
    cache_dir: Path,
    pool: EnginePool | None = None,
    state: TaskState | None = None,
) -> Rendered:
    """``text`` spoken by ``candidate``: read from ``cache_dir`` when rendered before, else synthesized and cached.

    A cache file that cannot be read is replaced by a new render. With noise on, a torch render seeds the
    process-wide torch generator (inside ``fork_rng``), so two torch renders must not run at once.

    Raises:
        RenderError: the text has nothing to speak.
        VoiceError, EngineError: the candidate cannot be loaded or spoken.
        Cancelled: ``state`` was cancelled during synthesis (nothing is cached).
    """
    with importing("soundfile"):
        import soundfile

    path = Path(cache_dir) / f"{cache_key(candidate, text, settings)}.wav"
    if path.is_file():
        try:
            audio, rate = soundfile.read(path, dtype="float32")
            return Rendered(audio=audio, sample_rate=rate, path=path, cached=True)
        except soundfile.LibsndfileError:  # damaged from outside (writes are atomic): render it again
            pass
    voice = candidate.voice()
    audio = _synthesize(candidate, voice, clean_text(text), settings, pool or EnginePool(), state)
    if audio.size == 0:
        raise RenderError(f"{candidate.label}: nothing to speak in {text!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(path) as tmp:
        soundfile.write(tmp, audio, voice.config.sample_rate, subtype="FLOAT", format="WAV")
    return Rendered(audio=audio, sample_rate=voice.config.sample_rate, path=path, cached=False)


def _synthesize(candidate, voice, text, settings, pool, state) -> np.ndarray:
    options = settings.options()
    if not settings.noisy:
        return _speak(pool.get(candidate.engine, voice), text, options, state)
    if candidate.engine == "onnx":  # a new engine: its graph's noise starts at the seed
        return _speak(pool.seeded("onnx", voice, settings.seed), text, options, state)
    with importing("torch"):
        import torch

    with torch.random.fork_rng():  # loading the engine draws too (weight init before the checkpoint's weights)
        engine = pool.get(candidate.engine, voice)
        torch.manual_seed(settings.seed)
        return _speak(engine, text, options, state)


def _speak(engine: Engine, text: str, options: SynthesisOptions, state: TaskState | None) -> np.ndarray:
    """The whole request's samples (silence chunks included), float32 ``[N]``."""
    chunks = [chunk.audio for chunk in engine.synthesize(text, options, cancel=state)]
    if state is not None and state.is_cancelled():
        raise Cancelled("render cancelled; nothing kept")
    return np.concatenate(chunks).astype(np.float32) if chunks else np.zeros(0, np.float32)


def render_all(
    candidates: list[Candidate],
    lines: list[str],
    settings: RenderSettings,
    cache_dir: Path,
    state: TaskState | None = None,
    pool: EnginePool | None = None,
    *,
    failed: dict[str, str] | None = None,
) -> dict[tuple[str, int], Rendered]:
    """Every line by every candidate, by ``(candidate label, line index)``; reports ``state.progress(done, total)``
    (``total`` = candidates x lines; a failed candidate's lines count as done).

    Args:
        failed: when given, a candidate that cannot be loaded or spoken (``VoiceError``/``EngineError``) does not
            stop the others: its reason (one line, naming the file) is put in ``failed[label]`` and none of its
            lines is in the result. When ``None``, that error is raised.

    Raises:
        Cancelled: ``state`` was cancelled; ``partial`` holds the finished renders (all cached on disk).
        RenderError: two candidates share a label; or as :func:`render`.
        VoiceError, EngineError: as :func:`render` (only without ``failed``).
    """
    if len({c.label for c in candidates}) < len(candidates):
        raise RenderError("candidates need distinct labels")
    state = TaskState.of(state)
    pool = pool or EnginePool()
    done: dict[tuple[str, int], Rendered] = {}
    total = len(candidates) * len(lines)
    state.progress(0, total)
    for number, candidate in enumerate(candidates):
        try:
            _render_lines(candidate, lines, settings, cache_dir, pool, state, done, number * len(lines), total)
        except (VoiceError, EngineError) as exc:
            if failed is None:
                raise
            failed[candidate.label] = str(exc)
            state.progress((number + 1) * len(lines), total)
    return done


def _render_lines(candidate, lines, settings, cache_dir, pool, state, done, before: int, total: int) -> None:
    """One candidate's renders into ``done``; progress counts from ``before`` (the lines of earlier candidates)."""
    for index, line in enumerate(lines):
        try:
            if state.is_cancelled():
                raise Cancelled("cancelled before this render")
            done[(candidate.label, index)] = render(candidate, line, settings, cache_dir, pool, state)
        except Cancelled as exc:
            message = f"rendering cancelled: kept {len(done)} of {total}"
            raise Cancelled(message, done=len(done), total=total, partial=done) from exc
        state.progress(before + index + 1, total)
