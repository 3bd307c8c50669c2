"""The recovery of an ONNX start, said step by step and kept between runs (trainer.start.recovery_stage,
recovery_cache)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import target_voice_slice

torch = pytest.importorskip("torch")
pytest.importorskip("lightning")

from trainer.events.log import EventLog, read_events  # noqa: E402
from trainer.run.options import RunOptions  # noqa: E402
from trainer.run.train import create_run, fit  # noqa: E402

CLIPS = 8
"""Clips of the runs' datasets: enough for the test preset's 6 recovery lines (one clip held out), few enough that
a run's one epoch is 2 training steps."""


@pytest.fixture(scope="module")
def piper_folder(tmp_path_factory):
    """The first CLIPS target-voice clips in Piper's layout."""
    return target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", CLIPS)


@pytest.fixture
def cache_home(tmp_path, monkeypatch):
    """A user data folder of this test's own, so its recovery cache starts empty."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    from trainer.start.recovery_cache import recovery_cache_dir

    return recovery_cache_dir()


@pytest.fixture
def spoken(monkeypatch):
    """Counts the recoveries that really ran (``trainer.start.recovery.speak`` and ``recover`` calls)."""
    import trainer.start.recovery as recovery

    calls = []
    for name in ("speak", "recover"):
        real = getattr(recovery, name)
        monkeypatch.setattr(
            recovery, name, lambda *a, _real=real, _name=name, **k: calls.append(_name) or _real(*a, **k)
        )
    return calls


def test_second_run_takes_the_recovery_from_the_cache_and_each_step_is_said(piper_folder, tmp_path, cache_home, spoken):
    """Run 1 speaks and fits, saying each line and step in order, then each training step of its epoch; run 2 of
    the same dataset and start takes the recovered parts from the cache (no speaking, no fitting) and says so."""
    options = RunOptions(dataset=piper_folder, out=tmp_path / "one", start="joe", preset="test", epochs=1)
    assert "Recovered from this voice before" not in _recovery_note(options)
    first = create_run(options)
    fit(first)
    assert spoken == ["speak", "recover"]
    records = list(read_events(first / "events.jsonl"))
    kl = next(r.value for r in records if r.kind == "recovery" and r.metric == "kl_held_out")
    said = f"Recovered from this voice before: KL {kl:.1f} on held-out lines (6 lines spoken)"
    assert said in _recovery_note(options)
    steps = [(r.message.split(": ")[-1], r.step, r.steps) for r in records if r.kind == "stage" and r.steps]
    lines = [s for s in steps if s[0].startswith("speaking line")]
    fitting = [s for s in steps if s[0].startswith("fitting step")]
    assert lines[0] == ("speaking line 1 of 6", 0, 6) and fitting[0] == ("fitting step 1 of 6", 0, 6)  # 4 warm + 2 fit
    assert [s[1] for s in lines] == sorted({s[1] for s in lines}) and steps.index(lines[-1]) < steps.index(fitting[0])
    epoch_start = next(i for i, r in enumerate(records) if r.kind == "stage" and r.name == "epoch")
    assert "loading the first batch, then the first training step" in records[epoch_start].message
    progress = [r for r in records[epoch_start:] if r.kind == "progress"]
    total = progress[0].batches_total
    assert total and progress[0].batches == 1 and progress[-1].batches == total  # the first and last step said
    assert [p.batches for p in progress] == sorted({p.batches for p in progress})
    assert all(p.elapsed_s > 0 for p in progress) and progress[-1].seconds_left == 0  # a figure once settled
    kept = list(cache_home.glob("*.pt"))
    assert len(kept) == 1

    second = create_run(RunOptions(dataset=piper_folder, out=tmp_path / "two", start="joe", preset="test", epochs=1))
    fit(second)
    assert spoken == ["speak", "recover"]  # nothing spoken or fitted again
    again = list(read_events(second / "events.jsonl"))
    cached = [r for r in again if r.kind == "stage" and r.cached]
    assert len(cached) == 1 and "using the recovered parts prepared" in cached[0].message
    assert cached[0].message.endswith("(cached)") and cached[0].name == "recovery"
    fit_of = {r.part: r.value for r in records if r.kind == "recovery"}
    assert {r.part: r.value for r in again if r.kind == "recovery"} == fit_of
    assert not [r for r in again if r.kind == "stage" and "speaking line" in r.message]


def _recovery_note(options) -> str:
    """The pre-flight's ``info`` finding on the recovery of ``options``' start (one, for an ONNX start)."""
    from trainer.run.preflight import preflight

    notes = [f.message for f in preflight(options) if f.level == "info"]
    assert len(notes) == 1 and "recovered from its own speech (up to 6 lines, 6 steps)" in notes[0]
    return notes[0]


def _prepared(run_dir, **changes):
    """What ``fit`` builds before the recovery, with a 2-line, 1+1-step recovery (``changes`` on top)."""
    from engines.phonemes import Phonemizer
    from engines.voice import load_config
    from trainer.gan.system import VitsSystem
    from trainer.run.document import read_run
    from trainer.run.presets import TrainingConfig
    from trainer.run.train import _data

    document = read_run(run_dir)
    budget = {"recovery_lines": 2, "recovery_steps": 1, "recovery_fit_steps": 1}
    config = replace(TrainingConfig.from_dict(document.config), **{**budget, **changes})
    data = _data(document, config, config.batch_size)
    return VitsSystem(config.to_dict()), data, Phonemizer(load_config(run_dir / "config.json"))


def _recover(run_dir, events, cache_dir, **changes):
    """Recover joe's parts for the run in ``run_dir``; returns the events said."""
    from engines.registry import default_voice
    from trainer.start.recovery_stage import recover_onnx_start

    system, data, phonemizer = _prepared(run_dir, **changes)
    log = EventLog(events)
    recover_onnx_start(system, default_voice().model_path, data, phonemizer, log, "cpu", "32-true", cache_dir)
    log.close()
    return list(read_events(events))


def test_a_changed_setting_or_dataset_misses_and_a_corrupt_entry_is_ignored(piper_folder, tmp_path, cache_home, spoken):
    """Same run, same settings: a hit. Another seed, another dataset: a miss each. A garbled entry: a warning
    naming it, the recovery runs again and the entry is good again; --no-recovery-cache neither reads nor writes."""
    run = create_run(RunOptions(dataset=piper_folder, out=tmp_path / "run", start="joe", preset="test"))
    _recover(run, tmp_path / "1.jsonl", cache_home)
    assert spoken.count("speak") == 1
    hit = _recover(run, tmp_path / "2.jsonl", cache_home)
    assert spoken.count("speak") == 1 and any(r.kind == "stage" and r.cached for r in hit)
    _recover(run, tmp_path / "3.jsonl", cache_home, seed=99)
    assert spoken.count("speak") == 2
    other = target_voice_slice(tmp_path / "other", CLIPS)  # the same clips, their lines reworded: others are spoken
    rows = (other / "metadata.csv").read_text(encoding="utf-8").splitlines()
    (other / "metadata.csv").write_text("".join(f"{row}, said twice.\n" for row in rows), encoding="utf-8")
    other_run = create_run(RunOptions(dataset=other, out=tmp_path / "other-run", start="joe", preset="test"))
    _recover(other_run, tmp_path / "4.jsonl", cache_home)
    assert spoken.count("speak") == 3 and len(list(cache_home.glob("*.pt"))) == 3

    entry = max(cache_home.glob("*.pt"), key=lambda p: p.stat().st_mtime)  # the other dataset's
    entry.write_bytes(b"not a torch file")
    warned = _recover(other_run, tmp_path / "5.jsonl", cache_home)
    warnings = [r.message for r in warned if r.kind == "warning"]
    assert len(warnings) == 1 and str(entry) in warnings[0] and "ignored, recovering again" in warnings[0]
    assert spoken.count("speak") == 4 and not any(r.kind == "stage" and r.cached for r in warned)
    assert entry.stat().st_size > 1000  # written again
    again = _recover(other_run, tmp_path / "6.jsonl", cache_home)
    assert spoken.count("speak") == 4 and any(r.kind == "stage" and r.cached for r in again)

    options = RunOptions(dataset=other, out=tmp_path / "bypass", start="joe", preset="test", no_recovery_cache=True)
    assert "--no-recovery-cache" in options.to_argv()
    bypass = create_run(options)
    _apply_start_of(bypass, tmp_path / "7.jsonl")
    assert spoken.count("speak") == 5 and not any(
        r.kind == "stage" and r.cached for r in read_events(tmp_path / "7.jsonl")
    )
    assert len(list(cache_home.glob("*.pt"))) == 3  # nor written


def _apply_start_of(run_dir, events) -> None:
    """The start of the run in ``run_dir`` applied as ``fit`` applies it (its options decide the cache)."""
    from trainer.run.document import read_run
    from trainer.run.train import _apply_start

    system, data, phonemizer = _prepared(run_dir)
    log = EventLog(events)
    _apply_start(read_run(run_dir), system, data, phonemizer, log, "cpu", "32-true")
    log.close()


def test_only_the_newest_entries_are_kept(tmp_path):
    """Writing a third entry with keep=2 removes the oldest; the newest two still read."""
    import os

    from trainer.start.recovery_cache import (
        CACHE_VERSION,
        CachedRecovery,
        RecoveryKey,
        entry_path,
        read_entry,
        summaries,
        write_entry,
    )

    keys = [
        RecoveryKey(voice_sha256=f"{n:064x}", phoneme_ids=[[1, 2, 3]], recovery_lines=6, recovery_steps=4,
                    recovery_fit_steps=2, seed=1, sample_rate=22050, device="cpu", precision="32-true")
        for n in range(3)
    ]  # fmt: skip
    for age, key in enumerate(keys):
        state = {"enc_q.w": torch.full((4,), float(age))}
        entry = CachedRecovery(state=state, kl=3.0, mel_l1=1.0, duration_nll=2.0, created=0)
        path = write_entry(tmp_path, key, entry, keep=2)
        os.utime(path, (1_000 + age, 1_000 + age))  # written in this order, whatever the clock's resolution
    assert not entry_path(tmp_path, keys[0]).exists()
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == sorted(entry_path(tmp_path, k).stem for k in keys[1:])
    assert [s.budget for s in summaries(tmp_path, keys[2].voice_sha256)] == [(6, 4, 2, CACHE_VERSION)]
    assert [float(read_entry(tmp_path, k).state["enc_q.w"][0]) for k in keys[1:]] == [1.0, 2.0]
