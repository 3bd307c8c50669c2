"""Where and how a run trains: Lightning's accelerator, precision and batch size, and how its CPU threads wait
(which process writes: ``trainer.run.ranks``).

No torch import at module level (``trainer.run.train`` is imported by the CLI before any training).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from engines.imports import importing
from trainer.run.errors import RunError
from trainer.run.presets import TrainingConfig


def thread_environment(environ: Mapping[str, str] = os.environ) -> dict[str, str]:
    """What a training process sets in its environment before torch is imported: ``OMP_WAIT_POLICY=PASSIVE``,
    unless the user set a policy.

    torch's CPU kernels run in OpenMP (libgomp) threads, one per core, which by default spin while they wait
    for each other. When another process holds a core (a second run, a test suite, the studio itself), a
    spinning thread burns the time its partner needs: a medium training step on 2 shared cores took 4x longer
    (about 80 s against 20 s passive). On an idle machine passive waiting cost about 10-15% there
    (``tests/bench/train_speed.py``, docs/benchmarks.md "Training speed").
    """
    return {} if "OMP_WAIT_POLICY" in environ else {"OMP_WAIT_POLICY": "PASSIVE"}


def check_device(device: str, precision: str = "auto", devices: int = 1) -> bool:
    """Whether the run trains on CUDA; checked before a run folder is written, and again when it trains.

    Raises:
        RunError: CUDA asked for but absent, more DDP processes than CUDA GPUs, or fp16 autocast on the CPU.
    """
    with importing("torch"):
        import torch

    if device.startswith("cuda") and not torch.cuda.is_available():
        raise RunError("CUDA was requested but no CUDA GPU is available to torch")
    cuda = torch.cuda.is_available() and device != "cpu"
    if cuda and devices > torch.cuda.device_count():
        count = torch.cuda.device_count()
        raise RunError(f"--devices {devices}: torch sees {count} CUDA GPU(s); give at most {count}, or --device cpu")
    if not cuda and precision == "16-mixed":
        raise RunError("precision 16-mixed needs a CUDA GPU; on the CPU use 32-true or bf16-mixed")
    return cuda


def hardware(device: str, config: TrainingConfig, precision: str = "auto") -> tuple[str, str, int]:
    """Lightning accelerator, precision and batch size: bf16 autocast and TF32 on CUDA; on the CPU bf16
    autocast where :func:`cpu_bf16_pays`, else float32; unless ``precision`` names one.

    Raises:
        RunError: CUDA asked for but absent, or fp16 autocast asked for on the CPU.
    """
    with importing("torch"):
        import torch

    cuda, precision = planned_precision(device, config, precision)
    if not cuda:
        return "cpu", precision, config.batch_size or 8
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True
    free, _ = torch.cuda.mem_get_info()
    batch_size = config.batch_size or max(4, min(32, int(free / 2**30 * 2)))  # about 0.5 GiB per utterance
    return "gpu", precision, batch_size


def planned_precision(device: str, config: TrainingConfig, precision: str = "auto") -> tuple[bool, str]:
    """Whether the run trains on CUDA, and the precision :func:`hardware` gives it (``auto`` resolved), without
    setting anything.

    Raises:
        RunError: as :func:`check_device`.
    """
    with importing("torch"):
        import torch

    cuda = check_device(device, precision)
    if precision != "auto":
        return cuda, precision
    if not cuda:
        return False, "bf16-mixed" if cpu_bf16_pays(config) else "32-true"
    return True, "bf16-mixed" if torch.cuda.is_bf16_supported() else "16-mixed"


def cpu_bf16_pays(config: TrainingConfig) -> bool:
    """Whether ``auto`` trains with bf16 autocast on this CPU: one with bf16 arithmetic of its own, AVX512-BF16
    (AMD Zen 4 and later, Intel since Cooper Lake) or AMX tiles (Intel Xeon since Sapphire Rapids), for a model
    with Piper's full-width discriminators (every quality preset, not ``test``).

    Measured with ``tests/bench/train_step.py`` (docs/benchmarks.md "Training speed"): on a 2-core AMX Xeon a medium
    step took 0.66x the float32 step's time and an x-low one 0.60x; on an AMD EPYC with AVX512-BF16 and no AMX
    (``--variants passive,bf16``) 0.68x; the mel, the losses and the alignment still in float32. The ``test``
    preset's 1/16-width layers gained nothing measurable (0.94x on the Xeon, within noise); it keeps float32,
    so smoke runs give the same numbers on every machine. A CPU with neither keeps float32.
    """
    with importing("torch"):
        import torch

    def has(name: str) -> bool:  # torch's private CPU probes (torch.cpu._is_*_supported); absent: no
        return bool(getattr(torch.cpu, name, lambda: False)())

    native = has("_is_avx512_bf16_supported") or has("_is_amx_tile_supported")
    return native and config.discriminator_width >= 1.0
