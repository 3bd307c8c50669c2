"""Word and phoneme timestamps (issue 32, item 5): from the durations the encoder predicts, matched to the text's
written words, heard where the audio says (the real joe voice, real espeak-ng), written by ``say --timestamps``,
sent by the server when asked and followed by the Synthesize page while it plays. Their order and coverage for
every engine are in ``tests/engine_conformance.py``."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from itertools import pairwise

import httpx
import numpy as np
import pytest
from conftest import synthesize_page

from engines.base import SynthesisOptions
from engines.timing.formats import vtt
from engines.timing.timeline import Timeline
from engines.timing.written import pair

TIMED = SynthesisOptions(noise_scale=0.0, noise_w=0.0, timestamps=True)
ONSET_TOLERANCE_S = 0.040
"""The issue's bound on a word's start against where its sound begins."""


def timeline_of(engine, text: str, options: SynthesisOptions = TIMED) -> Timeline:
    """The timeline of one request, and its audio as ``timeline.audio``."""
    timeline, audio = Timeline(), []
    for chunk in engine.synthesize(text, options):
        timeline.add(chunk)
        audio.append(chunk.audio)
    timeline.audio = np.concatenate(audio)
    return timeline


def test_a_written_word_said_as_several_has_one_timestamp_covering_them(engine):
    """ "$49.95" is said as seven words: it is one timed word, written as typed, from the first of them to the last;
    its neighbours keep their own."""
    timeline = timeline_of(engine, "It costs $49.95 today.")
    words = timeline.words
    assert [w.text for w in words] == ["It", "costs", "$49.95", "today"]
    money = words[2]
    assert money.spoken == "forty nine dollars and ninety five cents"
    assert (money.char_start, money.char_end) == (9, 15)
    spoken_s = (money.end - money.start) / timeline.sample_rate
    assert spoken_s > 1.5  # seven words, not one
    assert words[1].end <= money.start and money.end <= words[3].start


def test_written_words_said_together_are_one_span_and_unchanged_words_their_own():
    """Two written words rewritten as three ("8:00 pm" -> "eight p m") are one span; "Dr." said "Doctor" is its
    own, without its period; a word said as nothing gets none."""
    spans = pair("Dr. Lee at 8:00 pm -- ok.", "Doctor Lee at eight p m -- ok.")
    assert [(s.text, " ".join(s.spoken)) for s in spans] == [
        ("Dr", "Doctor"),
        ("Lee", "Lee"),
        ("at", "at"),
        ("8:00 pm", "eight p m"),
        ("--", "--"),
        ("ok", "ok"),
    ]


def test_words_espeak_runs_together_keep_their_own_times(engine):
    """espeak-ng says "for a" and "of the" as one phoneme word each: every written word still gets its own time,
    in order, and none overlaps the next."""
    words = timeline_of(engine, "I went to the store for a bit of the cake.").words
    assert [w.text for w in words] == "I went to the store for a bit of the cake".split()
    assert all(w.start < w.end <= n.start for w, n in pairwise(words))


def energy_onsets(audio: np.ndarray, rate: int, floor_db: float = -45.0, quiet_s: float = 0.05) -> list[float]:
    """Seconds where sound begins after at least ``quiet_s`` of quiet: 5 ms frames whose RMS is over ``floor_db``
    below the loudest frame's."""
    hop = rate // 200
    frames = audio[: len(audio) // hop * hop].reshape(-1, hop)
    level = 20 * np.log10(np.sqrt((frames**2).mean(axis=1)) + 1e-9)
    loud = level > level.max() + floor_db
    onsets, quiet = [], round(quiet_s * rate / hop)
    run = quiet
    for index, is_loud in enumerate(loud):
        if is_loud and run >= quiet:
            onsets.append(index * hop / rate)
        run = 0 if is_loud else run + 1
    return onsets


@pytest.mark.parametrize("text", ["One. Two. Three.", "One, two, three, four, five."])
def test_word_onsets_match_where_the_sound_begins_within_40_ms(engine, text):
    """Words after a pause (sentences apart, or commas inside one sentence; noise 0): each word's start is
    within 40 ms of where the audio's energy rises after the pause, one onset per word. What this proves: the
    durations are turned into samples and words at the right places at every pause, across sentences and
    inside one; not the boundaries between words run together, which the audio does not mark."""
    timeline = timeline_of(engine, text)
    onsets = energy_onsets(timeline.audio, timeline.sample_rate)
    starts = [w.start / timeline.sample_rate for w in timeline.words]
    assert len(onsets) == len(starts) == len(re.findall(r"\w+", text))
    assert max(abs(a - b) for a, b in zip(starts, onsets, strict=True)) <= ONSET_TOLERANCE_S


def test_timestamps_follow_the_speed(engine):
    """length_scale 1.5 stretches every word's time as it stretches the audio (the durations carry it)."""
    plain = timeline_of(engine, "Slow and steady.")
    slow = timeline_of(
        engine, "Slow and steady.", SynthesisOptions(noise_scale=0, noise_w=0, length_scale=1.5, timestamps=True)
    )
    ratio = slow.words[-1].end / plain.words[-1].end
    assert 1.35 < ratio < 1.65
    assert slow.phonemes[-1].end == len(slow.audio)


def zero_run(audio: np.ndarray) -> tuple[int, int]:
    """``(start, end)`` samples of the longest run of exact zeros (a pause of the markup: the voice's own quiet is
    never exactly zero)."""
    edges = np.diff(np.concatenate([[0], (audio == 0).astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
    longest = int(np.argmax(ends - starts))
    return int(starts[longest]), int(ends[longest])


@pytest.mark.parametrize(
    ("text", "offsets"),
    [
        ('<speak>One <break time="500ms"/> two.</speak>', [(7, 10), (33, 36)]),  # SSML: into the markup as sent
        ('<speak>One <break time="500ms"/> <sub alias="two">2</sub>.</speak>', [(7, 10), (None, None)]),  # said
        ("One [pause:500ms] two.", [(0, 3), (18, 21)]),  # inline tags: the text's own slices
    ],
)
def test_a_markup_pause_lies_between_its_words_and_they_are_numbered_on(engine, text, offsets):
    """Marked-up text with timestamps (joe, noise 0): a 0.5 s pause between "One" and "two" gives two words
    numbered on across the two parts (one tracker), with character offsets for text spoken as written only
    (SSML's into the markup; not a ``<sub>``'s alias); the gap between
    them holds the 0.5 s of silence, "One" ending where it starts and "two" starting where its sound does, within
    40 ms."""
    timeline = timeline_of(engine, text)
    rate, words = timeline.sample_rate, timeline.words
    assert all(text[w.char_start : w.char_end] == w.text for w in words if w.char_start is not None)
    assert [(w.text, w.index, (w.char_start, w.char_end)) for w in words] == [
        ("One", 0, offsets[0]),
        ("two", 1, offsets[1]),
    ]
    start, end = zero_run(timeline.audio)
    assert (end - start) / rate == pytest.approx(0.5, abs=1 / rate)
    assert words[0].end <= start < words[1].start and end <= words[1].start
    sound = next(onset for onset in energy_onsets(timeline.audio, rate) if onset >= end / rate)
    assert abs(words[0].end - start) / rate <= ONSET_TOLERANCE_S
    assert abs(words[1].start / rate - sound) <= ONSET_TOLERANCE_S


def test_webvtt_has_a_header_and_a_cue_per_word(engine):
    """WebVTT: the WEBVTT header, then per word a ``HH:MM:SS.mmm --> HH:MM:SS.mmm`` line and the word."""
    text = vtt(timeline_of(engine, "Hello there."))
    head, *cues = text.split("\n\n")
    assert head == "WEBVTT"
    cues = [c for c in cues if c]
    assert [c.splitlines()[1] for c in cues] == ["Hello", "there"]
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3} --> \d\d:\d\d:\d\d\.\d{3}", c.splitlines()[0]) for c in cues)


def _say(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "studio", "say", *args], capture_output=True, text=True, cwd=cwd)


def test_say_writes_srt_and_json_timestamps_and_refuses_another_extension(tmp_path):
    """``say --timestamps``: an SRT file of numbered cues, one per word, in order; a JSON file of words and
    phonemes with start and end seconds; another extension is one line and exit code 2, before any work."""
    done = _say("It costs $49.95.", "-o", "line.wav", "--timestamps", "line.srt", "--quiet", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    cues = [c.splitlines() for c in (tmp_path / "line.srt").read_text(encoding="utf-8").strip().split("\n\n")]
    assert [c[0] for c in cues] == ["1", "2", "3"] and [c[2] for c in cues] == ["It", "costs", "$49.95"]
    times = [re.fullmatch(r"(\d\d):(\d\d):(\d\d),(\d{3}) --> (\d\d):(\d\d):(\d\d),(\d{3})", c[1]) for c in cues]
    ms = [(int(t[3]) * 1000 + int(t[4]), int(t[7]) * 1000 + int(t[8])) for t in times if t]
    assert len(ms) == 3 and all(a < b <= c for (a, b), (c, _) in pairwise(ms))

    done = _say("Hello, world.", "-o", "line.wav", "--timestamps", "line.json", "--quiet", cwd=tmp_path)
    found = json.loads((tmp_path / "line.json").read_text(encoding="utf-8"))
    assert [w["text"] for w in found["words"]] == ["Hello", "world"]
    assert found["phonemes"][-1]["end"] == pytest.approx(found["duration"], abs=1e-3)
    assert all(p["start"] < p["end"] for p in found["phonemes"])

    refused = _say("Hi.", "-o", "line.wav", "--timestamps", "line.txt", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1 and "line.txt" in refused.stderr


def _events(server, **fields) -> list[dict]:
    body = {"model": "en_US-joe-medium", "input": "Cats sat. Dogs ran!", "response_format": "pcm"}
    response = httpx.post(f"{server.url}/v1/audio/speech", json={**body, **fields}, timeout=60)
    assert response.status_code == 200, response.text
    return [json.loads(line[6:]) for line in response.text.splitlines() if line.startswith("data: ")]


def test_server_sends_a_timestamps_event_before_each_sentence_only_when_asked(speech_server):
    """``timestamps: true`` with sse: a ``speech.timestamps`` event per sentence, before its audio, whose times
    fall inside the audio sent; without the field the events are OpenAI's alone; without sse it is refused,
    naming the field."""
    events = _events(speech_server, stream_format="sse", timestamps=True)
    kinds = [e["type"] for e in events]
    assert kinds[0] == "speech.timestamps" and kinds.count("speech.timestamps") == 2
    stamps = [e for e in events if e["type"] == "speech.timestamps"]
    assert [[w["text"] for w in e["words"]] for e in stamps] == [["Cats", "sat"], ["Dogs", "ran"]]
    audio = b"".join(base64.b64decode(e["audio"]) for e in events if e["type"] == "speech.audio.delta")
    seconds = len(audio) / 2 / 24000  # pcm: 16-bit at OpenAI's 24 kHz
    assert stamps[-1]["phonemes"][-1]["end"] == pytest.approx(seconds, abs=0.02)
    assert {e["type"] for e in _events(speech_server, stream_format="sse")} == {
        "speech.audio.delta",
        "speech.audio.done",
    }
    refused = httpx.post(f"{speech_server.url}/v1/audio/speech", json={"input": "Hi.", "timestamps": True}, timeout=30)
    assert refused.status_code == 400 and refused.json()["error"]["param"] == "timestamps"


@pytest.fixture
def page(qtbot, monkeypatch):
    """A Synthesize page on a fresh studio state whose sound device takes audio in real time (ALSA's capture
    file in the tests takes it at once, so nothing would be heard "now")."""
    from sound_device_fakes import FakeDevice

    FakeDevice(realtime=True).install(monkeypatch)
    page = synthesize_page(qtbot)
    yield page
    page.stop()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=10_000)


@pytest.mark.gui
def test_the_page_highlights_the_word_being_heard_and_nothing_once_played(page, qtbot, capture):
    """While a line plays, the text box highlights each word in turn, when the device has been given its start;
    once the line has played nothing is highlighted."""
    text = "One, two, three, four."
    page.text_edit.setPlainText(text)
    seen: list[tuple[str, str, float]] = []

    def shown(word: str) -> None:
        selections = page.text_edit.extraSelections()
        playback = page._lines.speaking.playback
        marked = selections[0].cursor.selectedText() if selections else ""
        seen.append((word, marked, playback.played_s if playback is not None else 0.0))

    page.highlight.shown.connect(shown)
    page.speak()
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=30_000)
    words = [w for w, _, _ in seen if w]
    assert [w for n, w in enumerate(words) if n == 0 or words[n - 1] != w] == ["One", "two", "three", "four"]
    assert all(word == marked for word, marked, _ in seen)
    timeline = page._take.timeline
    starts = {w.text: w.start for w in timeline.words}
    assert all(played_s * timeline.sample_rate >= starts[word] for word, _, played_s in seen if word)
    assert seen[-1][0] == "" and page.text_edit.extraSelections() == []
    assert len(capture.samples()) > 0


@pytest.mark.gui
def test_a_replayed_line_highlights_its_words_where_the_box_holds_its_text(page, qtbot, capture):
    """History's replay of a line highlights its words again as they are heard while the box holds the line's
    text; with other text in the box nothing is highlighted."""
    text = "One, two, three, four."
    page.text_edit.setPlainText(text)
    page.speak()
    qtbot.waitUntil(lambda: not page.is_speaking() and page.last_line is not None, timeout=30_000)
    line, seen = page.last_line, []
    page.highlight.shown.connect(seen.append)
    page.replay(line)
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=30_000)
    words = [w for w in seen if w]
    assert [w for n, w in enumerate(words) if n == 0 or words[n - 1] != w] == ["One", "two", "three", "four"]
    assert seen[-1] == "" and page.text_edit.extraSelections() == []
    seen.clear()
    page.text_edit.setPlainText("Something else typed since.")
    page.replay(line)
    qtbot.waitUntil(lambda: not page.is_speaking(), timeout=30_000)
    assert not [w for w in seen if w]
