"""``voice-studio train --set NAME=VALUE``: a new run takes a training setting instead of its preset's, keeps it
in training.json for its resume and a --from-best run, and a wrong name or value is refused naming it."""

from __future__ import annotations

import json
import re

import pytest

from studio.cli import main
from trainer.run.settings import SETTABLE, parse_setting


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("stft_loss=0", ("stft_loss", 0.0)),
        ("inference_anchor=250", ("inference_anchor", 250.0)),
        ("betas=0.8,0.99", ("betas", (0.8, 0.99))),
        ("text_lr_scale=none", ("text_lr_scale", None)),
        ("resolution_discriminator=true", ("resolution_discriminator", True)),
        ("lr_warmup_steps=200", ("lr_warmup_steps", 200)),
        ("seed=4294967295", ("seed", 4294967295)),
    ],
)
def test_a_setting_reads_in_its_field_type(text, expected):
    """Each kind of setting (number, whole number, pair, nullable, switch) is read as the config holds it."""
    assert parse_setting(text) == expected


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("stft_loss", "give NAME=VALUE"),
        ("stft_los=0", "'stft_los' is not a training setting (did you mean stft_loss?); the settings: "),
        ("hop_length=128", "'hop_length' follows the start voice and the dataset"),
        ("epochs=3", "'epochs' has a flag of its own: --epochs"),
        ("stft_loss=-1", "stft_loss=-1: stft_loss takes a number at least 0"),
        ("lr_warmup_steps=1.5", "lr_warmup_steps takes a whole number at least 0"),
        ("betas=0.8", "betas takes 2 numbers at least 0 and below 1, comma-separated"),
        ("learning_rate=nan", "learning_rate takes a number above 0"),
        ("resolution_discriminator=maybe", "takes true or false"),
    ],
)
def test_a_wrong_setting_is_refused_naming_it(text, said, capsys):
    """The command refuses it while parsing, in one line with exit 2, before any work."""
    with pytest.raises(ValueError, match=re.escape(said)):
        parse_setting(text)
    with pytest.raises(SystemExit) as stopped:
        main(["train", "--dataset", ".", "--out", "x", "--set", text])
    assert stopped.value.code == 2 and said in capsys.readouterr().err


def test_the_settable_names_leave_out_the_shape_and_the_flags_of_their_own():
    """``--set`` cannot change the network's or the audio front end's shape, nor what --epochs/--batch-size set."""
    assert {"stft_loss", "prior_mel", "inference_anchor", "voice_noise_scale", "learning_rate"} <= set(SETTABLE)
    assert not {"model", "sample_rate", "hop_length", "n_mels", "epochs", "batch_size"} & set(SETTABLE)


def test_a_new_run_takes_the_settings_and_keeps_them(tmp_path):
    """A run from scratch given --set stft_loss=0.25 and two learning rates (the later one wins) has them in its
    training.json config over the preset's and FROM_SCRATCH's; the options read back say them, and the argv the
    Train page would run repeats them."""
    from conftest import target_voice_slice

    from trainer.run.document import read_run
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    data = target_voice_slice(tmp_path / "piper-data", 8)
    settings = ("stft_loss=0.25", "learning_rate=1e-4", "learning_rate=5e-5")
    out = tmp_path / "run"
    run = create_run(RunOptions(dataset=data, out=out, start="scratch", preset="test", epochs=1, settings=settings))
    document = read_run(run)
    assert (document.config["stft_loss"], document.config["learning_rate"]) == (0.25, 5e-5)
    assert document.config["prior_mel"] == 0.0  # FROM_SCRATCH's, not set
    assert document.options.settings == settings
    assert json.loads((run / "training.json").read_text())["settings"] == list(settings)
    argv = document.options.to_argv()
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--set"] == list(settings)


def test_a_run_without_settings_writes_the_file_it_always_wrote(tmp_path):
    """No --set: no ``settings`` key in training.json, and the options read back have none."""
    from conftest import target_voice_slice

    from trainer.run.document import read_run
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    data = target_voice_slice(tmp_path / "piper-data", 8)
    run = create_run(RunOptions(dataset=data, out=tmp_path / "run", start="scratch", preset="test", epochs=1))
    assert "settings" not in json.loads((run / "training.json").read_text())
    assert read_run(run).options.settings == ()


def test_a_resume_refuses_new_settings(tmp_path, capsys):
    """A resume trains on with its own settings: --set there is refused in one line, exit 2."""
    assert main(["train", "--resume", str(tmp_path), "--set", "stft_loss=0"]) == 2
    err = capsys.readouterr().err
    assert "--set chooses a new run's settings; a resume trains on with its own" in err and err.count("\n") == 1


def test_from_best_keeps_the_runs_settings_and_adds_those_given(tmp_path, make_tiny_checkpoint):
    """A --from-best run starts with its run's --set and then those given (a later one wins)."""
    from test_damaged_checkpoints import _run

    from trainer.run.from_best import from_best

    run = _run(tmp_path, make_tiny_checkpoint)
    raw = json.loads((run / "training.json").read_text())
    (run / "training.json").write_text(json.dumps({**raw, "settings": ["stft_loss=0.25"]}))
    assert from_best(run).options.settings == ("stft_loss=0.25",)
    chosen = from_best(run, {"settings": ("stft_loss=0", "c_kl=0.5")}).options
    assert chosen.settings == ("stft_loss=0.25", "stft_loss=0", "c_kl=0.5")


def test_the_docs_name_every_setting():
    """docs/train.md lists every name ``--set`` takes (the help points there)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "docs" / "train.md").read_text(encoding="utf-8")
    assert [name for name in SETTABLE if f"`{name}`" not in text] == []


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("checkpoint_every=0", "checkpoint_every takes a whole number at least 1"),
        ("recovery_lines=0", "recovery_lines takes a whole number at least 1"),
        ("keep_best=0", "keep_best takes a whole number at least 1"),
        ("seed=-5", "seed takes a whole number from 0 to 4,294,967,295"),
        ("betas=0.8,1", "betas takes 2 numbers at least 0 and below 1"),
        ("val_fraction=1", "val_fraction takes a number above 0 and below 1"),
        ("lr_final_fraction=0", "lr_final_fraction takes a number above 0 and at most 1, or none"),
        ("learning_rate=0", "learning_rate takes a number above 0"),
    ],
)
def test_a_value_the_run_cannot_use_is_refused(text, said):
    """Values that would crash a run later (a division by checkpoint_every, an empty recovery, numpy's seed range,
    AdamW's betas) or waste it (no checkpoint kept, no validation, a rate of 0) are refused while parsing."""
    with pytest.raises(ValueError, match=said):
        parse_setting(text)


def test_a_bad_setting_in_training_json_names_the_field(tmp_path):
    """A training.json whose ``settings`` holds one the studio does not take is refused naming the file and
    ``settings[N]``; settings given with spaces are kept without them."""
    from trainer.run.document import read_run
    from trainer.run.options import RunOptions
    from trainer.run.settings import normal_setting
    from trainer.run.train import RunError  # noqa: F401 - the run's own error class, for the message's shape

    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "training.json").write_text(
        json.dumps(
            {
                "version": 1,
                "dataset": str(tmp_path),
                "cache": str(tmp_path),
                "start": "scratch",
                "preset": "test",
                "device": "auto",
                "workers": 0,
                "devices": 1,
                "precision": "auto",
                "settings": ["stft_loss=0", "hop_length=3"],
                "config": {"epochs": 2, "batch_size": None},
                "conversions": [],
            }
        )
    )
    with pytest.raises(ValueError, match=r"training.json.*'settings\[1\]'.*'hop_length' follows the start voice"):
        read_run(folder)
    assert normal_setting(" stft_loss = 0 ") == "stft_loss=0"
    assert RunOptions(dataset=tmp_path, out=folder, settings=["c_kl=0.5"]).to_argv()[-2:] == ["--set", "c_kl=0.5"]


def test_the_disk_check_counts_the_settings(tmp_path):
    """The pre-flight's disk need follows --set: 20 checkpoints kept and a preview every epoch need more room
    than the preset's 5 and 25 (both counted from the config the run will have)."""
    from trainer.run.disk import disk_need
    from trainer.run.options import RunOptions

    def need(*settings: str):
        options = RunOptions(dataset=tmp_path, out=tmp_path / "run", preset="medium", epochs=50, settings=settings)
        return disk_need(options, 600.0, 22050, "cache")

    plain, more = need(), need("keep_best=20", "preview_every=1")
    assert more.checkpoints > plain.checkpoints and more.previews > plain.previews


def test_settings_typed_on_one_line_split_as_set_keeps_them():
    """Spaces or semicolons between settings, spaces around ``=`` allowed, a pair's comma kept; empty is none;
    the first part that is not a setting is named."""
    from trainer.run.settings import split_settings

    assert split_settings(" stft_loss = 0 ; betas=0.8,0.99  seed=7 ") == ("stft_loss=0", "betas=0.8,0.99", "seed=7")
    assert split_settings("betas = 0.8 , 0.99\u200bseed=7") == ("betas=0.8,0.99", "seed=7")
    assert split_settings("") == () and split_settings(" ;  ") == ()
    with pytest.raises(ValueError, match="'c_mel': give NAME=VALUE"):
        split_settings("stft_loss=0 c_mel")
