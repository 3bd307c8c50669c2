"""The Compare page's Listen tab driven as a user drives it: a tiny run's checkpoints rendered on its held-out
lines (real torch engine), keys that switch candidates at the same position, the reference recording played
through the real audio output (ALSA captured to a file), Qt offscreen."""

from __future__ import annotations

import gc
import json

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from studio.comparison import Comparison, compare_dir
from trainer.evaluate.render import Candidate

pytest.importorskip("lightning")
pytestmark = pytest.mark.gui

RANKING = [[0.71, "best-epoch=0001-val_mel=0.7100.ckpt"], [0.95, "best-epoch=0000-val_mel=0.9500.ckpt"]]


@pytest.fixture
def run(prepared_run, make_tiny_checkpoint):
    """The prepared run with two ranked tiny checkpoints of different weights."""
    (prepared_run / "checkpoints").mkdir(exist_ok=True)
    for seed, (_, name) in enumerate(RANKING):
        make_tiny_checkpoint(prepared_run / "checkpoints" / name, seed=seed)
    (prepared_run / "checkpoints" / "best.json").write_text(json.dumps({"metric": "val_mel", "ranking": RANKING}))
    return prepared_run


@pytest.fixture
def page(qtbot, tmp_path):
    from engines.pool import EnginePool
    from studio.pages.compare import ComparePage
    from studio.state import VoiceLibrary, Workspace

    workspace = Workspace(runs_dir=tmp_path / "runs", voices_dir=tmp_path / "voices")
    page = ComparePage(workspace, VoiceLibrary(), EnginePool())
    qtbot.addWidget(page)
    page.resize(1200, 800)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is page, timeout=5_000)  # shortcuts need an active window
    yield page
    page.shutdown()
    page.listen.slot.join(30)
    gc.collect()


def _played(capture) -> np.ndarray:
    """What the device received, without the silence PortAudio primes it with."""
    played = capture.samples()
    return played[np.argmax(played != 0) :]


def _render(listen, qtbot) -> None:
    task = listen.start_render()
    assert task is not None, listen.status.text()
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=120_000)
    assert listen.comparison.missing() == 0, listen.status.text()


def test_two_checkpoints_render_then_keys_switch_at_the_same_position_and_r_plays_the_reference(
    page, qtbot, run, capture
):
    listen = page.listen
    listen.candidates_box.add_run(run)
    first, second = (run / "checkpoints" / name for _, name in RANKING)
    listen.candidates_box.check_only({first.absolute(), second.absolute()})
    assert [c.model_path for c in page.comparison.candidates] == [first, second]
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)  # the previews, read at first show
    with qtbot.waitSignal(listen.lines_box.lines_chosen, timeout=120_000):
        listen.lines_box.load_held_out(run)
    assert len(page.comparison.lines) >= 2
    assert all(line.reference is not None for line in page.comparison.lines)
    _render(listen, qtbot)
    labels = [c.label for c in page.comparison.candidates]
    assert [b.text() for b in listen.buttons.buttons()] == [f"1  {labels[0]}", f"2  {labels[1]}"]

    listen.line_list.setFocus()
    listen.line_list.setCurrentRow(1)
    one, two = (page.comparison.rendered[(label, 1)] for label in labels)
    assert not np.array_equal(one.audio, two.audio)  # two checkpoints: different audio
    assert np.array_equal(listen.view.audio, one.audio) and listen.view.title.text().startswith("1 ·")
    assert listen.view.image.image.shape[0] == 80  # the mel spectrogram beside the waveform

    listen.seek(0.25)
    qtbot.keyClick(listen.line_list, Qt.Key.Key_2)
    assert listen.current == 1 and np.array_equal(listen.view.audio, two.audio)
    assert listen.player.position_s() == pytest.approx(0.25, abs=1 / two.sample_rate)  # the same position, in 2
    capture.reset()
    qtbot.keyClick(listen.line_list, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: not listen.player.is_playing(), timeout=10_000)
    start = round(0.25 * two.sample_rate)
    expected = two.audio[start:] * listen.player.gain(two.audio, two.sample_rate)
    np.testing.assert_allclose(_played(capture)[: len(expected)], np.clip(expected, -1, 1), atol=1e-6)

    capture.reset()
    qtbot.keyClick(listen.line_list, Qt.Key.Key_R)
    qtbot.waitUntil(lambda: not listen.player.is_playing(), timeout=20_000)
    reference, rate = page.comparison.lines[1].reference_audio()
    played = _played(capture)
    assert abs(len(played) - len(reference)) < 0.1 * rate and listen.view.title.text().startswith("Reference")
    assert "no reference" not in listen.status.text()


def test_r_without_a_recording_says_so_and_nothing_plays(page, qtbot, capture, joe):
    """Typed lines have no recording: R says so in the status line and plays nothing."""
    listen = page.listen
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    listen.lines_box.choose_typed("A typed line.")
    qtbot.keyClicks(listen.lines_box.text, " 2R ")  # typing in the page: text, not shortcuts
    assert listen.lines_box.text.toPlainText() == "A typed line. 2R " and listen.current == 0
    _render(listen, qtbot)
    capture.reset()
    listen.line_list.setFocus()
    qtbot.keyClick(listen.line_list, Qt.Key.Key_R)
    assert listen.status.text() == "line 1 has no reference recording"
    qtbot.wait(200)
    assert len(capture.samples()) == 0


def test_open_run_checks_the_ranked_checkpoints_and_start_voice_and_renders_its_held_out_lines(page, qtbot, run):
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)  # the previews, read at first show
    with qtbot.waitSignal(listen.lines_box.lines_chosen, timeout=120_000):
        page.open_run(run)
    # rendered as soon as the held-out lines are read (from the cache when another test rendered them first)
    qtbot.waitUntil(lambda: bool(page.comparison.rendered) and not listen.slot.busy(), timeout=180_000)
    assert [c.label for c in page.comparison.candidates] == [
        "epoch 2 · val_mel 0.7100",
        "epoch 1 · val_mel 0.9500",
        "start: joe",
    ]
    assert page.comparison.missing() == 0, listen.status.text()
    assert page.comparison.folder() == run.absolute()
    again = listen.start_render()  # the same selection again: every clip from the cache
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=30_000)
    assert again is not None and f"({len(page.comparison.rendered)} from the cache)" in listen.status.text()


def test_comparison_folder_is_the_run_for_one_runs_candidates_else_a_hash_folder(run, joe, tmp_path):
    from trainer.evaluate.lines import run_candidates

    comparison = Comparison()
    comparison.set_candidates(run_candidates(run), run=run)
    assert comparison.folder() == run.absolute()
    comparison.set_candidates([c for c in run_candidates(run) if c.model_path.suffix == ".ckpt"])
    assert comparison.folder() == run.absolute()  # found from the files' own folder
    loose = [Candidate(label="joe", model_path=joe.model_path), *run_candidates(run)[:1]]
    comparison.set_candidates(loose)
    folder = comparison.folder()
    assert folder.parent == compare_dir() and len(folder.name) == 12
    changes = []
    comparison.events.changed.connect(changes.append)
    comparison.set_candidates(loose)
    assert changes == []  # the same selection: nothing changes (renders kept)
    comparison.set_candidates(reversed(loose))
    assert comparison.folder() == folder and len(changes) == 1  # the same files in another order: the same folder
    copy = tmp_path / "joe.onnx"
    copy.write_bytes(b"")
    comparison.set_candidates([*loose, Candidate(label="joe", model_path=copy), loose[0]])
    assert [c.label for c in comparison.candidates] == ["joe", loose[1].label, "joe (2)"]  # each file once


def test_a_voice_that_cannot_render_is_a_status_line(page, qtbot, tmp_path):
    """A broken .onnx among the candidates: Render ends with one readable line naming the file, no traceback;
    a file that is no voice at all is refused when added, by name."""
    listen = page.listen
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    listen.candidates_box.add_files([broken, tmp_path / "notes.txt"])
    assert "notes.txt" in listen.status.text() and "candidate is a .ckpt checkpoint or an .onnx voice" in (
        listen.status.text()
    )
    assert [c.label for c in page.comparison.candidates] == ["broken"]
    listen.lines_box.choose_typed("One line.")
    listen.start_render()
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=60_000)
    assert listen.status.text().startswith("Render failed: ") and "broken.onnx" in listen.status.text()
    assert "Traceback" not in listen.status.text() and "\n" not in listen.status.text()


NO_DEVICE_SCRIPT = """
import sys
from PySide6.QtWidgets import QApplication
from engines.pool import EnginePool
from engines.registry import default_voice
from studio.pages.compare import ComparePage
from studio.state import VoiceLibrary, Workspace
from trainer.evaluate.render import Candidate

app = QApplication([])
page = ComparePage(Workspace(runs_dir=sys.argv[1]), VoiceLibrary(), EnginePool())
listen = page.listen
listen.candidates_box.add([Candidate(label="joe", model_path=default_voice().model_path)])
listen.lines_box.choose_typed("Hello.")
listen.start_render().join(120)
app.processEvents()
listen.toggle_play()
print("status:", listen.status.text())
"""


def test_no_output_device_is_a_status_line(tmp_path):
    """With no sound device, Space says so in the status line (the render is there; nothing crashes)."""
    import os
    import subprocess
    import sys

    if not sys.platform.startswith("linux"):
        pytest.skip("the no-device setup uses an ALSA config")
    conf = tmp_path / "no-device.conf"
    conf.write_text("pcm.!default { type hw card 77 }\nctl.!default { type hw card 77 }\n")
    env = {**os.environ, "ALSA_CONFIG_PATH": str(conf), "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run(
        [sys.executable, "-c", NO_DEVICE_SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=180, env=env
    )
    assert result.returncode == 0, result.stderr
    assert "status: Cannot play audio: " in result.stdout and "Traceback" not in result.stdout + result.stderr


def test_cancel_keeps_the_finished_renders(page, qtbot, joe):
    """Cancel during a render of 12 lines: the renders finished so far are kept and shown, and the status says
    how many; rendering again takes those from the cache."""
    listen = page.listen
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    listen.lines_box.choose_typed("\n".join(f"This is test line number {n}." for n in range(1, 13)))
    task = listen.start_render()
    qtbot.waitUntil(lambda: listen.progress.bar.value() >= 1, timeout=60_000)
    assert listen.progress.text.text().startswith("Rendering ") and " / 12" in listen.progress.text.text()
    listen.progress.cancel_button.click()
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=60_000)
    kept = len(page.comparison.rendered)
    assert 1 <= kept < 12 and task.state.is_cancelled()
    assert listen.status.text() == f"Rendering cancelled: kept {kept} of 12"
    listen.line_list.setCurrentRow(0)
    assert listen.view.audio is not None
    _render(listen, qtbot)
    assert f"({kept} from the cache)" in listen.status.text()


def test_keys_act_only_while_the_listen_tab_has_focus(qtbot, tmp_path):
    """1–9, R and Space belong to the Listen tab: pressed in another widget of the window they do nothing (the
    Dataset page's Space, a typed digit elsewhere)."""
    from PySide6.QtWidgets import QHBoxLayout, QPushButton, QWidget

    from engines.pool import EnginePool
    from studio.pages.compare import ComparePage
    from studio.state import VoiceLibrary, Workspace

    window = QWidget()
    elsewhere = QPushButton("elsewhere")
    page = ComparePage(Workspace(runs_dir=tmp_path), VoiceLibrary(), EnginePool())
    layout = QHBoxLayout(window)
    layout.addWidget(elsewhere)
    layout.addWidget(page)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=5_000)
    page.listen.status.setText("-")
    elsewhere.setFocus()
    qtbot.keyClick(elsewhere, Qt.Key.Key_3)
    assert page.listen.status.text() == "-"
    page.listen.line_list.setFocus()
    qtbot.keyClick(page.listen.line_list, Qt.Key.Key_3)
    assert page.listen.status.text() == "There is no candidate 3"
    page.shutdown()
