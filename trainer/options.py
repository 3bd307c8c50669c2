"""One training request, :class:`RunOptions`: what the Train page builds, ``voice-studio train``'s argv, the run.

The command-line flags are declared once, on the fields (``metadata``): :func:`add_arguments`
builds the ``train`` parser from them, :meth:`RunOptions.to_argv` writes them and
:meth:`RunOptions.from_args` reads them back. ``training.json`` keeps the options of a run
(``trainer.run_file``). No torch is imported here (the Train page imports it at app start).
"""

from __future__ import annotations

import argparse
import time
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from trainer.presets import PRESETS

PRECISIONS = ("32-true", "bf16-mixed", "16-mixed")
"""Lightning precisions a run may ask for instead of ``auto``."""
DEVICES = ("auto", "cpu", "cuda")
"""What ``--device`` takes; the Train page may also choose one GPU, ``cuda:N`` (see ``RunOptions.environment``)."""


def _flag(name: str, help: str, choices: tuple[str, ...] | None = None) -> dict[str, Any]:
    return {"flag": name, "help": help, "choices": choices}


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """What a training run is asked for (the arguments of ``voice-studio train``).

    Attributes:
        dataset: a preprocessed cache, a dataset project, or a Piper training folder (metadata.csv + wavs).
        out: the run folder (created).
        start: ``scratch``, ``joe`` (the embedded voice), a voice name, a Piper ``VOICE.onnx`` or ``.ckpt``.
        preset: ``test`` or a Piper quality.
        epochs, batch_size: override the preset's (``None``: the preset's; batch size from free memory).
        device: ``auto``, ``cpu``, ``cuda`` or (from the Train page) ``cuda:N``.
        workers: data-loading worker processes.
        devices: processes of Lightning's DDP strategy (GPUs, or CPU processes over gloo); 1 = no DDP.
        precision: ``auto`` (bf16 autocast on CUDA where supported, else fp16 autocast; float32 on the
            CPU) or one of ``PRECISIONS`` (``bf16-mixed`` also runs on the CPU; ``16-mixed`` needs CUDA).
    """

    dataset: Path = field(metadata=_flag("--dataset", "a training cache, a dataset project, or metadata.csv + wavs/"))
    out: Path = field(metadata=_flag("--out", "the run folder to create"))
    start: str = field(
        default="scratch",
        metadata=_flag(
            "--from", "start point: scratch (default), joe (the embedded voice), a Piper VOICE.onnx, or a Piper .ckpt"
        ),
    )
    preset: str = field(default="medium", metadata=_flag("--preset", "default: medium", PRESETS))
    epochs: int | None = field(
        default=None,
        metadata=_flag("--epochs", "epochs to train (default: the preset's); with --resume: train on to N"),
    )
    batch_size: int | None = field(
        default=None, metadata=_flag("--batch-size", "utterances per step (default: from free memory)")
    )
    device: str = field(default="auto", metadata=_flag("--device", "default: auto; also applies on --resume", DEVICES))
    workers: int = field(
        default=0, metadata=_flag("--workers", "data-loading worker processes (default: 0); applies on --resume")
    )
    devices: int = field(
        default=1, metadata=_flag("--devices", "DDP processes: GPUs, or CPU processes (gloo); default: 1")
    )
    precision: str = field(
        default="auto",
        metadata=_flag(
            "--precision",
            "auto (default): bf16 autocast on CUDA (fp16 where bf16 is missing), float32 on the CPU",
            ("auto", *PRECISIONS),
        ),
    )

    def to_argv(self) -> list[str]:
        """The flags of ``voice-studio train`` that ask for exactly these options (``None`` ones left out).

        A chosen GPU ``cuda:N`` travels as ``--device cuda`` plus :meth:`environment`.
        """
        argv = []
        for spec in fields(self):
            value = getattr(self, spec.name)
            if value is not None:
                shown = "cuda" if spec.name == "device" and str(value).startswith("cuda:") else str(value)
                argv += [spec.metadata["flag"], shown]
        return argv

    def environment(self) -> dict[str, str]:
        """Environment of the trainer process: ``cuda:N`` makes GPU N the only one it sees."""
        if self.device.startswith("cuda:"):
            return {"CUDA_VISIBLE_DEVICES": self.device.split(":", 1)[1]}
        return {}

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RunOptions:
        """The options a parsed ``train`` command asks for (flags not given take the defaults).

        Raises:
            RunError: no ``--dataset`` or no ``--out``.
        """
        from trainer.starts import RunError

        chosen = given(args)
        if "dataset" not in chosen or "out" not in chosen:
            raise RunError("train needs --dataset and --out (or --resume RUN_DIR)")
        return cls(**chosen)


def given(args: argparse.Namespace) -> dict[str, Any]:
    """The ``RunOptions`` fields a parsed ``train`` command names (the parser keeps ``None`` for the others)."""
    return {f.name: getattr(args, f.name) for f in fields(RunOptions) if getattr(args, f.name, None) is not None}


def flag(name: str) -> str:
    """The command-line flag of a ``RunOptions`` field, e.g. ``start`` -> ``--from``."""
    return _FIELDS[name].metadata["flag"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag per ``RunOptions`` field (default ``None``, so a resume sees what was given)."""
    hints = typing.get_type_hints(RunOptions)
    for spec in fields(RunOptions):
        kind = next((a for a in typing.get_args(hints[spec.name]) if a is not type(None)), hints[spec.name])
        meta = spec.metadata
        parser.add_argument(meta["flag"], dest=spec.name, type=kind, choices=meta["choices"], help=meta["help"])


def run_name(start: str, preset: str, when: float | None = None) -> str:
    """A new run folder's name: ``START-PRESET-YYYYmmdd-HHMMSS`` (``start`` is ``scratch``, ``joe`` or the
    start file's stem), local time ``when`` (default now)."""
    name = start if start in ("scratch", "joe") else Path(start).stem
    return f"{name}-{preset}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(when))}"


_FIELDS = {f.name: f for f in fields(RunOptions)}
