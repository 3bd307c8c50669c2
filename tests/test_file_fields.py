"""Every field read from a voice config, a checkpoint or a dataset manifest is checked or defaulted as Piper does.

No KeyError/TypeError reaches a user: a bad field is a one-line error naming the file and the field.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import SpeechServer
from test_voice import _voice_copy

from engines.base import VoiceError
from engines.voice import load_config, load_voice, parse_config


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", *args], capture_output=True, text=True, timeout=300, env=os.environ.copy()
    )


def _without(*keys: str):
    def edit(config: dict) -> None:
        for key in keys:
            config.pop(key)

    return edit


def test_config_without_num_symbols_and_num_speakers_speaks(joe, tmp_path):
    """No num_symbols/num_speakers: defaulted from the maps, listed by voices, spoken by say (was KeyError)."""
    import soundfile

    model = _voice_copy(joe, tmp_path / "voices", "bare", _without("num_symbols", "num_speakers"))
    config = load_voice(model).config
    ids = [i for ids in config.phoneme_id_map.values() for i in ids]
    assert (config.num_symbols, config.num_speakers) == (max(ids) + 1, 1)
    listed = _cli("voices", "--json", str(model))
    assert [v["name"] for v in json.loads(listed.stdout)["voices"]] == ["en_US-joe-medium", "bare"]
    for engine in ("onnx", "torch"):
        wav = tmp_path / f"{engine}.wav"
        result = _cli("say", "Hello there.", "--voice", str(model), "--engine", engine, "-o", str(wav), "--quiet")
        assert result.returncode == 0, result.stderr
        assert soundfile.info(str(wav)).duration > 0.3


def test_serve_starts_with_a_config_without_num_symbols(joe, tmp_path):
    """serve warms up and answers with such a voice (it crashed at start-up)."""
    import httpx

    model = _voice_copy(joe, tmp_path, "bare", _without("num_symbols", "num_speakers"))
    server = SpeechServer("--voice", str(model), "--workers", "1")
    try:
        reply = httpx.post(f"{server.url}/v1/audio/speech", json={"input": "Hi.", "response_format": "pcm"}, timeout=60)
        assert reply.status_code == 200 and len(reply.content) > 1000
    finally:
        server.stop()


def test_num_speakers_defaults_from_the_speaker_id_map(joe, tmp_path):
    """Three named speakers and no num_speakers: 3 speakers, and piper-tts reads the completed document."""
    from piper.config import PiperConfig

    raw = json.loads(joe.config.path.read_text(encoding="utf-8"))
    for key in ("num_symbols", "num_speakers"):
        raw.pop(key)
    raw["speaker_id_map"] = {"ana": 0, "ben": 1, "cleo": 2}
    config = parse_config(tmp_path / "trio.onnx.json", raw)
    assert config.num_speakers == 3 and config.speaker_id("cleo") == 2 and config.speaker_id(None) == 0
    piper = PiperConfig.from_dict(config.piper_document())
    assert (piper.num_speakers, piper.num_symbols, piper.sample_rate) == (3, config.num_symbols, 22050)


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda c: c.update(num_symbols="256"), "num_symbols"),
        (lambda c: c["audio"].pop("sample_rate"), "audio.sample_rate"),
        (lambda c: c["phoneme_id_map"].update({"a": 5}), "phoneme_id_map"),
        (lambda c: c.update(speaker_id_map={"a": "0"}), "speaker_id_map"),
        (lambda c: c.update(default_speaker_id=3), "default_speaker_id"),
        (lambda c: c["inference"].update(noise_scale="0.6"), "inference.noise_scale"),
        (lambda c: c["audio"].update(quality=5), "audio.quality"),
        (lambda c: c.update(vowel_clusters=3), "vowel_clusters"),
        (lambda c: c.update(phoneme_type=["espeak"]), "phoneme_type"),
        (lambda c: c.update(espeak={"voice": 5}), "espeak.voice"),
    ],
)
def test_wrong_types_are_named(joe, tmp_path, edit, field):
    """A value of the wrong type is a VoiceError naming the config and the field."""
    model = _voice_copy(joe, tmp_path, edit=edit)
    with pytest.raises(VoiceError) as err:
        load_voice(model)
    assert err.value.field == field and str(model.with_name("joe.onnx.json")) in str(err.value)


def test_truncated_config_names_line_and_column(joe, tmp_path):
    """A config cut short is an error with the file, line and column."""
    path = tmp_path / "cut.onnx.json"
    path.write_text(joe.config.path.read_text(encoding="utf-8")[:300], encoding="utf-8")
    with pytest.raises(VoiceError, match=r"cut\.onnx\.json: invalid JSON at line \d+ column \d+"):
        load_config(path)


def test_voices_lists_only_voices_that_load_and_serve_refuses_a_bad_one(joe, tmp_path):
    """A config of another model is not listed as usable by voices, and serve exits 2 naming the field."""
    _voice_copy(joe, tmp_path, "good", _without("num_symbols"))
    bad = _voice_copy(joe, tmp_path, "other", lambda c: c.update(num_symbols=300))
    listed = _cli("voices", "--json", str(tmp_path))
    document = json.loads(listed.stdout)
    assert [v["name"] for v in document["voices"]] == ["en_US-joe-medium", "good"]
    assert len(document["errors"]) == 1 and "other.onnx.json: field 'num_symbols'" in document["errors"][0]
    served = _cli("serve", "--voice", str(bad), "--port", "0", "--no-warm-up")
    assert served.returncode == 2 and "Traceback" not in served.stderr
    assert "other.onnx.json: field 'num_symbols'" in served.stderr and len(served.stderr.splitlines()) == 1


def _rewrite_checkpoint(path, change) -> None:
    import torch

    raw = torch.load(path, weights_only=True)
    change(raw)
    torch.save(raw, path)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda h: h.update(hidden_channels="32"), "hyper_parameters.hidden_channels"),
        (lambda h: h.update(resblock_dilation_sizes="((1, 2), (2, 6)"), "hyper_parameters.resblock_dilation_sizes"),
        (lambda h: h.update(upsample_rates=[8, "8", 4]), "hyper_parameters.upsample_rates"),
        (lambda h: h.update(use_sdp="yes"), "hyper_parameters.use_sdp"),
        (lambda h: h.update(sample_rate="16000"), "hyper_parameters.sample_rate"),
        (lambda h: h.update(filter_length=None), "hyper_parameters.filter_length"),
    ],
)
def test_checkpoint_hyperparameters_of_wrong_type_are_named(make_tiny_checkpoint, tmp_path, change, field):
    """A hyperparameter of the wrong type is a VoiceError naming the checkpoint and the field."""
    from engines.torch.vits.checkpoint import load_generator

    ckpt = make_tiny_checkpoint(tmp_path / "tiny.ckpt")
    _rewrite_checkpoint(ckpt, lambda raw: change(raw["hyper_parameters"]))
    with pytest.raises(VoiceError) as err:
        load_generator(ckpt)
    assert err.value.field == field and str(ckpt) in str(err.value)


def test_checkpoint_without_hyper_parameters_is_one_line(make_tiny_checkpoint, tmp_path):
    """A .ckpt without hyper_parameters: say names the checkpoint and the defaults it had to take."""
    ckpt = make_tiny_checkpoint(tmp_path / "bare.ckpt")
    _rewrite_checkpoint(ckpt, lambda raw: raw.pop("hyper_parameters"))
    result = _cli("say", "Hi.", "--voice", str(ckpt), "--engine", "torch", "--device", "cpu", "-o", "x.wav")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert str(ckpt) in result.stderr and "hyper_parameters lack inter_channels, hidden_channels" in result.stderr


def _project_manifest(folder, clip: dict) -> None:
    folder.mkdir()
    document = {"version": 2, "voice_config": None, "clips": [clip]}
    (folder / "manifest.json").write_text(json.dumps(document), encoding="utf-8")


@pytest.mark.parametrize(
    ("clip", "field"),
    [
        ({"id": "a", "source": "a.wav", "text": "Hi."}, "clips[0].source_sha256"),
        ({"id": "a", "source": "a.wav", "source_sha256": "0", "text": 5}, "clips[0].text"),
        ({"id": "a", "source": "a.wav", "source_sha256": "0", "text": "Hi.", "colour": 1}, "clips[0].colour"),
        ("a.wav", "clips[0]"),
    ],
)
def test_project_manifest_fields_are_named(tmp_path, clip, field):
    """A dataset manifest with a missing, mistyped or unknown clip field names manifest.json and the field."""
    from trainer.dataset.project import DatasetProject

    _project_manifest(tmp_path / "project", clip)
    with pytest.raises(VoiceError) as err:
        DatasetProject(tmp_path / "project")
    assert err.value.field == field and "manifest.json" in str(err.value)


def test_truncated_project_manifest_is_one_line(tmp_path):
    """dataset report on a project whose manifest was cut short: exit 2, file and position, no traceback."""
    _project_manifest(tmp_path / "project", {"id": "a", "source": "a.wav", "source_sha256": "0", "text": "Hi."})
    manifest = tmp_path / "project" / "manifest.json"
    manifest.write_text(manifest.read_text(encoding="utf-8")[:40], encoding="utf-8")
    result = _cli("dataset", "report", str(tmp_path / "project"))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{manifest}: invalid JSON at line 1" in result.stderr


def _cache(folder, spec_channels=3, phoneme_span=(0, 4), **changes) -> None:
    folder.mkdir()
    np.arange(4, dtype=np.int64).tofile(folder / "phoneme_ids.i64")
    np.zeros(8, np.float32).tofile(folder / "audio.f32")
    np.zeros(2 * 3, np.float32).tofile(folder / "spec.f32")
    utterance = {"id": "u", "speaker": None, "text": "Hi.", "phoneme_ids": list(phoneme_span), "audio": [0, 8]}
    document = {
        "version": 1,
        "settings": {"sample_rate": 22050, "n_fft": 4, "hop_length": 4, "win_length": 4},
        "spec_channels": spec_channels,
        "voice_config": "v.onnx.json",
        "phoneme_id_map_sha256": "0",
        "speakers": [],
        "utterances": [{**utterance, "spec": [0, 2]}],
        **changes,
    }
    (folder / "cache.json").write_text(json.dumps(document), encoding="utf-8")


@pytest.mark.parametrize(
    ("cache", "field"),
    [
        ({"spec_channels": "3"}, "cache.spec_channels"),
        ({"spec_channels": 0}, "cache.spec_channels"),
        ({"settings": {"sample_rate": 22050}, "speakers": []}, None),
        ({"settings": {"sample_rate": "22050"}}, "settings.sample_rate"),
        ({"phoneme_span": (2, 4)}, "utterances[0].phoneme_ids"),
        ({"utterances": [{"id": "u"}]}, "utterances[0].speaker"),
    ],
)
def test_cache_manifest_fields_are_named(tmp_path, cache, field):
    """cache.json with a mistyped field, missing fields or a span past its array file names the field."""
    from trainer.data.preprocess import PreprocessedCache

    _cache(tmp_path / "cache", **cache)
    if field is None:  # CacheSettings' defaults fill the rest, as when the cache was written
        assert PreprocessedCache(tmp_path / "cache").settings.n_fft == 1024
        return
    with pytest.raises(VoiceError) as err:
        PreprocessedCache(tmp_path / "cache")
    assert err.value.field == field and "cache.json" in str(err.value)


def test_truncated_training_json_is_one_line(tmp_path):
    """train --resume on a run whose training.json was cut short: exit 2 naming the file and position."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "training.json").write_text('{"version": 1, "sett', encoding="utf-8")
    result = _cli("train", "--resume", str(run))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"{run / 'training.json'}: invalid JSON at line 1 column" in result.stderr


@pytest.mark.parametrize("setting", ["bogus", "model.bogus"])
def test_a_setting_this_studio_lacks_in_training_json_is_named(tmp_path, setting):
    """train --resume on a run whose training.json holds a setting this studio does not have (typed by hand, or
    written by a newer studio): exit 2 naming the file and the field, before anything runs (was a TypeError
    traceback from the trainer)."""
    import json

    from conftest import write_started_run

    run = tmp_path / "run"
    write_started_run(run, tmp_path / "cache")
    document = json.loads((run / "training.json").read_text(encoding="utf-8"))
    where = document["config"].setdefault("model", {}) if setting.startswith("model.") else document["config"]
    where["bogus"] = 1
    (run / "training.json").write_text(json.dumps(document), encoding="utf-8")
    result = _cli("train", "--resume", str(run), "--epochs", "9")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert f"{run / 'training.json'}: field 'config.{setting}': unknown setting '{setting}'" in result.stderr


def test_the_schedule_words_of_a_run_written_without_every_setting_use_the_defaults(tmp_path, capsys):
    """A training.json holding only the settings it needs (older runs, hand-written ones): the words said before
    training read its preview schedule as training does, with the defaults (was KeyError 'preview_every')."""
    from conftest import write_started_run

    from studio.cli.train import _say_what_comes
    from trainer.run.document import read_run

    write_started_run(tmp_path / "run", tmp_path / "cache", epochs=30)
    _say_what_comes(read_run(tmp_path / "run"), resumed=True)
    assert "previews after epochs 1, 2, 4, 8 and 16, then every 25th, and the last (30)" in capsys.readouterr().err


def test_voice_picker_refuses_a_voice_that_would_not_load(joe, tmp_path, qtbot):
    """Add voice… with a config of another model: a notice naming file and field, and nothing listed."""
    from studio.state import VoiceLibrary
    from studio.widgets.voice_picker import VoicePicker

    picker = VoicePicker(VoiceLibrary())
    qtbot.addWidget(picker)
    bad = _voice_copy(joe, tmp_path, "other", lambda c: c.update(num_symbols=300))
    with qtbot.waitSignal(picker.notice) as blocker:
        assert picker.add_files([bad]) == []
    assert "other.onnx.json: field 'num_symbols'" in blocker.args[0] and picker.voices() == []


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda c: c.update(num_symbols=300), "num_symbols"),
        (lambda c: c.update(num_speakers=2, speaker_id_map={"a": 0, "b": 1}), "num_speakers"),
    ],
)
def test_torch_engine_checks_the_config_against_the_model(joe, tmp_path, edit, field):
    """The torch engine refuses a config of another model as the ONNX engine does (it spoke with it)."""
    from engines.torch.engine import TorchEngine

    model = _voice_copy(joe, tmp_path, "other", edit)
    with pytest.raises(VoiceError) as err:
        TorchEngine.from_path(model, device="cpu")
    assert err.value.field == field and "other.onnx.json" in str(err.value)
