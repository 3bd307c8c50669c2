"""Dataset import and curation (no Qt): reading sources, analysis, fixes, export.

So far: the metadata reader (``metadata``) and the recording probe (``probe``).
"""
