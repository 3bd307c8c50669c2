"""Voice files: config validation, errors that name the file and field, discovery."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from engines.base import VoiceError
from engines.onnx.engine import OnnxEngine
from engines.registry import discover, find_voice
from engines.voice import load_config, load_voice


def _voice_copy(joe, folder: Path, name: str = "joe", edit=None) -> Path:
    """A voice in ``folder``: the real model (symlinked) and an optionally edited config."""
    folder.mkdir(parents=True, exist_ok=True)
    model = folder / f"{name}.onnx"
    try:
        model.symlink_to(joe.model_path)
    except OSError:  # no symlinks (Windows without privilege): copy
        shutil.copyfile(joe.model_path, model)
    config = json.loads(joe.config.path.read_text(encoding="utf-8"))
    if edit:
        edit(config)
    (folder / f"{name}.onnx.json").write_text(json.dumps(config, ensure_ascii=False), encoding="utf-8")
    return model


def test_default_voice_config_is_read(joe):
    """The embedded voice's config gives Piper's values."""
    assert joe.name == "en_US-joe-medium"
    assert joe.sample_rate == 22050
    assert joe.config.num_symbols == 256
    assert joe.config.espeak_voice == "en-us"
    assert joe.config.noise_scale == pytest.approx(0.667)


def test_missing_config_names_the_file(joe, tmp_path):
    """A model without its .onnx.json gives an error naming the expected config file."""
    model = _voice_copy(joe, tmp_path)
    model.with_name("joe.onnx.json").unlink()
    with pytest.raises(VoiceError) as err:
        load_voice(model)
    assert "joe.onnx.json" in str(err.value)
    assert "not found" in str(err.value)


def test_config_of_another_model_is_refused(joe, tmp_path):
    """A config whose num_symbols disagrees with the model's embedding names file and field."""

    def other(config):
        config["num_symbols"] = 300

    model = _voice_copy(joe, tmp_path, edit=other)
    with pytest.raises(VoiceError) as err:
        OnnxEngine(load_voice(model))
    assert err.value.field == "num_symbols"
    assert "joe.onnx.json" in str(err.value) and "another model" in str(err.value)


def test_speaker_count_must_match_the_model(joe, tmp_path):
    """A multi-speaker config on a single-speaker model is refused (field num_speakers)."""

    def two_speakers(config):
        config["num_speakers"] = 2
        config["speaker_id_map"] = {"a": 0, "b": 1}

    model = _voice_copy(joe, tmp_path, edit=two_speakers)
    with pytest.raises(VoiceError) as err:
        OnnxEngine(load_voice(model))
    assert err.value.field == "num_speakers"


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda c: c.pop("phoneme_id_map"), "phoneme_id_map"),
        (lambda c: c["audio"].update(sample_rate=0), "audio.sample_rate"),
        (lambda c: c["inference"].update(length_scale=-1), "inference.length_scale"),
        (lambda c: c["phoneme_id_map"].update({"x": [999]}), "phoneme_id_map"),
        (lambda c: c.update(speaker_id_map={"a": 5}), "speaker_id_map"),
        (lambda c: c["phoneme_id_map"].pop("^"), "phoneme_id_map"),
    ],
)
def test_invalid_fields_are_named(joe, tmp_path, edit, field):
    """Each invalid field is reported by name, with the config's path."""
    model = _voice_copy(joe, tmp_path, edit=edit)
    with pytest.raises(VoiceError) as err:
        load_voice(model)
    assert err.value.field == field
    assert str(model.with_name("joe.onnx.json")) in str(err.value)


def test_invalid_json_gives_line_and_column(tmp_path):
    """Broken JSON is reported with its position."""
    path = tmp_path / "v.onnx.json"
    path.write_text('{"num_symbols": 256,\n  "audio": }', encoding="utf-8")
    with pytest.raises(VoiceError, match=r"line 2 column"):
        load_config(path)


def test_not_an_onnx_model_names_the_file(joe, tmp_path):
    """A damaged .onnx file gives an error naming it."""
    model = _voice_copy(joe, tmp_path)
    model.unlink()
    model.write_bytes(b"this is not a model")
    with pytest.raises(VoiceError, match="not a valid ONNX model") as err:
        OnnxEngine(load_voice(model))
    assert err.value.path == model


def test_paths_with_spaces_and_non_ascii_work(joe, tmp_path):
    """A voice in a folder with spaces and accents is discovered, loaded and speaks."""
    folder = tmp_path / "mes voix été" / "ünïcödé voice"
    _voice_copy(joe, folder, name="voix de Joë")
    found = discover([tmp_path / "mes voix été"], include_user_dir=False)
    names = [v.name for v in found.voices]
    assert names == ["en_US-joe-medium", "voix de Joë"]
    assert not found.errors
    engine = OnnxEngine(found.voices[1])
    audio = [c.audio for c in engine.synthesize("Hi.")]
    assert sum(len(a) for a in audio) > 0.2 * engine.sample_rate


def test_discovery_reports_broken_voices_without_raising(joe, tmp_path):
    """A broken voice in a folder is reported; the good ones are still found."""
    _voice_copy(joe, tmp_path, name="good")
    (tmp_path / "broken.onnx").write_bytes(b"x")
    found = discover([tmp_path], include_user_dir=False)
    assert [v.name for v in found.voices] == ["en_US-joe-medium", "good"]
    assert len(found.errors) == 1 and "broken.onnx.json" in str(found.errors[0])


def test_user_voice_folder_is_searched(joe):
    """Voices in the user's data folder (platformdirs) are found as 'user' voices."""
    from engines.registry import user_voice_dir

    folder = user_voice_dir()
    _voice_copy(joe, folder, name="mine")
    try:
        voice = find_voice("mine")
        assert voice.origin == "user"
    finally:
        shutil.rmtree(folder)


def test_unknown_voice_name_lists_known_ones():
    """Asking for a voice that does not exist says which voices exist."""
    with pytest.raises(VoiceError, match="en_US-joe-medium"):
        find_voice("nobody")
