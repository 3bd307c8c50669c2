"""Self-consistency of fine-tuning, small: joe fine-tuned on joe's own renders should stay joe (issue 28).

The small version of ``tests/bench/self_consistency.py``: joe renders 16 lines of the target-voice transcripts
for training and 4 held out (``tests/bench/self_consistency_parts.py``), a run fine-tunes joe on them for 2
epochs (the ``test`` preset: joe's own generator, the preset's narrow discriminators; a reduced recovery
budget), and one trained run serves the checks. With the recovery that fitted ``enc_q`` by the NLL of ``z`` alone
the first epoch's KL was 684 per frame here (val KL 318; about 39 on 150 lines with the full budget, issue 28);
with the training objective's fit (``trainer.start.recovery``) it is 52 here and 10.7 on 60 held-out lines with the
full budget (docs/benchmarks.md, "Fine-tuning that keeps the voice").
"""

from __future__ import annotations

import pytest
from bench import self_consistency_parts as parts  # tests/bench, beside this file (no package: a namespace)
from conftest import shared_path

LINES, HELD_OUT, EPOCHS, BATCH_SIZE = 16, 4, 2, 4
"""The small run: 15 of 16 lines train (the run holds one out for val_mel), 4 steps an epoch (the first
two train the discriminators alone: the test preset's warm-up), 2 epochs."""
RECOVERY = (("recovery_lines", 8), ("recovery_steps", 24), ("recovery_fit_steps", 16))
"""The recovery's budget, cut to fit the test's time (the default: 300 lines, 300 + 60 steps): 8 lines spoken, 2
of them held out for its report, 24 warm-start steps (4 passes) and 16 steps of the training objective."""
KL_BOUND = 80.0
"""Highest first-epoch train KL (per frame, summed over the 192 latent channels, ``trainer.gan.losses.kl_loss``)
accepted with the test's budget: 52 measured (2026-12-02), against 684 when the recovery fitted ``enc_q`` by the
NLL of ``z`` alone. With the full budget the recovery reaches 10.7 on joe's own held-out lines; what remains is
real information in a few channels and the posterior's inexact reading of the prior's mean in the others."""
AGREEMENT = 0.25
"""How far (relative) the first epoch's KL may be from the KL the recovery reported on its held-out lines: the run
starts where the recovery said (the first epoch is all discriminator warm-up here: the generator does not move)."""
F0_TOLERANCE_HZ = 3.0
"""Largest change of the held-out F0 gap between the start and the last checkpoint, Hz: the bench's target, kept
for 4 lines since joe's own gap on them moves about 1 Hz between noise seeds (+0.2 to +1.1 Hz, seeds 0-2)."""


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """joe, its renders of the held-out lines, and a finished run fine-tuned from joe on joe's renders."""
    shared_path("corpus", "target-voice")  # skips (fails under CI=true) without ../shared
    work = tmp_path_factory.mktemp("self-consistency")
    recipe = parts.Recipe(
        voice=parts.start_voice_path("joe"),
        lines=LINES,
        held_out=HELD_OUT,
        epochs=EPOCHS,
        batch_size=BATCH_SIZE,
        precision="32-true",
        device="cpu",
        preset="test",
        config=RECOVERY,
        no_recovery_cache=True,
    )
    texts, _ = parts.corpus_texts()
    held = parts.render_dataset(recipe, texts, work / "source", work / "render-cache")
    project = parts.make_project(work / "source", work / "project", recipe.voice, held)
    return recipe, parts.train(recipe, project.folder, work / "run"), held, work


def test_first_epoch_kl_is_far_below_the_nll_recoverys(trained):
    """The first epoch's train KL (joe on joe's own speech, from the first step) is at most KL_BOUND."""
    _, run, _, _ = trained
    first = parts.epoch_losses(run)[0]
    recovery = "; ".join(parts.recovery_report(run))
    assert first.train_kl is not None and first.train_kl <= KL_BOUND, (first, recovery)


def test_the_run_starts_at_the_kl_the_recovery_reported(trained):
    """The recovery's held-out KL (its Recovery event) is the KL the run meets in its first epoch, within AGREEMENT."""
    from trainer.events.log import read_events

    _, run, _, _ = trained
    reported = [
        r.value for r in read_events(run / "events.jsonl") if r.kind == "recovery" and r.metric == "kl_held_out"
    ]
    first = parts.epoch_losses(run)[0]
    assert len(reported) == 1 and first.train_kl is not None
    assert abs(first.train_kl - reported[0]) <= AGREEMENT * reported[0], (first, reported)


def test_last_checkpoint_keeps_the_start_pitch(trained):
    """On the held-out lines, the last checkpoint's F0 gap to joe's renders is within F0_TOLERANCE_HZ of joe's."""
    from trainer.evaluate.render import Candidate, RenderSettings

    recipe, run, held, work = trained
    epochs = parts.epoch_checkpoints(run)
    assert [epoch for epoch, _ in epochs] == list(range(EPOCHS))  # every epoch's checkpoint kept
    start = Candidate(label="start", model_path=recipe.voice)
    last = Candidate(label="last", model_path=epochs[-1][1])
    settings = RenderSettings(noise_scale=recipe.noise_scale, noise_w=recipe.noise_w, seed=0)
    before, after = parts.f0_gaps([start, last], held, settings, work / "score-cache")
    assert abs(after - before) <= F0_TOLERANCE_HZ, (before, after)
