"""Voice making, no Qt, by concern:

- ``dataset`` curation: recordings into a dataset project; ``data`` the training cache built from it and the
  batches drawn from the cache;
- ``run`` a run's lifecycle: options, presets, pre-flight, the run folder, the fit, resume;
- ``start`` start points: scratch, a ``.ckpt``, an ONNX voice and its recovery;
- ``gan`` the GAN step: the LightningModule, the generator's losses, the discriminators, the schedules;
  ``align`` monotonic alignment search;
- ``events`` what a run says and how the studio reads it back; ``checkpoints`` best-k, the background writer,
  export to Piper ONNX;
- ``evaluate`` comparing voices: renders, measures, leaderboards, listening tests;
- ``tasks`` (cancel, progress and status for long work), ``time_left`` (the one rule for time-left figures:
  from a settled rate; and the one wording of a span: ``3 min 05 s``) and ``out_folder`` (output folders the user
  chooses), which every part may use.

Each package's ``__init__`` says what it owns and what it may import (``tests/test_layers.py`` holds them to it);
no two modules import each other. Importing this package imports nothing heavy; its modules import torch where
they need it.
"""
