"""A dataset distilled from a voice server (no Qt): a teacher voice speaks prompts, the best take of each line is kept.

``teacher`` asks any OpenAI-compatible ``/v1/audio/speech`` server for a line (``engines.remote``, the remote
engine); ``judge`` measures a take as the dataset measures a clip (its finding kinds, loudness), with a recognizer
round trip against the prompt and speaker similarity to the first takes kept; ``record`` is ``distil.json``, the
project's record of the teacher (server, model, voice, date, the consent given) and of each line done;
``run`` is the loop: plan the lines (chosen for coverage, ``trainer.dataset.prompts``), ask for candidates, keep
the best, and import the kept takes as curated clips with confirmed text. A second run skips the lines done.
"""

LINES = 20
"""Lines a distillation asks for unless told (the issue's end-to-end figure; a fine-tune wants hundreds:
``trainer.dataset.prompts.guidance``)."""
CANDIDATES = 2
"""Takes asked per line unless told."""
