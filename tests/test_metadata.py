"""metadata.csv reading: Piper's layouts, real corpus files, and the ways such files go wrong."""

from __future__ import annotations

import pytest
from conftest import shared_path

from trainer.dataset.metadata import MetadataError, convert_separated, read_metadata


def _write(tmp_path, content: str | bytes, name: str = "metadata.csv"):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8", newline="")
    else:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize(
    ("corpus", "count", "first"),
    [
        (("target-voice",), 240, ("slt_0001", "The kettle whistled twice, then fell silent.")),
        (("real-speech", "cards"), 5, ("001", "ten of clubs")),
        (("real-speech", "librivox"), 5, ("sense_and_sensibility_01_austen_64kb-0870", None)),
    ],
)
def test_shared_corpus_metadata_reads_cleanly(corpus, count, first):
    """The corpus files read with every line, no problems, one speaker."""
    metadata = read_metadata(shared_path("corpus", *corpus, "metadata.csv"))
    assert len(metadata.entries) == count and not metadata.problems
    assert metadata.layout == "id|text" and metadata.speakers == []
    assert metadata.entries[0].id == first[0]
    if first[1]:
        assert metadata.entries[0].text == first[1]


def test_bom_crlf_blank_lines_and_wav_ids(tmp_path):
    """A BOM, CRLF line ends, blank lines and ids with .wav are all fine; line numbers stay true."""
    path = _write(tmp_path, "\ufeffa.wav|First line.\r\n\r\nb|Second line.\r\n   \r\nc.WAV|Third.\r\n")
    metadata = read_metadata(path)
    assert [(e.id, e.text, e.line) for e in metadata.entries] == [
        ("a", "First line.", 1),
        ("b", "Second line.", 3),
        ("c", "Third.", 5),
    ]


def test_a_stray_quote_swallows_nothing(tmp_path):
    """An unclosed quote is text: the following lines are still separate utterances."""
    path = _write(tmp_path, 'a|He said "hello and left.\nb|Next line.\nc|"Quoted" words.\n')
    metadata = read_metadata(path)
    assert [e.text for e in metadata.entries] == ['He said "hello and left.', "Next line.", '"Quoted" words.']


def test_multi_speaker_and_ljspeech_three_columns(tmp_path):
    """id|speaker|text gives speakers; LJSpeech's id|text|normalized uses the last column, no speakers."""
    speakers = _write(tmp_path, "a|ann|One.\nb|bob|Two.\nc|ann|Three.\nd|bob|Four.\n", "speakers.csv")
    metadata = read_metadata(speakers)
    assert metadata.layout == "id|speaker|text" and metadata.speakers == ["ann", "bob"]
    lj = _write(
        tmp_path, "LJ001|Dr. Smith paid $5.|Doctor Smith paid five dollars.\nLJ002|It's 1 pm.|It's one pm.\n", "lj.csv"
    )
    metadata = read_metadata(lj)
    assert metadata.layout == "id|text|normalized" and metadata.speakers == []
    assert metadata.entries[0].text == "Doctor Smith paid five dollars."


def test_bad_lines_are_reported_and_the_rest_kept(tmp_path):
    """Empty text, empty id, too many columns and duplicate ids are per-line problems."""
    path = _write(tmp_path, "a|Good.\nb|\n|No id.\nc|one|two|three\na|Again.\nd|Also good.\n")
    metadata = read_metadata(path)
    assert [e.id for e in metadata.entries] == ["a", "d"]
    messages = {p.line: p.message for p in metadata.problems}
    assert set(messages) == {2, 3, 4, 5}
    assert "empty text" in messages[2] and "empty id" in messages[3]
    assert "columns" in messages[4] and "already on line 1" in messages[5]


def test_comma_separated_file_is_refused_with_the_line_and_converted_on_request(tmp_path):
    """A CSV with commas names its first line and the expected format; convert_separated fixes it."""
    path = _write(tmp_path, 'a,"Hello, world."\nb,Plain text\n')
    with pytest.raises(MetadataError, match=r"line 1 looks comma-separated.*id\|text") as err:
        read_metadata(path)
    assert err.value.path == path
    converted = convert_separated(path)
    assert converted == "a|Hello, world.\nb|Plain text\n"
    assert path.read_text(encoding="utf-8") == 'a,"Hello, world."\nb,Plain text\n'  # original untouched
    again = _write(tmp_path, converted, "fixed.csv")
    assert [e.text for e in read_metadata(again).entries] == ["Hello, world.", "Plain text"]


def test_not_utf8_names_the_line(tmp_path):
    """Latin-1 bytes give an error naming the line to fix."""
    path = _write(tmp_path, "a|fine\nb|caf\xe9\n".encode("latin-1"))
    with pytest.raises(MetadataError, match="line 2 is not UTF-8"):
        read_metadata(path)
