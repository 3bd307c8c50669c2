"""The Train page's Settings field (Qt offscreen): training settings typed as ``voice-studio train --set`` takes
them reach the run, a wrong one is said on Check and starts nothing, and an edit clears the findings."""

from __future__ import annotations

import argparse
import gc

import pytest

pytestmark = pytest.mark.gui


@pytest.fixture
def setup(qtbot):
    from studio.widgets.train_setup import TrainSetup

    widget = TrainSetup()
    qtbot.addWidget(widget)
    return widget


def test_settings_typed_reach_the_trainers_command_line(setup, tmp_path):
    """Two settings typed with spaces around ``=``: the run's options keep them as ``--set`` does, and the
    trainer's command line reads back the same settings; an empty field is the preset's (none)."""
    from trainer.run.options import RunOptions, add_arguments

    setup.dataset.setText(str(tmp_path))
    assert setup.options(tmp_path / "runs").settings == ()
    setup.settings.setText("stft_loss=0   learning_rate = 1e-4;betas=0.8,0.95")
    options = setup.options(tmp_path / "runs")
    assert options.settings == ("stft_loss=0", "learning_rate=1e-4", "betas=0.8,0.95")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    argv = options.to_argv()
    assert argv.count("--set") == 3
    assert RunOptions.from_args(parser.parse_args(argv)).settings == options.settings


def test_editing_the_settings_clears_the_findings(setup, qtbot):
    """The findings describe the choices checked: a change of the settings takes them away."""
    setup.show_findings([])
    assert "Ready to train" in setup.findings.text()
    with qtbot.waitSignal(setup.changed, timeout=1_000):
        setup.settings.setText("prior_mel=0")
    assert setup.findings.text() == "" and setup.choices()[-1] == "prior_mel=0"


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("foo=1", "Settings: 'foo' is not a training setting"),
        ("stft_loss", "Settings: 'stft_loss': give NAME=VALUE"),
        ("seed=-5", "Settings: seed=-5: seed takes a whole number from 0 to 4,294,967,295"),
        ("sample_rate=16000", "Settings: 'sample_rate' follows the start voice and the dataset"),
    ],
)
def test_a_wrong_setting_is_said_on_check_and_starts_nothing(qtbot, tmp_path, typed, said):
    """Check and Start with a setting that is not one: the findings say which and what it takes, nothing is
    checked or started, and no run folder is made."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    window = MainWindow(Settings(), runs_root=tmp_path / "runs")
    qtbot.addWidget(window)
    window.show_area("Train")
    page = window.train_page
    page.setup.dataset.setText(str(tmp_path))
    page.setup.settings.setText(typed)
    assert page.check() is None and page.start() is None
    assert said in page.setup.findings.text()
    assert not page.process.is_running() and not (tmp_path / "runs").exists()
    window.close()
    gc.collect()
