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


def test_every_finding_of_a_take_is_worded_for_the_take_not_for_a_dataset_file():
    """Each kind a take can be found with is said of "this take" (or "this prompt"), with its number, and never
    with the dataset's fixes for a file (exclude the clip, Normalize it, merge it with a neighbour)."""
    from test_finding_words import VALUES

    from trainer.dataset.finding_words import sentence
    from trainer.dataset.recording.take_words import take_sentence

    booth_own = {
        "too_quiet": {"lufs": -46.2, "limit": -40.0},
        "pace": {"pace": 18.0, "median": 12.0},
        "misread": {"wer": 0.8, "heard": "the ketchup"},
    }
    for kind, values in {**VALUES, **booth_own}.items():
        said = take_sentence(kind, values, sentence(kind, values) if kind in VALUES else "", 22050 * 3)
        assert said.startswith(("This take", "This prompt")), (kind, said)
        if kind in ("no_text", "unreviewed", "no_speaker", "duplicate_text", "duplicate_audio", "unreadable"):
            continue  # the dataset's own: a take never has them (its text is the prompt, it stands alone)
        assert "exclude" not in said and "neighbouring clip" not in said, (kind, said)
    clipped = take_sentence("clipped", {"fraction": 0.0123}, "", 22050 * 3)
    assert clipped == "This take clipped 814 samples at full scale (1.2%) — lower the gain and retake?"
    assert "50% faster" in take_sentence("pace", booth_own["pace"], "", 1)
