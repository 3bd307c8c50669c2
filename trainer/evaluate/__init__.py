"""Comparing voices: what the Compare page and ``voice-studio compare`` stand on, without Qt.

- ``render``: candidates (a checkpoint or an ONNX voice) rendering the same lines under identical noise
  (:class:`~trainer.evaluate.render.Candidate`, :class:`~trainer.evaluate.render.RenderSettings`,
  :func:`~trainer.evaluate.render.render`, :func:`~trainer.evaluate.render.render_all`), cached on disk by
  (model and config hashes, cleaned text, settings), so reopening a comparison is instant.
- ``runs``: runs compared as wholes (val_mel and epoch-time curves, total and per-epoch time).
- ``listening``: blind listening tests (pairwise, ABX, MUSHRA), their ratings on disk and their statistics.
- ``measures``: objective measures of synthesized speech (MCD and F0 error after DTW, speaking rate, WER).
- ``round_trip``: one recognizer round trip, a take heard and scored against its prompt (the recording booth's
  misread flag, distil's judge).
- ``similarity``: speaker similarity (resemblyzer d-vectors); ``quality``: DNSMOS P.835 (speechmos's ONNX model).
- ``leaderboard``: candidates scored on lines into rows (``board``: the rows as a table and CSV; ``spread``: each
  value's standard error over lines), each render's measures cached beside it (``scores``, ``scoring``).
- ``bands``: each measure's noise band; ``evaluation``: a checkpoint's measures at an epoch; ``recommend``: the
  recommended checkpoint by its stated rule, and where the measures disagree; ``verdict``: still improving,
  levelled off or getting worse; ``summary``: a leaderboard in words; ``tie_break``: a 5-trial blind test that
  settles a tie with the recommended candidate by ear; ``choice``: which checkpoint Export takes.
- ``canary``: the canary evaluations during training: a run's held-out clips spoken by an epoch's checkpoint
  and scored in a process of its own (``background``: at low priority while training goes on, ending with the
  trainer); the trainer's side is ``trainer.run.canary_callback``; ``run_measures``: a run's evaluations as the
  verdict and Export read them, and the recommended epoch's checkpoint kept.

Neither torch nor onnxruntime (nor the measures' libraries) is imported until something is rendered or scored.
"""
