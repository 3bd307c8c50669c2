"""The ONNX engine's prepared graphs kept between processes (engines.onnx.prepared)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import assert_same_speech

LINE = "The cache keeps the parts."


def _speak(engine) -> np.ndarray:
    from engines.base import SynthesisOptions

    return np.concatenate([chunk.audio for chunk in engine.synthesize(LINE, SynthesisOptions())])


def test_a_second_process_speaks_from_the_cache_without_importing_onnx(joe, tmp_path):
    """The first process prepares joe's graph and keeps it; the next one loads it without importing onnx and
    speaks the same samples for the same seed."""
    script = (
        "import sys, numpy as np\n"
        "from engines.onnx.engine import OnnxEngine\n"
        "from engines.base import SynthesisOptions\n"
        f"engine = OnnxEngine.from_path({str(joe.model_path)!r}, seed=3)\n"
        f"audio = np.concatenate([c.audio for c in engine.synthesize({LINE!r}, SynthesisOptions())])\n"
        "np.save(sys.argv[1], audio)\n"
        "print('onnx' in sys.modules, engine.mode)\n"
    )
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    said = [
        subprocess.run(
            [sys.executable, "-c", script, str(tmp_path / f"{n}.npy")], env=env, capture_output=True, text=True
        )
        for n in (1, 2)
    ]
    assert [s.returncode for s in said] == [0, 0], [s.stderr for s in said]
    assert [s.stdout.split() for s in said] == [["True", "flow"], ["False", "flow"]]
    assert_same_speech(np.load(tmp_path / "2.npy"), np.load(tmp_path / "1.npy"))


def test_a_hit_gives_what_preparing_gives(joe, tmp_path):
    """A cached prepared graph is the one preparing makes: same mode, graph info and part bytes; a seed is part of
    the key and changes only the encoder part."""
    from engines.onnx.prepared import _prepare, prepare

    made = prepare(joe.model_path, seed=5, folder=tmp_path)
    again = prepare(joe.model_path, seed=5, folder=tmp_path)
    fresh = _prepare(joe.model_path, 5, True)
    assert (
        (again.mode, again.info, again.parts)
        == (fresh.mode, fresh.info, fresh.parts)
        == (made.mode, made.info, made.parts)
    )
    other = prepare(joe.model_path, seed=6, folder=tmp_path)
    assert other.parts[0] != made.parts[0] and other.parts[1:] == made.parts[1:]
    assert len(list((tmp_path / "parts").glob("*.onnx"))) == 4  # two encoders, one flow, one decoder


def test_a_damaged_part_is_prepared_again_and_the_voice_speaks_the_same(joe, tmp_path):
    """A part cut in half (an interrupted copy) does not match its hash: the graph is prepared again, the part
    written whole, and the engine speaks what it spoke before."""
    from engines.onnx.engine import OnnxEngine
    from engines.onnx.prepared import prepare

    prepare(joe.model_path, seed=2, folder=tmp_path)
    before = _speak(OnnxEngine(joe, seed=2))
    parts = sorted((tmp_path / "parts").glob("*.onnx"), key=lambda p: p.stat().st_size)
    whole = parts[-1].read_bytes()
    parts[-1].write_bytes(whole[: len(whole) // 2])
    assert (
        prepare(joe.model_path, seed=2, folder=tmp_path).parts == prepare(joe.model_path, seed=2, folder=tmp_path).parts
    )
    assert parts[-1].read_bytes() == whole
    assert np.array_equal(_speak(OnnxEngine(joe, seed=2)), before)


def test_a_cache_that_cannot_be_written_still_speaks(joe, tmp_path, monkeypatch):
    """A data folder that cannot be written (a file where the cache folder would be): the voice loads and speaks."""
    from engines.onnx.engine import OnnxEngine
    from engines.onnx.prepared import cache_dir

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    cache_dir().parent.mkdir(parents=True)
    cache_dir().write_text("not a folder")
    assert _speak(OnnxEngine(joe, seed=1)).size > 10_000


def test_only_the_most_recently_used_entries_are_kept(joe, tmp_path, monkeypatch):
    """Beyond KEEP entries the least recently used one goes, with the parts no kept entry names."""
    from engines.onnx import prepared

    monkeypatch.setattr(prepared, "KEEP", 2)
    for seed in (1, 2):
        prepared.prepare(joe.model_path, seed=seed, folder=tmp_path)
    os.utime(tmp_path / f"{prepared._key(prepared.model_sha256(joe.model_path), 1, True)}.json", (1, 1))
    prepared.prepare(joe.model_path, seed=1, folder=tmp_path)  # a hit: seed 1 is used again, seed 2 is older now
    prepared.prepare(joe.model_path, seed=3, folder=tmp_path)
    kept = {prepared._key(prepared.model_sha256(joe.model_path), s, True) for s in (1, 3)}
    assert {p.stem for p in tmp_path.glob("*.json")} == kept
    assert len(list((tmp_path / "parts").glob("*.onnx"))) == 4  # the encoders of seeds 1 and 3, flow, decoder


def test_a_missing_or_damaged_model_is_named(tmp_path):
    """A model file that is not there, or not an ONNX model, is named as it was before the cache."""
    from engines.base import VoiceError
    from engines.onnx.prepared import graph_info, prepare

    with pytest.raises(VoiceError, match="voice model file not found"):
        prepare(tmp_path / "gone.onnx", folder=tmp_path)
    (tmp_path / "bad.onnx").write_bytes(b"\x00" * 100)
    with pytest.raises(VoiceError, match="not a valid ONNX model"):
        graph_info(tmp_path / "bad.onnx", folder=tmp_path)
