"""Comparing voices: what the Compare page and ``voice-studio compare`` stand on, without Qt.

- ``listening``: blind listening tests (pairwise, ABX, MUSHRA), their ratings on disk and their statistics.
"""
