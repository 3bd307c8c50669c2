"""Voice making: dataset curation (``trainer.dataset``), preprocessing and cache, the Lightning
system with its losses, discriminators and alignment, checkpoints, and export to Piper ONNX.

No Qt. Importing this package imports nothing heavy; its modules import torch where they need it.
"""
