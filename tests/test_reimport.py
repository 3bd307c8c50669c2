"""Importing a source again after it was fixed (issue 30, kinds 3 and 5): transcripts filled in, changed ones
offered and never replaced silently, archives inside archives, and no half-made project left by a failed import."""

from __future__ import annotations

import shutil
import zipfile

from conftest import target_voice_slice

from trainer.dataset.project import DatasetProject

TEXTS = {"slt_0001": "Café au lait, s'il vous plaît.", "slt_0002": "Crème brûlée for two, à la carte."}


def _metadata(folder, texts: dict[str, str], encoding: str = "utf-8") -> None:
    (folder / "metadata.csv").write_bytes("".join(f"{i}|{t}\n" for i, t in texts.items()).encode(encoding))


def test_a_metadata_file_saved_again_as_utf8_fills_in_the_transcripts(tmp_path):
    """A Windows-1252 metadata.csv: the import names the line and byte and adds the clips without text; once the
    file is saved as UTF-8, importing again fills their transcripts in (measured) and says so."""
    source = target_voice_slice(tmp_path / "src", 2)
    _metadata(source, TEXTS, "cp1252")
    first = DatasetProject.create(tmp_path / "p").import_sources([source], workers=1)
    assert sorted(first.added) == sorted(TEXTS)
    assert any("line 1 is not UTF-8 text (byte 12); save the file as UTF-8" in p for p in first.problems)
    assert all(c.text is None for c in DatasetProject(tmp_path / "p").clips.values())
    _metadata(source, TEXTS)
    again = DatasetProject(tmp_path / "p").import_sources([source], workers=1)
    assert again.added == [] and again.unchanged == 2 and sorted(again.filled) == sorted(TEXTS)
    assert again.counts() == "0 clips added, 2 already present, 2 transcripts filled in from the source"
    project = DatasetProject(tmp_path / "p")
    assert {i: c.text for i, c in project.clips.items()} == TEXTS
    clip = project.clips["slt_0002"]
    assert clip.text_origin == "metadata.csv:2" and clip.edits == ["text from metadata.csv:2"]
    assert clip.analysis["num_phoneme_ids"] > 20 and clip.analysis["phonemes_per_second"] > 0


def test_a_sidecar_written_later_fills_in_the_transcript(tmp_path):
    """A recording imported alone gets the text of the clip.txt written beside it afterwards."""
    source = tmp_path / "src"
    source.mkdir()
    flac = target_voice_slice(tmp_path / "corpus", 1) / "wavs" / "slt_0001.flac"
    shutil.copy(flac, source / "take.flac")
    project = DatasetProject.create(tmp_path / "p")
    project.import_sources([source], workers=1)
    (source / "take.txt").write_text("The kettle whistled twice, then fell silent.\n", encoding="utf-8")
    again = project.import_sources([source], workers=1)
    assert again.filled == ["take"] and DatasetProject(tmp_path / "p").clips["take"].text_origin == "take.txt"


def test_changed_transcripts_are_offered_never_replaced_silently(tmp_path):
    """A text changed in metadata.csv is listed, not applied; with replace_texts it replaces the source's text
    (the old one kept in the edits), never a text typed in the studio."""
    from trainer.dataset.curation import set_text

    source = target_voice_slice(tmp_path / "src", 3)
    old = dict(line.split("|") for line in (source / "metadata.csv").read_text(encoding="utf-8").splitlines())
    project = DatasetProject.create(tmp_path / "p")
    project.import_sources([source], workers=1)
    set_text(project, "slt_0003", "Typed by hand.")
    _metadata(source, {**old, "slt_0001": "A better first line.", "slt_0003": "The file's third line."})
    offered = DatasetProject(tmp_path / "p").import_sources([source], workers=1)
    assert [(c.clip_id, c.edited) for c in offered.changed] == [("slt_0001", False), ("slt_0003", True)]
    assert not offered.replaced and not offered.filled
    assert "metadata.csv:1 says 'A better first line.'" in offered.changed[0].describe()
    assert DatasetProject(tmp_path / "p").clips["slt_0001"].text == old["slt_0001"]
    taken = DatasetProject(tmp_path / "p").import_sources([source], workers=1, replace_texts=True)
    assert taken.replaced == ["slt_0001"] and [c.clip_id for c in taken.changed] == ["slt_0003"]
    clips = DatasetProject(tmp_path / "p").clips
    assert clips["slt_0001"].text == "A better first line." and clips["slt_0003"].text == "Typed by hand."
    assert clips["slt_0001"].edits == [f"text from metadata.csv:1 (was {old['slt_0001']!r})"]


def test_a_failed_import_leaves_no_project_folder(tmp_path):
    """An import that finds nothing removes the folders it made (the project's missing parents too); in an
    existing empty folder it removes only what it made; an existing project stays as it was."""
    from trainer.dataset.project import making

    archive = tmp_path / "notes.zip"
    with zipfile.ZipFile(archive, "w") as out:
        out.writestr("readme.txt", "no audio here")
    with making(tmp_path / "new" / "deeper" / "p") as project:
        assert not project.import_sources([archive], workers=1).added
    assert not (tmp_path / "new").exists()
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_text("mine")
    with making(tmp_path / "mine") as project:
        project.import_sources([archive], workers=1)
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["keep.txt"]
    target_voice_slice(tmp_path / "src", 1)
    with making(tmp_path / "p") as project:
        project.import_sources([tmp_path / "src"], workers=1)
    with making(tmp_path / "p") as project:
        project.import_sources([archive], workers=1)
    assert list(DatasetProject(tmp_path / "p").clips) == ["slt_0001"]


def test_cli_imports_a_zip_in_a_zip_and_a_failed_import_leaves_nothing(tmp_path, capsys):
    """`dataset import outer.zip` (inner.zip inside) imports the clips; an archive with nothing usable exits 1
    and leaves no project folder behind for the other commands to call "not a dataset project"."""
    from studio.cli import main

    source = target_voice_slice(tmp_path / "src", 2)
    inner, outer = tmp_path / "inner.zip", tmp_path / "outer.zip"
    with zipfile.ZipFile(inner, "w") as out:
        for path in sorted(source.rglob("*")):
            out.write(path, str(path.relative_to(source)))
    with zipfile.ZipFile(outer, "w") as out:
        out.write(inner, "inner.zip")
    assert main(["dataset", "import", str(outer), "--project", str(tmp_path / "p"), "--workers", "1"]) == 0
    assert "2 clips added, 0 already present" in capsys.readouterr().err
    assert all(c.text for c in DatasetProject(tmp_path / "p").clips.values())
    shared = tmp_path / "shared"  # a folder holding only an archive: unpacked too, not refused as empty
    shared.mkdir()
    shutil.copy(outer, shared / "voice.zip")
    assert main(["dataset", "import", str(shared), "--project", str(tmp_path / "r"), "--workers", "1"]) == 0
    assert "2 clips added, 0 already present" in capsys.readouterr().err
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as out:
        out.writestr("readme.txt", "no audio here")
    assert main(["dataset", "import", str(empty), "--project", str(tmp_path / "q")]) == 1
    assert "no recordings found" in capsys.readouterr().err and not (tmp_path / "q").exists()


def test_cli_refresh_takes_the_changed_transcripts(tmp_path, capsys):
    """`dataset import` again names a changed transcript and how to take it; with --refresh it is taken."""
    from studio.cli import main

    source = target_voice_slice(tmp_path / "src", 2)
    command = ["dataset", "import", str(source), "--project", str(tmp_path / "p"), "--workers", "1"]
    assert main(command) == 0
    old = (source / "metadata.csv").read_text(encoding="utf-8")
    (source / "metadata.csv").write_text(old.replace("The kettle whistled twice", "The kettle sang"), encoding="utf-8")
    capsys.readouterr()
    assert main(command) == 0
    err = capsys.readouterr().err
    assert "changed: slt_0001: metadata.csv:1 says 'The kettle sang, then fell silent.'" in err
    assert "1 transcript differs from its source, not replaced: import again with --refresh to take it" in err
    assert main([*command, "--refresh"]) == 0
    assert "1 transcript replaced by the source's" in capsys.readouterr().err
    assert DatasetProject(tmp_path / "p").clips["slt_0001"].text == "The kettle sang, then fell silent."
