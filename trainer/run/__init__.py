"""A training run's lifecycle, from the request to the fit and back again.

- ``options`` one training request (:class:`~trainer.run.options.RunOptions`: the Train page, ``voice-studio
  train``'s argv), ``presets`` the generator sizes and training settings it names, ``errors`` the
  :class:`~trainer.run.errors.RunError` every check raises;
- before the run: ``preflight`` the checks in words, ``disk`` the space it will write (and the words when a
  write fails), ``step_timing`` and ``epoch_time`` how long its epochs will take on this machine, ``hardware``
  the accelerator, precision and threads, ``ranks`` which DDP process writes;
- the run: ``train`` its folder (``create_run``) and the Lightning fit (``fit``), ``document`` its
  ``training.json``, ``callbacks`` and ``canary_callback`` what the fit does besides training (events,
  checkpoints, previews, canary evaluations), ``resume`` what a resume applies and refuses, ``from_best`` a new
  run from a run's best intact checkpoint (the way on from a damaged ``last.ckpt``).

This is the top of the trainer: it may import every other part of it. The parts below import only
``errors``, ``presets`` and ``document`` from here (their ``May import`` lines say so).

May import: ``engines``, ``trainer``.
"""
