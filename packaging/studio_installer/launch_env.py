"""Environment variables the launchers set before the studio starts.

On Windows with CUDA, Triton's and TorchInductor's compiler caches go inside the app folder
(``TRITON_CACHE_DIR``, ``TORCHINDUCTOR_CACHE_DIR``), as the reference Windows setup does: they are the app's
own, go with an uninstall, and stay out of the user's profile and temporary folder. A variable the user has
set already wins.
"""

from __future__ import annotations

from studio_installer.layout import Layout
from studio_installer.torch_choice import TorchChoice


def launch_environment(layout: Layout, torch: TorchChoice) -> dict[str, str]:
    """Variable -> value for the launchers (empty where the defaults serve)."""
    if layout.os == "windows" and torch.kind == "cuda":
        return {
            "TRITON_CACHE_DIR": str(layout.caches / "triton"),
            "TORCHINDUCTOR_CACHE_DIR": str(layout.caches / "inductor"),
        }
    return {}


def cache_folders(env: dict[str, str]) -> list[str]:
    """The folders among ``env``'s values that the installer creates and owns (the compiler caches)."""
    return [value for name, value in sorted(env.items()) if name.endswith("_CACHE_DIR")]
