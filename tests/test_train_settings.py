"""``voice-studio train --set NAME=VALUE``: a new run takes a training setting instead of its preset's, keeps it
in training.json for its resume and a --from-best run, and a wrong name or value is refused naming it."""

from __future__ import annotations

import json

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
        ("seed=-3", ("seed", -3)),
    ],
)
def test_a_setting_reads_in_its_field_type(text, expected):
    """Each kind of setting (number, whole number, pair, nullable, switch) is read as the config holds it."""
    assert parse_setting(text) == expected


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("stft_loss", "give NAME=VALUE"),
        ("stft_los=0", "'stft_los' is not a training setting: --set takes"),
        ("hop_length=128", "'hop_length' follows the start voice and the dataset"),
        ("epochs=3", "'epochs' has a flag of its own: --epochs"),
        ("stft_loss=-1", "stft_loss=-1: stft_loss takes a number at least 0"),
        ("lr_warmup_steps=1.5", "lr_warmup_steps takes a whole number at least 0"),
        ("betas=0.8", "betas takes 2 numbers at least 0, comma-separated"),
        ("learning_rate=nan", "learning_rate takes a number at least 0"),
        ("resolution_discriminator=maybe", "takes true or false"),
    ],
)
def test_a_wrong_setting_is_refused_naming_it(text, said, capsys):
    """The command refuses it while parsing, in one line with exit 2, before any work."""
    with pytest.raises(ValueError, match=said.replace("(", r"\(")):
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
