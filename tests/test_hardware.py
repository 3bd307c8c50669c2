"""How a training process's CPU threads wait (``trainer.hardware.thread_environment``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from trainer.hardware import thread_environment

ROOT = Path(__file__).resolve().parents[1]


def test_training_threads_wait_passively_unless_the_user_chose_a_policy():
    """PASSIVE where no OMP_WAIT_POLICY is set; a policy the user set is left as it is."""
    assert thread_environment({}) == {"OMP_WAIT_POLICY": "PASSIVE"}
    assert thread_environment({"OMP_WAIT_POLICY": "ACTIVE"}) == {}


def test_the_train_command_sets_the_policy_before_torch_is_imported(tmp_path):
    """``voice-studio train`` applies it while torch is not loaded yet (libgomp reads it once, at load)."""
    probe = (
        "import os, sys\n"
        "from studio.cli import train\n"
        "from trainer.options import RunOptions\n"
        "def stop(options):\n"
        "    print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)\n"
        "    raise SystemExit(0)\n"
        "RunOptions.from_args = staticmethod(stop)\n"
        "from studio.cli import main\n"
        f"main(['train', '--dataset', {str(tmp_path)!r}, '--out', {str(tmp_path / 'run')!r}])\n"
    )
    env = {"PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT)
    assert done.stdout.split() == ["PASSIVE", "False"], done.stderr


def test_auto_precision_on_the_cpu_is_bf16_where_amx_is_and_the_model_is_full_width():
    """``auto`` on the CPU: bf16 autocast for a quality preset on a CPU with AMX tiles, float32 without
    AMX and for the ``test`` preset; a precision the user names is kept."""
    import torch

    from trainer.hardware import cpu_bf16_pays, hardware
    from trainer.presets import preset

    amx = torch.cpu._is_amx_tile_supported()
    medium, test = preset("medium", num_symbols=40), preset("test", num_symbols=40)
    assert cpu_bf16_pays(medium) is amx
    assert cpu_bf16_pays(test) is False
    assert hardware("cpu", medium)[1] == ("bf16-mixed" if amx else "32-true")
    assert hardware("cpu", test)[1] == "32-true"
    assert hardware("cpu", medium, "32-true")[1] == "32-true"
    assert hardware("cpu", test, "bf16-mixed")[1] == "bf16-mixed"
