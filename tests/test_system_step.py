"""The training step scores each audio once per step and still trains exactly as four discriminator forwards do.

The reference (``tests/four_forwards.py``) is the step as Piper and HiFi-GAN write it; ours must leave every
weight and both optimizers' states as it does.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
L = pytest.importorskip("lightning")

from four_forwards import FourForwards, TwoFakeForwards  # noqa: E402

from trainer.data.datamodule import Batch  # noqa: E402
from trainer.gan.system import VitsSystem  # noqa: E402
from trainer.run.presets import preset  # noqa: E402


def _batches(count: int, num_symbols: int = 40) -> list[Batch]:
    """``count`` random two-utterance batches of different lengths (seeded)."""
    config = preset("test", num_symbols=num_symbols)
    hop, bins = config.hop_length, config.n_fft // 2 + 1
    generator = torch.Generator().manual_seed(3)
    batches = []
    for i in range(count):
        frames = torch.tensor([60 + 7 * i, 44])
        phonemes = torch.tensor([17 + i, 12])
        spec = torch.rand(2, bins, int(frames.max()), generator=generator)
        audio = (torch.rand(2, 1, int(frames.max()) * hop, generator=generator) - 0.5) * 0.6
        ids = torch.randint(1, num_symbols, (2, int(phonemes.max())), generator=generator)
        for b in range(2):
            spec[b, :, frames[b] :] = 0
            audio[b, :, frames[b] * hop :] = 0
            ids[b, phonemes[b] :] = 0
        batches.append(Batch(ids, phonemes, spec, frames, audio, frames * hop, None))
    return batches


def _recording(system_class):
    """``system_class`` that keeps each backward's gradients (before clipping and the optimizer step)."""

    class Recording(system_class):
        def _clip(self, module):
            prefix = "model_g." if module is self.model_g else "model_d."
            grads = {prefix + n: p.grad.clone() for n, p in module.named_parameters() if p.grad is not None}
            self.recorded.append(grads)
            super()._clip(module)

    return Recording


def _train(system_class, steps: int = 1, warmup: int = 0, **settings):
    """A fresh seeded ``system_class`` (the ``test`` preset with ``settings``) after ``steps`` steps (the first
    ``warmup`` train the discriminators alone), with the gradients of each backward in ``recorded``."""
    torch.manual_seed(0)
    system = _recording(system_class)(preset("test", num_symbols=40, **settings).to_dict())
    system.recorded = []
    system.d_warmup.arm(warmup)  # a cap of `warmup` steps: the test preset's criterion needs more (min 2)
    return fit_steps(system, steps)


def fit_steps(system, steps: int, *, epochs: int = 1, resume=None):
    """``system`` after real Lightning epochs (up to ``epochs``, resumed from checkpoint ``resume`` where given) of
    ``steps`` of :func:`_batches` each on the CPU (no validation)."""
    trainer = L.Trainer(
        max_epochs=epochs,
        accelerator="cpu",
        limit_val_batches=0,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    loader = torch.utils.data.DataLoader(_batches(steps), batch_size=None, collate_fn=lambda b: b)
    trainer.fit(system, train_dataloaders=loader, ckpt_path=resume)
    return system


def _assert_same_gradients(ours, reference):
    """Every backward gave every parameter the same gradient (to float32 rounding: the sums run in another
    order), and no gradient more or less."""
    assert len(ours.recorded) == len(reference.recorded)
    for grads, ref_grads in zip(ours.recorded, reference.recorded, strict=True):
        assert sorted(grads) == sorted(ref_grads)
        for name, grad in grads.items():
            scale = float(ref_grads[name].abs().max())
            torch.testing.assert_close(grad, ref_grads[name], rtol=1e-4, atol=1e-6 * scale, msg=name)


@pytest.fixture(scope="module")
def reference():
    """One step of the four-forward reference."""
    return _train(FourForwards)


def test_one_forward_per_audio_gives_the_gradients_of_four_forwards(reference):
    """In one process (the real and the generated audio scored once each): the generator's and the
    discriminators' gradients are the reference's."""
    ours = _train(VitsSystem)
    assert [sorted(g)[0].split(".")[0] for g in ours.recorded] == ["model_g", "model_d"]
    _assert_same_gradients(ours, reference)


def test_with_the_resolution_discriminators_too():
    """With the three resolution discriminators beside Piper's six, one forward per audio still trains as four
    do, and the resolution discriminators get gradients of their own."""
    ours = _train(VitsSystem, resolution_discriminator=True)
    _assert_same_gradients(ours, _train(FourForwards, resolution_discriminator=True))
    assert len(ours.model_d.discriminators) == 9
    discriminator_grads = ours.recorded[1]
    assert any(name.startswith("model_d.discriminators.8.") for name in discriminator_grads)


def test_the_ddp_way_gives_the_gradients_of_four_forwards(reference):
    """The DDP way (the real audio once, the generated twice) gives them too."""
    _assert_same_gradients(_train(TwoFakeForwards), reference)


def test_the_comparison_sees_a_gradient_leak(reference):
    """The comparison can fail: letting the generator's losses reach the discriminators' gradients (no
    ``inputs=``) is caught."""

    class Leaky(VitsSystem):
        def _learn(self, module, optimizer, loss, **backward):
            if module is self.model_g:
                backward.pop("inputs", None)
            super()._learn(module, optimizer, loss, **backward)

    with pytest.raises(AssertionError, match="model_d"):
        _assert_same_gradients(_train(Leaky), reference)


def test_warm_up_steps_train_the_discriminators_alone():
    """During the discriminator warm-up only the discriminators get gradients, the reference's; after it both."""
    ours, ref = _train(VitsSystem, steps=2, warmup=1), _train(FourForwards, steps=2, warmup=1)
    assert [sorted(g)[0].split(".")[0] for g in ours.recorded] == ["model_d", "model_g", "model_d"]
    _assert_same_gradients(ours, ref)
    assert (int(ours.d_warmup.left), int(ours.d_warmup.done)) == (0, 1)
