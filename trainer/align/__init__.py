"""Monotonic alignment search (MAS): the most likely monotonic, surjective text-to-frame path.

``reference`` is the exact algorithm of VITS's Cython ``maximum_path`` (Kim et al.,
"Glow-TTS", NeurIPS 2020, sec. 3.2; VITS, ICML 2021) in vectorized NumPy; faster
back-ends (numba, Triton) must give the same paths, ties included.

Two front ends:

- :func:`maximum_path` ``(neg_cent, mask) -> path [B, T_y, T_x]``: the dense path, as VITS calls it (inference,
  export, tests).
- :func:`search_indices` ``(value, y_lengths, x_lengths) -> indices [B, T_y]``: the compact alignment used in
  training, one text index per frame, on ``value``'s device.
"""

from trainer.align.reference import maximum_path, path_to_indices, search_indices

__all__ = ["maximum_path", "path_to_indices", "search_indices"]
