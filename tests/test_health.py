"""Dataset checks: what the trainer would skip or choke on, found from measurements."""

from __future__ import annotations

from trainer.dataset.analysis import ClipAnalysis
from trainer.dataset.health import ClipRecord, check, rate_fences


def _analysis(start=0.1, end=3.0, ids=80, rate=12.0, clipped=0.0, missing=None) -> ClipAnalysis:
    return ClipAnalysis(
        duration_s=(end or 3.0) + 0.2,
        sample_rate=22050,
        channels=1,
        peak_dbfs=-3.0,
        clipped_fraction=clipped,
        loudness_lufs=-23.0,
        speech_start_s=start,
        speech_end_s=end,
        speech_s=(end or 0) - (start or 0),
        snr_db=40.0,
        num_phoneme_ids=ids,
        phonemes_per_second=rate,
        missing_symbols=missing or {},
    )


def _kinds(findings, clip_id):
    return sorted(f.kind for f in findings if f.clip_id == clip_id)


def test_each_clip_problem_is_found():
    """Unreadable, silent, too short, too long, text longer than audio, clipped, missing symbols and no text are
    each reported."""
    records = [
        ClipRecord("good", "Fine.", _analysis(), audio_hash="h1"),
        ClipRecord("broken", "Text.", error="truncated WAV"),
        ClipRecord("silent", "Quiet.", _analysis(start=None, end=None, rate=None), audio_hash="h2"),
        ClipRecord("short", "Hi.", _analysis(start=0.1, end=0.3, ids=20), audio_hash="h3"),
        ClipRecord("long", "Very long.", _analysis(end=10.0, ids=700), audio_hash="h4"),
        ClipRecord("crammed", "Far more text than is said.", _analysis(ids=290), audio_hash="h8"),
        ClipRecord("loud", "Loud.", _analysis(clipped=0.05), audio_hash="h5"),
        ClipRecord("odd", "Odd.", _analysis(missing={"ʁ": 3}), audio_hash="h6"),
        ClipRecord("untitled", None, _analysis(), audio_hash="h7"),
    ]
    findings = check(records)
    assert _kinds(findings, "good") == []
    assert _kinds(findings, "broken") == ["unreadable"]
    assert _kinds(findings, "silent") == ["silent"]
    assert _kinds(findings, "short") == ["too_short"]
    assert _kinds(findings, "long") == ["too_long"]
    assert _kinds(findings, "crammed") == ["too_fast"]  # 290 phoneme_ids, 3.2 s = 275 frames at 22,050/256
    assert _kinds(findings, "loud") == ["clipped"]
    assert _kinds(findings, "odd") == ["missing_symbols"]
    assert _kinds(findings, "untitled") == ["no_text"]
    blocking = {f.kind for f in findings if f.blocking}
    assert blocking == {"unreadable", "silent", "too_short", "too_long", "too_fast", "no_text"}
    crammed = next(f.message for f in findings if f.clip_id == "crammed")
    assert "290 phoneme_ids but only 275 spectrogram frames" in crammed
    assert "truncated WAV" in next(f.message for f in findings if f.clip_id == "broken")


def test_duplicates_and_rate_outliers_across_clips():
    """Same text (case and spacing aside) or same audio is flagged on the later clip; rate outliers by IQR."""
    records = [
        ClipRecord(f"c{i}", f"Sentence {i}.", _analysis(rate=11 + (i % 3)), audio_hash=f"h{i}") for i in range(10)
    ]
    records.append(ClipRecord("again", "  sentence 3. ", _analysis(rate=12), audio_hash="h-again"))
    records.append(ClipRecord("copy", "Different text.", _analysis(rate=12), audio_hash="h5"))
    records.append(ClipRecord("rushed", "Rushed.", _analysis(rate=40), audio_hash="h-rushed"))
    findings = check(records)
    assert _kinds(findings, "again") == ["duplicate_text"]
    assert _kinds(findings, "copy") == ["duplicate_audio"]
    assert _kinds(findings, "rushed") == ["rate_outlier"]
    assert _kinds(findings, "c3") == [] and _kinds(findings, "c5") == []


def test_rate_fences_need_a_few_values():
    """Tukey's fences: Q1 - 1.5 IQR and Q3 + 1.5 IQR; none for fewer than 4 clips."""
    assert rate_fences([1, 2, 3]) is None
    low, high = rate_fences([10, 11, 12, 13])
    assert (low, high) == (10.75 - 1.5 * 1.5, 12.25 + 1.5 * 1.5)


def test_a_text_the_front_end_could_read_two_ways_is_a_warning():
    """With the voice's language, a transcript whose normalization is ambiguous ("1/2": a half, or January second?)
    is warned of, naming both readings; a plain one and a language without rules are not."""
    records = [
        ClipRecord("half", "Add 1/2 cup.", _analysis(), audio_hash="h1"),
        ClipRecord("plain", "Add half a cup.", _analysis(), audio_hash="h2"),
    ]
    found = [f for f in check(records, language="en-us") if f.kind == "ambiguous_text"]
    assert [(f.clip_id, f.blocking) for f in found] == [("half", False)]
    assert '"1/2" reads "one half" (it could be "January second")' in found[0].message
    assert not [f for f in check(records, language="de") if f.kind == "ambiguous_text"]
