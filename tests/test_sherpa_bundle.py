"""The sherpa-onnx bundle (``export --sherpa-onnx DIR``, ``trainer.checkpoints.sherpa_bundle``) loaded and spoken
by the real sherpa-onnx package (in a process of its own: ``tests/sherpa_speak.py``), against our ONNX engine."""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from engines.audio import snr_db
from engines.base import SynthesisOptions
from engines.phonemes import Phonemizer

if importlib.util.find_spec("sherpa_onnx") is None:
    pytest.skip("sherpa-onnx is not installed (the dev extra brings it)", allow_module_level=True)

SPEAK = Path(__file__).with_name("sherpa_speak.py")
NOISE_FREE = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
LINE = "The quick brown fox jumps over the lazy dog."
"""A sentence with nothing our text front end rewrites (sherpa-onnx 2.x has no text front end for Piper voices: it is
given our phonemes, as it takes any external phonemizer's)."""
SENTENCES = "The quick brown fox jumps. Then it sleeps, quietly!"
"""Two sentences, with a comma and an exclamation: sherpa-onnx runs each on its own (``max_num_sentences`` 1, its
default), as our engine does, and joins them with no silence between (ours: ``sentence_silence`` 0)."""


@dataclass
class Heard:
    """What sherpa-onnx said: its samples, rate, speaker count, and the token ids of each sentence (its log)."""

    samples: np.ndarray
    sample_rate: int
    num_speakers: int
    ids: list[list[int]]


def _sherpa(model: Path, tokens: Path, sentences: list[list[str]], sid: int, work: Path) -> Heard:
    """sherpa-onnx speaks ``sentences`` (phonemes, as code points) with the bundle's model and tokens."""
    request, out = work / f"request-{sid}.json", work / f"heard-{sid}.npz"
    codepoints = [[ord(c) for phoneme in sentence for c in phoneme] for sentence in sentences]
    request.write_text(json.dumps({"sentences": codepoints, "sid": sid}), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, str(SPEAK), str(model), str(tokens), str(request), str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    ids = [json.loads(found) for found in re.findall(r"token IDs: (\[[\d, ]*\])", done.stderr)]
    with np.load(out) as heard:
        return Heard(heard["samples"], int(heard["sample_rate"]), int(heard["num_speakers"]), ids)


def _ours(engine, text: str, speaker: str | None = None) -> np.ndarray:
    """Our engine's audio of ``text`` at noise 0."""
    options = SynthesisOptions(speaker, noise_scale=0.0, noise_w=0.0)
    return np.concatenate([chunk.audio for chunk in engine.synthesize(text, options)])


def _assert_same_speech(heard: np.ndarray, ours: np.ndarray, hop_length: int) -> None:
    """The same length within one frame (``hop_length`` samples) and SNR >= 30 dB over the common length."""
    assert abs(len(heard) - len(ours)) <= hop_length, (len(heard), len(ours))
    n = min(len(heard), len(ours))
    assert snr_db(ours[:n], heard[:n]) >= 30.0


def _graph_bytes(path: Path) -> bytes:
    """The ONNX model at ``path`` serialized without its ``metadata_props``."""
    import onnx

    model = onnx.load(str(path))
    del model.metadata_props[:]
    return model.SerializeToString()


def _metadata(path: Path) -> dict[str, str]:
    import onnx

    return {p.key: p.value for p in onnx.load(str(path)).metadata_props}


def _symbols(tokens: Path) -> list[str]:
    """The symbols of a ``tokens.txt``, as sherpa-onnx reads them (a line of one field is the space)."""
    return [line.rsplit(" ", 1)[0] or " " for line in tokens.read_text(encoding="utf-8").splitlines()]


def test_joe_bundled_as_it_is_speaks_as_our_engine(tmp_path, joe, engine, capsys):
    """``export joe --sherpa-onnx DIR``: joe's graph unchanged with sherpa-onnx's metadata, tokens.txt and the espeak-ng
    data; sherpa-onnx turns our phonemes into our ids, and its audio is ours (length within a frame, SNR >= 30 dB).
    joe's inference settings are sherpa-onnx's defaults: no option to give it is said."""
    from studio.cli import main

    bundle = tmp_path / "vits-piper-en_US-joe-medium"
    assert main(["export", "joe", "--sherpa-onnx", str(bundle)]) == 0
    assert "sherpa-onnx does not read" not in capsys.readouterr().err
    model = bundle / joe.model_path.name
    assert _graph_bytes(model) == _graph_bytes(joe.model_path)
    assert _metadata(model) == {
        "model_type": "vits",
        "comment": "piper",
        "language": "English",
        "voice": "en-us",
        "has_espeak": "1",
        "n_speakers": "1",
        "sample_rate": "22050",
    }
    assert (bundle / "espeak-ng-data" / "phontab").is_file() and (bundle / "espeak-ng-data" / "en_dict").is_file()
    assert json.loads((bundle / f"{model.name}.json").read_text(encoding="utf-8"))["espeak"]["voice"] == "en-us"
    phonemizer = Phonemizer(joe.config)
    sentences = phonemizer.phonemize(SENTENCES)
    assert len(sentences) == 2
    heard = _sherpa(model, bundle / "tokens.txt", sentences, 0, tmp_path)
    assert (heard.sample_rate, heard.num_speakers) == (22050, 1)
    assert heard.ids == [phonemizer.to_ids(sentence) for sentence in sentences]  # Piper's ^ _ p1 _ p2 _ ... $
    _assert_same_speech(heard.samples, _ours(engine, SENTENCES), joe.config.hop_length)


def test_a_multi_speaker_bundle_says_each_speaker_as_our_engine(tmp_path, trio_voice):
    """A 3-speaker voice's bundle has n_speakers 3; sherpa-onnx says speakers 0 and 1 as our engine does, and
    differently from each other; tokens.txt leaves out the map's multi-code-point symbols (sherpa-onnx would stop)."""
    from engines.onnx.engine import OnnxEngine
    from engines.voice import load_voice
    from trainer.checkpoints.sherpa_bundle import write_bundle

    bundle = write_bundle(trio_voice, tmp_path / "trio")
    assert _metadata(bundle.model)["n_speakers"] == "3"
    config = load_voice(trio_voice).config
    symbols = _symbols(bundle.tokens)
    assert "aɪ" in config.phoneme_id_map and "aɪ" not in symbols
    assert all(len(symbol) == 1 for symbol in symbols) and " " in symbols
    sentences = Phonemizer(config).phonemize(LINE)
    engine = OnnxEngine.from_path(bundle.model)
    first, second = (_sherpa(bundle.model, bundle.tokens, sentences, sid, tmp_path) for sid in (0, 1))
    assert first.num_speakers == 3
    _assert_same_speech(first.samples, _ours(engine, LINE, "ana"), config.hop_length)
    _assert_same_speech(second.samples, _ours(engine, LINE, "ben"), config.hop_length)
    n = min(len(first.samples), len(second.samples))
    assert len(first.samples) != len(second.samples) or snr_db(first.samples[:n], second.samples[:n]) < 20.0


def test_a_checkpoint_bundles_the_graph_export_writes(tmp_path, make_tiny_checkpoint):
    """``export CKPT -o V.onnx --sherpa-onnx DIR``: the bundle's graph is V.onnx's; without ``-o`` the bundle is
    ``DIR/DIR.onnx`` with the same graph, and sherpa-onnx speaks it as our engine."""
    pytest.importorskip("torch")
    from engines.onnx.engine import OnnxEngine
    from studio.cli import main

    ckpt = make_tiny_checkpoint(tmp_path / "tiny.ckpt")
    assert main(["export", str(ckpt), "-o", str(tmp_path / "tiny.onnx"), "--sherpa-onnx", str(tmp_path / "with")]) == 0
    assert _graph_bytes(tmp_path / "with" / "tiny.onnx") == _graph_bytes(tmp_path / "tiny.onnx")
    assert main(["export", str(ckpt), "--sherpa-onnx", str(tmp_path / "alone")]) == 0
    model = tmp_path / "alone" / "alone.onnx"
    assert _graph_bytes(model) == _graph_bytes(tmp_path / "tiny.onnx")
    assert _metadata(model)["sample_rate"] == "16000" and not list((tmp_path / "alone").glob(".*"))
    engine = OnnxEngine.from_path(model)
    sentences = Phonemizer(engine.voice.config).phonemize(LINE)
    heard = _sherpa(model, tmp_path / "alone" / "tokens.txt", sentences, 0, tmp_path)
    _assert_same_speech(heard.samples, _ours(engine, LINE), engine.voice.config.hop_length)


def test_a_run_folder_bundles_its_recommended_checkpoint(tmp_path, make_tiny_checkpoint):
    """``export RUN --sherpa-onnx DIR`` says which checkpoint it takes, as ``-o`` does, and bundles it; a fine-tune's
    noise_scale, which sherpa-onnx takes only from its own options, is said as the option to give it (piper-tts reads
    it from the bundle's config)."""
    pytest.importorskip("torch")
    from trainer.evaluate.choice import run_choice

    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint, noise_scale=0.333)
    done = subprocess.run(
        [sys.executable, "-m", "studio", "export", str(run), "--sherpa-onnx", str(tmp_path / "tune-sherpa")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == f"Exporting {run_choice(run).why}."
    assert _metadata(tmp_path / "tune-sherpa" / "tune-sherpa.onnx")["comment"] == "piper"
    said = "note: sherpa-onnx does not read the voice's inference settings: give it --vits-noise-scale=0.333"
    assert done.stderr.splitlines()[-1] == said
    from piper import PiperVoice

    assert PiperVoice.load(tmp_path / "tune-sherpa" / "tune-sherpa.onnx").config.noise_scale == 0.333  # as piper reads


def _run(folder: Path, make_checkpoint, noise_scale: float | None = None) -> Path:
    """A finished run of two tiny checkpoints ranked by val_mel (as ``tests/test_export_choice.py`` makes one); with
    ``noise_scale``, its ``config.json`` says it, as a fine-tune's does (``TrainingConfig.voice_noise_scale``)."""
    from trainer.events import schema as events
    from trainer.run.document import TRAINING_FILE, RunDocument
    from trainer.run.options import RunOptions

    (folder / "checkpoints").mkdir(parents=True)
    names = [f"best-epoch={epoch:04d}-val_mel={value:.4f}.ckpt" for epoch, value in ((0, 0.9), (1, 0.7))]
    for seed, name in enumerate(names):
        make_checkpoint(folder / "checkpoints" / name, seed=seed)
    ranking = [[0.7, names[1]], [0.9, names[0]]]
    (folder / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": ranking}))
    options = RunOptions(dataset=folder / "data", out=folder, start="joe", preset="test", epochs=2)
    document = RunDocument(options=options, cache=folder / "cache", config={"epochs": 2, "batch_size": None})
    (folder / TRAINING_FILE).write_text(json.dumps(document.to_json()))
    finish = events.Finish(epochs=2, seconds=4.5, setup_s=1.0, status="done")
    (folder / "events.jsonl").write_text(json.dumps(finish.to_record()) + "\n")
    if noise_scale is not None:  # Piper's default phoneme map (256 symbols), the checkpoints' rate
        from engines.registry import default_voice

        voice = json.loads(default_voice().model_path.with_suffix(".onnx.json").read_text(encoding="utf-8"))
        voice["audio"]["sample_rate"], voice["inference"]["noise_scale"] = 16000, noise_scale
        (folder / "config.json").write_text(json.dumps(voice))
    return folder


def test_a_bundle_folder_that_cannot_be_written_is_one_line(tmp_path, capsys):
    """A file, a folder in a missing one, or one that cannot be written: one line naming it, exit 2, before any
    export (``-o`` is not written either)."""
    from studio.cli import main

    file = tmp_path / "file"
    file.write_text("x", encoding="utf-8")
    unwritable = Path("/sys/voice-studio-bundle")  # sysfs takes no new folders, whoever asks (root included)
    cases = {
        file: f"{file}: is a file; give a folder for the sherpa-onnx bundle",
        tmp_path / "no" / "dir": f"{tmp_path / 'no' / 'dir'}: folder {tmp_path / 'no'} does not exist",
    }
    if sys.platform.startswith("linux"):
        cases[unwritable] = f"{unwritable}: cannot write the sherpa-onnx bundle there: "
    for folder, said in cases.items():
        assert main(["export", "joe", "-o", str(tmp_path / "v.onnx"), "--sherpa-onnx", str(folder)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"voice-studio: error: {said}") and err.count("\n") == 1, err
        assert not (tmp_path / "v.onnx").exists()
    assert main(["export", "joe"]) == 2
    said = "export: give -o FOLDER (or NAME.onnx), --sherpa-onnx DIR, or both"
    assert capsys.readouterr().err == f"voice-studio: error: {said}\n"


def test_a_voice_sherpa_onnx_cannot_read_is_named(tmp_path, joe, capsys):
    """A phoneme with two ids, or phonemes other than espeak-ng's: one line naming the config and field, and no
    bundle."""
    from studio.cli import main

    raw = json.loads(joe.config.path.read_text(encoding="utf-8"))
    two_ids = {**raw, "phoneme_id_map": {**raw["phoneme_id_map"], "a": [14, 0]}}
    text = {**raw, "phoneme_type": "text"}
    for name, document, said in (
        ("two-ids.json", two_ids, "phoneme_id_map gives 'a' 2 ids; sherpa-onnx reads one id per phoneme"),
        ("text.json", text, "phoneme_type is 'text'; sherpa-onnx speaks Piper voices with espeak-ng phonemes"),
    ):
        config = tmp_path / name
        config.write_text(json.dumps(document), encoding="utf-8")
        bundle = tmp_path / name.removesuffix(".json")
        assert main(["export", "joe", "--config", str(config), "--sherpa-onnx", str(bundle)]) == 2
        assert capsys.readouterr().err == f"voice-studio: error: {config}: {said}\n"
        assert not bundle.exists()


def test_bundling_an_onnx_voice_needs_no_torch(tmp_path, joe):
    """An ``.onnx`` voice is bundled as it is: the command imports no torch (an ONNX-only install can do it)."""
    code = (
        "import sys; from studio.cli import main; "
        f"rc = main(['export', {str(joe.model_path)!r}, '--sherpa-onnx', {str(tmp_path / 'b')!r}]); "
        "print(rc, sorted(m for m in sys.modules if m.split('.')[0] in ('torch', 'lightning')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.stdout.split("\n")[0] == "0 []", done.stderr
    assert (tmp_path / "b" / joe.model_path.name).is_file()


def test_the_train_pages_menu_bundles_the_run_for_sherpa_onnx(qtbot, monkeypatch, tmp_path, make_tiny_checkpoint):
    """The Export button's "Export for sherpa-onnx (Android)…" asks for a folder and writes ``RUN-sherpa-onnx`` in
    it, saying where."""
    pytest.importorskip("torch")
    from PySide6.QtWidgets import QFileDialog

    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace

    run = _run(tmp_path / "runs" / "tune", make_tiny_checkpoint, noise_scale=0.333)
    page = TrainPage(Workspace(runs_dir=run.parent, voices_dir=tmp_path / "voices"), VoiceLibrary())
    qtbot.addWidget(page)
    page.tabs.setCurrentIndex(1)
    page.runs.table.selectRow(0)
    (tmp_path / "phone").mkdir()
    monkeypatch.setattr(QFileDialog, "getExistingDirectory", lambda *a, **k: str(tmp_path / "phone"))
    page.sherpa_action.trigger()
    qtbot.waitUntil(lambda: page.status.text().startswith("Wrote the sherpa-onnx bundle"), timeout=60_000)
    bundle = tmp_path / "phone" / "tune-sherpa-onnx"
    assert page.status.text().startswith(f"Wrote the sherpa-onnx bundle {bundle} ")
    assert page.status.text().endswith(" give it --vits-noise-scale=0.333.")
    assert _metadata(bundle / "tune.onnx")["comment"] == "piper" and (bundle / "tokens.txt").is_file()
