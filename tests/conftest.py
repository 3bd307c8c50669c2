"""Test setup: Qt offscreen, private user folders, and ALSA output captured to a file.

Everything PortAudio plays goes to ALSA's default device. Unless the caller
(``.ci/run``) already set one up, this file points ``ALSA_CONFIG_PATH`` at the
system's ``alsa.conf`` followed by the same snippet as ``../shared/ci/asound-capture.conf``,
with the capture file in a temporary folder, so tests hear what was played and
never make noise on a developer's speakers. Under pytest-xdist (``make test`` runs
three workers) every worker sets up its own, whatever the caller did: workers
playing into one file would hear each other. This must happen before
``sounddevice`` is imported, hence at the top of this file.
"""

from __future__ import annotations

import atexit
import gc
import os
import shutil
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
_TMP = Path(tempfile.mkdtemp(prefix="voice-studio-tests-"))
# The test process's user folders and caches (the prepared ONNX graphs alone reach 6 x 63 MB) go with it.
atexit.register(shutil.rmtree, _TMP, ignore_errors=True)

os.environ["QT_QPA_PLATFORM"] = "offscreen"
os.environ["XDG_CONFIG_HOME"] = str(_TMP / "config")
os.environ["XDG_DATA_HOME"] = str(_TMP / "data")
# torch's OpenMP threads wait without spinning (as ``voice-studio train`` sets for itself,
# trainer.run.hardware.thread_environment): make test's workers sharing two cores would otherwise burn each other's time
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# One OpenMP thread per process (each worker, and every trainer, server or CLI it starts): make test runs three
# workers, and their children, on two cores, and the tests' models are tiny, so torch's per-operator threading
# was mostly overhead: the whole suite took 590 s against 829 s with torch's default (one thread per core), its
# processes 1,024 CPU-seconds against 1,426 (2026-12-03, 2-vCPU AMD EPYC, one run each). Set before torch loads.
os.environ.setdefault("OMP_NUM_THREADS", "1")

CAPTURE_SNIPPET = """pcm.!default {
  type file
  slave.pcm "null"
  file "%s"
  format "raw"
}
"""


CAPTURE_OWNER = "VOICE_STUDIO_CAPTURE_PID"
"""The process that set up ``VOICE_STUDIO_CAPTURE`` here (unset: the caller did)."""


def _setup_alsa_capture() -> Path | None:
    """Route ALSA's default device into a raw float32 file; returns its path. The caller's (``.ci/run``) is kept
    except in a pytest-xdist worker; this process's own is kept when this file is imported again (as
    ``tests.conftest``, say): one process, one capture file."""
    given, owner = os.environ.get("VOICE_STUDIO_CAPTURE"), os.environ.get(CAPTURE_OWNER)
    if given and (owner == str(os.getpid()) or (owner is None and not os.environ.get("PYTEST_XDIST_WORKER"))):
        return Path(given)
    system_conf = Path("/usr/share/alsa/alsa.conf")
    if not sys.platform.startswith("linux") or not system_conf.exists():
        return None
    capture = _TMP / "played.raw"
    conf = _TMP / "asound.conf"
    conf.write_text(system_conf.read_text() + "\n" + CAPTURE_SNIPPET % capture)
    os.environ["ALSA_CONFIG_PATH"] = str(conf)
    os.environ["VOICE_STUDIO_CAPTURE"] = str(capture)
    os.environ[CAPTURE_OWNER] = str(os.getpid())
    return capture


CAPTURE_FILE = _setup_alsa_capture()


class Capture:
    """What ALSA's file device received: float32 mono samples (``engines.output_device.DTYPE``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def reset(self) -> None:
        self.path.unlink(missing_ok=True)

    def samples(self) -> np.ndarray:
        if not self.path.exists():
            return np.zeros(0, np.float32)
        return np.fromfile(self.path, dtype=np.float32)


@pytest.fixture
def capture() -> Capture:
    """The ALSA capture file, emptied for this test."""
    if CAPTURE_FILE is None:
        pytest.skip("ALSA capture needs Linux with /usr/share/alsa/alsa.conf")
    cap = Capture(CAPTURE_FILE)
    cap.reset()
    return cap


APP_DATA = "voice-studio"
"""The studio's folder under ``XDG_DATA_HOME`` (``engines.registry.user_data_dir``)."""


@pytest.fixture(autouse=True, scope="module")
def own_user_folders(tmp_path_factory):
    """Each test file starts with empty user folders (settings, the voice library, runs), whatever ran before it
    on its worker: under pytest-xdist a worker runs files in an order of its own. The caches (``cache/``: the
    recovery's, the timed steps; ``compare/cache/``: renders and their scores) stay shared by the worker's files:
    what they hold is keyed by everything it depends on."""
    folder = tmp_path_factory.mktemp("user")
    for cache in (Path("cache"), Path("compare", "cache")):
        shared = _TMP / "data" / APP_DATA / cache
        shared.mkdir(parents=True, exist_ok=True)
        (folder / "data" / APP_DATA / cache.parent).mkdir(parents=True, exist_ok=True)
        (folder / "data" / APP_DATA / cache).symlink_to(shared, target_is_directory=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("XDG_CONFIG_HOME", str(folder / "config"))
        patch.setenv("XDG_DATA_HOME", str(folder / "data"))
        yield folder


@pytest.fixture(autouse=True)
def no_shared_onnx_thread_pool():
    """A test must not leave ONNX Runtime's process-wide thread pool on in the test process: once on, every
    later session with its own pool (piper-tts's ``PiperVoice``, the VAD) fails. Run such code (``say``,
    ``serve``, the app's ``main``) as a subprocess, as a user runs it."""
    yield
    ort_session = sys.modules.get("engines.onnx.session")
    assert ort_session is None or not ort_session._shared_pool, "this test turned on ONNX Runtime's shared pool"


@pytest.fixture(scope="session", autouse=True)
def unfreeze_at_the_end():
    """At the end of the session, collect what ``gc_on_the_gui_thread`` froze (on the main thread)."""
    yield
    gc.unfreeze()
    gc.collect()


@pytest.fixture(autouse=True)
def gc_on_the_gui_thread(request):
    """GUI tests: Qt widgets must be destroyed on the GUI thread, so while one runs (with worker
    threads) automatic garbage collection is off, and cycles are collected here, on the main thread,
    before and after (as ``studio.app`` does with pyqtgraph's GarbageCollector). A test counts as one by
    its ``gui`` mark or by asking for ``qtbot`` or ``qapp``: a page left as garbage by an unmarked test was
    collected in a later test's checkpoint-writer thread, which deadlocked in PySide's QObject destructor.

    What lives when such a test starts is frozen (``gc.freeze``): later collections skip it, so each one looks
    only at what was made since (full collections of a heap with torch, Qt and pyqtgraph loaded, twice per GUI
    test, took 46 of the 134 CPU-seconds of test_gui, test_compare_page and test_dataset_page run together; 0.7
    frozen). Cycles among frozen objects that become garbage later wait for the end of the session
    (``unfreeze_at_the_end``), where they are collected on this thread too."""
    uses_qt = {"qtbot", "qapp"} & set(request.fixturenames)
    if request.node.get_closest_marker("gui") is None and not uses_qt:
        yield
        return
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


def close_window(window, qapp) -> None:
    """Close a test module's main window and collect it here, on the GUI thread (Qt widgets must be destroyed
    there: ``gc_on_the_gui_thread``)."""
    window.close()
    window.deleteLater()
    qapp.processEvents()
    gc.collect()


def shown_window(qtbot, runs: Path, area: str, size: tuple[int, int] = (1024, 640)):
    """A main window on ``runs`` for one test, ``size`` px, showing ``area``, shown and exposed."""
    from studio.main_window import MainWindow
    from studio.settings import Settings

    window = MainWindow(Settings(), runs_root=runs)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show_area(area)
    window.show()
    qtbot.waitExposed(window)
    return window


SAME_SPEECH_DB = 40.0
"""Least SNR of two renders of one text by one path taken for the same speech: a local engine streams a sentence
in chunks sized by the machine's measured speed, and a loaded machine cuts them elsewhere, which moves the
decoder's seams by up to 1e-3 (about 60 dB under the speech); another text, voice or setting is far below."""


def assert_same_speech(got: np.ndarray, expected: np.ndarray) -> None:
    """``got`` is ``expected``'s speech: the same number of samples and within ``SAME_SPEECH_DB``."""
    from engines.audio import snr_db

    assert len(got) == len(expected), (len(got), len(expected))
    assert snr_db(expected, got) >= SAME_SPEECH_DB, snr_db(expected, got)


def synthesize_page(qtbot, voices: list[Path] | None = None, workspace=None):
    """A Synthesize page for one test on a fresh studio state (``workspace``: its settings) whose library holds
    the embedded voice, or ``voices``; no engine loaded yet."""
    from studio.pages.synthesize import SynthesizePage
    from studio.state import StudioState

    state = StudioState() if workspace is None else StudioState(workspace=workspace)
    state.library.load() if voices is None else state.library.load(voices)
    page = SynthesizePage(state)
    qtbot.addWidget(page)
    return page


def save_dialog(monkeypatch, module, chosen: Path | str = "") -> list[str]:
    """Replace ``module.QFileDialog.getSaveFileName`` with one that answers ``chosen`` (``""``: cancelled) and
    returns the list of the start paths it was asked with, in order (where a save dialog starts, and its name)."""
    asked: list[str] = []

    def dialog(_parent, _title, start, _filter):
        asked.append(start)
        return str(chosen), ""

    monkeypatch.setattr(module.QFileDialog, "getSaveFileName", dialog)
    return asked


def tool(name: str):
    """The script ``tools/NAME.py`` loaded as a module (``tools/`` is no package, and stays off ``sys.path``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def shared_path(*parts: str) -> Path:
    """A path in ``../shared``; skips where it is absent, fails under CI (CI=true)."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"shared material not found: {path}"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return path


AWKWARD_FOLDER = "Dätä Földer ü/Jöhn's voice"
"""A folder name users have (spaces, non-ASCII letters, an apostrophe): printed commands must paste with it."""


def sh_words(line: str) -> list[str]:
    """The words a real POSIX ``sh`` makes of ``line`` (``set -- LINE``, each word printed back); fails the test
    where ``sh`` cannot parse it (an unterminated quote)."""
    import subprocess

    script = f'set -- {line}\nprintf "%s\\0" "$@"'
    result = subprocess.run(["sh", "-c", script], capture_output=True, timeout=30)
    assert result.returncode == 0, f"sh cannot parse {line!r}: {result.stderr.decode()}"
    return result.stdout.decode().split("\0")[:-1]


def target_voice_slice(folder: Path, count: int) -> Path:
    """The first ``count`` clips of ``../shared/corpus/target-voice`` (32 kHz FLAC) copied into ``folder`` in
    Piper's layout (metadata.csv + wavs/); skips or fails as ``shared_path`` does."""

    corpus = shared_path("corpus", "target-voice")
    (folder / "wavs").mkdir(parents=True)
    rows = (corpus / "metadata.csv").read_text(encoding="utf-8").splitlines()[:count]
    (folder / "metadata.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    for row in rows:
        shutil.copy(corpus / "wavs" / f"{row.split('|')[0]}.flac", folder / "wavs")
    return folder


@pytest.fixture(scope="session")
def joe():
    """The embedded default voice (en_US-joe-medium)."""
    from engines.registry import default_voice

    return default_voice()


@pytest.fixture(scope="session")
def engine(joe):
    """Our ONNX engine on the default voice, loaded once."""
    from engines.onnx.engine import OnnxEngine

    return OnnxEngine(joe)


@pytest.fixture(scope="session")
def piper_voice(joe):
    """piper-tts's own ``PiperVoice`` on the default voice: the reference."""
    from piper import PiperVoice

    return PiperVoice.load(joe.model_path)


@pytest.fixture(scope="session")
def make_tiny_checkpoint():
    """Writes a Lightning-style Piper checkpoint of a tiny generator at a path (16 kHz, 256 symbols), its weights
    drawn from ``seed``.

    256 symbols fit Piper's default phoneme map, so the checkpoint speaks without a config.json.
    """
    torch = pytest.importorskip("torch")
    from engines.torch.vits import Synthesizer, VitsConfig

    def make(path: Path, seed: int = 7) -> Path:
        torch.manual_seed(seed)
        config = VitsConfig.preset(
            "low",
            num_symbols=256,
            hidden_channels=32,
            inter_channels=32,
            filter_channels=64,
            n_layers=2,
            upsample_initial_channel=32,
        )
        model = Synthesizer(config)
        hparams = {**config.to_dict(), "sample_rate": 16000, "filter_length": 1024, "learning_rate": 2e-4}
        state = {f"model_g.{k}": v for k, v in model.state_dict().items()}
        lightning = {"pytorch-lightning_version": "2.6.0", "optimizer_states": []}  # what a resume checks for
        torch.save({"state_dict": state, "hyper_parameters": hparams, "epoch": 1, "global_step": 10, **lightning}, path)
        return path

    return make


def whole_last_ckpt(run: Path, make_tiny_checkpoint) -> Path:
    """A whole ``last.ckpt`` in ``run`` of the network its ``training.json`` names, as a resume checks it
    (``trainer.run.train.check_resumable``): a tiny checkpoint, and the run's model set to its hyper-parameters."""
    import torch

    from trainer.run.document import read_run, write_run

    path = make_tiny_checkpoint(run / "last.ckpt")
    held = torch.load(path, map_location="cpu", weights_only=False)["hyper_parameters"]
    document = read_run(run)
    model = {k: held.get(k, v) for k, v in document.config.get("model", {}).items()}
    write_run(replace(document, config={**document.config, "model": model}))
    return path


@pytest.fixture(scope="module")
def prepared_run(tmp_path_factory):
    """A run prepared on 40 target-voice clips (two held out) from joe, preset ``test``; not trained."""
    pytest.importorskip("lightning")
    from trainer.run.options import RunOptions
    from trainer.run.train import create_run

    folder = target_voice_slice(tmp_path_factory.mktemp("slice") / "piper-data", 40)
    out = tmp_path_factory.mktemp("runs") / "tune"
    return create_run(RunOptions(dataset=folder, out=out, start="joe", preset="test", epochs=2))


@pytest.fixture(scope="session")
def trio_voice(tmp_path_factory) -> Path:
    """A tiny 3-speaker voice (speakers ana, ben, cleo; 16 kHz; random weights), ``en_US-trio-low.onnx``."""
    torch = pytest.importorskip("torch")
    from piper.phoneme_ids import DEFAULT_PHONEME_ID_MAP

    from engines.torch.vits import Synthesizer, VitsConfig
    from trainer.checkpoints.export import voice_config, write_voice

    torch.manual_seed(5)
    tiny = dict(hidden_channels=32, inter_channels=32, filter_channels=64, n_layers=2, upsample_initial_channel=32)
    model = Synthesizer(VitsConfig.preset("low", num_symbols=256, num_speakers=3, **tiny)).eval()
    with torch.no_grad():
        for p in model.parameters():
            p.add_(torch.randn_like(p) * 0.05)
    id_map = {k: list(v) for k, v in DEFAULT_PHONEME_ID_MAP.items()}
    config = voice_config(model, id_map, 16000, speaker_id_map={"ana": 0, "ben": 1, "cleo": 2})
    path, _ = write_voice(model, tmp_path_factory.mktemp("trio") / "en_US-trio-low.onnx", config)
    return path


def piper_synthesizer(config):
    """piper-tts's own SynthesizerTrn with the same hyperparameters (the reference)."""
    from piper.train.vits.models import SynthesizerTrn

    c = config
    return SynthesizerTrn(
        n_vocab=c.num_symbols,
        spec_channels=c.spec_channels,
        segment_size=c.segment_size // c.hop_length,
        inter_channels=c.inter_channels,
        hidden_channels=c.hidden_channels,
        filter_channels=c.filter_channels,
        n_heads=c.n_heads,
        n_layers=c.n_layers,
        kernel_size=c.kernel_size,
        p_dropout=c.p_dropout,
        resblock=c.resblock,
        resblock_kernel_sizes=c.resblock_kernel_sizes,
        resblock_dilation_sizes=c.resblock_dilation_sizes,
        upsample_rates=c.upsample_rates,
        upsample_initial_channel=c.upsample_initial_channel,
        upsample_kernel_sizes=c.upsample_kernel_sizes,
        n_speakers=c.num_speakers,
        gin_channels=c.gin_channels,
        use_sdp=c.use_sdp,
    ).eval()


class SpeechServer:
    """A ``voice-studio serve`` process on 127.0.0.1 (a free port), as users start it."""

    def __init__(self, *args: str, env: dict | None = None, program: list[str] | None = None, cwd=None) -> None:
        """``program``: what runs ``serve`` (default: this Python's ``-m studio``); ``cwd``: where it runs."""
        import subprocess

        command = [*(program or [sys.executable, "-m", "studio"]), "serve", "--port", "0", *args]
        self.process = subprocess.Popen(
            command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, **(env or {})},
            cwd=cwd,
        )  # fmt: skip
        line = self.process.stdout.readline()
        if " on http" not in line:
            self.stop()
            raise RuntimeError(f"the server did not start: {line}{self.process.stderr.read()}")
        self.url = line.split(" on ")[1].split()[0]

    def health(self) -> dict:
        import httpx

        return httpx.get(f"{self.url}/health", timeout=5).json()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except Exception:
                self.process.kill()


@pytest.fixture(scope="session")
def speech_server():
    """One speech server for the session: the embedded voice, 2 workers."""
    server = SpeechServer("--workers", "2")
    yield server
    server.stop()


def write_started_run(run: Path, dataset: Path, *, epochs: int = 3, **options):
    """A run folder as a trainer leaves it after its first epoch (``training.json``, a run_start and one epoch
    event, no finish), without training: for tests of what reads runs. Returns the run's ``RunOptions``."""
    from trainer.events.log import EventLog
    from trainer.events.schema import Epoch, RunStart
    from trainer.run.document import RunDocument, write_run
    from trainer.run.options import RunOptions

    run.mkdir(parents=True, exist_ok=True)
    run_options = RunOptions(dataset=dataset, out=run, preset="test", epochs=epochs, **options)
    write_run(RunDocument(options=run_options, cache=dataset, config={"epochs": epochs, "batch_size": None}))
    log = EventLog(run / "events.jsonl")
    log.emit(RunStart(config={}, num_utterances=20, device="cpu", epochs=epochs, start="scratch"))
    times = {"seconds": 1.0, "train_s": 1.0, "val_s": 0.0, "preview_s": 0.0, "checkpoint_wait_s": 0.0}
    log.emit(Epoch(epoch=0, step=5, losses={"val_mel": 1.5}, learning_rates={}, **times))
    log.close()
    return run_options


SLOW_S = 1.0
"""A test measured at this many seconds or more (``tests/durations.tsv``) is marked ``slow``."""
DURATIONS = Path(__file__).with_name("durations.tsv")


def measured_seconds() -> dict[str, float]:
    """Each test's seconds in the last full run written down (``tools/suite_durations.py``), by node id."""
    if not DURATIONS.is_file():
        return {}
    rows = (line.split("\t", 1) for line in DURATIONS.read_text(encoding="utf-8").splitlines())
    return {node: float(seconds) for seconds, node in rows if not seconds.startswith("#")}


def pytest_collection_modifyitems(config, items):
    """Marks the tests measured at ``SLOW_S`` or more ``slow`` (``make check`` runs the others) and puts the
    heaviest files first, each file's tests in their own order: ``make test``'s workers take whole files
    (``--dist loadfile``) in this order, so none is left with a long file at the end."""
    seconds = measured_seconds()
    weight: dict[Path, float] = {}
    for item in items:
        took = seconds.get(item.nodeid, 0.0)
        weight[item.path] = weight.get(item.path, 0.0) + took
        if took >= SLOW_S:
            item.add_marker(pytest.mark.slow)
    items.sort(key=lambda item: -weight[item.path])
