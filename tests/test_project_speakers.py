"""Multi-speaker projects: a clip without a speaker is a blocking finding (never trained as the first
speaker); ``dataset speaker`` sets it. Dataset commands on a folder that is not a project create nothing."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import target_voice_slice

from studio.cli import main

SPEAKERS = ("alice", "bob", "carol")
NOT_A_PROJECT = "not a dataset project (no manifest.json); create one with voice-studio dataset import"


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A project of 6 target-voice clips by alice, bob and carol (``id|speaker|text``), then 2 recordings
    added without a speaker (``id|text``); returns ``(project folder, the 2 ids without a speaker)``."""
    from trainer.dataset.project import DatasetProject

    root = tmp_path_factory.mktemp("mixed")
    data = target_voice_slice(root / "data", 8)
    rows = (data / "metadata.csv").read_text(encoding="utf-8").splitlines()
    for name, chosen in (("multi", rows[:6]), ("plain", rows[6:])):
        (root / name / "wavs").mkdir(parents=True)
        for row in chosen:
            shutil.copy(data / "wavs" / f"{row.split('|')[0]}.flac", root / name / "wavs")
    multi = [f"{r.split('|')[0]}|{SPEAKERS[i % 3]}|{r.split('|')[-1]}" for i, r in enumerate(rows[:6])]
    (root / "multi" / "metadata.csv").write_text("\n".join(multi) + "\n", encoding="utf-8")
    (root / "plain" / "metadata.csv").write_text("\n".join(rows[6:]) + "\n", encoding="utf-8")
    project = DatasetProject.create(root / "project")
    assert len(project.import_sources([root / "multi"], workers=1).added) == 6
    assert len(project.import_sources([root / "plain"], workers=1).added) == 2
    return project.folder, [r.split("|")[0] for r in rows[6:]]


def _copy(mixed, tmp_path):
    from trainer.dataset.project import DatasetProject

    shutil.copytree(mixed[0], tmp_path / "project")
    return DatasetProject(tmp_path / "project")


def test_clips_without_speaker_are_named_and_left_out_of_export_and_cache(mixed, tmp_path, capsys):
    """The report names each clip without a speaker; export writes only id|speaker|text lines with a
    speaker (no empty field: a 4th speaker for Piper); the cache holds only alice, bob and carol."""
    from trainer.data.preprocess import PreprocessedCache

    folder, plain = mixed
    assert main(["dataset", "report", str(folder)]) == 0
    report = capsys.readouterr().out
    assert "no speaker, in a project with 3 speakers (alice, bob, carol)" in report
    assert all(clip_id in report for clip_id in plain)
    assert main(["dataset", "export", str(folder), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err
    assert all(f"left out {clip_id}: no speaker, in a project with 3 speakers" in err for clip_id in plain)
    lines = (tmp_path / "out" / "metadata.csv").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 6 and {line.split("|")[1] for line in lines} == set(SPEAKERS)
    assert not any(line.split("|")[0] in plain for line in lines)
    assert main(["dataset", "cache", str(folder), "--out", str(tmp_path / "cache"), "--workers", "1"]) == 0
    cache = PreprocessedCache(tmp_path / "cache")
    assert cache.speakers == list(SPEAKERS) and len(cache.utterances) == 6
    assert {u.speaker for u in cache.utterances} == set(SPEAKERS)


def test_preflight_and_nothing_to_train_count_clips_without_speaker(mixed, tmp_path):
    """Siblings: the Train page's Check counts the clips left out for no speaker; when nothing is left,
    the error counts them in words."""
    from trainer.dataset.export import nothing_to_train
    from trainer.run.preflight import summarize

    summary = summarize(mixed[0])
    assert summary.clips == 6 and summary.skipped["without a speaker in a multi-speaker project"] == 2
    project = _copy(mixed, tmp_path)
    for clip in project.clips.values():
        clip.reviewed = clip.reviewed and not clip.speaker  # the 6 named clips become drafts
    project.save()
    message = str(nothing_to_train(project))
    assert "of 8 clips, 6 draft transcripts" in message and "2 without a speaker in a multi-speaker project" in message


def test_dataset_speaker_sets_it_records_the_edit_and_refuses_bad_input(mixed, tmp_path, capsys):
    """``dataset speaker`` on one clip, then ``--missing``: both train under the name given; an unknown
    clip or a name with '|' changes nothing (exit 2); a new name is pointed out."""
    from trainer.dataset.export import selection
    from trainer.dataset.project import DatasetProject

    project, plain = _copy(mixed, tmp_path), mixed[1]
    before = project.manifest_path.read_bytes()
    assert main(["dataset", "speaker", str(project.folder), "bob", plain[0], "nope"]) == 2
    assert "no clip 'nope'" in capsys.readouterr().err
    assert main(["dataset", "speaker", str(project.folder), "a|b", plain[0]]) == 2
    assert "without '|'" in capsys.readouterr().err
    assert project.manifest_path.read_bytes() == before
    assert main(["dataset", "speaker", str(project.folder), "bob", plain[0]]) == 0
    assert main(["dataset", "speaker", str(project.folder), "dave", "--missing"]) == 0
    assert "'dave' is a new speaker (the project had alice, bob, carol)" in capsys.readouterr().err
    project = DatasetProject(project.folder)
    assert [project.clips[i].speaker for i in plain] == ["bob", "dave"]
    assert project.clips[plain[0]].edits[-1] == "speaker (none) -> bob"
    chosen, skipped = selection(project)
    assert len(chosen) == 8 and not skipped


def test_a_cache_clip_without_a_known_speaker_is_refused_naming_it(mixed, tmp_path):
    """A multi-speaker cache holding a clip without speaker (built before the check existed) is refused at
    load, naming the clip; the datamodule never maps an unknown speaker to id 0."""
    from engines.base import VoiceError
    from trainer.data.datamodule import speaker_id
    from trainer.data.preprocess import PreprocessedCache, build_cache
    from trainer.dataset.project import DatasetProject

    cache = build_cache(DatasetProject(mixed[0]), tmp_path / "cache", workers=1)
    document = json.loads((cache / "cache.json").read_text(encoding="utf-8"))
    victim = document["utterances"][2]
    for bad in (None, "dave"):
        victim["speaker"] = bad
        (cache / "cache.json").write_text(json.dumps(document), encoding="utf-8")
        with pytest.raises(VoiceError, match=f"clip {victim['id']}: speaker {bad!r}") as err:
            PreprocessedCache(cache)
        assert err.value.field == "utterances[2].speaker"
    victim["speaker"] = "carol"
    (cache / "cache.json").write_text(json.dumps(document), encoding="utf-8")
    loaded = PreprocessedCache(cache)
    assert speaker_id(loaded.utterances[2], loaded.speakers, cache) == 2
    with pytest.raises(ValueError, match=f"clip {loaded.utterances[2].id}: speaker 'carol' is not one of"):
        speaker_id(loaded.utterances[2], ["alice", "bob"], cache)


@pytest.mark.parametrize(
    "command",
    [
        ["report"],
        ["export", "--out", "{tmp}/out"],
        ["cache", "--out", "{tmp}/cache"],
        ["fix", "--all"],
        ["text", "001", "hello"],
        ["confirm"],
        ["speaker", "bob", "--missing"],
    ],
)
def test_dataset_commands_on_a_folder_that_is_not_a_project_create_nothing(tmp_path, capsys, command):
    """Every dataset command but import and slice, on a path that does not exist or a folder without
    manifest.json: exit 2 naming the path, and nothing is created there."""
    empty = tmp_path / "empty"
    empty.mkdir()
    for folder in (tmp_path / "x" / "nonexist", empty):
        argv = [part.format(tmp=tmp_path) for part in command]
        assert main(["dataset", argv[0], str(folder), *argv[1:]]) == 2
        assert f"{folder}: {NOT_A_PROJECT}" in capsys.readouterr().err
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == ["empty"]


def test_preflight_and_the_dataset_page_do_not_create_a_project(tmp_path, qtbot):
    """Siblings: the Train page's Check on a missing dataset path, and a Dataset page job other than import
    (Save report) on a folder that is not a project: a reason, and nothing created."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace
    from trainer.run.preflight import summarize

    with pytest.raises(ValueError, match="not a dataset"):
        summarize(tmp_path / "nonexist")
    page = DatasetPage(Workspace(dataset_project=tmp_path / "project"))
    qtbot.addWidget(page)
    page.save_report(tmp_path / "report.md")
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    assert f"Writing the report failed: {tmp_path / 'project'}: {NOT_A_PROJECT}" in page.hint.text()
    assert list(tmp_path.iterdir()) == []


def test_dataset_page_shows_speakers_and_sets_them_on_the_selection(mixed, tmp_path, qtbot):
    """The clip table's speaker column is empty and the warnings say no_speaker for the 2 clips without
    one; Set speaker on that selection fills both and clears the finding; an empty name changes nothing."""
    from studio.pages.dataset import DatasetPage
    from studio.state import Workspace
    from studio.widgets.clip_table import COLUMNS

    plain = mixed[1]
    page = DatasetPage(Workspace(dataset_project=_copy(mixed, tmp_path).folder))
    qtbot.addWidget(page)

    def cells(column: str) -> dict[str, str]:
        at = COLUMNS.index(column)
        return {page.model.row_id(r): page.model.index(r, at).data() for r in range(page.model.rowCount())}

    assert [cells("speaker")[i] for i in plain] == ["", ""] and "no speaker" in cells("warnings")[plain[0]]
    assert sorted(set(cells("speaker").values())) == ["", *SPEAKERS]
    page.select(plain)
    page.set_speaker_selected(" ")
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    assert "Setting the speaker failed" in page.hint.text() and cells("speaker")[plain[0]] == ""
    page.select(plain)
    page.set_speaker_selected("carol")
    qtbot.waitUntil(lambda: not page.is_busy(), timeout=30_000)
    assert "Set the speaker of 2 clips to 'carol'" in page.hint.text()
    assert [cells("speaker")[i] for i in plain] == ["carol", "carol"]
    assert not any("no_speaker" in warnings for warnings in cells("warnings").values())


def test_import_speaker_names_new_clips_and_a_bad_name_is_refused_before_any_work(mixed, tmp_path, capsys):
    """Sibling of the fix: ``dataset import --speaker carol`` gives new clips without a speaker that name
    (no no_speaker finding); ``--speaker 'a|b'`` is refused before anything is read or created."""
    from trainer.dataset.export import selection
    from trainer.dataset.project import DatasetProject

    project, plain = _copy(mixed, tmp_path), mixed[1]
    source = mixed[0].parent / "plain"
    more = tmp_path / "more"
    (more / "wavs").mkdir(parents=True)
    rows = (source / "metadata.csv").read_text(encoding="utf-8").splitlines()
    for row in rows:
        shutil.copy(source / "wavs" / f"{row.split('|')[0]}.flac", more / "wavs" / f"x{row.split('|')[0]}.flac")
    (more / "metadata.csv").write_text("".join(f"x{row}\n" for row in rows), encoding="utf-8")
    assert main(["dataset", "import", str(more), "--project", str(tmp_path / "new"), "--speaker", "a|b"]) == 2
    assert "must be non-empty, without '|'" in capsys.readouterr().err and not (tmp_path / "new").exists()
    assert main(["dataset", "import", str(more), "--project", str(project.folder), "--speaker", "carol"]) == 0
    assert "new speaker" not in capsys.readouterr().err
    project = DatasetProject(project.folder)
    assert [project.clips[f"x{i}"].speaker for i in plain] == ["carol", "carol"]
    assert [project.clips[i].speaker for i in plain] == [None, None]  # clips already there are left as they were
    assert sorted(selection(project)[1]) == sorted(plain)


def test_import_speaker_points_out_a_new_name(mixed, tmp_path, capsys):
    """A mistyped ``--speaker`` (``alcie``) on import is pointed out as a new speaker, as ``dataset speaker``
    does, since it would train as one more speaker."""
    project = _copy(mixed, tmp_path)
    source = mixed[0].parent / "plain"
    more = tmp_path / "typo"
    (more / "wavs").mkdir(parents=True)
    row = (source / "metadata.csv").read_text(encoding="utf-8").splitlines()[0]
    shutil.copy(source / "wavs" / f"{row.split('|')[0]}.flac", more / "wavs" / f"t{row.split('|')[0]}.flac")
    (more / "metadata.csv").write_text(f"t{row}\n", encoding="utf-8")
    assert main(["dataset", "import", str(more), "--project", str(project.folder), "--speaker", "alcie"]) == 0
    err = capsys.readouterr().err
    assert "speaker of 1 new clip: alcie" in err and "note: 'alcie' is a new speaker (the project had alice" in err
