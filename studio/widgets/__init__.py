"""Reusable widgets: waveform view, charts, pickers."""
