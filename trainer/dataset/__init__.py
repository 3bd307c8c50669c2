"""Dataset import and curation (no Qt): reading sources, analysis, fixes, export.

Only the metadata reader exists so far (``trainer.dataset.metadata``).
"""
