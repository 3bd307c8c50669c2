"""Editing a dataset clip by clip: exclude/include, texts with a phoneme preview, split and merge."""

from __future__ import annotations

import hashlib

import pytest
import soundfile
from conftest import shared_path

from trainer.dataset import curation
from trainer.dataset.export import export_piper


@pytest.fixture(scope="module")
def cards_project(tmp_path_factory):
    """The five 'cards' recordings imported into a project."""
    from trainer.dataset.project import DatasetProject

    cards = shared_path("corpus", "real-speech", "cards")
    hashes = {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in cards.iterdir()}
    project = DatasetProject.create(tmp_path_factory.mktemp("cards"))
    project.import_sources([cards], workers=2)
    yield project
    assert {p: hashlib.sha256(p.read_bytes()).hexdigest() for p in cards.iterdir()} == hashes


def _frames(project, clip_id):
    return soundfile.info(str(project.clip_path(clip_id))).frames


def test_exclude_and_include(cards_project, tmp_path):
    """An excluded clip leaves the export; included again, it comes back."""
    assert curation.set_excluded(cards_project, ["002"], True) == ["002"]
    assert export_piper(cards_project, tmp_path / "a").skipped["002"] == "excluded"
    assert curation.set_excluded(cards_project, ["002"], False) == ["002"]
    assert "002" not in export_piper(cards_project, tmp_path / "b").skipped
    assert cards_project.clips["002"].edits[-2:] == ["exclude", "include"]


def test_text_edit_and_preview(cards_project):
    """The preview shows phonemes and counts; an edit measures the new text; an empty text is refused."""
    from engines.phonemes import Phonemizer
    from engines.voice import load_config

    phonemizer = Phonemizer(load_config(cards_project.target_config))
    short = curation.preview_text(phonemizer, "Ace of spades.")
    longer = curation.preview_text(phonemizer, "The ace of spades, and the queen of hearts.")
    assert short.phonemes and longer.num_phoneme_ids > short.num_phoneme_ids > 0 and not short.missing
    assert curation.preview_text(phonemizer, "A bilabial percussive [[ ʬ ]] here.").missing == {"ʬ": 1}

    before = cards_project.clips["003"].analysis["num_phoneme_ids"]
    clip = curation.set_text(cards_project, "003", "  The ace of spades,\n and the queen of hearts. ", phonemizer)
    assert clip.text == "The ace of spades, and the queen of hearts."
    assert clip.analysis["num_phoneme_ids"] == longer.num_phoneme_ids != before
    assert clip.reviewed and clip.edits[-1] == "text"
    with pytest.raises(curation.CurationError, match="003: the text is empty"):
        curation.set_text(cards_project, "003", "   ", phonemizer)


def test_the_preview_and_the_report_show_a_text_as_it_is_spoken(cards_project):
    """A transcript the front end reads otherwise than written: the phoneme preview gives it as spoken (its
    phonemes are those of the words), the report lists it under "Texts as they are spoken" and warns that "1/2"
    could be a date."""
    from engines.phonemes import Phonemizer
    from engines.voice import load_config
    from trainer.dataset.report import build_report, to_html, to_markdown

    phonemizer = Phonemizer(load_config(cards_project.target_config))
    written, spoken = "Add 1/2 cup at 9 a.m.", "Add one half cup at nine AM."
    preview = curation.preview_text(phonemizer, written)
    assert preview.normalized == spoken and preview.phonemes == curation.preview_text(phonemizer, spoken).phonemes
    assert curation.preview_text(phonemizer, spoken).normalized == ""
    before = cards_project.clips["004"].text
    curation.set_text(cards_project, "004", written, phonemizer)
    try:
        report = build_report(cards_project)
        assert report.spoken == {"004": spoken}
        markdown = to_markdown(report)
        assert "## Texts as they are spoken: 1 clip" in markdown and f"- `004`: {spoken}" in markdown
        assert f"<code>004</code>: {spoken}" in to_html(report)
        ambiguous = [f for f in report.findings if f.kind == "ambiguous_text"]
        assert [(f.clip_id, f.blocking) for f in ambiguous] == [("004", False)]
        assert "January second" in ambiguous[0].message and "Ambiguous text: 1 clip, warnings" in markdown
    finally:
        curation.set_text(cards_project, "004", before, phonemizer)


def test_split_and_merge(cards_project):
    """Split halves sum to the clip; merging them gives it back; originals are kept, excluded."""
    total = _frames(cards_project, "004")
    duration = cards_project.clips["004"].analysis["duration_s"]
    a, b = curation.split(cards_project, "004", duration / 2, ("first part", None))
    assert _frames(cards_project, a) + _frames(cards_project, b) == total
    assert cards_project.clips["004"].status == "excluded"
    assert cards_project.clips[a].text == "first part" and cards_project.clips[a].reviewed
    assert cards_project.clips[b].text is None and not cards_project.clips[b].reviewed
    assert cards_project.clips[a].analysis["duration_s"] == pytest.approx(duration / 2, abs=0.01)
    with pytest.raises(curation.CurationError, match="outside the clip"):
        curation.split(cards_project, "005", duration * 10)

    merged = curation.merge(cards_project, [a, "005"])
    assert _frames(cards_project, merged) == _frames(cards_project, a) + _frames(cards_project, "005")
    assert cards_project.clips[merged].text == "first part " + cards_project.clips["005"].text
    assert cards_project.clips[merged].analysis is not None
    assert {cards_project.clips[i].status for i in (a, "005")} == {"excluded"}
    with pytest.raises(curation.CurationError, match="at least two"):
        curation.merge(cards_project, [merged])
    with pytest.raises(curation.CurationError, match="no clip 'nope'"):
        curation.merge(cards_project, [merged, "nope"])


def test_trim_to_a_range(cards_project):
    """Trimming keeps exactly the chosen range and measures the clip again."""
    rate = soundfile.info(str(cards_project.clip_path("001"))).samplerate
    clip = curation.trim_clip(cards_project, "001", 0.25, 1.0)
    assert _frames(cards_project, "001") == round(0.75 * rate)
    assert clip.analysis["duration_s"] == pytest.approx(0.75, abs=1e-3) and clip.edits[-1] == "trim to 0.250-1.000 s"
    with pytest.raises(curation.CurationError, match="nothing left"):
        curation.trim_clip(cards_project, "001", 2.0, 1.0)
