"""One loaded generator per voice file and device, shared by the torch engines that speak it.

The speech server gives each worker an engine of its own (engines keep per-request state), and the studio may
hold a few engines of one voice (Synthesize, Compare). Loading a generator imports the ONNX graph or reads the
checkpoint, folds its weight norm and moves it to the device: about a second on the CPU and far longer for the
first request of each of 16 server workers on one GPU (their first audio waited up to 6.3 s on an H200,
docs/benchmarks.md "On a GPU"), each holding a copy of the weights. Inference never writes the weights, so
the engines share one: loaded once per (file as it is on disk, device), kept while an engine holds it
(weak references), loaded again when the file changes.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engines.imports import importing
from engines.voice import Voice


@dataclass(eq=False)
class Loaded:
    """A generator on its device, ready for inference.

    Attributes:
        model: the ``Synthesizer``, weight norm folded, in eval mode.
        import_report: what the ONNX import matched (``engines.torch.vits.onnx_import``); ``None`` for a checkpoint.
    """

    model: Any
    import_report: Any = None
    _batcher: Any = None

    def batcher(self) -> Any:
        """The one ``engines.torch.decode_batch.DecodeBatcher`` of this generator's decoder (made at the first
        call), shared by its engines so that their concurrent decoder calls run as one."""
        with _LOCK:
            if self._batcher is None:
                from engines.torch.decode_batch import DecodeBatcher

                self._batcher = DecodeBatcher(self.model.decode)
            return self._batcher


_LOADED: weakref.WeakValueDictionary[tuple, Loaded] = weakref.WeakValueDictionary()
_LOCK = threading.Lock()


def loaded_generator(voice: Voice, device: str) -> Loaded:
    """The generator of ``voice`` on ``device`` (``cpu``, ``cuda:0``), shared with the engines holding it already.

    Raises:
        VoiceError: the checkpoint or the ONNX graph cannot be read or imported.
        OSError: the file cannot be read.
    """
    path = Path(voice.model_path).resolve()
    stat = path.stat()
    key = (str(path), stat.st_mtime_ns, stat.st_size, voice.config.num_speakers, device)
    with _LOCK:  # two workers asking at once load it once
        found = _LOADED.get(key)
        if found is None:
            found = _load(path, voice.config.num_speakers, device)
            _LOADED[key] = found
        return found


def _load(path: Path, num_speakers: int, device: str) -> Loaded:
    with importing("engines.torch.vits.weight_norm"):
        from engines.torch.vits.weight_norm import fold_weight_norm

    report = None
    if path.suffix.lower() == ".ckpt":
        from engines.torch.vits.checkpoint import load_generator

        model, _ = load_generator(path)
    else:
        with importing("engines.torch.vits.onnx_import"):
            from engines.torch.vits.onnx_import import load_onnx_generator

        model, report = load_onnx_generator(path, num_speakers)
    return Loaded(model=fold_weight_norm(model.to(device).eval()), import_report=report)
