"""The recovered training-only parts of an ONNX start (``trainer.start.recovery``), kept between runs.

Recovering them takes a minute or more; a second run of the same dataset from the same
voice asks for exactly the same result. An entry is keyed by everything that changes it
(:class:`RecoveryKey`): the start voice file's SHA-256, the phoneme_ids of the lines
spoken, ``recovery_lines``, ``recovery_steps``, ``recovery_fit_steps``, ``seed``, ``sample_rate``, the device and
precision, and :data:`CACHE_VERSION` (raised whenever the recovery's code changes what
it computes). Entries live in :func:`recovery_cache_dir`, one ``KEY.pt`` each
(``torch.save`` of plain data, read with ``weights_only=True``), written atomically, with a
``KEY.json`` beside it (:class:`EntrySummary`: the voice, budget and held-out KL, read without
torch by the pre-flight); the :data:`KEEP` newest are kept.

``RunOptions.no_recovery_cache`` (``--no-recovery-cache``) recovers again and leaves
the cache alone.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from engines.errors import VoiceStudioError
from engines.imports import importing

CACHE_VERSION = 2
"""Part of every key: raise it when ``trainer.start.recovery`` changes what a recovery computes."""
KEEP = 8
"""Entries kept (the most recently written); about 32 MB each for a medium voice."""


class RecoveryCacheError(VoiceStudioError, ValueError):
    """A cache entry that cannot be read or does not hold what it should (the message names the file)."""


def recovery_cache_dir() -> Path:
    """``cache/recovery`` under the user's data folder (``engines.registry.user_data_dir``), where the other
    caches of the studio live too (e.g. ``compare/cache``)."""
    from engines.registry import user_data_dir

    return user_data_dir() / "cache" / "recovery"


@dataclass(frozen=True, kw_only=True)
class RecoveryKey:
    """Everything a recovery's result depends on.

    Attributes:
        voice_sha256: hex SHA-256 of the start voice's ``.onnx`` file.
        phoneme_ids: the lines the voice speaks, as training phoneme_ids, in order.
        recovery_lines, recovery_steps, recovery_fit_steps, seed, sample_rate: the ``TrainingConfig``'s (Hz
            for the rate).
        device: ``cpu`` or ``cuda``; precision: the run's Lightning precision.
        version: :data:`CACHE_VERSION`.
    """

    voice_sha256: str
    phoneme_ids: list[list[int]]
    recovery_lines: int
    recovery_steps: int
    recovery_fit_steps: int
    seed: int
    sample_rate: int
    device: str
    precision: str
    version: int = CACHE_VERSION

    def digest(self) -> str:
        """Hex SHA-256 of the key's fields (canonical JSON): the entry's file name."""
        text = json.dumps(asdict(self), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, kw_only=True)
class CachedRecovery:
    """A cached result: the recovered parameters (``name -> tensor``, CPU, the ``trainer.start.recovery.TRAINABLE``
    ones), the fit on held-out lines (``kl`` per frame, ``mel_l1``, ``duration_nll``) and ``created`` (Unix
    seconds)."""

    state: dict[str, Any]
    kl: float
    mel_l1: float
    duration_nll: float
    created: float


@dataclass(frozen=True, kw_only=True)
class EntrySummary:
    """What an entry's ``KEY.json`` says, for the pre-flight (no torch, no tensors).

    Attributes:
        voice_sha256: hex SHA-256 of the voice's ``.onnx``.
        budget: ``(recovery_lines, recovery_steps, recovery_fit_steps, version)`` of its key.
        lines: lines the voice spoke; kl: the held-out KL per frame it reached; created: Unix seconds.
    """

    voice_sha256: str
    budget: tuple[int, int, int, int]
    lines: int
    kl: float
    created: float


def budget_of(config, version: int = CACHE_VERSION) -> tuple[int, int, int, int]:
    """``EntrySummary.budget`` of the recovery settings of ``config`` (a ``TrainingConfig`` or a
    :class:`RecoveryKey`, which name them alike) at ``version``."""
    return (config.recovery_lines, config.recovery_steps, config.recovery_fit_steps, version)


def summaries(folder: Path, voice_sha256: str) -> list[EntrySummary]:
    """The summaries in ``folder`` of entries for the voice ``voice_sha256``, newest first; an unreadable or
    foreign ``.json`` is skipped (a summary only informs: the entry itself is checked when read)."""
    found = []
    for path in Path(folder).glob("*.json"):
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            summary = EntrySummary(**{**raw, "budget": tuple(raw["budget"])})
        except (OSError, ValueError, TypeError, KeyError):
            continue
        if summary.voice_sha256 == voice_sha256 and path.with_suffix(".pt").is_file():
            found.append(summary)
    return sorted(found, key=lambda s: s.created, reverse=True)


def entry_path(folder: Path, key: RecoveryKey) -> Path:
    """Where ``key``'s entry lives in ``folder``."""
    return Path(folder) / f"{key.digest()}.pt"


def read_entry(folder: Path, key: RecoveryKey) -> CachedRecovery | None:
    """``key``'s entry in ``folder``; ``None`` when there is none.

    Raises:
        RecoveryCacheError: the file is unreadable, cut, or holds another key or wrong fields (named).
    """
    with importing("torch"):
        import torch

    path = entry_path(folder, key)
    if not path.is_file():
        return None
    try:
        raw = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - any unreadable file (cut, garbled, not a torch file) is a miss
        raise RecoveryCacheError(f"{path}: unreadable recovery cache entry ({type(exc).__name__}: {exc})") from None
    if not isinstance(raw, dict) or raw.get("key") != asdict(key):
        raise RecoveryCacheError(f"{path}: the recovery cache entry holds another key")
    state = raw.get("state")
    if not isinstance(state, dict) or not all(isinstance(v, torch.Tensor) for v in state.values()) or not state:
        raise RecoveryCacheError(f"{path}: the recovery cache entry holds no parameters")
    try:
        return CachedRecovery(
            state=state,
            kl=float(raw["kl"]),
            mel_l1=float(raw["mel_l1"]),
            duration_nll=float(raw["duration_nll"]),
            created=float(raw["created"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise RecoveryCacheError(f"{path}: the recovery cache entry lacks {exc}") from None


def write_entry(folder: Path, key: RecoveryKey, entry: CachedRecovery, keep: int = KEEP) -> Path:
    """Store ``entry`` under ``key`` in ``folder`` (created), atomically, keeping the ``keep`` newest entries;
    returns its path.

    Raises:
        OSError: the folder cannot be written (naming the entry).
    """
    with importing("torch"):
        import torch

    from engines.files import atomic_path

    path = entry_path(folder, key)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "key": asdict(key),
        "state": {k: v.detach().cpu().clone() for k, v in entry.state.items()},
        "kl": entry.kl,
        "mel_l1": entry.mel_l1,
        "duration_nll": entry.duration_nll,
        "created": entry.created,
    }
    with atomic_path(path) as tmp:
        torch.save(record, tmp)
    summary = EntrySummary(
        voice_sha256=key.voice_sha256,
        budget=budget_of(key, key.version),
        lines=len(key.phoneme_ids),
        kl=entry.kl,
        created=entry.created,
    )
    with atomic_path(path.with_suffix(".json")) as tmp:
        Path(tmp).write_text(json.dumps(asdict(summary)), encoding="utf-8")
    _forget_old(path.parent, keep)
    return path


def _forget_old(folder: Path, keep: int) -> None:
    """Remove all but the ``keep`` most recently written entries of ``folder``."""
    entries = sorted(folder.glob("*.pt"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in entries[keep:]:
        old.unlink(missing_ok=True)
        old.with_suffix(".json").unlink(missing_ok=True)
