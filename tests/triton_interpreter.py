"""Whether Triton's interpreter (``TRITON_INTERPRET=1``) can run a loop bounded by a scalar argument, as the MAS
kernels' frame loop is (``trainer/align/triton_mas.py``).

Triton 3.6's interpreter turns a scalar argument used as a ``range`` bound into a Python int with
``int(array)`` on a one-element array, which NumPy 2.4 made a TypeError (triton-lang/triton#9171; seen on the
device machine with triton 3.6.0 and numpy 2.5.2, where the compiled kernels on the GPU passed). Imported only
with triton installed.
"""

from __future__ import annotations

import triton
import triton.language as tl


@triton.jit
def _count(out_ptr, n):
    """``out[0] = n``, counted one by one."""
    total = 0
    for _ in range(0, n):
        total += 1
    tl.store(out_ptr, total)


def broken_reason() -> str | None:
    """``None`` when the interpreter runs a scalar-bounded loop right, else why it cannot (for a skip).

    Call with ``TRITON_INTERPRET=1`` already set: kernels are built per mode at their first launch."""
    import numpy
    import torch

    out = torch.zeros(1, dtype=torch.int32)
    try:
        _count[(1,)](out, 5)
    except Exception as error:  # noqa: BLE001 - the interpreter wraps whatever broke in InterpreterError
        return (
            f"Triton {triton.__version__}'s interpreter cannot take a scalar loop bound with numpy "
            f"{numpy.__version__} (triton-lang/triton#9171): {error}; the compiled kernels are tested on a GPU"
            " (tests/test_cuda.py)"
        )
    return None if int(out[0]) == 5 else f"Triton {triton.__version__}'s interpreter counted {int(out[0])} of 5"
