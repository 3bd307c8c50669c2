"""One resolver for voice and speaker names (engines.names), on real voice configs."""

from __future__ import annotations

import dataclasses

import pytest

from engines import names
from engines.speakers import UnknownName
from engines.voice import parse_config


@pytest.fixture(scope="module")
def trio(joe):
    """joe's model with a 3-speaker config (ana, ben, cleo); only the config is read here."""
    raw = {**joe.config.raw, "num_speakers": 3, "speaker_id_map": {"ana": 0, "ben": 1, "cleo": 2}}
    config = parse_config(joe.config.path, raw)
    return dataclasses.replace(joe, name="en_GB-trio-low", config=config)


def test_voices_by_full_name_case_and_piper_short_name(joe, trio):
    """en_US-joe-medium, EN_US-JOE-MEDIUM and joe are joe; an unknown name lists the known ones."""
    voices = [joe, trio]
    assert names.find_voice(voices, "en_US-joe-medium") is joe
    assert names.find_voice(voices, "EN_US-JOE-MEDIUM") is joe
    assert names.find_voice(voices, "joe") is joe and names.find_voice(voices, "trio") is trio
    with pytest.raises(UnknownName, match="known voices: en_US-joe-medium, en_GB-trio-low"):
        names.find_voice(voices, "bob")
    twin = dataclasses.replace(trio, name="de_DE-joe-low")
    with pytest.raises(UnknownName, match="could be en_US-joe-medium, de_DE-joe-low"):
        names.find_voice([joe, twin], "joe")


def test_speakers_by_name_id_default_and_openai_voice(joe, trio):
    """Names and ids as text give ids; default, the voice's name and unmapped OpenAI names the default."""
    voice_map = {"alloy": "cleo", "echo": "1"}
    assert [names.find_speaker(trio, s, voice_map) for s in ("ben", "1", 2, "alloy", "echo")] == [1, 1, 2, 2, 1]
    assert {names.find_speaker(trio, s, voice_map) for s in (None, "", "default", "en_GB-trio-low", "nova")} == {None}
    assert names.find_speaker(joe, "alloy", voice_map) is None and names.find_speaker(joe, "0") is None
    for wrong, voice in (("3", trio), ("dan", trio), ("1", joe)):
        with pytest.raises(UnknownName, match=f"unknown speaker '{wrong}'"):
            names.find_speaker(voice, wrong)


def test_a_voice_map_naming_no_speaker_is_refused(joe, trio):
    """--map-voice alloy=zed fails at start, naming the mapping; so does a map with only one-speaker voices."""
    names.check_voice_map({"alloy": "ben"}, [joe, trio])
    with pytest.raises(UnknownName, match="voice map alloy=zed: unknown speaker 'zed'"):
        names.check_voice_map({"alloy": "zed"}, [joe, trio])
    with pytest.raises(UnknownName, match="no voice here has several speakers"):
        names.check_voice_map({"alloy": "ben"}, [joe])


def test_engines_read_speaker_names_by_the_same_rules(joe, trio):
    """The engines' ``VoiceConfig.speaker_id`` reads a name as ``find_speaker`` does (default, OpenAI names, ids
    as text), gives the default speaker's id for none, and refuses what it refuses, on one speaker too."""
    config = trio.config
    assert [config.speaker_id(s) for s in ("ben", "1", 2, "nova", "default", None)] == [1, 1, 2, 0, 0, 0]
    assert [joe.config.speaker_id(s) for s in ("alloy", "0", None)] == [None, None, None]
    for wrong, voice in (("dan", trio), ("3", trio), ("bob", joe)):
        with pytest.raises(UnknownName, match=f"unknown speaker '{wrong}'"):
            voice.config.speaker_id(wrong)
