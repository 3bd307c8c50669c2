"""ONNX Runtime sessions as the engines use them: options, the shared thread pool, one part of a graph."""

from __future__ import annotations

import numpy as np

from engines.imports import importing

_shared_pool = False


def use_shared_thread_pool(threads: int = 0) -> None:
    """Let every ONNX Runtime session made after this share one process-wide thread pool.

    The engine runs three sessions in turn (encoder, flow, decoder). With a pool
    each, the idle pools' spinning threads steal the cores from the busy one;
    without spinning, each operator pays a thread wake-up. One shared, spinning
    pool avoids both, and makes streaming cost what a whole-graph run costs.

    ONNX Runtime then refuses sessions with their own pools in this process, so
    only processes we own call this (the studio, the CLI, the server), before
    loading any voice. ``threads``: pool size, 0 for one per physical core.
    """
    global _shared_pool
    if not _shared_pool:
        with importing("onnxruntime"):
            import onnxruntime

        onnxruntime.set_global_thread_pool_sizes(threads, 0)
        _shared_pool = True


def session_options(threads: int | None = None):
    """ONNX Runtime options for our sessions: the shared pool if enabled, else a quiet pool each."""
    with importing("onnxruntime"):
        import onnxruntime

    options = onnxruntime.SessionOptions()
    if _shared_pool:
        options.use_per_session_threads = False
        return options
    if threads:
        options.intra_op_num_threads = threads
    # Sessions run one after another: an idle pool must not spin and steal the cores.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


class Part:
    """One ONNX Runtime session over a part of the graph.

    Args:
        model: the part, a serialized ONNX model (or a path).
        inputs: its input names, fed from the request's by :meth:`run`.
        keep_model: keep ``model`` as :attr:`model` (to make the part again, e.g. seeded); else ``model`` is None.
    """

    def __init__(
        self, model: bytes | str, inputs: list[str], options, providers: list[str], *, keep_model: bool = False
    ) -> None:
        with importing("onnxruntime"):
            import onnxruntime

        self.session = onnxruntime.InferenceSession(model, sess_options=options, providers=providers)
        self.inputs = inputs
        self.model = model if keep_model else None

    def run(self, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        return self.session.run(None, {name: feeds[name] for name in self.inputs})
