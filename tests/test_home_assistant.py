"""Our export as Home Assistant sees it, through the real wyoming-piper package on 127.0.0.1: its Wyoming server
finds and speaks our voices under the advertised name (joe re-exported, a fine-tune of joe under a new name, a
multi-speaker voice), and its voice upload API (``--web-server``) takes our upload."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("wyoming_piper")
pytest.importorskip("flask")  # wyoming-piper's [web] extra: its upload API
torch = pytest.importorskip("torch")

from engines.voice_naming import NamingError, VoiceNaming  # noqa: E402
from trainer.checkpoints.home_assistant import HomeAssistantError, copy_voice, send_voice  # noqa: E402

TUNED = VoiceNaming(language="en_US", name="my_fine_tune", quality="medium")
LINE = "Good morning, the kitchen lights are on."


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_for_port(port: int, timeout_s: float = 30.0) -> None:
    """Return once something accepts connections on 127.0.0.1:``port`` (no event says so: polled)."""
    import time

    end = time.monotonic() + timeout_s
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


class WyomingPiper:
    """``python -m wyoming_piper`` on 127.0.0.1: its Wyoming server and its web server (the upload API), as the
    Home Assistant add-on starts it; ready once it logs ``Ready``."""

    def __init__(self, data_dir: Path, voice: str) -> None:
        self.port, self.web_port = _free_port(), _free_port()
        command = [sys.executable, "-m", "wyoming_piper", "--data-dir", str(data_dir), "--voice", voice]
        command += ["--uri", f"tcp://127.0.0.1:{self.port}", "--web-server", "--web-server-port", str(self.web_port)]
        self.process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
        said = []
        for line in self.process.stderr:
            said.append(line)
            if "Ready" in line:
                break
        else:
            raise RuntimeError("wyoming-piper did not start:\n" + "".join(said))
        self.url = f"http://127.0.0.1:{self.web_port}"
        _wait_for_port(self.port)  # it logs Ready before its server binds

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


async def _ask(port: int, *events):
    """Send ``events`` to a Wyoming server; returns its answer: an ``Info``, or ``(audio int16, rate)`` read up to
    ``audio-stop``."""
    from wyoming.audio import AudioChunk, AudioStop
    from wyoming.client import AsyncTcpClient
    from wyoming.info import Info

    async with AsyncTcpClient("127.0.0.1", port) as client:
        for event in events:
            await client.write_event(event.event())
        chunks, rate = [], 0
        while (event := await asyncio.wait_for(client.read_event(), 120)) is not None:
            if Info.is_type(event.type):
                return Info.from_event(event)
            if AudioChunk.is_type(event.type):
                chunk = AudioChunk.from_event(event)
                chunks.append(np.frombuffer(chunk.audio, np.int16))
                rate = chunk.rate
            if AudioStop.is_type(event.type):
                return np.concatenate(chunks), rate
    raise AssertionError("the server closed the connection")


def _describe(port: int):
    from wyoming.info import Describe

    return asyncio.run(_ask(port, Describe()))


def _speak(port: int, voice: str, speaker: str | None = None):
    from wyoming.tts import Synthesize, SynthesizeVoice

    return asyncio.run(_ask(port, Synthesize(text=LINE, voice=SynthesizeVoice(name=voice, speaker=speaker))))


def _listed(info) -> dict:
    return {voice.name: voice for voice in info.tts[0].voices}


def _fine_tune_of_joe(run: Path, joe) -> Path:
    """A checkpoint of ``run`` (a run started from joe) holding joe's weights at epoch 2: what a fine-tune of joe
    looks like to export, without training one."""
    from engines.torch.vits.onnx_import import load_onnx_generator

    model, _ = load_onnx_generator(joe.model_path)
    hparams = {**model.config.to_dict(), "sample_rate": 22050, "filter_length": 1024, "learning_rate": 2e-4}
    state = {f"model_g.{k}": v for k, v in model.state_dict().items()}
    path = run / "last.ckpt"
    torch.save({"state_dict": state, "hyper_parameters": hparams, "epoch": 1, "global_step": 10}, path)
    return path


@pytest.fixture(scope="module")
def voices(tmp_path_factory, joe, prepared_run):
    """Our exports in a wyoming-piper data folder: joe re-exported, and a fine-tune of joe as ``my_fine_tune``."""
    data = tmp_path_factory.mktemp("piper-data")
    tuned = _fine_tune_of_joe(prepared_run, joe)
    run_cli("export", str(tuned), "-o", str(data), "--name", TUNED.name)
    run_cli("export", "joe", "-o", str(data))
    return {"joe": data / "en_US-joe-medium.onnx", "tuned": data / f"{TUNED.stem}.onnx", "data": data}


def run_cli(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "studio", *args], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    return result.stderr


@pytest.fixture(scope="module")
def server(voices):
    """wyoming-piper serving the data folder, the fine-tune as its default voice."""
    running = WyomingPiper(voices["data"], TUNED.stem)
    yield running
    running.stop()


def test_the_fine_tune_is_named_and_described_as_itself(voices, prepared_run):
    """A fine-tune of joe exported as my_fine_tune: Home Assistant's file name, dataset = the stem, the dataset's
    language block, the quality, and a training note; nothing of joe's own identity is left."""
    config = json.loads(voices["tuned"].with_name(voices["tuned"].name + ".json").read_text(encoding="utf-8"))
    assert config["dataset"] == "en_US-my_fine_tune-medium" != "joe"
    assert config["language"] == {
        "code": "en_US",
        "family": "en",
        "region": "US",
        "name_native": "English",
        "name_english": "English",
        "country_english": "United States",
    }
    assert config["audio"] == {"sample_rate": 22050, "quality": "medium"}
    training = config["training"]
    assert training["start_voice"] == "en_US-joe-medium" and training["epochs"] == 2 and training["preset"] == "test"
    assert 30 <= training["dataset_utterances"] <= 40 and training["dataset_minutes"] > 0
    joe_config = json.loads(voices["joe"].with_name(voices["joe"].name + ".json").read_text(encoding="utf-8"))
    assert joe_config["dataset"] == "joe" and "training" not in joe_config  # a stock voice keeps its own fields


def test_wyoming_piper_lists_our_voices_under_their_names(server):
    """wyoming-piper's describe lists both exports under their file names, with the language and quality."""
    listed = _listed(_describe(server.port))
    tuned = listed[TUNED.stem]
    assert tuned.languages == ["en_US"] and tuned.description == "en_US-my_fine_tune-medium (medium)"
    assert listed["en_US-joe-medium"].languages == ["en_US"]


@pytest.mark.parametrize("voice", [TUNED.stem, "en_US-joe-medium"])
def test_wyoming_piper_speaks_our_voices_by_the_advertised_name(server, voice):
    """Synthesize with the advertised name: 22,050 Hz speech of a plausible length (1-6 s) and level."""
    audio, rate = _speak(server.port, voice)
    seconds = len(audio) / rate
    level = np.sqrt(np.mean((audio / 32768.0) ** 2))
    assert rate == 22050 and 1.0 < seconds < 6.0, seconds
    assert 0.01 < level < 0.5, level


def test_the_fine_tune_speaks_as_joe_does(server):
    """Its weights are joe's: the two voices say the line at about the same length (noise aside)."""
    tuned, _ = _speak(server.port, TUNED.stem)
    joe, _ = _speak(server.port, "en_US-joe-medium")
    assert abs(len(tuned) - len(joe)) < 0.25 * len(joe)


def test_our_upload_is_taken_and_found(server, voices, tmp_path):
    """send_voice uploads a renamed export; wyoming-piper's /api/piper/voices and its Wyoming side list it, and it
    speaks."""
    import httpx

    from trainer.checkpoints.export import export_voice

    renamed = VoiceNaming(language="en_GB", name="uploaded", quality="medium")
    path, _ = export_voice(voices["joe"], tmp_path / f"{renamed.stem}.onnx", naming=renamed)
    assert send_voice(path, server.url) == renamed.stem
    listed = httpx.get(server.url + "/api/piper/voices", timeout=10).json()["voices"]
    found = next(v for v in listed if v["name"] == renamed.stem)
    assert (found["language"], found["quality"], found["dataset"]) == ("en_GB", "medium", renamed.stem)
    assert _listed(_describe(server.port))[renamed.stem].languages == ["en_GB"]
    audio, rate = _speak(server.port, renamed.stem)
    assert len(audio) / rate > 1.0


def test_a_rejected_name_and_an_unreachable_server_are_named(server, voices, tmp_path):
    """The server's refusal of a file name is a 'name rejected' error with its message, of a garbled config a
    'refused' one with its message; no server: 'unreachable'."""
    import shutil

    bad = tmp_path / "bad name!.onnx"
    shutil.copyfile(voices["joe"], bad)
    shutil.copyfile(f"{voices['joe']}.json", f"{bad}.json")
    with pytest.raises(HomeAssistantError, match="rejected the voice name 'bad name!.onnx': Invalid voice name") as e:
        send_voice(bad, server.url)
    assert e.value.kind == "name rejected"
    garbled = tmp_path / "en_US-garbled-medium.onnx"
    shutil.copyfile(voices["joe"], garbled)
    Path(f"{garbled}.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(HomeAssistantError, match=r"refused the voice \(HTTP 400\): Config is not valid JSON") as e:
        send_voice(garbled, server.url)
    assert e.value.kind == "refused"
    port = _free_port()  # nothing listens there
    with pytest.raises(HomeAssistantError, match=f"^http://127.0.0.1:{port}: no wyoming-piper web server") as e:
        send_voice(voices["joe"], f"127.0.0.1:{port}")
    assert e.value.kind == "unreachable"


def test_the_cli_sends_and_copies(server, voices, tmp_path):
    """``export --send-to URL --copy-to FOLDER``: the voice reaches the server and the folder; the reminder to
    reload the Piper integration is said."""
    import httpx

    folder = tmp_path / "share-piper"
    folder.mkdir()
    said = run_cli(
        "export", "joe", "-o", str(tmp_path), "--name", "sent", "--send-to", server.url, "--copy-to", str(folder)
    )
    assert "Reload the Piper integration" in said
    names = {v["name"] for v in httpx.get(server.url + "/api/piper/voices", timeout=10).json()["voices"]}
    assert "en_US-sent-medium" in names
    assert sorted(p.name for p in folder.iterdir()) == ["en_US-sent-medium.onnx", "en_US-sent-medium.onnx.json"]


def test_copy_to_a_missing_folder_is_named(voices, tmp_path):
    """Copying into a folder that is not there: a 'folder' error naming it."""
    with pytest.raises(HomeAssistantError, match="nowhere: not a folder"):
        copy_voice(voices["joe"], tmp_path / "nowhere")


def test_a_bad_name_language_or_quality_names_its_field():
    """Each part of the naming is checked on its own, the error naming the field."""
    for naming, field in (
        (VoiceNaming(language="en_US", name="my voice", quality="medium"), "--name"),
        (VoiceNaming(language="english", name="mine", quality="medium"), "--language"),
        (VoiceNaming(language="en_US", name="mine", quality="best"), "--quality"),
    ):
        with pytest.raises(NamingError, match=f"^{field}: ") as e:
            naming.checked()
        assert e.value.field == field


def test_a_multi_speaker_export_keeps_its_speakers_in_wyoming_piper(trio_voice, tmp_path):
    """The 3-speaker voice exported under a Home Assistant name keeps speaker_id_map; wyoming-piper lists it and
    speaks each speaker by name, differently."""
    from trainer.checkpoints.export import export_voice

    data = tmp_path / "data"
    data.mkdir()
    naming = VoiceNaming(language="en_US", name="trio", quality="low")
    path, config_path = export_voice(trio_voice, data / f"{naming.stem}.onnx", naming=naming)
    config = json.loads(config_path.read_text(encoding="utf-8"))
    assert config["speaker_id_map"] == {"ana": 0, "ben": 1, "cleo": 2} and config["num_speakers"] == 3
    running = WyomingPiper(data, naming.stem)
    try:
        listed = _listed(_describe(running.port))[naming.stem]
        assert listed.languages == ["en_US"]
        # wyoming-piper 2.5.2 lists speakers for its catalog voices only (_add_custom_voice sets none): said so
        assert listed.speakers is None
        ana, _ = _speak(running.port, naming.stem, "ana")
        cleo, _ = _speak(running.port, naming.stem, "cleo")
        assert len(ana) != len(cleo) or not np.array_equal(ana, cleo)
    finally:
        running.stop()


@pytest.mark.gui
def test_the_train_page_asks_the_naming_then_sends_the_voice(qtbot, make_tiny_checkpoint, tmp_path, server):
    """Export voice asks the name, language and quality, prefilled from the run; a bad name is said in the dialog;
    the voice is written under the names chosen, listed by the studio under them, and Send to Home Assistant…
    uploads it to wyoming-piper, remembering the URL."""
    import httpx
    from PySide6.QtWidgets import QDialogButtonBox
    from test_export_choice import _run

    from engines import names
    from engines.registry import discover
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint)
    workspace = Workspace(runs_dir=run.parent, voices_dir=tmp_path / "voices")
    page = TrainPage(workspace, VoiceLibrary())
    qtbot.addWidget(page)
    page.tabs.setCurrentIndex(1)
    page.runs.table.selectRow(0)
    assert not page.send_action.isEnabled()
    page.buttons["export"].click()
    dialog = page.naming_dialog
    assert (dialog.name.text(), dialog.language.currentText(), dialog.quality.currentText()) == (
        "tune",
        "en_US",
        "medium",
    )
    assert dialog.file.text() == "en_US-tune-medium.onnx"
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.name.setText("kitchen voice")
    ok.click()
    assert dialog.isVisible() and dialog.error.text().startswith("Name: 'kitchen voice' is not a voice name")
    dialog.name.setText("kitchen")
    dialog.quality.setCurrentText("low")
    assert dialog.file.text() == "en_US-kitchen-low.onnx"
    with qtbot.waitSignal(page.voice_exported, timeout=60_000) as exported:
        ok.click()
    path = Path(exported.args[0])
    assert path == tmp_path / "voices" / "en_US-kitchen-low.onnx"
    config = json.loads(path.with_name(path.name + ".json").read_text(encoding="utf-8"))
    assert (config["dataset"], config["audio"]["quality"], config["language"]["code"]) == (path.stem, "low", "en_US")
    assert names.find_voice(discover([path.parent]).voices, "kitchen").name == "en_US-kitchen-low"
    assert page.send_action.isEnabled()
    page.send("url", server.url)
    qtbot.waitUntil(lambda: page.status.text().startswith("Sent "), timeout=60_000)
    assert "Reload the Piper integration" in page.status.text()
    assert workspace.home_assistant == {"url": server.url}
    listed = {v["name"] for v in httpx.get(server.url + "/api/piper/voices", timeout=10).json()["voices"]}
    assert "en_US-kitchen-low" in listed
    page.send("url", "127.0.0.1:9")  # nothing listens on the discard port
    qtbot.waitUntil(lambda: page.status.text().startswith("Sending en_US-kitchen-low.onnx failed"), timeout=60_000)
    assert "no wyoming-piper web server" in page.status.text()


def test_espeak_voices_give_the_language_of_their_data():
    """The language a checkpoint's dataset is in, from its espeak voice, as Piper's voices pair them."""
    from engines.languages import espeak_language

    said = {v: espeak_language(v) for v in ("en-us", "en-gb-x-rp", "de", "es-419", "pt-br", "fr-fr", "cmn", "qq")}
    assert said == {
        "en-us": "en_US",
        "en-gb-x-rp": "en_GB",
        "de": "de_DE",
        "es-419": "es_MX",
        "pt-br": "pt_BR",
        "fr-fr": "fr_FR",
        "cmn": "zh_CN",
        "qq": None,
    }


def test_a_language_outside_piper_catalog_is_written_with_what_is_known(trio_voice, tmp_path):
    """``--language sw_KE`` (not a language of Piper's catalog): the block has code, family and region, and the
    export says the names were left out."""
    said = run_cli("export", str(trio_voice), "-o", str(tmp_path), "--name", "trio", "--language", "sw_KE")
    assert "sw_KE is not a language of Piper's catalog" in said
    config = json.loads((tmp_path / "sw_KE-trio-low.onnx.json").read_text(encoding="utf-8"))
    assert config["language"] == {"code": "sw_KE", "family": "sw", "region": "KE"}
    assert config["dataset"] == "sw_KE-trio-low" and config["speaker_id_map"] == {"ana": 0, "ben": 1, "cleo": 2}


def test_a_file_output_that_the_naming_flags_disagree_with_is_refused(trio_voice, tmp_path, capsys):
    """``-o x.onnx --quality high``: one line naming -o and the file the flags name; nothing written."""
    from studio.cli import main

    assert main(["export", str(trio_voice), "-o", str(tmp_path / "x.onnx"), "--quality", "high"]) == 2
    error = capsys.readouterr().err.strip()
    named = "--quality names the file en_US-x-high.onnx; give a folder for -o"
    assert error == f"voice-studio: error: -o: {tmp_path / 'x.onnx'}: {named}"
    assert list(tmp_path.iterdir()) == []
    assert main(["export", str(trio_voice), "-o", str(tmp_path), "--name", "my voice"]) == 2
    assert "--name: 'my voice' is not a voice name Home Assistant accepts" in capsys.readouterr().err
    assert main(["export", str(trio_voice), "--sherpa-onnx", str(tmp_path / "b"), "--send-to", "http://h:5000"]) == 2
    said = "export: --send-to and --copy-to send the Piper voice: give -o FOLDER too"
    assert capsys.readouterr().err == f"voice-studio: error: {said}\n"


def test_a_language_that_cannot_be_told_must_be_given(trio_voice):
    """A checkpoint whose espeak voice names no language Piper knows: the default naming asks for --language, and
    takes the one given."""
    from engines.voice import load_voice, parse_config
    from trainer.checkpoints.naming import default_naming

    config = load_voice(trio_voice).config
    odd = parse_config(config.path, {**config.raw, "espeak": {"voice": "qq"}})
    with pytest.raises(NamingError, match="^--language: cannot tell the language of espeak voice 'qq'"):
        default_naming(Path("tuned.ckpt"), odd)
    named = default_naming(Path("tuned.ckpt"), odd, language="sw_KE")
    assert (named.language, named.name, named.quality) == ("sw_KE", "tuned", "low")


def test_a_folder_output_that_is_missing_and_naming_without_a_voice_file_are_named(trio_voice, tmp_path, capsys):
    """``-o missing/`` (or a missing name without an extension) is a folder that does not exist, said so, not a
    "give a folder" nor a "file type ''"; ``--name``/``--language``/``--quality`` with ``--sherpa-onnx`` alone (no
    -o, which they name) are refused, not dropped; nothing written."""
    from studio.cli import main

    missing = f"{tmp_path / 'missing'}{os.sep}"
    for output in (missing, str(tmp_path / "missing")):
        assert main(["export", str(trio_voice), "-o", output, "--name", "kitchen"]) == 2
        error = capsys.readouterr().err
        assert error == f"voice-studio: error: -o {output}: no such folder; make it first, or give a file NAME.onnx\n"
    bundle = tmp_path / "bundle"
    assert main(["export", str(trio_voice), "--sherpa-onnx", str(bundle), "--name", "kitchen"]) == 2
    said = "export: --name names the Piper voice -o writes: give -o FOLDER too (the sherpa-onnx bundle then holds that"
    assert capsys.readouterr().err.startswith(f"voice-studio: error: {said}")
    assert list(tmp_path.iterdir()) == []


def test_the_upload_url_pasted_whole_is_taken(server, voices):
    """``--send-to http://HOST:PORT/api/piper/upload`` (the API's own URL, as wyoming-piper's page shows it): the
    voice is sent, not refused as a 404 'is this wyoming-piper?'."""
    assert send_voice(voices["joe"], f"{server.url}/api/piper/upload/") == "en_US-joe-medium"


def test_a_copy_to_folder_that_is_missing_is_named_before_the_export(trio_voice, tmp_path, capsys):
    """``--copy-to`` a missing folder: one line naming it, exit 2, and no voice written first."""
    from studio.cli import main

    out = tmp_path / "out"
    out.mkdir()
    assert main(["export", str(trio_voice), "-o", str(out), "--copy-to", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err == f"voice-studio: error: --copy-to {tmp_path / 'nowhere'}: not a folder\n"
    assert list(out.iterdir()) == []


def test_an_empty_name_or_language_is_refused_not_taken_for_the_default(trio_voice, tmp_path, capsys):
    """``--name ''`` (an unset shell variable) is a name Home Assistant would not take, not the default name."""
    from studio.cli import main

    assert main(["export", str(trio_voice), "-o", str(tmp_path), "--name", ""]) == 2
    assert "--name: '' is not a voice name Home Assistant accepts" in capsys.readouterr().err
    assert main(["export", str(trio_voice), "-o", str(tmp_path), "--language", ""]) == 2
    assert "--language: '' is not a language code" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def _voice_file(joe, path: Path) -> Path:
    """joe as a voice file on disk under another name (an imported or downloaded voice): the model linked, the
    config copied."""
    path.symlink_to(joe.model_path)
    Path(f"{path}.json").write_text(joe.config.path.read_text(encoding="utf-8"), encoding="utf-8")
    return path


def test_a_voice_file_copied_under_a_name_is_described_by_it(joe, tmp_path):
    """copy_voice with a naming: the pair lands as the name's stem, its config's dataset, language block and
    quality written for it (the rest as it was); the files on disk stay as they are."""
    source = _voice_file(joe, tmp_path / "My Voice.onnx")
    folder = tmp_path / "share-piper"
    folder.mkdir()
    naming = VoiceNaming(language="en_GB", name="my_voice", quality="low")
    copied = copy_voice(source, folder, naming)
    assert copied == folder / "en_GB-my_voice-low.onnx" and copied.read_bytes() == joe.model_path.read_bytes()
    config = json.loads(Path(f"{copied}.json").read_text(encoding="utf-8"))
    assert (config["dataset"], config["language"]["code"], config["audio"]["quality"]) == (copied.stem, "en_GB", "low")
    assert config["phoneme_id_map"] == joe.config.raw["phoneme_id_map"]
    assert json.loads(Path(f"{source}.json").read_text(encoding="utf-8")) == joe.config.raw


@pytest.mark.gui
def test_the_synthesize_page_sends_the_chosen_voice_file_under_a_name_home_assistant_takes(
    qtbot, joe, tmp_path, server
):
    """Send to Home Assistant… on the Synthesize page: for a voice file named 'My Voice.onnx' it offers
    'my_voice' (wyoming-piper's rule), says a bad name in the dialog, then uploads it to wyoming-piper under
    en_US-my_voice-medium (listed with that dataset and language, spoken over Wyoming), remembering the URL; a
    missing folder is named."""
    import httpx
    from conftest import synthesize_page
    from PySide6.QtWidgets import QDialogButtonBox

    from studio.state import Workspace

    (tmp_path / "voices").mkdir()
    source = _voice_file(joe, tmp_path / "voices" / "My Voice.onnx")
    workspace = Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices")
    page = synthesize_page(qtbot, [source], workspace)
    page.resize(1100, 700)
    page.voice_box.setCurrentIndex(page.voice_names().index("My Voice"))
    assert page.send_button.isEnabled()
    page.send_button.click()
    dialog = page.naming_dialog
    assert (dialog.name.text(), dialog.language.currentText(), dialog.quality.currentText()) == (
        "my_voice",
        "en_US",
        "medium",
    )
    _shot(dialog, "send_naming")
    ok = dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)
    dialog.name.setText("My Voice")
    ok.click()
    assert dialog.isVisible() and dialog.error.text().startswith("Name: 'My Voice' is not a voice name")
    dialog.name.setText("my_voice")
    ok.click()
    where = page.send_dialog
    assert where is not None and not dialog.isVisible()
    where.url.setText(server.url)
    _shot(where, "send_where")
    where.accept()
    qtbot.waitUntil(lambda: page.notice.about("send").startswith("Sent "), timeout=60_000)
    assert "Reload the Piper integration" in page.notice.about("send")
    assert workspace.home_assistant == {"url": server.url}
    listed = httpx.get(server.url + "/api/piper/voices", timeout=10).json()["voices"]
    found = next(v for v in listed if v["name"] == "en_US-my_voice-medium")
    assert (found["dataset"], found["language"]) == ("en_US-my_voice-medium", "en_US")
    audio, rate = _speak(server.port, "en_US-my_voice-medium")
    assert len(audio) / rate > 1.0
    _shot(page, "send_sent")
    page.send_voice(source, dialog.naming(), "folder", str(tmp_path / "nowhere"))
    qtbot.waitUntil(lambda: "failed" in page.notice.about("send"), timeout=60_000)
    assert page.notice.about("send").endswith("nowhere: not a folder")


def _shot(widget, name: str) -> None:
    """Save what ``widget`` shows as ``NAME.png`` in ``$VOICE_STUDIO_SHOTS``, where that is set (to look at)."""
    folder = os.environ.get("VOICE_STUDIO_SHOTS")
    if folder:
        widget.grab().save(str(Path(folder) / f"{name}.png"))
