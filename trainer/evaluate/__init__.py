"""Comparing voices: what the Compare page and ``voice-studio compare`` stand on, without Qt.

- ``render``: candidates (a checkpoint or an ONNX voice) rendering the same lines under identical noise
  (:class:`~trainer.evaluate.render.Candidate`, :class:`~trainer.evaluate.render.RenderSettings`,
  :func:`~trainer.evaluate.render.render`, :func:`~trainer.evaluate.render.render_all`), cached on disk by
  (model and config hashes, cleaned text, settings), so reopening a comparison is instant.
- ``runs``: runs compared as wholes (val_mel and epoch-time curves, total and per-epoch time).
- ``listening``: blind listening tests (pairwise, ABX, MUSHRA), their ratings on disk and their statistics.
- ``measures``: objective measures of synthesized speech (MCD and F0 error after DTW, speaking rate, WER).
- ``similarity``: speaker similarity (resemblyzer d-vectors); ``quality``: DNSMOS P.835 (speechmos's ONNX model).
- ``leaderboard``: candidates scored on lines into rows (``board``: the rows as a table and CSV), each render's
  measures cached beside it (``scores``, ``scoring``).
- ``bands``: how far each measure moves under another noise seed (the noise band), for telling real
  differences from noise.
- ``canary``: the canary evaluations during training: a run's held-out clips spoken by an epoch's checkpoint
  and scored in a process of its own (``background``: at low priority while training goes on, ending with the
  trainer); the trainer's side is ``trainer.canary_callback``.

Neither torch nor onnxruntime (nor the measures' libraries) is imported until something is rendered or scored.
"""
