"""Counted nouns agree with their number."""

from engines.words import count, plural


def test_count_agrees_with_number():
    """One takes the singular; zero and many take the plural."""
    assert count(1, "clip") == "1 clip"
    assert count(0, "clip") == "0 clips"
    assert count(2, "model") == "2 models"
    assert count(1, "text") == "1 text"


def test_plural_spelling():
    """Sibilants take -es, consonant+y takes -ies, irregular nouns and overrides are kept."""
    assert plural("match") == "matches"
    assert plural("entry") == "entries"
    assert plural("day") == "days"
    assert plural("utterance") == "utterances"
    assert plural("epoch") == "epochs" and count(6, "epoch") == "6 epochs"  # a hard "ch"
    assert count(2, "voice (ONNX)", "voices (ONNX)") == "2 voices (ONNX)"
