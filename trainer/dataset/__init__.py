"""Dataset import and curation (no Qt): reading sources, analysis, fixes, export.

So far: the metadata reader (``metadata``), the recording probe (``probe``), source
scanning (``sources``) with archive unpacking (``archives``), sources read again for clips already imported
(``reread``), per-clip analysis (``analysis``, with a recording's measured bandwidth in ``bandwidth`` and
isolated spikes in ``spikes``), dataset checks (``health``),
audio fixes (``fixes``), the project with its import (``project``) and the loudness check of what an import or
slicing added (``loudness_gap``); ``prompts/`` recording prompts chosen for coverage; ``distil/`` a dataset spoken by
a voice on a speech server.
"""
