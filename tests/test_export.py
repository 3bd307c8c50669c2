"""Export to Piper ONNX: round trip of the default voice, multi-speaker voices, the CLI."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from engines.audio import snr_db  # noqa: E402
from engines.base import SynthesisOptions  # noqa: E402
from engines.torch.vits import Synthesizer, VitsConfig  # noqa: E402

NOISE_FREE = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
TINY = dict(hidden_channels=32, inter_channels=32, filter_channels=64, n_layers=2, upsample_initial_channel=32)


def _default_id_map() -> dict[str, list[int]]:
    from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP

    return {k: list(v) for k, v in DEFAULT_PHONEME_ID_MAP.items()}


@pytest.fixture(scope="module")
def round_trip(joe, tmp_path_factory):
    """joe -> torch -> our export."""
    from trainer.checkpoints.export import export_voice

    out = tmp_path_factory.mktemp("export") / "joe round trip.onnx"
    export_voice(joe.model_path, out)
    return out


def test_round_trip_equals_the_original(round_trip, engine):
    """The re-exported voice speaks like the original (noise 0): SNR >= 40 dB, and it streams."""
    from engines.onnx.engine import OnnxEngine

    exported = OnnxEngine.from_path(round_trip)
    assert exported.mode == "flow"  # node names kept: our engine can cut it for streaming
    text = "The round trip keeps the voice. Does it?"
    for ours, original in zip(
        _sentences(exported.synthesize(text, NOISE_FREE)), _sentences(engine.synthesize(text, NOISE_FREE)), strict=True
    ):
        assert len(ours) == len(original)
        assert snr_db(original, ours) >= 40.0


def test_round_trip_loads_in_the_torch_engine(round_trip, engine):
    """The re-exported joe loads in the torch engine (it died on dec.resblocks.0.convs.0.weight) and speaks alike."""
    from engines.torch.engine import TorchEngine

    exported = TorchEngine.from_path(round_trip, device="cpu")
    report = exported.import_report  # all but the training-only parts, dp.flows.0.logs included (folded as -logs)
    assert not report.unused and "dp.flows.0.logs" in report.loaded and "dp.flows.0.logs" not in report.missing
    text = "The torch engine reads it too."
    for ours, original in zip(
        _sentences(exported.synthesize(text, NOISE_FREE)), _sentences(engine.synthesize(text, NOISE_FREE)), strict=True
    ):
        assert len(ours) == len(original) and snr_db(original, ours) >= 30.0


def test_round_trip_loads_in_piper_tts(round_trip):
    """piper-tts's PiperVoice loads the export and speaks; it has no sid input (one speaker)."""
    import onnx
    from piper import PiperVoice

    voice = PiperVoice.load(round_trip)
    audio = np.concatenate([c.audio_float_array for c in voice.synthesize("Piper can read this file.")])
    assert len(audio) > 0.5 * voice.config.sample_rate
    assert [i.name for i in onnx.load(str(round_trip)).graph.input] == ["input", "input_lengths", "scales"]
    config = json.loads(round_trip.with_name(round_trip.name + ".json").read_text(encoding="utf-8"))
    assert config["num_symbols"] == 256 and config["audio"]["sample_rate"] == 22050
    assert config["espeak"]["voice"] == "en-us" and config["num_speakers"] == 1


def _sentences(chunks):
    by: dict[int, list] = {}
    for chunk in chunks:
        by.setdefault(chunk.sentence_index, []).append(chunk.audio)
    return [np.concatenate(v) for _, v in sorted(by.items())]


def test_multi_speaker_export_has_sid_and_defaults_to_speaker_0(tmp_path):
    """A tiny 3-speaker model exports with a sid input; no speaker means speaker 0."""
    import onnx

    from engines.onnx.engine import OnnxEngine
    from trainer.checkpoints.export import voice_config, write_voice

    torch.manual_seed(5)
    model = Synthesizer(VitsConfig.preset("low", num_symbols=256, num_speakers=3, **TINY)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    speakers = {"ana": 0, "ben": 1, "cleo": 2}
    path, _ = write_voice(
        model, tmp_path / "trio.onnx", voice_config(model, _default_id_map(), 22050, speaker_id_map=speakers)
    )
    assert [i.name for i in onnx.load(str(path)).graph.input] == ["input", "input_lengths", "scales", "sid"]
    engine = OnnxEngine.from_path(path)
    assert engine.speakers() == ["ana", "ben", "cleo"]
    text = "Three voices."

    def say(speaker):
        return np.concatenate(
            [c.audio for c in engine.synthesize(text, SynthesisOptions(speaker, noise_scale=0, noise_w=0))]
        )

    default, first, third = say(None), say("ana"), say("cleo")
    assert np.array_equal(default, first)
    assert len(third) != len(first) or not np.allclose(third, first)


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", *args], capture_output=True, text=True, timeout=300, env=os.environ.copy()
    )


def test_cli_exports_and_speaks_a_checkpoint(tmp_path, make_tiny_checkpoint):
    """voice-studio export CKPT -o NAME.onnx writes a voice both engines load; say --engine torch speaks the .ckpt."""
    import soundfile

    ckpt = make_tiny_checkpoint(tmp_path / "tiny voice.ckpt")
    out = tmp_path / "tiny.onnx"
    result = _cli("export", str(ckpt), "-o", str(out))
    assert result.returncode == 0, result.stderr
    config = json.loads(out.with_name("tiny.onnx.json").read_text(encoding="utf-8"))
    assert config["audio"]["sample_rate"] == 16000 and config["num_symbols"] == 256
    torch_args = ["--engine", "torch", "--device", "cpu"]
    for n, args in enumerate(
        (["--voice", str(out)], ["--voice", str(ckpt), *torch_args], ["--voice", str(out), *torch_args])
    ):
        wav = tmp_path / f"{n}.wav"
        result = _cli("say", "Hello there.", *args, "-o", str(wav), "--quiet")
        assert result.returncode == 0, result.stderr
        assert soundfile.info(str(wav)).samplerate == 16000
    result = _cli("say", "Hi.", "--voice", str(ckpt), "-o", str(tmp_path / "x.wav"))
    assert result.returncode == 2 and "--engine torch" in result.stderr


def test_export_over_its_own_source_is_refused(tmp_path, make_tiny_checkpoint, capsys):
    """``export V.onnx -o V.onnx`` (by any spelling of the path) leaves the original as it was: one line, exit 2."""
    from studio.cli import main
    from trainer.checkpoints.export import export_voice

    voice, _ = export_voice(make_tiny_checkpoint(tmp_path / "tiny.ckpt"), tmp_path / "v.onnx")
    before = voice.read_bytes()
    (tmp_path / "sub").mkdir()
    for output in (voice, tmp_path / "sub" / ".." / "v.onnx"):
        assert main(["export", str(voice), "-o", str(output)]) == 2
        assert capsys.readouterr().err.strip() == (
            f"voice-studio: error: {output}: is the voice being exported, which stays as it is; "
            "give another output file"
        )
    assert voice.read_bytes() == before


def test_an_export_takes_the_source_lexicon_with_it(tmp_path, make_tiny_checkpoint):
    """A checkpoint's lexicon (``X.ckpt.lexicon.txt``) is written beside the exported voice
    (``V.onnx.lexicon.txt``), so the voice says those words as its source did."""
    from engines.frontend.lexicon import Lexicon, read_lexicon, voice_lexicon_path, write_lexicon
    from trainer.checkpoints.export import export_voice

    checkpoint = make_tiny_checkpoint(tmp_path / "tiny.ckpt")
    write_lexicon(voice_lexicon_path(checkpoint), Lexicon({"Nguyen": "win"}))
    voice, _ = export_voice(checkpoint, tmp_path / "v.onnx")
    assert read_lexicon(voice_lexicon_path(voice)).entries == {"Nguyen": "win"}
