"""The recording booth's core (no Qt): a microphone captured into a ring buffer, its levels, the room's noise
floor, auto-stop on trailing silence, and each take checked and written into a project as a curated clip.

``capture`` the input device and its ring buffer (``ring``), ``levels`` the meter a page polls, ``silence`` the
noise floor and the trailing-silence judge (Silero VAD), ``takes`` a take checked and written, ``booth`` the
session a page drives (prompts, record, stop, accept, retake, skip, back).
"""
