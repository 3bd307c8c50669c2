"""``pip install voice-studio`` without extras: a venv built from this checkout's wheel, with no torch in it.

In it ``say`` writes a WAV, ``dataset import`` curates a few target-voice clips, ``serve`` answers an OpenAI
speech request, and the window opens offscreen with the Train page explaining how to add training; the commands
that need an extra say so in one line with exit code 2. A guard in the venv (tests/no_torch_guard.py) records any
attempt to import torch, lightning, numba or librosa: every path here must leave its log empty. The venv is
built once and cached (tests/onnx_only_install.py: 9 s cold with uv's cache warm, 14 s with it empty); warm,
these tests and tests/test_wheel.py took 25 s together on the 2-core build machine.
"""

from __future__ import annotations

import io
import json
import subprocess

import httpx
import numpy as np
import pytest
import soundfile
from conftest import SpeechServer, target_voice_slice
from onnx_only_install import Install, environment, prepared

from engines.extras import install_line


@pytest.fixture(scope="module")
def install() -> Install:
    """The cached ONNX-only install of this checkout."""
    return prepared()


@pytest.fixture
def log(tmp_path):
    """The guard's log of torch import attempts for this test (empty when none was made)."""
    return tmp_path / "imports.log"


def attempts(log) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def python(install: Install, code: str, log, cwd) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(install.python), "-c", code], cwd=cwd, env=environment(log), capture_output=True, text=True, timeout=60
    )


def test_the_venv_has_no_torch_and_the_guard_sees_an_import(install, log, tmp_path):
    """torch is not installed; looking for it (find_spec) is not recorded, ``import torch`` is."""
    looked = python(install, "import importlib.util as u; assert u.find_spec('torch') is None", log, tmp_path)
    assert looked.returncode == 0, looked.stderr
    assert attempts(log) == []
    imported = python(install, "import torch", log, tmp_path)
    assert "No module named 'torch'" in imported.stderr
    assert [line.split(" <- ")[0] for line in attempts(log)] == ["torch"]


def test_say_writes_the_wav_the_checkout_speaks(install, log, tmp_path, engine):
    """``voice-studio say -o`` (noise off) writes the audio our ONNX engine makes in this process (16-bit, and
    ONNX Runtime's threads may sum in another order: within 40 dB), at the voice's rate; no torch import is
    tried."""
    from engines.audio import snr_db
    from engines.base import SynthesisOptions

    text = "The studio speaks without torch."
    out = tmp_path / "said.wav"
    result = install.run(
        "say", text, "-o", out, "--quiet", "--noise-scale", "0", "--noise-w", "0", log=log, cwd=tmp_path
    )
    assert result.returncode == 0, result.stderr
    said, rate = soundfile.read(str(out), dtype="float32")
    local = np.concatenate([c.audio for c in engine.synthesize(text, SynthesisOptions(noise_scale=0.0, noise_w=0.0))])
    assert rate == engine.voice.config.sample_rate
    assert len(said) == len(local) and snr_db(local, said) > 40
    assert 20 * np.log10(np.sqrt(np.mean(said**2))) > -35  # speech, not silence
    assert attempts(log) == []


def test_dataset_import_curates_clips(install, log, tmp_path):
    """``voice-studio dataset import`` of three target-voice clips lists them analysed (duration, VAD, phonemes)
    in the project's manifest; no torch import is tried."""
    source = target_voice_slice(tmp_path / "source", 3)
    project = tmp_path / "project"
    result = install.run("dataset", "import", "--project", project, source, "--workers", "1", log=log, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    clips = json.loads((project / "manifest.json").read_text(encoding="utf-8"))["clips"]
    durations = sorted(soundfile.info(str(p)).duration for p in (source / "wavs").iterdir())
    assert sorted(c["analysis"]["duration_s"] for c in clips) == pytest.approx(durations, abs=0.01)
    assert all(c["status"] == "ok" and c["analysis"]["speech_s"] > 0.5 for c in clips)
    assert attempts(log) == []


def test_serve_answers_a_speech_request(install, log, tmp_path):
    """``voice-studio serve`` on 127.0.0.1 answers one ``/v1/audio/speech`` request with a WAV of speech; no torch
    import is tried."""
    server = SpeechServer(program=[str(install.command)], env=environment(log), cwd=tmp_path)
    try:
        body = {"model": "en_US-joe-medium", "input": "Served without torch.", "response_format": "wav"}
        response = httpx.post(f"{server.url}/v1/audio/speech", json={**body, "stream": False}, timeout=60)
    finally:
        server.stop()
    assert response.status_code == 200, response.text
    audio, rate = soundfile.read(io.BytesIO(response.content), dtype="float32")
    assert rate == 22050 and len(audio) / rate > 0.8
    assert attempts(log) == []


@pytest.mark.parametrize(
    ("args", "extra"),
    [
        (["train", "--dataset", "d", "--out", "o"], "train"),
        (["compare", "joe", "--text", "Hello."], "compare"),
        (["export", "x.ckpt", "-o", "x.onnx"], "torch"),
        (["dataset", "cache", "project", "--out", "cache"], "train"),
    ],
)
def test_commands_that_need_an_extra_say_how_to_add_it(install, log, tmp_path, args, extra):
    """train, compare, export and dataset cache: one line naming the extra's install command, exit code 2, and
    no torch import tried; their --help says the same line first."""
    if args[0] == "dataset":
        from trainer.dataset.project import DatasetProject

        DatasetProject.create(tmp_path / "project").save()
    result = install.run(*args, log=log, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.strip().splitlines()[-1].endswith(install_line(extra)), result.stderr
    assert "Traceback" not in result.stderr
    helped = install.run(*args[: 2 if args[0] == "dataset" else 1], "--help", log=log, cwd=tmp_path)
    unwrapped = "".join(helped.stdout.split())  # argparse wraps the line, also at its hyphens
    assert helped.returncode == 0 and "".join(install_line(extra).split()) in unwrapped, helped.stdout
    assert attempts(log) == []


def test_window_opens_with_the_train_page_explaining(install, log, tmp_path):
    """The studio's window offscreen: the Train page says in one line how to add training and its Start is off,
    the Compare page says what needs which extra, the engines offered are ONNX and remote, and a ``.ckpt``
    added as a voice is refused with how to add torch; no torch import is tried."""
    from onnx_only_install import ROOT

    checkpoint = tmp_path / "voice.ckpt"
    checkpoint.write_bytes(b"not read without torch")
    script = ROOT / "tests" / "onnx_only_window.py"
    result = subprocess.run(
        [str(install.python), str(script), str(tmp_path / "runs"), str(checkpoint)],
        cwd=tmp_path, env=environment(log), capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    shown = json.loads(result.stdout.strip().splitlines()[-1])
    assert shown["studio"].startswith(str(install.venv))  # the installed wheel, not this checkout
    assert shown["shown"] and shown["train_line"].count("\n") == 0
    assert install_line("train") in shown["train_line"] and "torch" in shown["train_line"]
    assert not shown["train_buttons"]["start"] and not shown["train_buttons"]["check"]
    assert install_line("compare") in shown["compare_line"] and install_line("torch") in shown["compare_line"]
    assert shown["engines"] == ["onnx", "remote"]
    assert any(install_line("torch") in notice for notice in shown["ckpt_notice"]), shown["ckpt_notice"]
    assert attempts(log) == []
