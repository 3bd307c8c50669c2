"""The root of every error Voice Studio raises on purpose.

Each layer's errors (``engines.base.VoiceError`` and ``EngineError``, the trainer's
``RunError``, ``CheckpointError``, the dataset's ``MetadataError`` ...) derive from
:class:`VoiceStudioError` and keep their builtin base (``ValueError``,
``RuntimeError``), so ``except ValueError`` callers still catch them. The
``voice-studio`` command turns any of them into one line on stderr and exit code 2.
"""

from __future__ import annotations


class VoiceStudioError(Exception):
    """An error Voice Studio raises on purpose: its message says what is wrong and where (a file, line or
    field), for the user to read as it is, without a traceback."""
