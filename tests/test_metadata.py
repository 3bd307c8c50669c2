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


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be"])
def test_utf16_with_its_byte_order_mark_is_read(tmp_path, encoding):
    """Notepad's "Unicode" (UTF-16 LE with a byte-order mark) and its big-endian sibling are read as what they are
    (they were refused as "line 1 is not UTF-8 text (byte 0)"); UTF-16 without a mark is still refused."""
    text = "c01|Café au lait, s'il vous plaît.\r\nc02|Second line.\r\n"
    data = text.encode(encoding) if encoding == "utf-16" else b"\xfe\xff" + text.encode(encoding)
    metadata = read_metadata(_write(tmp_path, data))
    assert [(e.id, e.text) for e in metadata.entries] == [
        ("c01", "Café au lait, s'il vous plaît."),
        ("c02", "Second line."),
    ]
    with pytest.raises(MetadataError, match="line 1 is not UTF-8"):
        read_metadata(_write(tmp_path, text.encode("utf-16-le")))


def test_a_row_with_an_extra_bar_is_named_never_cut(tmp_path):
    """Five id|text rows, one with a '|' inside its text: the file stays id|text and that row is named with its
    line and column count, not read as LJSpeech's normalized column (which kept only the words after the '|')."""
    rows = [
        "c01|Please call Stella.",
        "c02|Ask her to bring these things.",
        "c03|Six spoons of fresh snow peas.",
        "c04|Please call Stella|and ask her to bring these things with her.",
        "c05|Five thick slabs of blue cheese.",
    ]
    metadata = read_metadata(_write(tmp_path, "\n".join(rows) + "\n"))
    assert metadata.layout == "id|text"
    assert [e.id for e in metadata.entries] == ["c01", "c02", "c03", "c05"]
    assert all("|" not in e.text and e.text != "and ask her to bring these things with her." for e in metadata.entries)
    [problem] = metadata.problems
    assert problem.line == 4 and "3 columns" in problem.message and "2 columns" in problem.message


def test_one_three_column_row_does_not_make_a_file_multi_speaker(tmp_path):
    """A single id|word|text row among id|text rows is not a speaker layout that would refuse every other row:
    the majority's layout wins and only that row is named."""
    path = _write(tmp_path, "a|One.\nb|Two.\nc|Stella|Three.\nd|Four.\ne|Five.\n")
    metadata = read_metadata(path)
    assert metadata.layout == "id|text" and metadata.speakers == []
    assert [e.id for e in metadata.entries] == ["a", "b", "d", "e"]
    assert [(p.line, "3 columns" in p.message) for p in metadata.problems] == [(3, True)]


def test_a_speaker_file_names_the_rows_that_do_not_fit(tmp_path):
    """In an id|speaker|text file a row with a '|' in its text (4 columns) or none (2) is named, the rest kept."""
    path = _write(tmp_path, "a|ann|One.\nb|bob|Two|too.\nc|ann|Three.\nd|Four.\ne|bob|Five.\n")
    metadata = read_metadata(path)
    assert metadata.layout == "id|speaker|text" and [e.id for e in metadata.entries] == ["a", "c", "e"]
    assert [p.line for p in metadata.problems] == [2, 4]
    assert all("the file's rows have 3" in p.message for p in metadata.problems)
    assert "4 columns" in metadata.problems[0].message and "2 columns" in metadata.problems[1].message


def test_a_unicode_line_separator_inside_a_text_does_not_cut_the_row(tmp_path):
    """Only CR and LF end a row: a U+2028 or NEL pasted into a text stays inside it (splitlines cut there)."""
    path = _write(tmp_path, "a|First half\u2028second half.\nb|One\x85two.\nc|Plain.\n")
    metadata = read_metadata(path)
    assert [(e.id, e.text, e.line) for e in metadata.entries] == [
        ("a", "First half second half.", 1),
        ("b", "One two.", 2),
        ("c", "Plain.", 3),
    ]
    assert not metadata.problems
