"""The discriminator warm-up lasts until the discriminators are ready (or its cap), over epochs and a resume."""

from __future__ import annotations

import pytest
from conftest import target_voice_slice

torch = pytest.importorskip("torch")
L = pytest.importorskip("lightning")

from trainer.data.datamodule import CacheDataModule  # noqa: E402
from trainer.events.log import EventLog, read_events  # noqa: E402
from trainer.events.schema import WARMUP_STAGE  # noqa: E402
from trainer.gan.d_warmup import WarmupEvents  # noqa: E402
from trainer.gan.system import VitsSystem  # noqa: E402
from trainer.run.presets import preset  # noqa: E402

BATCHES = 3
"""Training batches per epoch (``limit_train_batches``): a warm-up of 8 steps spans three epochs."""


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    """A training cache of 12 target-voice clips at 22,050 Hz (the ``test`` preset's rate)."""
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", 12)
    return create_run(RunOptions(dataset=folder, out=tmp_path_factory.mktemp("runs") / "run", preset="test")) / "cache"


class Watch(L.Callback):
    """Per training step: whether it warmed up (``warming``), whether the generator was still as it began
    (``frozen``), its batch's utterances (``sizes``); per epoch: its logged ``train_d_warmup``."""

    def __init__(self) -> None:
        self.warming: list[bool] = []
        self.sizes: list[int] = []
        self.frozen: list[bool] = []
        self.shares: list[float] = []

    def on_train_start(self, trainer, module) -> None:
        self.start = {k: v.clone() for k, v in module.model_g.state_dict().items()}

    def on_train_batch_start(self, trainer, module, batch, batch_idx) -> None:
        self.warming.append(module.d_warmup.on)
        self.sizes.append(len(batch))

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx) -> None:
        self.frozen.append(all(torch.equal(self.start[k], v) for k, v in module.model_g.state_dict().items()))

    def on_train_epoch_end(self, trainer, module) -> None:
        self.shares.append(float(trainer.callback_metrics.get("train_d_warmup", -1.0)))


def _system(ready: float, cap: int, min_steps: int = 3, share: float = 1.0) -> VitsSystem:
    """A seeded ``test``-preset system with its warm-up armed: at least ``min_steps``, at most ``cap`` and ``share``
    of the fit's steps, ready below ``ready``."""
    config = preset(
        "test",
        d_warmup_min_steps=min_steps,
        d_warmup_max_steps=cap,
        d_warmup_ready_loss=ready,
        d_warmup_max_share=share,
    )
    torch.manual_seed(0)
    system = VitsSystem(config.to_dict())
    system.d_warmup.arm()
    return system


def _fit(system, cache, epochs: int, log=None, ckpt_path=None) -> Watch:
    """``epochs`` epochs (in all, as Lightning counts them on a resume) of ``BATCHES`` steps on the CPU."""
    watch = Watch()
    trainer = L.Trainer(
        max_epochs=epochs,
        limit_train_batches=BATCHES,
        limit_val_batches=0,
        accelerator="cpu",
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
        callbacks=[watch, *([WarmupEvents(log, interval_s=0.0)] if log is not None else [])],
    )
    data = CacheDataModule(cache, 4, system.config.segment_frames)
    trainer.fit(system, datamodule=data, ckpt_path=ckpt_path)
    system.fitted = trainer
    return watch


def _stages(path):
    return [e for e in read_events(path) if e.kind == "stage" and e.name == WARMUP_STAGE]


@pytest.fixture(scope="module")
def capped(cache):
    """A fit of four epochs whose warm-up (at least 3 steps, at most 8) has an unreachable criterion, and its watch."""
    system = _system(ready=0.0, cap=8)
    return system, _fit(system, cache, epochs=4)


def test_the_warm_up_ends_at_its_cap_and_the_generator_stays_frozen_until_then(capped):
    """An unreachable criterion: 8 steps over three epochs train the discriminators alone, the generator unchanged;
    then the generator trains. Each step's smoothed loss is checked (the CPU reads it after every step)."""
    system, watch = capped
    begin, *checks = system.d_warmup.news
    assert (begin.done, begin.cap, begin.loss) == (0, 8, None)
    assert [n.done for n in checks] == list(range(1, 9)) and [n.ended for n in checks][-2:] == [None, "cap"]
    assert watch.warming == [True] * 8 + [False] * 4
    assert watch.frozen == [True] * 8 + [False] * 4
    last = watch.sizes[6:9]  # the third epoch's batches: two warm up, one trains the generator
    assert watch.shares == [1.0, 1.0, pytest.approx(sum(last[:2]) / sum(last)), 0.0]  # of its utterances
    assert (int(system.d_warmup.left), int(system.d_warmup.done)) == (0, 8)
    assert checks[0].loss > 4.0  # fresh discriminators: about 1 each, 6 in all


def test_a_short_run_caps_the_warm_up_at_its_share_of_the_planned_steps(cache):
    """A cap of 8 steps in a fit of 4 epochs of 3 steps with a share of 0.25: the warm-up takes 3 steps (a quarter of
    12), then the generator trains; the news says the cut cap from the start."""
    system = _system(ready=0.0, cap=8, share=0.25)
    watch = _fit(system, cache, epochs=4)
    assert system.d_warmup.news[0].cap == 3 and system.d_warmup.news[-1].ended == "cap"
    assert watch.warming == [True] * 3 + [False] * 9


def test_the_warm_up_ends_when_the_smoothed_loss_falls_below_the_criterion(capped, cache, tmp_path):
    """The same run with a threshold its smoothed loss crosses after the minimum: the warm-up ends at the first
    step from the minimum whose smoothed loss is below it (not at a count), and its stage events say how it went."""
    losses = {n.done: n.loss for n in capped[0].d_warmup.news if n.loss is not None}
    ready = (losses[5] + losses[6]) / 2  # crossed at step 6, if the loss keeps falling
    system = _system(ready=ready, cap=8, min_steps=2)
    log = EventLog(tmp_path / "events.jsonl")
    watch = _fit(system, cache, epochs=4, log=log)
    log.close()
    ended = next(step for step in sorted(losses) if step >= 2 and losses[step] < ready)
    assert 2 < ended < 8 and watch.warming == [True] * ended + [False] * (12 - ended)
    assert watch.frozen == watch.warming
    stages = _stages(tmp_path / "events.jsonl")
    assert (stages[0].step, stages[0].steps) == (0, 8) and "at least 2 steps and at most 8 steps" in stages[0].message
    assert [s.step for s in stages[1:]] == list(range(1, ended + 1))  # interval 0: every check said
    assert (stages[-1].step, stages[-1].steps) == (ended, ended)  # over: its progress complete
    assert "the discriminators tell real from generated audio" in stages[-1].message
    assert f"below {ready:.2f}" in stages[-1].message and "(ready below" in stages[1].message


def test_a_resume_mid_warm_up_goes_on_where_it_was(cache, tmp_path):
    """A checkpoint after 3 of 8 warm-up steps: the resumed fit restores the steps done and the smoothed loss,
    says so, warms up for the 5 steps left (not 8 again), then trains the generator."""
    first = _system(ready=0.0, cap=8, share=10.0)  # its one epoch stands for a run stopped early: no cut
    _fit(first, cache, epochs=1)
    first.fitted.save_checkpoint(tmp_path / "last.ckpt")
    smoothed = first.d_warmup.news[-1].loss
    resumed = _system(ready=0.0, cap=8)
    log = EventLog(tmp_path / "events.jsonl")
    watch = _fit(resumed, cache, epochs=4, log=log, ckpt_path=tmp_path / "last.ckpt")
    log.close()
    assert watch.warming == [True] * 5 + [False] * 4
    assert watch.frozen == watch.warming
    stages = _stages(tmp_path / "events.jsonl")
    assert stages[0].message.startswith(f"discriminator warm-up resumed after 3 steps: smoothed loss {smoothed:.2f}")
    assert stages[-1].step == stages[-1].steps == 8 and "at its cap of 8 steps" in stages[-1].message


def test_an_older_checkpoint_with_its_one_count_loads(cache, tmp_path):
    """A checkpoint written before the warm-up had a criterion: its ``d_warmup_left`` (0: over) becomes the warm-up's
    state, its config's ``d_warmup_steps`` is left out, and the resumed fit trains the generator at once; a count
    left (3) becomes a warm-up of at most 3 steps more."""
    first = _system(ready=0.0, cap=1)
    _fit(first, cache, epochs=1)
    first.fitted.save_checkpoint(tmp_path / "new.ckpt")
    checkpoint = torch.load(tmp_path / "new.ckpt", weights_only=False)
    state = checkpoint["state_dict"]
    assert {"d_warmup.left", "d_warmup.done", "d_warmup.loss"} <= set(state)
    for name in ("left", "done", "loss"):
        del state[f"d_warmup.{name}"]
    state["d_warmup_left"] = torch.tensor(0)
    old = checkpoint["hyper_parameters"]["voice_studio"]
    for name in ("d_warmup_min_steps", "d_warmup_max_steps", "d_warmup_ready_loss"):
        del old[name]
    old["d_warmup_steps"] = 200
    torch.save(checkpoint, tmp_path / "old.ckpt")
    resumed = VitsSystem(old)  # an older run's config still builds a system
    watch = _fit(resumed, cache, epochs=2, ckpt_path=tmp_path / "old.ckpt")
    assert watch.warming == [False] * 3 and watch.frozen == [False] * 3
    with_count = VitsSystem(old)
    with_count.load_state_dict({**state, "d_warmup_left": torch.tensor(3)})
    assert (int(with_count.d_warmup.left), int(with_count.d_warmup.done)) == (3, 0)


def test_a_ckpt_start_warms_up_only_discriminators_it_lacks(tmp_path):
    """A generator-only ``.ckpt`` (ours are, and some Piper ones) arms the warm-up; one with the discriminators
    (a resume checkpoint of ours, Piper's full ones) does not."""
    from trainer.start.points import load_start

    trained = _system(ready=0.0, cap=0)
    full = {"state_dict": trained.state_dict(), "hyper_parameters": dict(trained.hparams)}
    torch.save(full, tmp_path / "full.ckpt")
    generator_only = {k: v for k, v in full["state_dict"].items() if k.startswith("model_g.")}
    torch.save({**full, "state_dict": generator_only}, tmp_path / "generator.ckpt")
    config = preset("test", d_warmup_max_steps=40).to_dict()
    for name, armed in (("full.ckpt", 0), ("generator.ckpt", 40)):
        system = VitsSystem(config)
        notes = load_start(system, tmp_path / name)
        assert int(system.d_warmup.left) == armed, notes


@pytest.mark.gui
def test_the_train_page_says_the_warm_up_beside_the_epochs_steps(tmp_path):
    """While it goes on, the status line leads with the warm-up's step and smoothed loss against its criterion,
    the epoch's step after it; once over, the epoch's step alone. The log keeps its first and last lines, and an
    epoch's sentence says how much of it the generator stood still."""
    from studio.widgets.run_status import following_line
    from trainer.events.run_state import RunState
    from trainer.events.schema import Epoch, Progress, RunStart, Stage
    from trainer.events.words import sentence, worth_a_line
    from trainer.gan.d_warmup import WarmupNews, warmup_message

    def stage(at: float, **news) -> Stage:
        said = WarmupNews(ready_loss=2.7, min_steps=50, **news)
        step = None if said.resumed else said.done
        return Stage(time=at, name=WARMUP_STAGE, message=warmup_message(said), step=step, steps=said.cap)

    t, state = 1_000_000.0, RunState(tmp_path / "tune")
    state.apply(RunStart(time=t, config={}, num_utterances=80, device="cpu", epochs=40, start="joe"))
    begin = stage(t + 1, done=0, cap=1000, loss=None)
    state.apply(begin)
    state.apply(stage(t + 30, done=40, cap=1000, loss=3.1234))
    state.apply(Progress(time=t + 31, epoch=2, step=40, batches=2, items_per_s=2.0, batches_total=19, elapsed_s=4.0))
    assert following_line(state, t + 32) == (
        "Discriminator warm-up: step 40 of at most 1000, smoothed loss 3.12 (ready below 2.70 from step 50)"
        " · Training tune: epoch 3 of 40, step 2 of 19 · 5.0 s elapsed · estimating the time left…"
    )
    end = stage(t + 60, done=130, cap=130, loss=2.65, ended="ready")
    state.apply(end)
    assert following_line(state, t + 61).startswith("Training tune: epoch 3 of 40, step 2 of 19")
    assert "at least 50 steps and at most 1000 steps" in sentence(begin) and worth_a_line(begin)
    short = stage(t + 1, done=0, cap=34, loss=None)  # a cap below the minimum: the cap is the length
    assert "below 2.70 (3.00: undecided), for 34 steps (its cap, at or below the minimum of 50)" in sentence(short)
    assert sentence(end).startswith("Discriminator warm-up over after 130 steps: the discriminators tell real")
    assert worth_a_line(end) and not worth_a_line(stage(t + 40, done=41, cap=1000, loss=3.1))
    epoch = Epoch(epoch=2, step=57, seconds=60.0, train_s=50.0, losses={"val_mel": 0.9, "train_d_warmup": 0.4},
                  learning_rates={}, val_s=5.0, preview_s=5.0, checkpoint_wait_s=0.0)  # fmt: skip
    assert "; the generator frozen for 40% of it (discriminator warm-up" in sentence(epoch)
