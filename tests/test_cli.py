"""The voice-studio command, run as a user runs it (a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import soundfile
from conftest import assert_same_speech

from engines.audio import rms_db


def run_cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "studio", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        env=os.environ.copy(),
    )


def test_say_writes_a_wav(tmp_path):
    """say -o writes a 16-bit mono WAV at the voice's rate with audible speech."""
    out = tmp_path / "out put é.wav"
    result = run_cli("say", "Hello from the command line. A second sentence.", "-o", str(out))
    assert result.returncode == 0, result.stderr
    info = soundfile.info(str(out))
    assert (info.samplerate, info.channels, info.subtype) == (22050, 1, "PCM_16")
    audio, _ = soundfile.read(str(out), dtype="float32")
    assert 2.0 < len(audio) / 22050 < 6.0
    assert rms_db(audio) > -35
    assert "time to first audio" in result.stderr
    assert not list(tmp_path.glob("*.part"))


def test_say_options_change_the_audio(tmp_path):
    """--length-scale 1.5 gives longer audio; noise 0 makes repeated runs identical."""
    paths = []
    for name, scale in (("a", "1.0"), ("b", "1.0"), ("c", "1.5")):
        path = tmp_path / f"{name}.wav"
        args = ["say", "Deterministic speech.", "-o", str(path), "--noise-scale", "0", "--noise-w", "0"]
        result = run_cli(*args, "--length-scale", scale, "--quiet")
        assert result.returncode == 0, result.stderr
        paths.append(soundfile.read(str(path), dtype="int16")[0])
    assert np.array_equal(paths[0], paths[1])
    assert len(paths[2]) > 1.3 * len(paths[0])


def test_say_reads_stdin(tmp_path):
    """'-' reads the text from standard input."""
    out = tmp_path / "stdin.wav"
    result = run_cli("say", "-", "-o", str(out), stdin="Text from a pipe.")
    assert result.returncode == 0, result.stderr
    assert soundfile.info(str(out)).frames > 22050 // 2


def test_say_plays_through_the_sound_device(capture):
    """Without -o, the audio goes to the default output device as it streams."""
    result = run_cli("say", "Playing out loud.")
    assert result.returncode == 0, result.stderr
    played = capture.samples()
    assert len(played) > 0.5 * 22050
    assert rms_db(played) > -35


def test_say_nothing_speakable_is_a_clear_error(tmp_path):
    """Punctuation-only text: exit 2 (a refusal) with a message, and no file."""
    out = tmp_path / "none.wav"
    result = run_cli("say", "?!...", "-o", str(out))
    assert result.returncode == 2
    assert "nothing to say" in result.stderr
    assert not out.exists()


def test_say_device_names_are_checked_and_only_for_torch(tmp_path):
    """A bad --device is a clear error (exit 2); --device with the ONNX engine is noted, not silently dropped."""
    out = tmp_path / "line.wav"
    bad = run_cli("say", "Hello.", "--engine", "torch", "--device", "gpu", "-o", str(out))
    assert bad.returncode == 2 and "unknown device 'gpu'" in bad.stderr and "Traceback" not in bad.stderr
    noted = run_cli("say", "Hello.", "--device", "cuda", "-o", str(out))
    assert noted.returncode == 0 and "--device is for the torch engine" in noted.stderr
    assert out.exists()


def test_say_bad_voice_names_the_file(tmp_path):
    """A voice path without its config: exit 2, the message names the missing config."""
    model = tmp_path / "lonely.onnx"
    model.write_bytes(b"x")
    result = run_cli("say", "Hi.", "--voice", str(model), "-o", str(tmp_path / "x.wav"))
    assert result.returncode == 2
    assert "lonely.onnx.json" in result.stderr


def test_voices_lists_the_default_voice():
    """voices --json lists the embedded voice with its rate, its language as Piper's catalog writes it (``en_US``,
    as Wyoming's describe and /v1/models) and its espeak-ng voice."""
    result = run_cli("voices", "--json")
    assert result.returncode == 0, result.stderr
    voices = json.loads(result.stdout)["voices"]
    joe = next(v for v in voices if v["name"] == "en_US-joe-medium")
    assert joe["origin"] == "embedded" and joe["sample_rate"] == 22050
    assert (joe["language"], joe["espeak_voice"]) == ("en_US", "en-us")


def test_say_checks_the_output_path_first(tmp_path):
    """A missing folder, a folder, or an unknown extension: exit 2 with a clear message, no traceback."""
    cases = {
        str(tmp_path / "no such folder" / "x.wav"): "does not exist",
        str(tmp_path): "is a folder",
        str(tmp_path / "x.mp3"): "unsupported audio file type",
    }
    for target, message in cases.items():
        result = run_cli("say", "Hello.", "-o", target)
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_say_writes_flac_and_ogg(tmp_path):
    """The output format follows the extension."""
    for name, fmt in (("a.flac", "FLAC"), ("a.ogg", "OGG")):
        result = run_cli("say", "Compressed.", "-o", str(tmp_path / name), "--quiet")
        assert result.returncode == 0, result.stderr
        assert soundfile.info(str(tmp_path / name)).format == fmt


def test_speaker_and_voice_names_resolve_as_on_the_server(tmp_path):
    """--speaker 3 on a one-speaker voice is refused as the server refuses voice "3"; --voice joe --speaker alloy
    (Piper's short name, an OpenAI voice name) speaks the default speaker, as the server does."""
    result = run_cli("say", "Hi.", "--speaker", "3", "-o", str(tmp_path / "s.wav"), "--quiet")
    assert result.returncode == 2 and "unknown speaker '3' for en_US-joe-medium" in result.stderr
    assert "Traceback" not in result.stderr
    result = run_cli("say", "Hi.", "--voice", "joe", "--speaker", "alloy", "-o", str(tmp_path / "a.wav"), "--quiet")
    assert result.returncode == 0, result.stderr
    assert soundfile.info(str(tmp_path / "a.wav")).duration > 0.3


def _say_noise_free(path, text: str, stdin: str | None = None) -> np.ndarray:
    result = run_cli("say", text, "-o", str(path), "--quiet", "--noise-scale", "0", "--noise-w", "0", stdin=stdin)
    assert result.returncode == 0, result.stderr
    return soundfile.read(str(path), dtype="float32")[0]


def test_say_cleans_text_as_the_server_does(tmp_path, engine):
    """say "She isn&#x27;t here." is said as "She isn't here." (about 1 s, not the entity read aloud); from stdin,
    entities, a newline and an emoji are cleaned by the same rule (engines.cleaning.clean_text)."""
    from engines.base import SynthesisOptions
    from engines.cleaning import clean_text

    entity = _say_noise_free(tmp_path / "entity.wav", "She isn&#x27;t here.")
    plain = _say_noise_free(tmp_path / "plain.wav", "She isn't here.")
    assert np.array_equal(entity, plain) and len(entity) / 22050 < 1.6
    typed = "Tom &amp; Jerry\n\U0001f600 agree &lt;3"
    piped = _say_noise_free(tmp_path / "piped.wav", "-", stdin=typed)
    assert clean_text(typed) == "Tom & Jerry agree <3"
    options = SynthesisOptions(noise_scale=0.0, noise_w=0.0)
    local = np.concatenate([c.audio for c in engine.synthesize("Tom & Jerry agree <3", options)])
    assert_same_speech(piped, local)


def test_gui_without_a_display_says_so():
    """voice-studio with no display prints a plain error instead of Qt's plugin message."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    if sys.platform in ("win32", "darwin"):
        return
    result = subprocess.run([sys.executable, "-m", "studio"], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2
    assert "no graphical display" in result.stderr


def test_a_reader_that_closes_stdout_is_one_line(tmp_path):
    """`voice-studio voices | head -0`: the reader closing the pipe is one clear line (exit 2), no 'Errno 32' and
    no traceback at the interpreter's exit."""
    process = subprocess.Popen(
        [sys.executable, "-m", "studio", "voices", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=os.environ.copy(),
    )
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=120) == 2
    assert error == "voice-studio: error: standard output: the reader closed it\n"


def test_choices_are_the_owners_and_refused_before_any_work(tmp_path):
    """Options offer what their owners have (recognizers, presets, remote formats); another value is refused
    with the list, before a project or a run folder is made."""
    from engines.remote.settings import RESPONSE_FORMATS
    from trainer.dataset.recognizers import BACKENDS
    from trainer.run.presets import PRESETS

    project, run = tmp_path / "project", tmp_path / "run"
    sliced = run_cli("dataset", "slice", str(tmp_path / "long.wav"), "--project", str(project), "--recognizer", "bogus")
    trained = run_cli("train", "--dataset", str(tmp_path), "--out", str(run), "--preset", "huge")
    spoken = run_cli("say", "Hello.", "--engine", "remote", "--url", "http://127.0.0.1:9", "--format", "aac")
    assert (sliced.returncode, trained.returncode, spoken.returncode) == (2, 2, 2)
    for result, offered in ((sliced, (*BACKENDS, "none")), (trained, PRESETS), (spoken, RESPONSE_FORMATS)):
        listed = result.stderr.partition("choose from")[2]
        assert "invalid choice" in result.stderr and all(name in listed for name in offered), result.stderr
    assert not project.exists() and not run.exists()
