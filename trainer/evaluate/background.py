"""A process that works beside training (the canary evaluations, ``trainer.evaluate.canary``): at low priority
while the trainer trains, at normal priority once it has stopped training, and never longer than the trainer.

The trainer holds the write end of the process's stdin. :func:`follow_trainer` reads it on a thread: the line
``now`` (:data:`NOW`: training is over, the trainer waits for the result) restores normal priority; the end of
the stream (the trainer ended, however abruptly: the system closes its end) ends the process.

How the priority is lowered, and how much of it comes back without privileges:

- Linux: the scheduling policy ``SCHED_IDLE`` (sched(7)): a waking trainer thread preempts it at once. That
  matters on the CPU: torch's threads wait for each other at every parallel operation, and one held off its core
  for a time slice stalls the others. With only a lower nice value a concurrent evaluation nearly doubled a
  test-preset CPU epoch (31 s to 57 s on 2 cores). An unprivileged process cannot leave ``SCHED_IDLE``; alone in
  its autogroup (below) it needs not.
- Linux with autogroups (``kernel.sched_autogroup_enabled``, the default of most distributions): the process
  leads a session of its own, hence an autogroup of its own, and the scheduler shares the CPU between autogroups
  by the group's nice value, not the process's (sched(7), "The autogroup feature"). The group's nice is set to
  :data:`NICE` and back to 0 when training is over (raising it back needs no privilege:
  ``proc_sched_autogroup_set_nice`` only guards negative values).
- Windows: the below-normal priority class the trainer started it with (``BELOW_NORMAL_PRIORITY_CLASS``: threads
  of normal priority always run first), back to normal with ``SetPriorityClass``.
- Elsewhere (macOS, Linux without autogroups): ``os.nice(NICE)``, which an unprivileged process cannot undo.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

NICE = 19
"""How far the process lowers its priority while training goes on: the lowest, so that beside a trainer that
keeps the CPU busy it gets little more than the time the trainer leaves idle (Linux CFS weights: 15 for nice 19
against 1024 for nice 0)."""
NOW = b"now\n"
"""What the trainer writes to the process's stdin when training is over (full priority from then on)."""
AUTOGROUP = Path("/proc/self/autogroup")
AUTOGROUPS_ON = Path("/proc/sys/kernel/sched_autogroup_enabled")


def lower_priority() -> None:
    """Lower this process's priority (see the module docstring); nothing on Windows (the class it started in).
    Call it before any thread starts: threads take the policy of the thread that makes them."""
    if os.name == "nt":
        return
    if hasattr(os, "SCHED_IDLE"):
        try:
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
        except OSError:
            pass
    if _own_autogroup():
        _autogroup_nice(NICE)
    else:
        os.nice(NICE)


def full_priority() -> None:
    """Normal priority again where it can be had without privileges (autogroups, Windows)."""
    if os.name == "nt":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
        kernel32.SetPriorityClass(kernel32.GetCurrentProcess(), 0x20)  # NORMAL_PRIORITY_CLASS
    elif _own_autogroup():
        _autogroup_nice(0)


def follow_trainer() -> None:
    """Read stdin on a thread: :data:`NOW` gives full priority; its end (the trainer is gone) ends the process."""

    def follow() -> None:
        for line in sys.stdin.buffer:
            if line == NOW:
                full_priority()
        os._exit(3)

    threading.Thread(target=follow, name="follow-trainer", daemon=True).start()


def autogroups_on() -> bool:
    """Whether the scheduler shares the CPU by autogroup here (Linux, enabled)."""
    try:
        return AUTOGROUPS_ON.read_text(encoding="ascii").strip() == "1" and AUTOGROUP.is_file()
    except OSError:
        return False


def _own_autogroup() -> bool:
    """Whether this process has an autogroup of its own: autogroups on and the process leads its session (as the
    trainer starts it; run by hand from a terminal, the group is the terminal's, left alone)."""
    return autogroups_on() and os.getsid(0) == os.getpid()


def _autogroup_nice(nice: int) -> None:
    try:
        AUTOGROUP.write_text(f"{nice}\n", encoding="ascii")
    except OSError:  # not allowed here: the process keeps the priority it has
        pass
