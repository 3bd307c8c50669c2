"""Monotonic alignment search (MAS): the most likely monotonic, surjective text-to-frame path.

``reference`` is the exact algorithm of VITS's Cython ``maximum_path`` (Kim et al.,
"Glow-TTS", NeurIPS 2020, sec. 3.2; VITS, ICML 2021) in vectorized NumPy; the faster
back-ends, ``numba_mas`` (CPU) and ``triton_mas`` (GPU), give the same paths, ties included.

Two front ends (``search``):

- :func:`maximum_path` ``(neg_cent, mask) -> path [B, T_y, T_x]``: the dense path, as VITS calls it (inference,
  export, tests).
- :func:`search_indices` ``(value, y_lengths, x_lengths) -> indices [B, T_y]``: the compact alignment used in
  training, one text index per frame, on ``value``'s device, by the fastest back-end available.
"""

from trainer.align.search import AlignmentError, maximum_path, path_to_indices, search_indices

__all__ = ["AlignmentError", "maximum_path", "path_to_indices", "search_indices"]
