"""Audio files: atomic writes with ordinary permissions, level helpers."""

from __future__ import annotations

import errno
import os
import stat
import sys

import numpy as np
import pytest
import soundfile

from engines.audio import envelope, snr_db, write_audio


def test_write_is_atomic_and_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    """A failure while writing leaves the previous file untouched and no temporary file behind."""
    path = tmp_path / "line.wav"
    write_audio(path, np.zeros(100, np.float32), 22050)
    before = path.read_bytes()

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(soundfile, "write", broken)
    with pytest.raises(RuntimeError):
        write_audio(path, np.ones(100, np.float32), 22050)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["line.wav"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX file size limits (RLIMIT_FSIZE)")
def test_a_file_the_os_refuses_part_way_is_its_error_naming_the_file(tmp_path):
    """A WAV the OS stops part-way (a file size limit here, as a full disk does: a write that fails with an errno)
    raises the OS's own error naming the file, not libsndfile's bare "System error"; the old file stays, no temp."""
    import resource
    import signal

    path = write_audio(tmp_path / "line.wav", np.zeros(100, np.float32), 22050)
    before = path.read_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # the write fails with EFBIG instead of a signal
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, hard))
    try:
        with pytest.raises(OSError) as refused:
            write_audio(path, np.zeros(22050, np.float32), 22050)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert (refused.value.errno, refused.value.filename) == (errno.EFBIG, str(path))
    assert refused.value.__cause__ is not refused.value  # no chain that loops back on itself
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["line.wav"]


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_new_files_get_ordinary_permissions(tmp_path):
    """New files are 0666 less the umask; a replaced file keeps its mode."""
    umask = os.umask(0o022)
    try:
        path = write_audio(tmp_path / "a.wav", np.zeros(10, np.float32), 22050)
        assert stat.S_IMODE(path.stat().st_mode) == 0o644
        path.chmod(0o640)
        write_audio(path, np.zeros(20, np.float32), 22050)
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
    finally:
        os.umask(umask)


def test_samples_are_clipped_and_written_as_16_bit(tmp_path):
    """Out-of-range samples are clipped; WAV is 16-bit PCM as Piper writes."""
    path = write_audio(tmp_path / "c.wav", np.array([2.0, -2.0, 0.5], np.float32), 16000)
    data, rate = soundfile.read(str(path), dtype="int16")
    assert rate == 16000 and soundfile.info(str(path)).subtype == "PCM_16"
    assert data.tolist() == [32767, -32768, 16384]


def test_snr_and_envelope():
    """snr_db of a signal against itself plus 1% noise is 40 dB; envelope gives min/max per span."""
    x = np.sin(np.linspace(0, 100, 10_000)).astype(np.float32)
    assert snr_db(x, x * 1.01) == pytest.approx(40.0, abs=0.01)
    lo, hi = envelope(np.array([0, 1, -1, 2], np.float32), 2)
    assert lo.tolist() == [0, -1] and hi.tolist() == [1, 2]
