"""Which process of a DDP run writes (global rank 0), decided before Lightning starts, and how the others
wait for the run folder it prepares.

Every process of a run executes ``voice-studio train``: on one machine Lightning's launcher re-runs the
command for ranks 1..N-1 (``LOCAL_RANK``), on several machines a cluster launcher starts it on each
(torchrun, SLURM's srun). Only global rank 0 prepares the run folder and writes files and events; the
others wait for its ``training.json`` and train from it, so the folder must be on storage every machine
shares. No torch import here.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Mapping
from pathlib import Path

WAIT_FOR_RUN_S = 2 * 3600.0
"""Longest a rank other than 0 waits for rank 0's ``training.json`` (preprocessing a large dataset first)."""
SAID_EVERY_S = 60.0
"""How often a waiting rank says that it still waits."""


def global_rank(environ: Mapping[str, str] = os.environ) -> int:
    """This process's global rank as Lightning will see it, from the environment, in the order Lightning picks
    its cluster environment (``_AcceleratorConnector._choose_and_init_cluster_environment``):

    - torchrun (``TORCHELASTIC_RUN_ID`` set): ``RANK``;
    - SLURM's srun (``SLURM_NTASKS`` set, a job not named ``bash`` or ``interactive``): ``SLURM_PROCID``;
    - another launcher that sets ``RANK`` (Kubeflow's PyTorchJob): ``RANK``;
    - Lightning's own launcher: 0 only when ``NODE_RANK`` (or ``GROUP_RANK``) and ``LOCAL_RANK`` are 0 or
      unset (otherwise 1 stands for "not 0": the devices per node are not known here).

    A process of a torchrun launch on the second machine has ``LOCAL_RANK`` 0 and no ``NODE_RANK``: its
    ``RANK`` says it is not rank 0.
    """
    if "TORCHELASTIC_RUN_ID" in environ:
        return int(environ.get("RANK", "0"))
    if "SLURM_NTASKS" in environ and environ.get("SLURM_JOB_NAME") not in ("bash", "interactive"):
        return int(environ.get("SLURM_PROCID", "0"))
    if "RANK" in environ:
        return int(environ["RANK"])
    node = environ.get("NODE_RANK", environ.get("GROUP_RANK", "0"))
    return 0 if node == "0" and environ.get("LOCAL_RANK", "0") == "0" else 1


def check_launcher(num_nodes: int, environ: Mapping[str, str] = os.environ) -> None:
    """Refuse ``--num-nodes`` over 1 in a process no cluster launcher started: it would wait for machines
    that never join (Lightning's rendezvous has no timeout that says so). A launcher shows in the variables
    :func:`global_rank` reads: torchrun's ``TORCHELASTIC_RUN_ID``, srun's ``SLURM_NTASKS``, another's ``RANK``,
    or a hand-made launch's ``NODE_RANK`` with ``MASTER_ADDR`` (Lightning's own environment).

    Raises:
        RunError: ``num_nodes`` > 1 and none of them is set; says how to launch.
    """
    from trainer.run.errors import RunError

    launched = {"TORCHELASTIC_RUN_ID", "SLURM_NTASKS", "RANK"} & set(environ)
    if num_nodes > 1 and not launched and not ("NODE_RANK" in environ and "MASTER_ADDR" in environ):
        raise RunError(
            f"--num-nodes {num_nodes}: start the command on every machine through torchrun or srun (docs/install.md: "
            "Multi-node training); a plain command would wait for machines that never join"
        )


def rank_zero(environ: Mapping[str, str] = os.environ) -> bool:
    """Whether this process is global rank 0, the one that writes the run's files and events."""
    return global_rank(environ) == 0


def wait_for_run(out: Path, is_run, timeout_s: float = WAIT_FOR_RUN_S, poll_s: float = 0.5, echo=None) -> Path:
    """Wait until ``is_run(out)`` (rank 0 wrote the run's ``training.json``, its last file); returns ``out``.

    Raises:
        RunError: not there after ``timeout_s`` seconds, saying that the folder must be shared.
    """
    from trainer.run.errors import RunError

    echo = echo or sys.stderr
    started = said = time.monotonic()
    while not is_run(out):
        now = time.monotonic()
        if now - started > timeout_s:
            raise RunError(
                f"{out}: rank 0 has not prepared the run after {timeout_s:.0f} s; on several machines the run "
                "folder (--out) must be on storage they all share"
            )
        if now - said >= SAID_EVERY_S:
            print(f"waiting for rank 0 to prepare {out} ...", file=echo, flush=True)
            said = now
        time.sleep(poll_s)
    return out
