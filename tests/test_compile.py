"""``--compile``: which parts are compiled, that compiling changes neither weights' names nor numbers, and that the
choice is kept in ``training.json`` and may change on a resume."""

from __future__ import annotations

import json

import pytest
from conftest import whole_last_ckpt

torch = pytest.importorskip("torch")

from trainer.gan.compile import LOSSES, compile_parts, wanted  # noqa: E402


@pytest.mark.parametrize(
    ("choice", "accelerator", "expected"),
    [("auto", "gpu", True), ("auto", "cpu", False), ("on", "cpu", True), ("off", "gpu", False)],
)
def test_auto_compiles_on_cuda_only(choice, accelerator, expected):
    """auto: on CUDA only; on and off as they say."""
    assert wanted(choice, accelerator) is expected


def test_an_unknown_choice_is_refused():
    """A value outside auto/on/off names the flag and the choices."""
    with pytest.raises(ValueError, match="--compile 'fast'.*auto, on, off"):
        wanted("fast", "cpu")


def _system():
    from trainer.gan.system import VitsSystem
    from trainer.run.presets import preset

    torch.manual_seed(0)
    return VitsSystem(preset("test", num_symbols=40).to_dict())


def test_compiled_parts_keep_their_state_dict_and_numbers():
    """Compiled in place (eager backend: the wiring only): same keys, same decoder and discriminator outputs,
    same GAN losses; the encoders stay eager."""
    system = _system()
    keys = list(system.state_dict())
    z = torch.randn(2, system.config.model.inter_channels, system.config.segment_frames)
    audio = torch.randn(2, 1, system.config.model.segment_size)
    with torch.no_grad():
        before = system.model_g.dec(z), system.model_d(audio)
    assert compile_parts(system, backend="eager") == ["decoder", "discriminators", "losses"]
    assert list(system.state_dict()) == keys
    assert system.model_g.dec._compiled_call_impl is not None and system.model_d._compiled_call_impl is not None
    assert system.model_g.enc_p._compiled_call_impl is None
    with torch.no_grad():
        after = system.model_g.dec(z), system.model_d(audio)
    torch.testing.assert_close(after[0], before[0])
    for (logits_a, maps_a), (logits_b, maps_b) in zip(after[1], before[1], strict=True):
        torch.testing.assert_close(logits_a, logits_b)
        for a, b in zip(maps_a, maps_b, strict=True):
            torch.testing.assert_close(a, b)
    _check_losses(system.losses, [logits for logits, _ in after[1]], [maps for _, maps in after[1]])


def _check_losses(compiled, logits, maps):
    from trainer.gan import losses

    assert sorted(vars(compiled)) == sorted(LOSSES)
    fake = [t * 0.5 for t in logits]
    torch.testing.assert_close(compiled.generator_loss(fake), losses.generator_loss(fake))
    torch.testing.assert_close(compiled.discriminator_loss(logits, fake), losses.discriminator_loss(logits, fake))
    half = [[m * 0.5 for m in layer] for layer in maps]
    torch.testing.assert_close(compiled.feature_loss(maps, half), losses.feature_loss(maps, half))


def _run_document(tmp_path, **options):
    from trainer.run.document import RunDocument, read_run, write_run
    from trainer.run.options import RunOptions
    from trainer.run.presets import preset

    run = tmp_path / "run"
    run.mkdir(parents=True)
    chosen = RunOptions(dataset=tmp_path / "data", out=run, preset="test", epochs=2, **options)
    document = RunDocument(options=chosen, cache=tmp_path / "cache", config=preset("test").to_dict(), conversions=[])
    write_run(document)
    return run, read_run(run)


def test_training_json_keeps_a_chosen_compile_and_omits_the_default(tmp_path):
    """auto writes the file as it always was (no key); off is written and read back."""
    run, document = _run_document(tmp_path)
    assert "compile" not in json.loads((run / "training.json").read_text())
    assert document.options.compile == "auto"
    run2, document2 = _run_document(tmp_path / "b", compile="off")
    assert json.loads((run2 / "training.json").read_text())["compile"] == "off"
    assert document2.options.compile == "off"


def test_a_resume_may_change_compile_and_says_so(tmp_path, make_tiny_checkpoint):
    """--compile on a resume is applied to training.json and said, not dropped."""
    from trainer.run.document import read_run
    from trainer.run.resume import resume_settings

    run, _ = _run_document(tmp_path)
    whole_last_ckpt(run, make_tiny_checkpoint)  # a damaged or foreign one is refused first
    assert resume_settings(run, {}, compile="off") == ["resuming with --compile off (was auto)"]
    assert read_run(run).options.compile == "off"


def test_the_train_command_takes_compile():
    """``voice-studio train --compile off`` parses into RunOptions; a wrong value is argparse's error."""
    import argparse

    from trainer.run.options import RunOptions, add_arguments

    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args = parser.parse_args(["--dataset", "d", "--out", "o", "--compile", "off"])
    options = RunOptions.from_args(args)
    assert options.compile == "off" and options.to_argv()[-2:] == ["--compile", "off"]
    with pytest.raises(SystemExit):
        parser.parse_args(["--dataset", "d", "--out", "o", "--compile", "fast"])


def test_a_compile_failure_is_told_apart_from_other_errors():
    """An error raised by dynamo or inductor (or caused by one) is a compile failure; others are not."""
    from trainer.run.train import _compile_failed

    inductor_error = type("InductorError", (RuntimeError,), {"__module__": "torch._inductor.exc"})
    assert _compile_failed(inductor_error("no working C++ compiler"))
    try:
        try:
            raise inductor_error("no working C++ compiler")
        except RuntimeError as inner:
            raise RuntimeError("in the first training step") from inner
    except RuntimeError as outer:
        assert _compile_failed(outer)
    assert not _compile_failed(ValueError("a bad clip"))
