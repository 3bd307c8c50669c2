"""A take's checks without a device: the pace against the speaker's own median."""

from __future__ import annotations

import pytest
import soundfile
from conftest import shared_path


@pytest.fixture(scope="module")
def take():
    """A real recording of the target voice and its text."""
    folder = shared_path("corpus", "target-voice")
    audio, rate = soundfile.read(folder / "wavs" / "slt_0002.flac", dtype="float32")
    texts = dict(line.split("|", 1) for line in (folder / "metadata.csv").read_text().splitlines())
    return audio, rate, texts["slt_0002"]


def test_a_take_far_off_the_speakers_median_pace_is_flagged(take):
    """At the median pace nothing is said of it; against a median twice as fast the take is read 50% slower."""
    from engines.registry import default_voice
    from trainer.dataset.recording.takes import PACE_LIMIT, check_take

    audio, rate, text = take
    config = str(default_voice().config.path)
    pace = check_take(audio, rate, text, config).analysis["phonemes_per_second"]
    assert "pace" not in check_take(audio, rate, text, config, median_pace=pace * (1 + PACE_LIMIT / 2)).kinds
    slow = check_take(audio, rate, text, config, median_pace=pace * 2)
    assert "pace" in slow.kinds and "50% slower" in " ".join(slow.lines())
