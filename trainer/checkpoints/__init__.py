"""A run's checkpoints and what is made from them.

- ``writer`` checkpoints written in the background, never lost, never half-written;
- ``best`` the best-k kept by val_mel while training, and a run's best read back;
- ``damage`` damaged checkpoints of a run (cut short, garbled) found before anything reads them, and the best
  intact one to go on from;
- ``export`` a generator exported to a Piper ONNX voice (``NAME.onnx`` plus ``NAME.onnx.json``);
- ``naming`` what an export says about itself: its Home Assistant name and its describing config fields;
- ``home_assistant`` an exported voice sent to a wyoming-piper server (its upload API) or copied to its folder;
- ``strength`` a checkpoint moved back towards its run's start voice (WiSE-FT's weight interpolation).

May import: ``engines``, ``trainer.run.document``, ``trainer.data.preprocess`` (a run's dataset size),
``trainer.start.points`` and ``trainer.run.errors`` (a run's start voice and what is wrong with it, for
``strength``).
"""
