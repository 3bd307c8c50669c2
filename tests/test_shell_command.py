"""Commands printed for a person to run paste as they were meant: quoted for a POSIX shell (checked by a real
``sh``) and for PowerShell and cmd on Windows."""

from __future__ import annotations

import pytest
from conftest import AWKWARD_FOLDER, sh_words, shared_path

from engines.shell_command import posix_command, windows_command

AWKWARD_WORDS = [
    "Dätä Földer ü/Jöhn's voice/run ü",
    "$HOME and `date` and $(id)",
    'say "hi" \\ back',
    "*.onnx",
    "semi;colon & amp | pipe > out",
    "",
    "-o",
    "line\nbreak",
    "‘typographic’ “quotes”",
]


def test_posix_commands_give_back_their_words_through_a_real_sh():
    """Spaces, umlauts, quotes, $, backticks, globs, operators, an empty word and a newline: sh gets each word."""
    words = ["voice-studio", "export", *AWKWARD_WORDS, "NAME.onnx"]
    assert sh_words(posix_command(words)) == words


@pytest.mark.parametrize(
    ("words", "line"),
    [
        (
            ["voice-studio", "export", "C:\\Users\\Dätä Földer ü\\Jöhn's voice\\run ü", "-o", "NAME.onnx"],
            'voice-studio export "C:\\Users\\Dätä Földer ü\\Jöhn\'s voice\\run ü" -o NAME.onnx',
        ),
        (["pip", "install", "voice-studio[train]"], 'pip install "voice-studio[train]"'),
        (["voice-studio", "train", "--resume", "D:\\$5 voice"], "voice-studio train --resume 'D:\\$5 voice'"),
        (["x", "it's 100% `done`"], "x 'it''s 100% `done`'"),
        (["x", "Jöhn’s “best” run"], "x 'Jöhn’’s “best” run'"),
        (["x", "C:\\run folder\\"], 'x "C:\\run folder\\\\"'),
        (["x", "-name.ext", "--take", "", "a,b"], 'x "-name.ext" --take "" "a,b"'),
        (["C:\\Program Files\\Studio\\voice-studio.exe", "say"], '& "C:\\Program Files\\Studio\\voice-studio.exe" say'),
    ],
)
def test_windows_commands_quote_for_powershell_and_cmd(words, line):
    """Double quotes where both shells keep the word literal, PowerShell's single quotes where $ ` % or “ are in
    it (' and ’ doubled), trailing backslashes doubled, PowerShell's & before a quoted program."""
    assert windows_command(words) == line


def test_the_export_command_after_training_pastes_into_sh(tmp_path, capsys):
    """The line ``voice-studio train`` ends with, for a run under a folder with spaces, umlauts and an apostrophe:
    sh reads the run folder as one word."""
    from studio.cli.train import _say_how_to_export

    run = tmp_path / AWKWARD_FOLDER / "run ü"
    _say_how_to_export(run, run / "checkpoints" / "epoch=0001-step=4.ckpt")
    said = capsys.readouterr().err
    command = said.split("with: ", 1)[1].split(" (--take", 1)[0]
    assert sh_words(command) == ["voice-studio", "export", str(run), "-o", "NAME.onnx"]


def test_the_preview_now_command_before_training_pastes_into_sh(tmp_path, capsys):
    """``train`` says how to ask for a preview now; for a run under an awkward folder sh reads it as one word."""
    from studio.cli.train import _say_what_comes
    from trainer.run.document import RunDocument
    from trainer.run.options import RunOptions

    run = tmp_path / AWKWARD_FOLDER / "run ü"
    options = RunOptions(dataset=tmp_path / "data", out=run, preset="test", epochs=2)
    document = RunDocument(options=options, cache=tmp_path / "no cache", config={"epochs": 2, "preview_every": 1})
    _say_what_comes(document, resumed=False)
    command = capsys.readouterr().err.split("for one now: ", 1)[1].strip()
    assert sh_words(command) == ["voice-studio", "train", "--preview-now", str(run)]


def test_a_relative_path_that_starts_with_a_dash_is_not_pasted_as_an_option(tmp_path, monkeypatch, capsys):
    """``dataset import --project=-dash``: the report command it prints names ``./-dash``, which the CLI reads back
    as the project (``-dash`` alone was read as an unknown option); plain words stay as they are."""
    from pathlib import Path

    import numpy as np
    import soundfile

    from engines.shell_command import shell_command
    from studio.cli import main

    assert sh_words(shell_command("voice-studio", "-o", Path("-dash"))) == ["voice-studio", "-o", "./-dash"]
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "in"
    source.mkdir()
    (source / "c01.wav").write_bytes(shared_path("corpus", "real-speech", "cards", "001.wav").read_bytes())
    soundfile.write(str(source / "c02.wav"), np.zeros(16000, dtype=np.float32), 16000)  # silent: blocked
    assert main(["dataset", "import", "--project=-dash", str(source), "--workers", "1"]) == 0
    said = capsys.readouterr().err
    command = said.split("see them with: ")[1].split("\n")[0] if "see them with: " in said else ""
    words = sh_words(command) if command else []
    assert words[:3] == ["voice-studio", "dataset", "report"] and words[3] == "./-dash", said
    assert main(["dataset", "report", words[3]]) == 0
