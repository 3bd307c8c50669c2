"""The ONNX engine: Piper ``.onnx`` voices on ONNX Runtime, streamed inside each sentence.

- ``engine``: :class:`~engines.onnx.engine.OnnxEngine` (registry key ``"onnx"``).
- ``graph``: reading a Piper VITS graph, its checks and the encoder/decoder split.
- ``session``: ONNX Runtime session options and the shared thread pool.

Importing this package is cheap; onnxruntime is imported when an engine is created.
"""
