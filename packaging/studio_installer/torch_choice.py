"""Which torch build the app's environment gets: CUDA wheels the NVIDIA driver can run, CPU wheels, or MPS.

The installer pins the torch release the project's tests run on, **2.13**. PyTorch's release compatibility
matrix (``RELEASE.md`` in pytorch/pytorch, "Release Compatibility Matrix") lists for 2.13 the stable CUDA
builds **12.6** and **13.0** and an experimental 13.2 build (not used here); each lives on its own index,
``https://download.pytorch.org/whl/cu126`` and ``.../cu130``, beside the CPU-only ``.../whl/cpu``. The CUDA
builds cover Maxwell to Hopper (12.6) and Turing to Blackwell (13.0) on Linux x86_64 and Windows, Ampere and
newer on Linux aarch64. macOS wheels exist for arm64 only (torch's last Intel macOS wheels were 2.2), and are
the default PyPI wheels, with MPS. Windows wheels exist for x86_64 only.

Driver rule (NVIDIA's CUDA compatibility guide): ``nvidia-smi`` reports the newest CUDA version the driver
runs. A build no newer than that runs; a newer build of the same major version runs too (minor version
compatibility: any 12.x runtime on a 12.x driver, >= 525; any 13.x on a 13.x driver, >= 580), so a driver
reporting 12.4 gets cu126. An older major version (11.x) gets the CPU build and a line saying to update.

Windows with CUDA also gets ``triton-windows`` (``torch.compile`` needs Triton): its minor version must match
the Triton that torch pins, and torch 2.13.0 requires ``triton==3.7.1`` on Linux, hence ``triton-windows 3.7``.
"""

from __future__ import annotations

from dataclasses import dataclass

from studio_installer.machine import Machine

TORCH_RELEASE = "2.13"
TORCH_REQUIREMENT = "torch>=2.13,<2.14"
CUDA_BUILDS: tuple[tuple[int, int], ...] = ((12, 6), (13, 0))
"""torch 2.13's stable CUDA builds, oldest first."""
INDEX_ROOT = "https://download.pytorch.org/whl/"
TRITON_WINDOWS_REQUIREMENT = "triton-windows>=3.7,<3.8"


@dataclass(frozen=True, kw_only=True)
class TorchChoice:
    """The torch build for this machine.

    ``kind`` is ``"cuda"``, ``"cpu"``, ``"mps"`` or ``"none"`` (no torch wheel exists: the app is installed
    without training); ``index_url`` is the package index torch comes from (None: PyPI); ``extra`` lists
    further requirements installed with torch (``triton-windows``); ``reason`` is one line for the user.
    """

    kind: str
    requirement: str | None
    index_url: str | None
    reason: str
    cuda: tuple[int, int] | None = None
    extra: tuple[str, ...] = ()


def cuda_build(driver_cuda: tuple[int, int]) -> tuple[int, int] | None:
    """The CUDA build of torch 2.13 that a driver supporting ``driver_cuda`` runs, or None (driver too old)."""
    runs = [build for build in CUDA_BUILDS if build <= driver_cuda]
    if runs:
        return runs[-1]
    same_major = [build for build in CUDA_BUILDS if build[0] == driver_cuda[0]]
    return same_major[0] if same_major else None


def choose(machine: Machine, *, force_cpu: bool = False) -> TorchChoice:
    """The torch build for ``machine``; ``force_cpu`` takes the CPU build even where a GPU is found."""
    if machine.os == "macos":
        if machine.apple_silicon:
            return TorchChoice(kind="mps", requirement=TORCH_REQUIREMENT, index_url=None, reason="Apple silicon: MPS")
        return _none("torch publishes no Intel macOS wheels since 2.2")
    if machine.os == "windows" and machine.arch != "x86_64":
        return _none("torch publishes Windows wheels for x86_64 only")
    if force_cpu or machine.cuda is None:
        return _cpu("--cpu given" if force_cpu else "no NVIDIA driver found")
    build = cuda_build(machine.cuda)
    if build is None:
        driver = "{}.{}".format(*machine.cuda)
        return _cpu(f"the NVIDIA driver supports CUDA {driver}, torch {TORCH_RELEASE} needs 12.x: update the driver")
    tag = "cu{}{}".format(*build)
    return TorchChoice(
        kind="cuda",
        requirement=TORCH_REQUIREMENT,
        index_url=INDEX_ROOT + tag,
        reason="NVIDIA driver {} supports CUDA {}.{}: torch's {} build".format(machine.driver, *machine.cuda, tag),
        cuda=build,
        extra=(TRITON_WINDOWS_REQUIREMENT,) if machine.os == "windows" else (),
    )


def _cpu(why: str) -> TorchChoice:
    """The CPU build, for the reason ``why``."""
    return TorchChoice(kind="cpu", requirement=TORCH_REQUIREMENT, index_url=INDEX_ROOT + "cpu", reason=f"{why}: CPU")


def _none(why: str) -> TorchChoice:
    """No torch: the app installs without training (the ONNX engine, the Dataset page)."""
    return TorchChoice(kind="none", requirement=None, index_url=None, reason=f"{why}: installing without training")
