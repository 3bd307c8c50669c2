"""Monotonic alignment search (MAS): the most likely monotonic, surjective text-to-frame path.

``reference`` is the exact algorithm of VITS's Cython ``maximum_path`` (Kim et al.,
"Glow-TTS", NeurIPS 2020, sec. 3.2; VITS, ICML 2021) in vectorized NumPy; faster
back-ends (numba, Triton) must give the same paths, ties included.
"""

from trainer.align.reference import maximum_path, path_to_indices

__all__ = ["maximum_path", "path_to_indices"]
