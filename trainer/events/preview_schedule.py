"""When a run speaks its previews: early, then thinning out (no torch here; the canary evaluations keep it too).

On a CPU an epoch takes minutes, so previews every ``preview_every`` epochs (25 by default) left a new user 13 to
16 minutes without a voice to hear (issue 27). The schedule, counting epochs done ``n`` from 1:

- after epochs 1, 2, 4, 8, 16, ... (``n`` a power of two) while ``n`` is below ``every``: the voice changes most
  at the start, and each preview comes after as many epochs again as the one before;
- then after every ``every``-th epoch (25, 50, 75, ... with the presets' 25);
- and after the last epoch.

With ``every`` 25 and 1,000 epochs that is 1, 2, 4, 8, 16, 25, 50, ..., 1,000: 45 previews, five of them in
the first 16 epochs. A resumed run keeps the schedule, since it depends only on the epoch's number, the run's
epoch count and ``every`` (a resume that changes the epoch count moves only the "last epoch" one).

Epochs are numbered from 0 as in the events (``trainer.events.schema``) and Lightning's ``current_epoch``:
``preview_due(0, ...)`` asks about the end of the first epoch.
"""

from __future__ import annotations


def preview_due(epoch: int, total_epochs: int, every: int) -> bool:
    """Whether the end of epoch ``epoch`` (from 0) is on the schedule (module docstring).

    Args:
        epoch: the epoch that just ended, from 0.
        total_epochs: the run's epoch count (its last epoch is ``total_epochs - 1``).
        every: epochs between previews once the early ones are done (``TrainingConfig.preview_every``, >= 1).
    """
    done = epoch + 1
    early = done < every and done & (done - 1) == 0  # 1, 2, 4, 8, ... (done >= 1)
    return early or done % max(1, every) == 0 or done == total_epochs


def epochs_to_next(epoch: int, total_epochs: int, every: int) -> int:
    """Epochs from the end of ``epoch`` to the end of the next due one (1 when it is the next; 0 when none is
    left, ``epoch`` being the last)."""
    for ahead in range(1, max(0, total_epochs - epoch - 1) + 1):
        if preview_due(epoch + ahead, total_epochs, every):
            return ahead
    return 0


def due_epochs(total_epochs: int, every: int) -> list[int]:
    """Every due epoch of a run, from 0, in order."""
    return [epoch for epoch in range(total_epochs) if preview_due(epoch, total_epochs, every)]


def schedule_words(total_epochs: int, every: int) -> str:
    """The schedule in words, epochs counted from 1: ``after epochs 1, 2, 4, 8 and 16, then every 25th, and the
    last (1,010)``; ``after every epoch`` when ``every`` is 1."""
    if every <= 1 or total_epochs <= 1:
        return "after every epoch"
    early = [2**k for k in range(every.bit_length()) if 2**k < every and 2**k <= total_epochs]
    said = f"after {'epochs' if len(early) > 1 else 'epoch'} {_listed(early)}"
    if total_epochs >= every:
        said += f", then every {_ordinal(every)}"
    last_said = total_epochs in early or (total_epochs >= every and total_epochs % every == 0)
    return said if last_said else f"{said}, and the last ({total_epochs:,})"


def _listed(numbers: list[int]) -> str:
    """``1, 2, 4 and 8``."""
    words = [f"{n:,}" for n in numbers]
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _ordinal(n: int) -> str:
    """``25th``, ``2nd``, ``3rd``, ``11th``."""
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n:,}{suffix}"
