"""espeak-ng as piper-tts bundles it: a voice config naming a voice espeak-ng lacks, and a missing or damaged data
folder, are each said in one line (naming the field, or the install and how to repair it), never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SpeechServer, shared_path
from test_voice import _voice_copy

from studio.cli import main


def _en_us(config: dict) -> None:
    config["espeak"]["voice"] = "en_US"  # a locale, not an espeak-ng voice name (that is en-us)


def _text_type(config: dict) -> None:
    _en_us(config)
    config["phoneme_type"] = "text"  # phonemes are the text's code points: espeak-ng is not used


def test_voices_marks_a_voice_espeak_lacks_unusable_and_keeps_a_text_voice(joe, tmp_path, capsys):
    """voices lists an espeak.voice espeak-ng lacks as skipped, naming the field and a likely name; a text voice
    with the same espeak.voice is usable (it never asks espeak-ng)."""
    _voice_copy(joe, tmp_path, "us", _en_us)
    _voice_copy(joe, tmp_path, "txt", _text_type)
    assert main(["voices", "--json", str(tmp_path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [v["name"] for v in document["voices"]] == ["en_US-joe-medium", "txt"]
    (error,) = document["errors"]
    assert f"{tmp_path / 'us.onnx.json'}: field 'espeak.voice'" in error
    assert "'en_US'" in error and "did you mean 'en-us'" in error


def test_say_refuses_a_voice_espeak_lacks_in_one_line(joe, tmp_path):
    """say with such a voice exits 2 with one line naming the field (was a traceback from piper, exit 1) and
    writes nothing; the text voice's engine speaks."""
    from engines.registry import create_engine
    from engines.voice import load_voice

    us = _voice_copy(joe, tmp_path, "us", _en_us)
    wav = tmp_path / "us.wav"
    said = _cli("say", "Hello there.", "--voice", str(us), "-o", str(wav))
    assert said.returncode == 2 and len(said.stderr.splitlines()) == 1, said.stderr
    assert "us.onnx.json: field 'espeak.voice'" in said.stderr and "'en_US'" in said.stderr
    assert not wav.exists()
    txt = create_engine("onnx", load_voice(_voice_copy(joe, tmp_path, "txt", _text_type)))
    assert sum(len(chunk.audio) for chunk in txt.synthesize("Hello there.")) > 0.3 * 22050


def test_serve_starts_with_the_voices_espeak_has(joe, tmp_path):
    """serve given joe and a voice espeak-ng lacks warms up and serves joe, saying in one line why the other is
    not served (the port never opened: warm-up died); /v1/models lists joe alone."""
    import httpx

    us = _voice_copy(joe, tmp_path, "us", _en_us)
    server = SpeechServer("--voice", "joe", "--voice", str(us), "--workers", "1")
    try:
        said = server.process.stderr.readline()
        assert "not serving us" in said and "us.onnx.json: field 'espeak.voice'" in said
        models = httpx.get(f"{server.url}/v1/models", timeout=10).json()
        assert [m["id"] for m in models["data"]] == ["en_US-joe-medium"]
        reply = httpx.post(f"{server.url}/v1/audio/speech", json={"input": "Hi.", "response_format": "pcm"}, timeout=60)
        assert reply.status_code == 200 and len(reply.content) > 1000
    finally:
        server.stop()


def test_serve_with_only_voices_espeak_lacks_exits_in_one_line(joe, tmp_path):
    """serve whose every voice is refused exits 2 with that voice's one line (nothing to serve)."""
    us = _voice_copy(joe, tmp_path, "us", _en_us)
    served = _cli("serve", "--voice", str(us), "--port", "0")
    assert served.returncode == 2 and len(served.stderr.splitlines()) == 1, served.stderr
    assert "us.onnx.json: field 'espeak.voice'" in served.stderr


def test_export_refuses_an_espeak_voice_espeak_lacks(joe, tmp_path, capsys):
    """export refuses to write such a voice, from the source's config (naming its field) or from --espeak-voice
    (naming the option), before any work, and writes nothing."""
    pytest.importorskip("torch")
    us = _voice_copy(joe, tmp_path, "us", _en_us)
    out = tmp_path / "out.onnx"
    assert main(["export", str(us), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "us.onnx.json: field 'espeak.voice'" in err
    assert main(["export", "joe", "--espeak-voice", "en_US", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "--espeak-voice" in err and "'en_US'" in err
    assert not out.exists() and not out.with_name("out.onnx.json").exists()


def _cli(*args: str, site: Path | None = None) -> subprocess.CompletedProcess:
    """``voice-studio ARGS`` in a fresh interpreter; with ``site``, its ``piper`` package is imported first."""
    env = os.environ.copy()
    if site is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), env.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "studio", *args], capture_output=True, text=True, timeout=120, env=env)


def _piper_copy(site: Path, data=None) -> Path:
    """``site/piper``: the installed piper-tts package as links (and its dist-info, so its RECORD describes the
    copy), without ``espeak-ng-data``; ``data(installed, copy)`` makes the copy's data folder where given.

    The installed package is never modified."""
    import importlib.metadata

    dist = importlib.metadata.distribution("piper-tts")
    installed = Path(dist.locate_file("piper"))
    (site / "piper").mkdir(parents=True)
    try:
        for entry in installed.iterdir():
            if entry.name not in ("espeak-ng-data", "__pycache__"):
                (site / "piper" / entry.name).symlink_to(entry)
        info = Path(dist.locate_file(f"piper_tts-{dist.version}.dist-info"))
        (site / info.name).symlink_to(info)
    except OSError:
        pytest.skip("the copy of piper-tts is made of symbolic links, which this system does not allow")
    if data is not None:
        data(installed / "espeak-ng-data", site / "piper" / "espeak-ng-data")
    return site


def _damaged(installed: Path, copy: Path) -> None:
    """A partly copied data folder: every file linked but ``en_dict``, cut to its first 80,000 bytes."""
    copy.mkdir()
    for entry in installed.iterdir():
        if entry.name != "en_dict":
            (copy / entry.name).symlink_to(entry)
    (copy / "en_dict").write_bytes((installed / "en_dict").read_bytes()[:80_000])


def _says_data_is_damaged(result: subprocess.CompletedProcess, what: str) -> None:
    assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
    line = result.stderr
    assert "piper-tts's espeak-ng data is missing or damaged" in line and what in line
    assert "pip install --force-reinstall" in line and "_skbuild" not in line


@pytest.mark.parametrize("command", [("say", "Hello there."), ("serve", "--port", "0")])
def test_missing_espeak_data_is_one_line_saying_how_to_repair(tmp_path, command):
    """piper-tts without espeak-ng-data: say and serve exit 2 with one line naming the folder and the repair (say
    exited 1 with espeak-ng's message naming phontab on the wheel's build machine, /project/_skbuild/...)."""
    site = _piper_copy(tmp_path / "site")
    args = [*command, "-o", str(tmp_path / "out.wav")] if command[0] == "say" else command
    result = _cli(*args, site=site)
    _says_data_is_damaged(result, str(site / "piper" / "espeak-ng-data"))


def test_partly_copied_espeak_data_is_named_by_voices(tmp_path):
    """A data folder whose en_dict is cut short (espeak-ng went on with 'Bad rules data' and spoke wrongly) makes
    voices exit 2 naming en_dict and its sizes."""
    site = _piper_copy(tmp_path / "site", _damaged)
    _says_data_is_damaged(_cli("voices", site=site), "en_dict has 80,000 of")


def test_a_data_folder_no_install_recorded_is_checked_for_what_espeak_reads_first(tmp_path, monkeypatch):
    """A data folder that no piper-tts RECORD describes (a conda or hand-made install) is checked for the files
    espeak-ng reads at start (an empty phontab) and its lang folder, in one line naming them."""
    import piper.phonemize_espeak

    from engines.espeak import EspeakDataError, check_data

    installed = piper.phonemize_espeak.ESPEAK_DATA_DIR
    folder = tmp_path / "espeak-ng-data"
    folder.mkdir()
    for name in ("phonindex", "phondata", "intonations", "lang"):
        (folder / name).symlink_to(installed / name)
    (folder / "phontab").write_bytes(b"")
    monkeypatch.setattr(piper.phonemize_espeak, "ESPEAK_DATA_DIR", folder)
    with pytest.raises(EspeakDataError, match=r"espeak-ng-data: phontab is empty\): repair the install: "):
        check_data()
    (tmp_path / "bare").mkdir()
    monkeypatch.setattr(piper.phonemize_espeak, "ESPEAK_DATA_DIR", tmp_path / "bare")
    with pytest.raises(EspeakDataError, match=r"bare: lang is missing\)"):
        check_data()


def test_a_dataset_import_for_a_voice_espeak_lacks_is_refused_before_any_clip(joe, tmp_path):
    """Importing (and fixing) against a voice config espeak-ng cannot speak is one error naming the field, before any
    clip is measured, and the failed import leaves no project folder behind."""
    from engines.base import VoiceError
    from trainer.dataset.project import DatasetProject, making

    bad = _voice_copy(joe, tmp_path / "voice", "us", _en_us).with_suffix(".onnx.json")
    source = tmp_path / "in"
    source.mkdir()
    (source / "c01.wav").write_bytes(Path(shared_path("corpus", "real-speech", "cards", "001.wav")).read_bytes())
    with pytest.raises(VoiceError, match="espeak.voice.*en_US"):
        with making(tmp_path / "project") as project:
            project.import_sources([source], voice_config=bad, workers=1)
    assert not (tmp_path / "project").exists()
    project = DatasetProject.create(tmp_path / "good")
    project.import_sources([source], workers=1)
    assert list(project.clips) and project.clips[next(iter(project.clips))].status == "ok"
    project.voice_config = str(bad)
    with pytest.raises(VoiceError, match="espeak.voice"):
        project.apply_fixes(normalize=True, workers=1)
