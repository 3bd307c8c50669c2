"""Recovering an ONNX voice's training-only parts from the voice itself."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")


def test_recovered_posterior_reconstructs_the_voice_and_agrees_with_its_prior(joe):
    """After the warm start on lines the voice spoke, enc_q's mean decodes closer to the voice's audio; the fit by
    the training objective then lowers the KL to the prior on a held-out line; frozen parts stay."""
    from engines.phonemes import Phonemizer
    from engines.torch.vits.onnx_import import load_onnx_generator
    from trainer.data.preprocess import training_phoneme_ids
    from trainer.run.presets import TrainingConfig
    from trainer.start.recovery import TRAINABLE, _check, recover, speak

    torch.manual_seed(0)
    model, report = load_onnx_generator(joe.model_path, 1)
    assert {m for m in report.missing_modules()} >= {"enc_q", "dp.flows.1"}
    phonemizer = Phonemizer(joe.config)
    lines = ["The kettle whistled twice.", "Who left the gate open?", "Bring the lantern.", "It rained all night."]
    spoken, steps = [], []
    ids = [training_phoneme_ids(phonemizer, line) for line in lines]
    examples = speak(model, ids, progress=lambda done, total: spoken.append((done, total)))
    assert spoken == [(n, 4) for n in range(4)]
    assert all(e.audio.shape[0] == e.z.shape[-1] * 256 for e in examples)
    frozen = {k: v.clone() for k, v in model.state_dict().items() if not k.startswith(TRAINABLE)}
    before_mel, before_dur = _check(model, examples[:1], 22050)
    config = TrainingConfig()
    warm = recover(
        model, examples, config, warm_steps=40, fit_steps=0, held_out=1, progress=lambda d, t: steps.append((d, t))
    )
    assert steps == [(n, 40) for n in range(41)]  # the last one: the check on held-out lines begins
    assert warm.mel_l1 < before_mel and warm.duration_nll < before_dur
    assert warm.posterior_loss[-1] < warm.posterior_loss[0]
    fitted = recover(model, examples, config, warm_steps=0, fit_steps=6, batch_size=3, held_out=1)
    assert fitted.kl < 0.8 * warm.kl, (warm.kl, fitted.kl)  # the training objective's KL, not the NLL's
    assert len(fitted.objective) == 2
    after = model.state_dict()
    assert all(torch.equal(after[k], v) for k, v in frozen.items())
    assert all(p.requires_grad for p in model.parameters()) and not model.training  # as it was given
