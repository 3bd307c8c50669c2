"""Piper checkpoints: written by piper-tts's own trainer code, legacy ones, and hostile or broken files."""

from __future__ import annotations

import pathlib

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from engines.audio import snr_db  # noqa: E402
from engines.base import VoiceError  # noqa: E402
from engines.torch.vits.checkpoint import load_generator, read_checkpoint  # noqa: E402

TINY = dict(hidden_channels=32, inter_channels=32, filter_channels=64, n_layers=2, upsample_initial_channel=32)


def _piper_checkpoint(path: pathlib.Path, num_speakers: int = 1):
    """A checkpoint saved through Lightning from piper-tts's VitsModel (random weights)."""
    import lightning
    from piper.train.vits.lightning import VitsModel

    torch.manual_seed(3)
    model = VitsModel(num_symbols=64, num_speakers=num_speakers, mos_metric=None, **TINY)
    with torch.no_grad():  # perturb zero-initialised layers so every part matters
        for p in model.model_g.parameters():
            p.add_(torch.randn_like(p) * 0.02)
    trainer = lightning.Trainer(
        accelerator="cpu",
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.strategy.connect(model)
    trainer.save_checkpoint(path)
    return model


@pytest.fixture(scope="module")
def piper_ckpt(tmp_path_factory):
    path = tmp_path_factory.mktemp("ckpt") / "piper tiny.ckpt"
    return path, _piper_checkpoint(path)


def test_piper_trainer_checkpoint_loads_strictly_with_the_same_audio(piper_ckpt):
    """A piper-tts checkpoint loads (weights_only) into ours and gives the same audio: SNR >= 60 dB."""
    path, reference = piper_ckpt
    model, checkpoint = load_generator(path)
    assert checkpoint.config.hidden_channels == 32 and checkpoint.sample_rate == 22050
    assert set(model.state_dict()) == set(reference.model_g.state_dict())
    assert checkpoint.discriminator  # kept for fine-tuning
    x = torch.randint(1, 64, (1, 25))
    lengths = torch.tensor([25])
    with torch.no_grad():
        expected = reference.model_g.eval().infer(x, lengths, noise_scale=0.0, noise_scale_w=0.0)[0]
        got = model.infer(x, lengths, (0.0, 1.0, 0.0))
    assert snr_db(expected.numpy().ravel(), got.numpy().ravel()) >= 60.0


def test_legacy_checkpoint_with_paths_and_unknown_keys_loads(piper_ckpt, tmp_path):
    """Old-style hyperparameters (pathlib values, string tuples, an unknown key) load; the unknown key is noted."""
    path, _ = piper_ckpt
    raw = torch.load(path, map_location="cpu", weights_only=True)
    hparams = dict(raw["hyper_parameters"])
    hparams["dataset"] = [pathlib.PurePosixPath("/data/ljspeech/dataset.jsonl")]
    hparams["upsample_rates"] = "(8, 8, 4)"
    hparams["some_future_option"] = 42
    legacy = {"state_dict": raw["state_dict"], "hyper_parameters": hparams, "epoch": 7}
    legacy_path = tmp_path / "legacy.ckpt"
    torch.save(legacy, legacy_path)
    model, checkpoint = load_generator(legacy_path)
    assert "some_future_option" in checkpoint.ignored
    assert checkpoint.config.upsample_rates == (8, 8, 4)


class _Exploit:
    def __reduce__(self):
        import os

        return (os.system, (f"touch {_Exploit.marker}",))


def test_pickle_that_runs_code_is_refused(tmp_path):
    """A checkpoint whose pickle would call os.system is refused and nothing runs."""
    _Exploit.marker = tmp_path / "pwned"
    path = tmp_path / "evil.ckpt"
    torch.save({"state_dict": {}, "payload": _Exploit()}, path)
    with pytest.raises(VoiceError, match="refused"):
        read_checkpoint(path)
    assert not _Exploit.marker.exists()


def test_truncated_checkpoint_is_a_clear_error(piper_ckpt, tmp_path):
    """Half a checkpoint file (what say, compare and export read through): an error naming the file as damaged, how
    (cut short, at what size) and the way on, not a traceback from deep inside torch."""
    path, _ = piper_ckpt
    cut = tmp_path / "cut.ckpt"
    data = path.read_bytes()
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(VoiceError, match="cannot read the checkpoint") as err:
        read_checkpoint(cut)
    assert err.value.path == cut
    assert f"damaged, cut short at {len(data) // 2:,} bytes" in str(err.value) and "copy it again" in str(err.value)


@pytest.mark.parametrize(
    "content", [b"junk", bytes(range(256)) * 3, b"PK\x03\x04 not really a zip", b"hello world " * 100]
)
def test_junk_named_ckpt_is_a_clear_error(tmp_path, content):
    """Bytes that are no torch file at all (torch's legacy loader raises odd errors on them) are named as such."""
    path = tmp_path / "junk.ckpt"
    path.write_bytes(content)
    with pytest.raises(VoiceError, match="cannot read the checkpoint") as err:
        read_checkpoint(path)
    assert err.value.path == path
    ending = str(err.value).split("(truncated or not a torch file)")[1]
    assert ending in ("", ": its pickle is not one torch writes"), ending  # not the loader's "101"


def test_num_symbols_disagreeing_with_weights_is_named(piper_ckpt, tmp_path):
    """hyper_parameters.num_symbols that does not match the embedding is reported by field."""
    path, _ = piper_ckpt
    raw = torch.load(path, map_location="cpu", weights_only=True)
    raw["hyper_parameters"] = {**raw["hyper_parameters"], "num_symbols": 100}
    bad = tmp_path / "bad.ckpt"
    torch.save(raw, bad)
    with pytest.raises(VoiceError) as err:
        read_checkpoint(bad)
    assert err.value.field == "num_symbols"


def test_not_a_checkpoint_is_refused(tmp_path):
    """A torch file without a generator is refused with the reason."""
    path = tmp_path / "weights.ckpt"
    torch.save({"state_dict": {"encoder.weight": torch.zeros(2)}}, path)
    with pytest.raises(VoiceError, match="no Piper generator"):
        read_checkpoint(path)
