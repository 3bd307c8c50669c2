"""One training request, :class:`RunOptions`: what the Train page builds, ``voice-studio train``'s argv, the run.

The command-line flags are declared once, on the fields (``metadata``): :func:`add_arguments`
builds the ``train`` parser from them, :meth:`RunOptions.to_argv` writes them and
:meth:`RunOptions.from_args` reads them back. ``training.json`` keeps the options of a run
(``trainer.run.document``). No torch is imported here (the Train page imports it at app start).
"""

from __future__ import annotations

import argparse
import time
import typing
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from trainer.gan.compile import COMPILE_CHOICES
from trainer.run.presets import PRESETS
from trainer.run.settings import normal_setting, parse_setting

PRECISIONS = ("32-true", "bf16-mixed", "16-mixed")
"""Lightning precisions a run may ask for instead of ``auto``."""
DEVICES = ("auto", "cpu", "cuda")
"""What ``--device`` takes; the Train page may also choose one GPU, ``cuda:N`` (see ``RunOptions.environment``)."""


MAX_EPOCHS = 100_000
"""Most epochs a run may ask for (the Train page's epochs box goes this far too)."""
MAX_EVAL_LINES = 100
"""Most held-out clips a canary evaluation may speak (a run holds out at most ``TrainingConfig.max_val``)."""


def _flag(
    name: str, help: str, choices: tuple[str, ...] | None = None, *, low: int | None = None, high: int | None = None
) -> dict[str, Any]:
    """A field's ``metadata``: its flag, help, and the choices or the range ``[low, high]`` of its values."""
    return {"flag": name, "help": help, "choices": choices, "low": low, "high": high}


def device_environment(device: str) -> dict[str, str]:
    """Environment of a trainer process for ``device``: ``cuda:N`` makes GPU N the only one it sees."""
    return {"CUDA_VISIBLE_DEVICES": device.split(":", 1)[1]} if device.startswith("cuda:") else {}


def device_name(device: str) -> str:
    """``device`` if it is spelled as one of ``DEVICES`` or ``cuda:N`` (N a GPU index); whether that device is
    present is ``trainer.run.hardware.check_device``'s question.

    Raises:
        ValueError: anything else, naming what is accepted.
    """
    index = device.removeprefix("cuda:")
    if device in DEVICES or (index != device and index.isdigit()):
        return device
    raise ValueError(f"'{device}' is not a device: use {', '.join(DEVICES)} or cuda:N (GPU N)")


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
        devices: processes of Lightning's DDP strategy per machine (GPUs, or CPU processes over gloo); 1 = no
            DDP on one machine.
        num_nodes: machines the run trains on (DDP over ``num_nodes * devices`` processes); each machine starts
            the same command through a cluster launcher Lightning detects (torchrun, SLURM's srun). The run folder
            must be on storage all machines share.
        precision: ``auto`` (bf16 autocast on CUDA where supported, else fp16 autocast; on the CPU bf16
            autocast where it has AVX512-BF16 or AMX and the model full-width discriminators, else float32:
            ``trainer.run.hardware.cpu_bf16_pays``) or one of ``PRECISIONS`` (``bf16-mixed`` also runs on the
            CPU; ``16-mixed`` needs CUDA).
        no_recovery_cache: recover an ONNX start's training-only parts again rather than take them from the
            recovery cache (``trainer.start.recovery_cache``); a switch on the command line.
        compile: ``torch.compile`` the decoder, discriminators and GAN losses: ``auto`` (on CUDA only), ``on``,
            ``off`` (``trainer.gan.compile``); may change on a resume.
        eval_every: score the canary lines (``trainer.evaluate.canary``) every N epochs and at the last, in a
            low-priority process; 0: never; ``None``: on the epochs that preview (the ``test`` preset: never,
            a smoke test). May change on a resume.
        eval_lines: held-out clips a canary evaluation speaks (``None``: ``CANARY_LINES``, 5). May change on a
            resume.
        settings: ``NAME=VALUE`` texts, ``TrainingConfig`` settings the run takes instead of its preset's
            (``trainer.run.settings``: ``--set``, repeatable, a later one wins); a new run's only (its config keeps
            them, so a resume trains on with them; ``--from-best`` takes them and adds those given).
    """

    dataset: Path = field(metadata=_flag("--dataset", "a training cache, a dataset project, or metadata.csv + wavs/"))
    out: Path = field(metadata=_flag("--out", "the run folder to create"))
    start: str = field(
        default="scratch",
        metadata=_flag(
            "--from", "start point: scratch (default), joe (the embedded voice), a Piper VOICE.onnx, or a Piper .ckpt"
        ),
    )
    preset: str = field(
        default="medium", metadata=_flag("--preset", "default: medium; test: a smoke test, not a usable voice", PRESETS)
    )
    epochs: int | None = field(
        default=None,
        metadata=_flag(
            "--epochs",
            f"epochs to train, 1-{MAX_EPOCHS} (default: the preset's); with --resume: train on to N",
            low=1,
            high=MAX_EPOCHS,
        ),
    )
    batch_size: int | None = field(
        default=None,
        metadata=_flag("--batch-size", "utterances per step, at least 1 (default: from free memory)", low=1),
    )
    device: str = field(
        default="auto",
        metadata=_flag("--device", "auto (default), cpu, cuda or cuda:N (GPU N only); also applies on --resume"),
    )
    workers: int = field(
        default=0, metadata=_flag("--workers", "data-loading worker processes (default: 0); applies on --resume", low=0)
    )
    devices: int = field(
        default=1, metadata=_flag("--devices", "DDP processes: GPUs, or CPU processes (gloo); default: 1", low=1)
    )
    num_nodes: int = field(
        default=1,
        metadata=_flag(
            "--num-nodes",
            "machines (DDP over all their --devices; start the command on each with torchrun or srun); default: 1",
            low=1,
        ),
    )
    precision: str = field(
        default="auto",
        metadata=_flag(
            "--precision",
            "auto (default): bf16 autocast on CUDA (fp16 where bf16 is missing); on the CPU bf16 autocast"
            " where it has AVX512-BF16 or AMX (not for the test preset), else float32",
            ("auto", *PRECISIONS),
        ),
    )
    no_recovery_cache: bool = field(
        default=False,
        metadata=_flag(
            "--no-recovery-cache",
            "recover an ONNX start's training-only parts again, not from the cache of an earlier run",
        ),
    )
    compile: str = field(
        default="auto",
        metadata=_flag(
            "--compile",
            "torch.compile the decoder, discriminators and GAN losses: auto (default: on CUDA only), on, off; "
            "applies on --resume",
            COMPILE_CHOICES,
        ),
    )

    eval_every: int | None = field(
        default=None,
        metadata=_flag(
            "--eval-every",
            "score the canary lines (held-out clips: WER, similarity, DNSMOS, F0 gap) every N epochs in a "
            "low-priority process; 0: never (default: on the epochs that preview; never for the test preset); "
            "applies on --resume",
            low=0,
            high=MAX_EPOCHS,
        ),
    )
    eval_lines: int | None = field(
        default=None,
        metadata=_flag(
            "--eval-lines",
            "held-out clips each canary evaluation speaks (default: 5); applies on --resume",
            low=1,
            high=MAX_EVAL_LINES,
        ),
    )

    settings: tuple[str, ...] = field(
        default=(),
        metadata=_flag(
            "--set",
            "a training setting instead of the preset's, e.g. stft_loss=0 or inference_anchor=0 "
            "(repeatable; the names: docs/train.md, or give a wrong one); a new run's only",
        ),
    )

    def __post_init__(self) -> None:
        """Refuse a value out of its field's range, or a device not in ``DEVICES``/``cuda:N``.

        Raises:
            RunError: naming the field's flag and the range.
        """
        from trainer.run.errors import RunError

        object.__setattr__(self, "settings", tuple(self.settings))  # a list given (JSON, a caller) kept as a tuple
        for spec in fields(self):
            try:
                check_value(spec.name, getattr(self, spec.name))
            except ValueError as exc:
                raise RunError(f"{spec.metadata['flag']}: {exc}") from None

    def to_argv(self) -> list[str]:
        """The flags of ``voice-studio train`` that ask for exactly these options (``None`` ones left out).

        A chosen GPU ``cuda:N`` travels as ``--device cuda`` plus :meth:`environment`; a switch (``bool``) is its
        flag alone when set.
        """
        argv = []
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(value, bool):
                argv += [spec.metadata["flag"]] if value else []
            elif isinstance(value, tuple):
                argv += [part for text in value for part in (spec.metadata["flag"], text)]
            elif value is not None:
                shown = "cuda" if spec.name == "device" and str(value).startswith("cuda:") else str(value)
                argv += [spec.metadata["flag"], shown]
        return argv

    def environment(self) -> dict[str, str]:
        """Environment of the trainer process: ``cuda:N`` makes GPU N the only one it sees."""
        return device_environment(self.device)

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> RunOptions:
        """The options a parsed ``train`` command asks for (flags not given take the defaults).

        Raises:
            RunError: no ``--dataset`` or no ``--out``.
        """
        from trainer.run.errors import RunError

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


def check_value(name: str, value: Any) -> Any:
    """``value`` of ``RunOptions`` field ``name`` if it is within the field's range (``None``: not given).

    Raises:
        ValueError: out of the range in the field's metadata, or (``device``) not a device.
    """
    meta = _FIELDS[name].metadata
    low, high = meta["low"], meta["high"]
    if name == "settings":
        for text in value:
            parse_setting(text)
        return value
    if value is None or (low is None and high is None and name != "device"):
        return value
    if name == "device":
        return device_name(value)
    if (low is not None and value < low) or (high is not None and value > high):
        limits = f"from {low} to {high}" if high is not None else f"at least {low}"
        raise ValueError(f"{value} is out of range: give a number {limits}")
    return value


def bounds(name: str) -> tuple[int | None, int | None]:
    """``(low, high)`` of a ``RunOptions`` field's values (``None``: no bound), e.g. for a spin box."""
    return _FIELDS[name].metadata["low"], _FIELDS[name].metadata["high"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add a flag per ``RunOptions`` field (default ``None``, so a resume sees what was given); values are
    checked against the field's range while parsing (argparse's error names the flag, exit 2)."""
    hints = typing.get_type_hints(RunOptions)
    for spec in fields(RunOptions):
        kind = next((a for a in typing.get_args(hints[spec.name]) if a is not type(None)), hints[spec.name])
        meta = spec.metadata
        if kind is bool:  # a switch: given or not (None, so a resume sees it was not given)
            parser.add_argument(meta["flag"], dest=spec.name, action="store_const", const=True, help=meta["help"])
            continue
        if typing.get_origin(hints[spec.name]) is tuple:  # repeatable: one NAME=VALUE each
            parser.add_argument(
                meta["flag"], dest=spec.name, action="append", type=_setting, metavar="NAME=VALUE", help=meta["help"]
            )
            continue
        parser.add_argument(
            meta["flag"], dest=spec.name, type=_checked(spec.name, kind), choices=meta["choices"], help=meta["help"]
        )


def _checked(name: str, kind: type):
    """An argparse type: ``kind(text)`` passed through :func:`check_value` (errors become argparse's)."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not {'an integer' if kind is int else 'valid'}") from None
        try:
            return check_value(name, value)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = kind.__name__
    return parse


def _setting(text: str) -> str:
    """An argparse type for ``--set``: ``text`` as ``trainer.run.settings.normal_setting`` keeps it."""
    try:
        return normal_setting(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def run_name(start: str, preset: str, when: float | None = None) -> str:
    """A new run folder's name: ``START-PRESET-YYYYmmdd-HHMMSS`` (``start`` is ``scratch``, ``joe`` or the
    start file's stem), local time ``when`` (default now)."""
    name = start if start in ("scratch", "joe") else Path(start).stem
    return f"{name}-{preset}-{time.strftime('%Y%m%d-%H%M%S', time.localtime(when))}"


_FIELDS = {f.name: f for f in fields(RunOptions)}
