"""What a run says and how it is read back: the studio follows a trainer through these files alone (no torch here).

- ``schema`` the events, one dataclass per kind, as versioned JSON lines; ``log`` the ``events.jsonl`` file;
  ``words`` each event in plain words;
- ``run_state`` a run as its events tell it (what the Train page shows), ``live`` whether a trainer is writing a
  run folder now;
- ``preview_lines`` and ``preview_schedule`` what a run's previews speak, and when.

May import: ``engines``, ``trainer.checkpoints``, ``trainer.evaluate.bands``, ``trainer.gan.lr_schedule`` (its
words), ``trainer.run.document``, ``trainer.run.presets``.
"""
