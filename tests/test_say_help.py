"""``voice-studio say``: --help names every output format it writes; it reports the engine load time (issue 17)."""

from __future__ import annotations

import subprocess
import sys


def _help(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "studio", *args], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return " ".join(result.stdout.split())  # argparse wraps lines: compare words


def test_say_help_lists_every_file_format_and_the_stream():
    """Each extension ``engines.audio.FORMATS`` writes is named with its format, and so is the streamed WAV."""
    from engines.audio import FORMATS

    text = _help("say", "--help")
    assert ".wav (WAV 16-bit), .flac (FLAC 16-bit), .ogg (OGG Vorbis)" in text
    assert set(FORMATS) == {".wav", ".flac", ".ogg"}  # a new format must be named above too
    assert "16-bit WAV streamed as it is synthesized" in text and "--raw: headerless s16le PCM" in text
    assert "(WAV, FLAC or Ogg Vorbis)" in _help("--help")


def test_say_reports_the_engine_load_time_apart_from_time_to_first_audio(tmp_path):
    """``say`` on stderr: the ONNX engine's load time is its own number, before time to first audio."""
    import re

    out = tmp_path / "hi.wav"
    result = subprocess.run(
        [sys.executable, "-m", "studio", "say", "Hi there.", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert re.search(r"ONNX engine loaded in \d+\.\d\d s; time to first audio \d+\.\d{3} s", result.stderr)
