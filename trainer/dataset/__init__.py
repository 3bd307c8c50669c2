"""Dataset import and curation (no Qt): reading sources, analysis, fixes, export.

So far: the metadata reader (``metadata``), the recording probe (``probe``), source scanning
(``sources``) and per-clip analysis (``analysis``).
"""
