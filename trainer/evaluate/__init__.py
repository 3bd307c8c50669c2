"""Comparing voices: what the Compare page and ``voice-studio compare`` stand on, without Qt.

- ``runs``: runs compared as wholes (val_mel and epoch-time curves, total and per-epoch time).
- ``listening``: blind listening tests (pairwise, ABX, MUSHRA), their ratings on disk and their statistics.
- ``measures``: objective measures of synthesized speech (MCD and F0 error after DTW, speaking rate, WER).
"""
