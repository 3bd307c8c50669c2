"""The torch engine: Piper voices (``.onnx`` or ``.ckpt``) on PyTorch, CPU or CUDA.

- ``engine``: :class:`~engines.torch.engine.TorchEngine` (registry key ``"torch"``).
- ``vits``: the VITS generator as ``nn.Module``s, checkpoint reading and ONNX import,
  shared with the trainer.

Importing this package is cheap; its modules import torch.
"""
