"""Train setup presets (Qt offscreen): each explains itself, Epochs follows the preset unless the person typed
their own; a run or voice of the ``test`` preset is labelled a smoke test wherever it shows; the Settings field's
training settings (as ``voice-studio train --set`` takes them) reach the run, and a wrong one is said and starts
nothing."""

from __future__ import annotations

import argparse
import gc
import json

import pytest

pytestmark = pytest.mark.gui


@pytest.fixture
def setup(qtbot):
    from studio.widgets.train_setup import TrainSetup

    widget = TrainSetup()
    qtbot.addWidget(widget)
    return widget


def test_each_preset_explains_itself(setup):
    """Under the picker and as its tooltip: what the preset is for, its generator's size (as counted), its
    epochs, the time to expect."""
    from trainer.run.disk import network_size
    from trainer.run.presets import ABOUT, PRESETS, about, explain, preset

    for name in PRESETS:
        setup.preset.setCurrentText(name)  # starting from joe (the default start): its size, said so
        assert setup.about.text() == about(name, from_voice=True) and setup.preset.toolTip() == explain(name)
        assert explain(name).startswith(ABOUT[name]) and "whatever the preset" in explain(name)
        index = setup.preset.findText(name)
        assert setup.preset.itemData(index, 3) == explain(name)  # Qt.ToolTipRole: each item in the list too
        millions = network_size(name).generator / 1e6
        assert f"{millions:.2f} M parameters" in ABOUT[name] or f"{millions:.1f} M parameters" in ABOUT[name]
        epochs = preset(name).epochs
        assert f"{epochs:,} epochs" in ABOUT[name] and ("CPU" in ABOUT[name] or "GPU" in ABOUT[name])
    assert "not a usable voice" in ABOUT["test"]
    line = setup.about.fontMetrics().height()
    assert setup.about.minimumSizeHint().width() == 0 and setup.about.sizeHint().height() < 2 * line  # one line


def test_epochs_follow_the_preset_unless_edited(setup):
    from trainer.run.presets import preset

    assert setup.preset.currentText() == "medium" and setup.epochs.value() == preset("medium").epochs
    setup.preset.setCurrentText("test")
    assert setup.epochs.value() == preset("test").epochs
    setup.preset.setCurrentText("high")
    assert setup.epochs.value() == preset("high").epochs
    setup.epochs.setValue(40)  # the person types their own
    setup.preset.setCurrentText("test")
    assert setup.epochs.value() == 40  # kept, and said so
    assert setup.about.text().startswith("Epochs kept at your 40 (the preset's: 2). Smoke test only")
    assert setup.choices()[2:4] == ("test", 40)
    setup.epochs.setValue(preset("test").epochs)  # back to the preset's own: it follows again
    setup.preset.setCurrentText("medium")
    assert setup.epochs.value() == preset("medium").epochs and "kept" not in setup.about.text()


def _test_run(folder, preset_name: str, settings: tuple[str, ...] = ()):
    """A run folder as ``voice-studio train --preset PRESET [--set ...]`` leaves it after its first epoch."""
    from trainer.events.log import EventLog
    from trainer.events.schema import Epoch
    from trainer.run.document import RunDocument, write_run
    from trainer.run.options import RunOptions
    from trainer.run.presets import preset

    options = RunOptions(
        dataset=folder.parent, out=folder, start="scratch", preset=preset_name, epochs=2, settings=settings
    )
    folder.mkdir(parents=True)
    write_run(RunDocument(options=options, cache=folder / "cache", config=preset(preset_name).to_dict()))
    log = EventLog(folder / "events.jsonl")
    split = {"val_s": 0.5, "preview_s": 0.1, "checkpoint_wait_s": 0.1}
    log.emit(Epoch(epoch=0, step=4, seconds=3.0, train_s=2.3, losses={"val_mel": 1.5}, learning_rates={}, **split))
    log.close()
    return folder


def test_a_test_preset_run_is_labelled_a_smoke_test(qtbot, tmp_path):
    """The Runs table's preset column and the status line when the run is shown say smoke test; a medium
    run's do not."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.run_state import load_run

    smoke, real = _test_run(tmp_path / "runs" / "smoke", "test"), _test_run(tmp_path / "runs" / "real", "medium")
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.runs.refresh()
    rows = {page.runs.table.item(r, 0).text(): page.runs.table.item(r, 6) for r in range(2)}
    assert rows["smoke"].text() == "test (smoke test, not a usable voice)"
    assert "Smoke test only" in rows["smoke"].toolTip()
    assert rows["real"].text() == "medium"
    page.show_run(load_run(smoke))
    assert page.status.text() == (
        "smoke: running, 1 epoch. A smoke test, not a usable voice. From scratch, test preset, 2 epochs planned"
        " (Resume goes on with these; Start uses the Setup's)."
    )
    page.show_run(load_run(real))
    assert "smoke" not in page.status.text() and "1 epoch." in page.status.text()


def test_a_shown_run_says_its_settings(qtbot, tmp_path):
    """A run made with --set says them in the status line when shown (Resume goes on with them); one without
    says none."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.run_state import load_run

    made = _test_run(tmp_path / "runs" / "set", "test", ("stft_loss=0", "c_kl=0.5"))
    plain = _test_run(tmp_path / "runs" / "plain", "test")
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.show_run(load_run(made))
    assert "test preset, 2 epochs planned, set: stft_loss=0, c_kl=0.5 (Resume goes on" in page.status.text()
    page.show_run(load_run(plain))
    assert "set:" not in page.status.text()


def test_a_smoke_test_voice_says_so_in_the_voice_lists(tmp_path):
    """A voice whose config records the test preset (as a test run's ``config.json`` does and export keeps):
    the Synthesize page's voice list and the Train page's start list label it."""
    from engines.registry import find_voice
    from engines.voice import load_voice
    from studio.pages.train import start_label
    from studio.widgets.voice_picker import _label

    joe = find_voice("joe")
    model = tmp_path / "smoke.onnx"
    model.symlink_to(joe.model_path)
    (tmp_path / "smoke.onnx.json").write_text(json.dumps({**joe.config.raw, "training": {"preset": "test"}}))
    voice = load_voice(model, origin="user")
    assert _label(voice).startswith("⚠ smoke test: smoke (")
    assert start_label(voice) == "⚠ smoke test: smoke (smoke.onnx)"
    assert "smoke test" not in _label(joe) and "smoke test" not in start_label(joe)


def test_setup_findings_count_in_words():
    """The Train setup's findings agree with their numbers ("1 usable clip", "1 clip will be left out")."""
    from collections import Counter

    from trainer.run.preflight import DatasetSummary, _clip_findings

    one = _clip_findings(DatasetSummary("piper", 1, Counter(), 2.0, Counter()), 22050, "the voice")
    assert one[0].message == "The dataset has 1 usable clip; training needs at least 2."
    few = _clip_findings(DatasetSummary("project", 3, Counter(), 9.0, Counter({"too short": 1})), 22050, "it")
    assert [f.message for f in few] == [
        "Only 3 clips: 100 to 2,000 make a good voice.",
        "1 clip will be left out: 1 × too short.",
    ]


def test_a_shown_run_fills_a_blank_dataset_field_and_keeps_a_typed_one(qtbot, tmp_path):
    """Showing (or following) a run with the setup's dataset blank fills in the run's dataset (the field stayed
    blank beside a run training on one, issue 31); a dataset the user typed stays as typed."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from trainer.events.run_state import load_run

    run = _test_run(tmp_path / "runs" / "smoke", "test")
    page = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    assert page.setup.dataset.text() == ""
    page.show_run(load_run(run))
    assert page.setup.dataset.text() == str(tmp_path / "runs")  # the run's own (``_test_run``: its parent)
    page.setup.dataset.setText(str(tmp_path / "mine"))
    page.show_run(load_run(run))
    assert page.setup.dataset.text() == str(tmp_path / "mine")


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
        ("stft_loss=<b>big</b>", "Settings: stft_loss=<b>big</b>: stft_loss takes a number at least 0"),
        ("stft_loss=<x", "Settings: stft_loss=<x: stft_loss takes a number at least 0"),
        ("STFT_LOSS=0", "Settings: 'STFT_LOSS' is not a training setting (did you mean stft_loss?)"),
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
    assert said in shown_text(page.setup.findings.text())  # as typed: markup in it is not read as markup
    assert not page.process.is_running() and not (tmp_path / "runs").exists()
    window.close()
    gc.collect()


def shown_text(rich: str) -> str:
    """What a rich-text label shows of ``rich``: its plain text."""
    from PySide6.QtGui import QTextDocument

    document = QTextDocument()
    document.setHtml(rich)
    return document.toPlainText()
