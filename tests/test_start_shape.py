"""A start and a dataset of another shape: converted in a defined way (single -> multi-speaker) or refused."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from conftest import target_voice_slice

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from trainer.run.errors import RunError  # noqa: E402
from trainer.run.options import RunOptions  # noqa: E402
from trainer.run.preflight import preflight  # noqa: E402
from trainer.run.train import create_run, fit  # noqa: E402

SPEAKERS = ("alice", "bob", "carol")


@pytest.fixture(scope="module")
def three_speakers(tmp_path_factory):
    """12 target-voice clips in Piper's multi-speaker layout (``id|speaker|text``), 4 per speaker."""
    folder = target_voice_slice(tmp_path_factory.mktemp("multi") / "piper-data", 12)
    rows = (folder / "metadata.csv").read_text(encoding="utf-8").splitlines()
    lines = [f"{row.split('|')[0]}|{SPEAKERS[i % 3]}|{row.split('|')[-1]}" for i, row in enumerate(rows)]
    (folder / "metadata.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def write_start(path, num_speakers: int = 1, num_symbols: int = 256):
    """A Piper-style checkpoint of a fresh ``test``-preset generator at 22,050 Hz."""
    from engines.torch.vits import Synthesizer
    from trainer.run.presets import preset

    torch.manual_seed(5)
    config = preset("test", num_symbols=num_symbols, num_speakers=num_speakers).model
    model = Synthesizer(config)
    hparams = {**config.to_dict(), "sample_rate": 22050, "filter_length": 1024, "learning_rate": 2e-4}
    state = {f"model_g.{k}": v for k, v in model.state_dict().items()}
    torch.save({"state_dict": state, "hyper_parameters": hparams, "epoch": 1, "global_step": 10}, path)
    return path, model


def test_single_speaker_start_on_three_speakers_trains_and_exports_three(three_speakers, tmp_path, capsys):
    """The reported case: a single-speaker .ckpt on an id|speaker|text dataset becomes a 3-speaker generator
    (pre-flight and run say so); the exported voice has 3 speakers and speaks as bob, unlike alice."""
    from studio.cli import main

    start, _ = write_start(tmp_path / "single.ckpt")
    findings = preflight(
        RunOptions(
            dataset=three_speakers, start=str(start), preset="test", epochs=1, device="cpu", out=tmp_path / "run"
        )
    )
    conversions = [f.message for f in findings if f.level == "conversion"]
    assert not any(f.blocking for f in findings)
    assert len(conversions) == 1 and "single.ckpt has one speaker" in conversions[0]
    assert "has 3 (alice, bob, carol)" in conversions[0] and "emb_g" in conversions[0]

    run = create_run(
        RunOptions(dataset=three_speakers, out=tmp_path / "run", start=str(start), preset="test", epochs=1)
    )
    document = json.loads((run / "training.json").read_text())
    assert document["config"]["model"]["num_speakers"] == 3 and document["config"]["model"]["gin_channels"] == 16
    assert document["conversions"] == conversions
    best = fit(run)
    warnings = [r["message"] for r in map(json.loads, (run / "events.jsonl").open()) if r["kind"] == "warning"]
    assert any(m.startswith("converting the start: single.ckpt has one speaker") for m in warnings)

    voice = tmp_path / "multi.onnx"
    assert main(["export", str(best), "-o", str(voice)]) == 0
    config = json.loads(voice.with_name("multi.onnx.json").read_text())
    assert config["num_speakers"] == 3 and config["speaker_id_map"] == {"alice": 0, "bob": 1, "carol": 2}
    spoken = {}
    for name in ("bob", "alice"):
        out = tmp_path / f"{name}.wav"
        args = ["say", "Good morning.", "--voice", str(voice), "--speaker", name, "-o", str(out), "--quiet"]
        said = subprocess.run(  # as a user runs it: say sets ONNX Runtime's process-wide thread pool
            [sys.executable, "-m", "studio", *args, "--noise-scale", "0", "--noise-w", "0"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert said.returncode == 0, said.stderr
        import soundfile

        spoken[name] = soundfile.read(out)[0]
    assert len(spoken["bob"]) > 2000 and np.isfinite(spoken["bob"]).all()
    assert not np.array_equal(spoken["bob"], spoken["alice"])  # the speaker embedding conditions the voice


def test_conversion_copies_every_shared_weight_and_leaves_speaker_layers_fresh(three_speakers, tmp_path):
    """After loading the single-speaker start, every tensor it has is the start's; emb_g and the cond layers
    exist only in the converted generator."""
    from trainer.gan.system import VitsSystem
    from trainer.start.points import load_start

    start, model = write_start(tmp_path / "single.ckpt")
    run = create_run(RunOptions(dataset=three_speakers, out=tmp_path / "run", start=str(start), preset="test"))
    system = VitsSystem(json.loads((run / "training.json").read_text())["config"])
    notes = load_start(system, start)
    ours, theirs = system.model_g.state_dict(), model.state_dict()
    assert all(torch.equal(ours[k], v) for k, v in theirs.items())
    fresh = sorted(set(ours) - set(theirs))
    assert "emb_g.weight" in fresh and "dp.cond.weight" in fresh and "dec.cond.weight" in fresh
    assert any(k.startswith("flow.flows.0.enc.cond_layer") for k in fresh)
    assert any(k.startswith("enc_q.enc.cond_layer") for k in fresh)
    assert notes[0].startswith(f"generator: {len(fresh)} of {len(ours)} tensors not in single.ckpt")


def test_multi_speaker_start_on_one_speaker_and_other_symbols_are_refused(three_speakers, tmp_path):
    """A 2-speaker start on a dataset of one unnamed speaker, and a start with 100 symbols on a 256-symbol
    voice map: refused before training (no run folder left), naming both sides; the pre-flight says so too.
    The 2-speaker start on three speakers converts: its conditioning width kept, a new emb_g."""
    single = target_voice_slice(tmp_path / "single-data", 4)
    two, _ = write_start(tmp_path / "two.ckpt", num_speakers=2)
    with pytest.raises(RunError, match="two.ckpt has 2 speakers but .*single-data has one unnamed speaker"):
        create_run(RunOptions(dataset=single, out=tmp_path / "a", start=str(two), preset="test"))
    findings = preflight(
        RunOptions(dataset=single, start=str(two), preset="test", epochs=1, device="cpu", out=tmp_path / "a")
    )
    assert findings[0].blocking and "two.ckpt has 2 speakers" in findings[0].message
    run = create_run(RunOptions(dataset=three_speakers, out=tmp_path / "c", start=str(two), preset="test"))
    document = json.loads((run / "training.json").read_text())
    assert (document["config"]["model"]["num_speakers"], document["config"]["model"]["gin_channels"]) == (3, 16)
    assert (
        document["conversions"][0].startswith("two.ckpt has 2 speakers, ")
        and "emb_g) starts fresh" in (document["conversions"][0])
    )
    symbols, _ = write_start(tmp_path / "symbols.ckpt", num_symbols=100)
    with pytest.raises(RunError, match="symbols.ckpt has 100 symbols, but .*piper-data's voice map has 256"):
        create_run(RunOptions(dataset=three_speakers, out=tmp_path / "b", start=str(symbols), preset="test"))
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_train_page_setup_shows_the_conversions(three_speakers, tmp_path, qtbot):
    """The Train page's findings list each conversion on its own line: joe (one speaker, medium size) on
    three speakers with the test preset becomes a 3-speaker generator of joe's size."""
    from studio.widgets.train_setup import TrainSetup

    setup = TrainSetup()
    qtbot.addWidget(setup)
    setup.show_findings(
        preflight(
            RunOptions(dataset=three_speakers, start="joe", preset="test", epochs=1, device="cpu", out=tmp_path / "run")
        )
    )
    text = setup.findings.text()
    assert "Conversion: en_US-joe-medium.onnx has one speaker, " in text and "has 3 (alice, bob, carol)" in text
    assert "Conversion: the generator keeps en_US-joe-medium.onnx's size, not the test preset's: " in text
    assert "hidden_channels 192 (preset: 16)" in text


def test_onnx_start_without_num_symbols_fits_by_its_graph(three_speakers, tmp_path):
    """joe's voice with ``num_symbols`` left out of its config (Piper's trainer allows that; the default, largest
    id + 1 = 151, is only a lower bound) fits the 256-symbol dataset map: the start's graph has 256 rows. Stating
    a wrong count is still refused."""
    import shutil

    from engines.registry import find_voice

    joe = find_voice("joe")
    document = json.loads(joe.config.path.read_text())
    for name, change in (("nosym", lambda d: d.pop("num_symbols")), ("wrong", lambda d: d.update(num_symbols=200))):
        model = tmp_path / f"{name}.onnx"
        shutil.copy(joe.model_path, model)
        changed = dict(document)
        change(changed)
        (tmp_path / f"{name}.onnx.json").write_text(json.dumps(changed))
        findings = preflight(
            RunOptions(
                dataset=three_speakers, start=str(model), preset="test", epochs=1, device="cpu", out=tmp_path / "run"
            )
        )
        blocking = [f.message for f in findings if f.blocking]
        if name == "nosym":
            assert not blocking, blocking
        else:
            assert blocking and "wrong.onnx" in blocking[0], blocking


def test_onnx_start_whose_graph_hides_its_embedding_takes_the_config_symbols(tmp_path):
    """A graph whose phoneme embedding is not found (its ``input`` reaches the Gather through an Identity) and
    a config without ``num_symbols``: the start has the config's symbols (largest id + 1), not ``None`` (the
    refusal read "hidden.onnx has None symbols"; found by mypy)."""
    import onnx

    from engines.registry import find_voice
    from trainer.start.shape import start_shape

    joe = find_voice("joe")
    model = onnx.load(str(joe.model_path))
    gather = next(n for n in model.graph.node if n.op_type == "Gather" and n.input[1] == "input")
    gather.input[1] = "input_via_identity"
    model.graph.node.insert(0, onnx.helper.make_node("Identity", ["input"], ["input_via_identity"]))
    onnx.save(model, str(tmp_path / "hidden.onnx"))
    document = json.loads(joe.config.path.read_text())
    document.pop("num_symbols")
    (tmp_path / "hidden.onnx.json").write_text(json.dumps(document))

    shape = start_shape(str(tmp_path / "hidden.onnx"))
    assert shape.num_symbols == 1 + max(i for ids in document["phoneme_id_map"].values() for i in ids)
