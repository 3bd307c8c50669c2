"""A voice's graph prepared for streaming (what it is, and its parts), kept on disk between processes.

Preparing a voice reads the whole ONNX model with the ``onnx`` package, analyzes it
(``engines.onnx.graph.analyze``) and cuts it into the parts the engine runs
(``engines.onnx.graph.Splitter``). For a medium voice that is about 1.2 CPU-seconds
of every process that speaks, 0.8 of them only to import ``onnx`` (its ``ml_dtypes``
extension), measured 2026-12-03 on a 2-vCPU AMD EPYC: more than the first sentence
takes to speak. The result depends only on the model file's bytes, the seed and the
split asked for, so it is kept in :func:`cache_dir`:

- ``info/MODEL_SHA256.json``: the :class:`~engines.onnx.graph.GraphInfo` of a model;
- ``KEY.json``: a prepared graph (mode, and each part's SHA-256 and input names), ``KEY`` the SHA-256
  of the model's SHA-256, the seed, the split and :data:`CACHE_VERSION`;
- ``parts/PART_SHA256.onnx``: the parts, shared by the entries that hold them (a seed changes only the part
  with the random nodes).

A hit reads the files, checks each part's SHA-256 and imports neither ``onnx`` nor
``protobuf``. Everything is written atomically; an entry that cannot be read or does
not match its hashes is prepared again, and a cache that cannot be written is only
not written (a read-only home still speaks). The :data:`KEEP` most recently used
entries are kept.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from engines.base import VoiceError
from engines.files import atomic_path
from engines.onnx.graph import GraphInfo, Splitter, analyze, load_model, seed_random_ops

_LOGGER = logging.getLogger(__name__)

CACHE_VERSION = 1
"""Part of every key: raise it when the analysis or the cut changes what it gives for the same model."""
KEEP = 6
"""Prepared graphs kept (the most recently used): about the model's size each (63 MB for a medium voice)."""
GRAPH_INPUTS = ["input", "input_lengths", "scales"]
"""What the encoder part (or the whole graph) is fed from a request (``sid`` joins where the voice has speakers)."""

Part = tuple[bytes, list[str]]
"""A serialized ONNX model and its input names."""


@dataclass(frozen=True)
class Prepared:
    """A voice's graph ready for sessions.

    Attributes:
        info: what the graph is (inputs, embeddings, cut tensors).
        mode: ``flow`` (parts: encoder, flow, decoder), ``decoder`` (encoder, decoder) or ``whole`` (the graph).
        parts: the parts in that order.
    """

    info: GraphInfo
    mode: str
    parts: list[Part]


def cache_dir() -> Path:
    """``cache/onnx`` under the user's data folder (``engines.user_folders.user_data_dir``), beside the studio's other
    caches (``cache/recovery``, ``compare/cache``)."""
    from engines.user_folders import user_data_dir

    return user_data_dir() / "cache" / "onnx"


def model_sha256(path: Path) -> str:
    """Hex SHA-256 of a model file's bytes.

    Raises:
        VoiceError: the file is missing or cannot be read.
    """
    try:
        digest = hashlib.sha256()
        with open(path, "rb") as file:
            while chunk := file.read(1 << 20):
                digest.update(chunk)
        return digest.hexdigest()
    except FileNotFoundError:
        raise VoiceError(path, "voice model file not found") from None
    except OSError as exc:
        raise VoiceError(path, f"cannot read the voice model: {exc.strerror or exc}") from None


def graph_info(path: Path, folder: Path | None = None) -> GraphInfo:
    """What the ONNX graph at ``path`` is (``engines.onnx.graph.analyze``), from the cache when it was seen before.

    Raises:
        VoiceError: the file is missing or not an ONNX model.
    """
    folder = cache_dir() if folder is None else folder
    digest = model_sha256(path)
    known = _read_info(folder / "info" / f"{digest}.json")
    if known is not None:
        return known
    info = analyze(load_model(path))
    _try_write(folder / "info" / f"{digest}.json", json.dumps(asdict(info)).encode())
    return info


def prepare(path: Path, *, seed: int | None = None, split: bool | str = True, folder: Path | None = None) -> Prepared:
    """The graph at ``path`` analyzed and cut as ``split`` asks (see ``OnnxEngine``), its random nodes seeded from
    ``seed`` (``engines.onnx.engine.seed_random_ops``; ``None``: unseeded); from the cache when prepared before.

    Raises:
        VoiceError: the file is missing or not an ONNX model.
    """
    folder = cache_dir() if folder is None else folder
    digest = model_sha256(path)
    key = _key(digest, seed, split)
    cached = _read_prepared(folder, key)
    if cached is not None:
        return cached
    prepared = _prepare(path, seed, split)
    _write_prepared(folder, key, digest, prepared)
    return prepared


def _prepare(path: Path, seed: int | None, split: bool | str) -> Prepared:
    """Analyze and cut the model (imports ``onnx``)."""
    model = load_model(path)
    if seed is not None:
        seed_random_ops(model, seed)
    info = analyze(model)
    mode, parts = _cut(model, info, split) if split and info.z else ("whole", [])
    if mode == "whole":
        if split and info.z:
            _LOGGER.info("%s: graph cannot be split (%s); one chunk per sentence", path.name, info.notes)
        parts = [(model.SerializeToString(), [i.name for i in model.graph.input])]
    return Prepared(info, mode, parts)


def _cut(model, info: GraphInfo, split: bool | str) -> tuple[str, list[Part]]:
    """Cut at the flow (``split is True`` and the flow was found), else at the decoder; ``("whole", [])`` where
    neither cut can be made."""
    durations = [info.durations] if info.durations else []
    splitter = Splitter(model, [t for t in (info.z, info.z_p, info.y_mask, info.durations) if t])
    assert info.z is not None  # the caller cuts only graphs whose decoder input was found
    if info.z_p and info.y_mask and split is True:
        flow = [
            splitter.extract(GRAPH_INPUTS, [info.z_p, info.y_mask, *durations]),
            splitter.extract([info.z_p, info.y_mask], [info.z]),
            splitter.extract([info.z], ["output"]),
        ]
        if all(part is not None for part in flow):
            return "flow", [p for p in flow if p is not None]
    decoder = [splitter.extract(GRAPH_INPUTS, [info.z, *durations]), splitter.extract([info.z], ["output"])]
    if all(part is not None for part in decoder):
        return "decoder", [p for p in decoder if p is not None]
    return "whole", []


def _key(digest: str, seed: int | None, split: bool | str) -> str:
    """The entry's name: SHA-256 of everything the prepared graph depends on."""
    fields = {"model": digest, "seed": seed, "split": split, "version": CACHE_VERSION}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def _read_info(path: Path) -> GraphInfo | None:
    """A cached ``GraphInfo``, or ``None`` (none, or unreadable)."""
    try:
        return GraphInfo(**json.loads(path.read_bytes()))
    except (OSError, ValueError, TypeError):
        return None


def _read_prepared(folder: Path, key: str) -> Prepared | None:
    """A cached prepared graph whose parts match their hashes, or ``None``; a hit is marked as used."""
    index = folder / f"{key}.json"
    try:
        entry = json.loads(index.read_bytes())
        info = GraphInfo(**entry["info"])
        parts = [((folder / "parts" / f"{p['sha256']}.onnx").read_bytes(), list(p["inputs"])) for p in entry["parts"]]
    except (OSError, ValueError, TypeError, KeyError):
        return None
    damaged = [p["sha256"] for (data, _), p in zip(parts, entry["parts"], strict=True) if _sha256(data) != p["sha256"]]
    if damaged:
        _LOGGER.info("%s: %d part(s) do not match their hash; preparing the graph again", index, len(damaged))
        for name in damaged:
            (folder / "parts" / f"{name}.onnx").unlink(missing_ok=True)
        return None
    _touch(index)
    return Prepared(info, entry["mode"], parts)


def _write_prepared(folder: Path, key: str, digest: str, prepared: Prepared) -> None:
    """Write the parts, then the index naming them, then forget the least recently used entries."""
    described = []
    for data, inputs in prepared.parts:
        part_sha = _sha256(data)
        target = folder / "parts" / f"{part_sha}.onnx"
        if not target.exists() and not _try_write(target, data):
            return
        described.append({"sha256": part_sha, "inputs": inputs})
    entry = {"model": digest, "mode": prepared.mode, "info": asdict(prepared.info), "parts": described}
    if _try_write(folder / f"{key}.json", json.dumps(entry).encode()):
        _try_write(folder / "info" / f"{digest}.json", json.dumps(asdict(prepared.info)).encode())
        try:
            _forget_old(folder, KEEP)
        except OSError as exc:  # e.g. a part another process has open on Windows: forgotten next time
            _LOGGER.info("ONNX graph cache: old entries not removed (%s)", exc)


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _try_write(path: Path, data: bytes) -> bool:
    """Write ``data`` atomically; a cache that cannot be written is left unwritten (logged), never an error."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            tmp.write_bytes(data)
        return True
    except OSError as exc:
        _LOGGER.info("ONNX graph cache not written (%s): %s", path, exc)
        return False


def _touch(path: Path) -> None:
    """Mark an entry as used now (its modification time orders what is forgotten)."""
    try:
        os.utime(path)
    except OSError:
        pass


def _forget_old(folder: Path, keep: int) -> None:
    """Keep the ``keep`` most recently used entries and the parts they name; remove the rest."""
    indexes = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    named: set[str] = set()
    for position, index in enumerate(indexes):
        if position >= keep:
            index.unlink(missing_ok=True)
            continue
        try:
            named.update(p["sha256"] for p in json.loads(index.read_bytes())["parts"])
        except (OSError, ValueError, KeyError, TypeError):
            index.unlink(missing_ok=True)
    for part in (folder / "parts").glob("*.onnx"):
        if part.stem not in named:
            part.unlink(missing_ok=True)
