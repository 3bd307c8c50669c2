"""A run's start point: scratch, a Piper ``.ckpt`` or a Piper ONNX voice, fitted to the dataset.

- ``points`` what a start names and how its weights are copied into the generator;
- ``shape`` whether a start fits a dataset (speakers, symbols, sample rate, size) and the preset fitted to it;
- ``recovery`` the ONNX recovery: the training-only parts an ONNX voice lacks, recovered from the voice itself;
  ``recovery_stage`` that stage of a run, said step by step; ``recovery_cache`` its result kept between runs.

May import: ``engines``, ``trainer.run.errors``, ``trainer.run.presets``, ``trainer.data``,
``trainer.gan.generator_losses``, ``trainer.gan.mel`` (the recovery trains with the GAN step's losses),
``trainer.events.schema``, ``trainer.time_left`` (the time left of its parts).
"""
