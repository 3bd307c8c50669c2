"""The recovery stage of a run from an ONNX voice: recover (or take from the cache) its training-only parts,
copy the voice into the generator, arm the discriminator warm-up, and say all along what is happening.

The stage's ``Stage`` events (``name`` ``recovery``) count the lines spoken and the
fitting steps (``step`` of ``steps``, ``elapsed_s``, ``seconds_left``), at most every
``StageLog.interval_s`` and always for the first of each part. A result in the
recovery cache (``trainer.start.recovery_cache``) is used instead of speaking and fitting
again, and the stage says so (``cached`` True).
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from engines.imports import importing
from engines.words import count
from trainer.events.schema import Recovery, Stage, WarningEvent
from trainer.start.recovery_cache import CachedRecovery, RecoveryCacheError, RecoveryKey, read_entry, write_entry
from trainer.time_left import TimeLeft


class StageLog:
    """``Stage`` events of one long setup stage: its title, then its progress at most every ``interval_s``
    (and always for a part's first step), with the seconds since the stage began and the time left of the part
    under way (``trainer.time_left``: ``None`` until its rate has settled). ``log`` ``None`` (a DDP worker) says
    nothing; ``clock`` gives the time in seconds (``time.monotonic``; a test passes its own)."""

    def __init__(self, log, name: str, title: str, interval_s: float = 0.5, *, clock=time.monotonic) -> None:
        self.log, self.name, self.title, self.interval_s, self.clock = log, name, title, interval_s, clock
        self.started = clock()
        self._last = -math.inf
        self._left = TimeLeft()

    def say(self, detail: str, **fields) -> None:
        """Emit ``TITLE: DETAIL`` now, with ``fields`` (``step``, ``steps``, ``seconds_left``, ``cached``)."""
        self._last = self.clock()
        if self.log is not None:
            elapsed = self._last - self.started
            self.log.emit(Stage(name=self.name, message=f"{self.title}: {detail}", elapsed_s=elapsed, **fields))

    def step(self, what: str, done: int, total: int, after: str = "") -> None:
        """Before step ``done`` (from 0) of ``total`` of a part: ``WHAT N of TOTAL`` (N from 1), when due;
        ``done == total``: the part is over and ``AFTER`` begins (said at once)."""
        now = self.clock()
        if done == total:
            self.say(after)
            return
        if done == 0:
            self._left.new_phase()
        self._left.report(done, total, now)
        if done and now - self._last < self.interval_s:
            return
        self.say(f"{what} {done + 1} of {total}", step=done, steps=total, seconds_left=self._left.seconds(now))


def recover_onnx_start(
    system,
    voice_path: Path,
    data,
    phonemizer,
    log,
    accelerator: str,
    precision: str,
    cache_dir: Path | None,
    *,
    keep: bool = True,
) -> list[str]:
    """Load an ONNX voice, recover its training-only parts (or take them from ``cache_dir``; ``None``: no
    cache), copy it into the generator where names and shapes match, arm the discriminator warm-up; returns
    notes on the tensors kept fresh. ``keep``: store a new recovery in ``cache_dir`` (only DDP's rank 0 does).

    Afterwards torch's RNG is seeded with ``config.seed + 1``, so training goes on the same way whether the
    parts were recovered now or taken from the cache.
    """
    with importing("torch"):
        import torch

    with importing("engines.torch.vits.onnx_import"):
        from engines.torch.vits.onnx_import import load_onnx_generator
    from engines.voice import load_voice
    from trainer.start.points import copy_generator

    config = system.config
    stage = StageLog(log, "recovery", f"recovering the training-only parts of {voice_path.name}")
    stage.say("loading the voice")
    # recovered as the voice is (its own speakers), then copied where shapes match (trainer.start.shape)
    imported, _ = load_onnx_generator(voice_path, load_voice(voice_path).config.num_speakers)
    model = imported.to("cuda" if accelerator == "gpu" else "cpu")
    ids = _lines(data, phonemizer, config.recovery_lines)
    key = _key(voice_path, ids, config, "cuda" if accelerator == "gpu" else "cpu", precision)
    entry = _cached(cache_dir, key, log)
    if entry is not None:
        model.load_state_dict(entry.state, strict=False)
        made = time.strftime("%Y-%m-%d %H:%M", time.localtime(entry.created))
        stage.say(f"using the recovered parts prepared {made} (cached)", cached=True)
    else:
        entry = _recover(model, ids, config, stage)
        _store(cache_dir if keep else None, key, entry, log)
    torch.manual_seed(config.seed + 1)
    notes = copy_generator(system, imported.to("cpu").state_dict(), voice_path.name)
    system.d_warmup.arm()  # fresh discriminators: they train alone until ready (trainer.gan.d_warmup)
    if log is not None:
        log.emit(Recovery(part="enc_q", metric="kl_held_out", value=entry.kl))
        log.emit(Recovery(part="enc_q", metric="mel_l1_vs_voice", value=entry.mel_l1))
        log.emit(Recovery(part="dp", metric="duration_nll", value=entry.duration_nll))
    return notes


def _lines(data, phonemizer, count: int) -> list[list[int]]:
    """The training phoneme_ids of the first ``count`` training lines: what the voice speaks."""
    from trainer.data.preprocess import training_phoneme_ids

    cache = data.train_set.cache
    texts = [cache.utterances[i].text for i in data.train_set.indices][:count]
    return [training_phoneme_ids(phonemizer, text) for text in texts]


def _key(voice_path: Path, ids: list[list[int]], config, device: str, precision: str) -> RecoveryKey:
    from engines.files import sha256_file

    return RecoveryKey(
        voice_sha256=sha256_file(voice_path),
        phoneme_ids=ids,
        recovery_lines=config.recovery_lines,
        recovery_steps=config.recovery_steps,
        recovery_fit_steps=config.recovery_fit_steps,
        seed=config.seed,
        sample_rate=config.sample_rate,
        device=device,
        precision=precision,
    )


def _recover(model, ids: list[list[int]], config, stage: StageLog) -> CachedRecovery:
    """Speak ``ids`` with the voice and fit its training-only parts to them (``trainer.start.recovery``)."""
    with importing("torch"):
        import torch

    with importing("trainer.start.recovery"):
        from trainer.start.recovery import TRAINABLE, recover, speak

    steps = config.recovery_steps + config.recovery_fit_steps
    stage.say(f"{count(len(ids), 'line')} to speak, then {count(steps, 'fitting step')}")
    torch.manual_seed(config.seed)
    examples = speak(model, ids, progress=lambda done, total: stage.step("speaking line", done, total))
    report = recover(
        model,
        examples,
        config,
        warm_steps=config.recovery_steps,
        fit_steps=config.recovery_fit_steps,
        progress=lambda done, total: stage.step("fitting step", done, total, "checking the fit on held-out lines"),
    )
    state = {k: v for k, v in model.state_dict().items() if k.startswith(TRAINABLE)}
    return CachedRecovery(
        state=state, kl=report.kl, mel_l1=report.mel_l1, duration_nll=report.duration_nll, created=time.time()
    )


def _cached(cache_dir: Path | None, key: RecoveryKey, log) -> CachedRecovery | None:
    """``key``'s cached recovery, or ``None`` (no cache, a miss, or an unreadable entry: a warning)."""
    if cache_dir is None:
        return None
    try:
        return read_entry(cache_dir, key)
    except RecoveryCacheError as exc:
        if log is not None:
            log.emit(WarningEvent(message=f"{exc}: ignored, recovering again"))
        return None


def _store(cache_dir: Path | None, key: RecoveryKey, entry: CachedRecovery, log) -> None:
    """Keep ``entry`` for the next run; a cache that cannot be written is a warning, never a failed run."""
    if cache_dir is None:
        return
    try:
        write_entry(cache_dir, key, entry)
    except OSError as exc:
        if log is not None:
            log.emit(WarningEvent(message=f"the recovered parts could not be cached: {exc}"))
