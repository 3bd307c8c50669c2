"""Comparing voices: candidates (a checkpoint or an ONNX voice) rendering the same lines under identical noise.

- :class:`trainer.evaluate.render.Candidate`: one model to compare, spoken by its engine (torch for ``.ckpt``,
  ONNX for ``.onnx``).
- :class:`trainer.evaluate.render.RenderSettings`: noise_scale, noise_w, length_scale, speaker and the noise seed.
- :func:`trainer.evaluate.render.render` / :func:`trainer.evaluate.render.render_all`: audio of a line, cached
  on disk by (model and config hashes, cleaned text, settings), so reopening a comparison is instant.

No Qt, and neither torch nor onnxruntime is imported until something is rendered.
"""
