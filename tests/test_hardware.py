"""How a training process's CPU threads wait (``trainer.run.hardware.thread_environment``)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from trainer.run.hardware import thread_environment

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
        "from trainer.run.options import RunOptions\n"
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


def test_auto_precision_on_the_cpu_is_bf16_where_it_has_bf16_arithmetic_and_the_model_is_full_width():
    """``auto`` on the CPU: bf16 autocast for a quality preset on a CPU with AVX512-BF16 or AMX tiles, float32
    without either and for the ``test`` preset; a precision the user names is kept."""
    import torch

    from trainer.run.hardware import cpu_bf16_pays, hardware
    from trainer.run.presets import preset

    native = torch.cpu._is_avx512_bf16_supported() or torch.cpu._is_amx_tile_supported()
    medium, test = preset("medium", num_symbols=40), preset("test", num_symbols=40)
    assert cpu_bf16_pays(medium) is native
    assert cpu_bf16_pays(test) is False
    assert hardware("cpu", medium)[1] == ("bf16-mixed" if native else "32-true")
    assert hardware("cpu", test)[1] == "32-true"
    assert hardware("cpu", medium, "32-true")[1] == "32-true"
    assert hardware("cpu", test, "bf16-mixed")[1] == "bf16-mixed"


@pytest.mark.parametrize(
    ("avx512_bf16", "amx", "chosen"),
    [
        (True, False, "bf16-mixed"),  # AMD Zen 4 / EPYC, Intel Cooper Lake: bf16 measured 0.68x float32's step
        (True, True, "bf16-mixed"),  # Intel Xeon since Sapphire Rapids
        (False, False, "32-true"),  # no bf16 arithmetic of its own
    ],
)
def test_auto_precision_follows_the_cpus_bf16_features(monkeypatch, avx512_bf16, amx, chosen):
    """As torch reports the CPU: AVX512-BF16 without AMX takes bf16 autocast for a quality preset, as AMX does;
    neither keeps float32; the ``test`` preset and a named precision are kept whatever the CPU."""
    import torch

    from trainer.run.hardware import hardware
    from trainer.run.presets import preset

    monkeypatch.setattr(torch.cpu, "_is_avx512_bf16_supported", lambda: avx512_bf16)
    monkeypatch.setattr(torch.cpu, "_is_amx_tile_supported", lambda: amx)
    medium, test = preset("medium", num_symbols=40), preset("test", num_symbols=40)
    assert hardware("cpu", medium)[1] == chosen
    assert hardware("cpu", test)[1] == "32-true"
    assert hardware("cpu", medium, "32-true")[1] == "32-true"
