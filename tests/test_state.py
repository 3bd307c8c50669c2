"""The studio's state layer: Qt-free models (``studio.state``), the views that observe them, and the one
``engines.pool.EnginePool`` (real voice joe, real ONNX engine, Qt offscreen for the views)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import threading

import pytest

from engines.remote.settings import RemoteSettings


@pytest.fixture
def joe_copy(joe, tmp_path):
    """An added voice: joe's model (a link) and config under another name."""
    from engines.voice import load_voice

    model = tmp_path / "copied.onnx"
    model.symlink_to(joe.model_path)
    shutil.copyfile(joe.config.path, tmp_path / "copied.onnx.json")
    return load_voice(model)


def test_state_imports_no_qt_and_pool_no_heavy_package():
    """studio.state and engines.pool load neither PySide6 nor torch nor onnxruntime."""
    code = "import sys, studio.state, engines.pool; print(sorted({m.split('.')[0] for m in sys.modules}))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    loaded = result.stdout
    assert "studio" in loaded and not any(f"'{m}'" in loaded for m in ("PySide6", "torch", "onnxruntime"))


def test_library_events_reach_listeners_in_order(joe, joe_copy):
    """add/replace/remove change the list and emit added/replaced/removed then changed; a second add of the same
    file changes nothing; a listener whose object is gone is no longer called."""
    from studio.state import VoiceLibrary

    library, seen = VoiceLibrary([joe]), []
    for name in ("added", "removed", "replaced", "changed"):
        getattr(library.events, name).connect(lambda value, name=name: seen.append((name, value)))
    assert library.add(joe_copy) and not library.add(joe_copy)
    assert [n for n, _ in seen] == ["added", "changed"] and seen[1][1] == [joe, joe_copy]
    renamed = type(joe_copy)(name="renamed", model_path=joe_copy.model_path, config=joe_copy.config)
    library.replace(joe_copy, renamed)
    library.remove(renamed)
    assert [n for n, _ in seen[2:]] == ["replaced", "changed", "removed", "changed"]
    assert seen[2][1].index == 1 and seen[4][1].index == 1 and library.voices == [joe]

    class View:
        def on_added(self, voice) -> None:
            raise AssertionError("a gone view was called")

    view = View()
    library.events.added.connect(view.on_added)
    del view
    library.add(joe_copy)


def test_a_voice_added_to_the_library_shows_in_the_picker_and_the_train_start_list(qtbot, tmp_path, joe_copy):
    """Two views of one VoiceLibrary: adding a voice lists and selects it in the VoicePicker and offers it as a
    start on the Train page; removing it takes it out of both; the picker's Add adds to the library."""
    from studio.pages.train import TrainPage
    from studio.state import VoiceLibrary, Workspace
    from studio.widgets.voice_picker import VoicePicker

    library = VoiceLibrary()
    library.load()
    picker = VoicePicker(library)
    train = TrainPage(Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices"), library)
    for widget in (picker, train):
        qtbot.addWidget(widget)
    starts = lambda: [train.setup.start.itemData(i) for i in range(train.setup.start.count())]  # noqa: E731
    before = starts()
    assert library.add(joe_copy)
    assert picker.voice is joe_copy and "copied" in picker.box.currentText()
    assert starts() == [*before, str(joe_copy.model_path)]
    library.remove(joe_copy)
    assert picker.box.count() == len(library) and picker.voice.origin == "embedded" and starts() == before
    assert [v.name for v in picker.add_files([joe_copy.model_path])] == ["copied"]
    assert library.find(joe_copy.model_path) is not None and starts() == [*before, str(joe_copy.model_path)]


def test_workspace_remote_and_the_remote_panel_follow_each_other(qtbot):
    """Setting Workspace.remote fills the panel's fields; editing a field writes the workspace (an invalid URL
    leaves the last valid settings); the API key is in the workspace, never in the settings record."""
    from studio.settings import remote_record
    from studio.state import Workspace
    from studio.widgets.remote_panel import RemotePanel

    workspace = Workspace()
    panel = RemotePanel(workspace)
    qtbot.addWidget(panel)
    workspace.remote = RemoteSettings(url="http://127.0.0.1:6000", model="m1", voice="v1", response_format="wav")
    shown = (
        panel.url.text(),
        panel.model.currentText(),
        panel.voice.currentText(),
        panel.response_format.currentText(),
    )
    assert shown == ("http://127.0.0.1:6000", "m1", "v1", "wav")
    panel.voice.setCurrentText("ben")
    panel.api_key.setText("secret")
    assert (workspace.remote.voice, workspace.remote.api_key) == ("ben", "secret")
    panel.url.setText("ftp://nowhere")
    assert workspace.remote.url == "http://127.0.0.1:6000"
    assert "secret" not in str(remote_record(workspace.remote))


def test_settings_are_read_into_the_models_and_written_from_them(tmp_path, joe_copy):
    """A settings file's added voice and remote fields become the library's and the workspace's; after changes,
    take() writes what the models hold; a remote URL that is not valid is reported and the default stays."""
    from studio.settings import Settings
    from studio.state import DEFAULT_REMOTE, VoiceLibrary, Workspace

    remote = {"url": "http://127.0.0.1:7000", "model": "en_US-joe-medium", "voice": "default"}
    settings = Settings(voices=[str(joe_copy.model_path)], remote=remote)
    library, workspace = VoiceLibrary(), Workspace()
    found = settings.apply(library, workspace)
    assert found.errors == [] and [v.name for v in library.voices][-1] == "copied"
    assert (workspace.remote.url, workspace.remote.model, workspace.remote.response_format) == (
        "http://127.0.0.1:7000",
        "en_US-joe-medium",
        "pcm",
    )
    library.remove(library.voices[-1])
    workspace.remote = RemoteSettings(url="http://10.0.0.1:5050", api_key="k", model="tts-1", voice="nova")
    settings.take(library, workspace)
    settings.save(tmp_path / "settings.json")
    again = Settings.load(tmp_path / "settings.json")
    assert again.voices == [] and again.remote["url"] == "http://10.0.0.1:5050" and "api_key" not in again.remote
    bad = Settings(remote={"url": "ftp://nowhere"}).apply(VoiceLibrary(), workspace := Workspace())
    assert "ftp://nowhere" in str(bad.errors[0]) and workspace.remote == DEFAULT_REMOTE


def test_spoken_lines_show_in_the_history_newest_first(qtbot):
    """SpokenLines.add puts a line first in the HistoryList, which keeps the Line for replay."""
    import numpy as np
    from PySide6.QtCore import Qt

    from studio.speaking import Line
    from studio.state import SpokenLines
    from studio.widgets.history import HistoryList

    lines = SpokenLines()
    lines.add(Line("First.", "joe", 22050, np.zeros(10, np.float32)))
    history = HistoryList(lines)
    qtbot.addWidget(history)
    second = Line("Second line.", "joe", 22050, np.zeros(20, np.float32))
    lines.add(second)
    assert [history.item(i).text() for i in range(history.count())] == ["joe: Second line.", "joe: First."]
    assert history.item(0).data(Qt.ItemDataRole.UserRole) is second


def test_engine_pool_loads_one_engine_per_key_across_threads(joe, joe_copy):
    """Eight threads asking at once for joe's ONNX engine get one object, made once; another voice gets its own;
    checkout gives an engine no one else holds, reused after checkin; a failed load keeps nothing."""
    from engines.base import EngineError
    from engines.pool import EnginePool
    from engines.registry import create_engine

    made = []

    def make(name, voice):
        made.append((name, voice.name))
        return create_engine(name, voice)

    pool, start = EnginePool(make), threading.Barrier(8)
    got: list = []

    def ask() -> None:
        start.wait()
        got.append(pool.get("onnx", joe))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(got) == 8 and all(engine is got[0] for engine in got) and made == [("onnx", joe.name)]
    assert pool.get("onnx", joe_copy) is not got[0] and len(made) == 2
    own = pool.checkout("onnx", joe)
    assert own is not got[0] and len(made) == 3
    pool.checkin("onnx", joe, own)
    assert pool.checkout("onnx", joe) is own and len(made) == 3
    with pytest.raises(EngineError, match="unknown engine"):
        pool.get("nope", joe)
    assert [name for name, _ in pool.loaded()] == ["onnx"] * 3


def test_a_voice_file_written_again_gets_a_new_engine(joe, tmp_path):
    """A run exported again to the same name replaces the voice file: the pool makes a new engine for it instead of
    speaking the previous export (the key holds the file's modification time and size, not only its path)."""
    import os

    from engines.pool import EnginePool
    from engines.voice import config_path_for, load_voice

    made = []

    def make(name, voice, **kwargs):
        made.append(voice.model_path)
        return object()

    copy = tmp_path / "tuned.onnx"
    shutil.copy(joe.model_path, copy)
    shutil.copy(config_path_for(joe.model_path), tmp_path / "tuned.onnx.json")
    pool, voice = EnginePool(make), load_voice(copy)
    first = pool.get("onnx", voice)
    assert pool.get("onnx", voice) is first and len(made) == 1
    shutil.copy(joe.model_path, copy)  # the same bytes written again: a new file as far as anyone can tell
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 1_000_000_000))
    assert pool.get("onnx", voice) is not first and len(made) == 2
