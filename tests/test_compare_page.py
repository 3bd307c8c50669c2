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
    assert [c.model_path for c in page.comparison.candidates] == [first, second]  # as listed: best val_mel first
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)  # the previews, read at first show
    with qtbot.waitSignal(listen.lines_box.lines_chosen, timeout=120_000):
        listen.lines_box.load_held_out(run)
    assert len(page.comparison.lines) >= 2
    assert all(line.reference is not None for line in page.comparison.lines)
    _render(listen, qtbot)
    labels = [c.label for c in page.comparison.candidates]
    assert [b.text() for b in listen.buttons.buttons()] == ["1  ep 2", "2  ep 1"]
    assert [b.toolTip() for b in listen.buttons.buttons()] == labels

    listen.line_list.setFocus()
    listen.line_list.setCurrentRow(1)
    one, two = (page.comparison.rendered[(label, 1)] for label in labels)
    assert not np.array_equal(one.audio, two.audio)  # two checkpoints: different audio
    assert np.array_equal(listen.view.audio, one.audio) and listen.view.title.text().startswith("1 ·")
    qtbot.waitUntil(lambda: listen.view.image.image is not None, timeout=30_000)  # drawn off the GUI thread
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
    assert listen.status.text() == "Line 1 has no reference recording"
    qtbot.wait(200)
    assert len(capture.samples()) == 0


def test_open_run_checks_the_ranked_checkpoints_and_start_voice_and_renders_its_held_out_lines(page, qtbot, run):
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)  # the previews, read at first show
    with qtbot.waitSignal(listen.lines_box.lines_chosen, timeout=120_000):
        page.open_run(run)
    # rendered as soon as the held-out lines are read (from the cache when another test rendered them first)
    qtbot.waitUntil(lambda: bool(page.comparison.rendered) and not listen.slot.busy(), timeout=180_000)
    assert [c.label for c in page.comparison.candidates] == [  # as the list shows them: best val_mel first
        "epoch 2 · val_mel 0.7100",
        "epoch 1 · val_mel 0.9500",
        "start: joe",
    ]
    assert page.comparison.missing() == 0, listen.status.text()
    assert page.comparison.folder() == run.absolute()
    again = listen.start_render()  # the same selection again: every clip from the cache
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=30_000)
    assert again is not None and f", {len(page.comparison.rendered)} from the cache" in listen.status.text()


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


def test_a_voice_that_cannot_render_is_a_status_line_and_the_others_render(page, qtbot, tmp_path, joe):
    """A broken .onnx among the candidates: the others (joe, after it) are still rendered; the status says in one
    readable line naming the file why it failed, its button is marked with the reason as tooltip; a file that is
    no voice at all is refused when added, by name."""
    listen = page.listen
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    listen.candidates_box.add_files([broken, tmp_path / "notes.txt"])
    assert "notes.txt" in listen.status.text() and "candidate is a .ckpt checkpoint or an .onnx voice" in (
        listen.status.text()
    )
    assert [c.label for c in page.comparison.candidates] == ["broken"]
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    listen.lines_box.choose_typed("One line.")
    listen.start_render()
    qtbot.waitUntil(lambda: not listen.slot.busy(), timeout=60_000)
    assert set(page.comparison.rendered) == {("joe", 0)}
    status = listen.status.text()
    assert status.startswith("Rendered 1 clip, ") and "cannot render broken: " in status and "broken.onnx" in status
    assert "Traceback" not in status and "\n" not in status
    button = listen.buttons.button(0)
    assert button.text().startswith("1  ⚠ broken") and "broken.onnx" in button.toolTip()
    assert "cannot be rendered" in listen.view.title.text()


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
print("notice:", page.notice.text(), page.notice.isVisibleTo(page))
"""


def test_no_output_device_is_the_pages_notice(tmp_path):
    """With no sound device, Space says so in the notice above the page's tabs (the render is there; nothing
    crashes)."""
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
    assert (
        "notice: Cannot play audio: " in result.stdout
        and result.stdout.rstrip().endswith("True")
        and "Traceback" not in result.stdout + result.stderr
    )


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
    assert f", {kept or 'none'} from the cache" in listen.status.text()


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


def _clips(page, tmp_path, texts, label="joe"):
    """Typed lines ``texts`` (the second with a recording), and renders of them made here (a 0.5 s tone each)."""
    import soundfile

    from trainer.evaluate.lines import Line
    from trainer.evaluate.render import Rendered

    rate = 22050
    tone = (0.3 * np.sin(np.arange(rate // 2) * 2 * np.pi * 220 / rate)).astype(np.float32)
    soundfile.write(tmp_path / "ref.wav", tone, rate)
    lines = [
        Line(name=f"line {n}", text=t, reference=tmp_path / "ref.wav" if n == 2 else None)
        for n, t in enumerate(texts, start=1)
    ]
    page.comparison.set_lines(lines)
    page.comparison.add_rendered(
        {
            (label, i): Rendered(audio=tone, sample_rate=rate, path=tmp_path / "x.wav", cached=True)
            for i in range(len(lines))
        }
    )


def test_a_line_and_the_reference_draw_their_mel_off_the_gui_thread(page, qtbot, joe, tmp_path, monkeypatch):
    """Selecting a line (and R, the reference recording) computes the mel spectrogram on a worker thread, showing
    "drawing…" until it arrives: librosa is never imported or run on the GUI thread."""
    import threading

    import studio.widgets.mel_view as mel_view

    threads, real = [], mel_view.mel_db
    monkeypatch.setattr(
        mel_view, "mel_db", lambda audio, rate: threads.append(threading.current_thread()) or real(audio, rate)
    )
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    _clips(page, tmp_path, ["One.", "Two."])
    with qtbot.waitSignal(listen.view.mel_drawn, timeout=30_000):
        listen.line_list.setCurrentRow(1)
        assert listen.view.mel.getPlotItem().titleLabel.text == "drawing…"
    assert listen.view.image.image.shape[0] == 80
    listen.line_list.setFocus()
    with qtbot.waitSignal(listen.view.mel_drawn, timeout=30_000):
        qtbot.keyClick(listen.line_list, Qt.Key.Key_R)
        assert listen.view.title.text().startswith("Reference")
    listen.player.stop()
    assert len(threads) >= 2 and threading.main_thread() not in threads  # the line, the reference (and the warm-up)


def test_renders_of_pairs_still_selected_are_kept_and_the_status_says_what_is_rendered(page, qtbot, joe, tmp_path):
    """A line added to the typed text keeps the other lines' renders (under their indexes) and the status counts
    the clips rendered now; a changed setting drops them all."""
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    _clips(page, tmp_path, ["One.", "Two."])
    listen.lines_box.choose_typed("Zero.\nOne.\nTwo.")
    assert [line.text for line in page.comparison.lines] == ["Zero.", "One.", "Two."]
    assert set(page.comparison.rendered) == {("joe", 1), ("joe", 2)}
    assert listen.status.text() == "1 clip not rendered yet (2 of 3 rendered): press Render"
    listen.settings_box.seed.setValue(7)
    assert page.comparison.rendered == {} and listen.status.text() == "3 clips not rendered yet: press Render"


def test_each_render_shows_as_it_finishes(page, qtbot, joe):
    """Three lines by joe: the comparison (and the view) gets each clip as it is rendered, not all at the end."""
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    listen.candidates_box.add([Candidate(label="joe", model_path=joe.model_path)])
    listen.lines_box.choose_typed("First one.\nSecond one.\nThird one.")
    counts = []
    page.comparison.events.rendered_changed.connect(lambda renders: counts.append(len(renders)))
    _render(listen, qtbot)
    assert counts == [1, 2, 3] and listen.status.text().startswith("Rendered 3 clips")


def test_comparison_keeps_a_candidates_renders_under_its_new_label(tmp_path):
    from trainer.evaluate.render import Rendered

    comparison = Comparison()
    a, b = (Candidate(label=n, model_path=tmp_path / f"{n}.onnx") for n in "ab")
    comparison.set_candidates([a, b])
    comparison.set_lines([__import__("trainer.evaluate.lines", fromlist=["Line"]).Line(name="l", text="Hi.")])
    clip = Rendered(audio=np.zeros(4, np.float32), sample_rate=22050, path=tmp_path / "c.wav", cached=True)
    comparison.add_rendered({("a", 0): clip, ("b", 0): clip})
    comparison.set_candidates([Candidate(label="run · b", model_path=b.model_path)])
    assert comparison.rendered == {("run · b", 0): clip}


def test_an_empty_lines_file_or_empty_typed_text_clears_the_lines(page, qtbot, tmp_path):
    """A lines file with no line leaves no lines (not the typed ones before) and says why; choosing Typed text
    (empty) drops the lines of the file before: what is listed is the source shown."""
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    listen.lines_box.choose_typed("Typed one.\nTyped two.")
    assert listen.line_list.count() == 2
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with qtbot.waitSignal(listen.lines_box.message, timeout=30_000):
        listen.lines_box.load_file(tmp_path / "empty.txt")
    assert page.comparison.lines == [] and listen.line_list.count() == 0
    assert listen.lines_box.source.currentText() == "Lines file…" and "empty.txt" in listen.status.text()
    (tmp_path / "two.txt").write_text("File one.\nFile two.\n")
    with qtbot.waitSignal(listen.lines_box.lines_chosen, timeout=30_000):
        listen.lines_box.load_file(tmp_path / "two.txt")
    assert listen.line_list.count() == 2
    listen.lines_box.text.clear()
    listen.lines_box.choose_typed()
    assert page.comparison.lines == [] and listen.line_list.count() == 0
    assert listen.start_render() is None


def test_a_voice_listed_again_says_already_listed_and_is_checked(page, qtbot, joe, tmp_path):
    listen, box = page.listen, page.listen.candidates_box
    box.add([Candidate(label="joe", model_path=joe.model_path)])
    box.list.item(0).setCheckState(Qt.CheckState.Unchecked)
    assert page.comparison.candidates == []
    box.add([Candidate(label="joe", model_path=joe.model_path)])  # the library voice's Add
    assert box.list.count() == 1 and listen.status.text() == "Already listed: joe (checked)"
    assert [c.label for c in page.comparison.candidates] == ["joe"]
    box.list.item(0).setCheckState(Qt.CheckState.Unchecked)
    box.add_files([joe.model_path])  # Add voice file… of the same file
    assert box.list.count() == 1 and [c.label for c in page.comparison.candidates] == ["joe"]
    assert listen.status.text() == "Already listed: joe (checked)"


def test_open_run_again_checks_exactly_that_runs_candidates_named_by_run(page, qtbot, run, tmp_path):
    """ "Compare checkpoints" of a second run: its ranked checkpoints and the start voice (listed already by the
    first run) are checked, the first run's unchecked, nothing listed twice, labels name the run."""
    import shutil

    listen, box = page.listen, page.listen.candidates_box
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    other = shutil.copytree(run, tmp_path / "tune-b")
    for folder in (run, other):
        page.open_run(folder)
        listen._render_when_lines = False  # the renders are not what this test is about
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    files = [e.candidate.model_path.absolute() for e in box.entries()]
    assert len(files) == len(set(files))
    checked = {e.candidate.model_path.absolute(): e.candidate.label for e in box.entries(checked_only=True)}
    ranked = {(other / "checkpoints" / name).absolute() for _, name in RANKING}
    starts = {e.candidate.model_path.absolute() for e in box.entries() if "start: " in e.candidate.label}
    assert len(starts) == 1 and set(checked) == ranked | starts
    assert all(checked[f].startswith("tune-b/epoch") for f in ranked)
    assert not any("(2)" in e.candidate.label for e in box.entries())
    assert any(e.candidate.label.startswith(f"{run.name}/epoch") for e in box.entries())


def test_candidate_buttons_elide_on_the_right_and_keep_their_key(page, qtbot, tmp_path):
    long = "epoch 12 · val_mel 0.61712345 · a long checkpoint label"
    page.comparison.set_candidates(Candidate(label=f"{long} {n}", model_path=tmp_path / f"{n}.ckpt") for n in range(7))
    for width in (1200, 800):
        page.resize(width, 800)
        QApplication.processEvents()
        for index, button in enumerate(page.listen.buttons.buttons()):
            assert button.text().startswith(f"{index + 1}  ") and button.text().endswith("…"), button.text()
            assert button.fontMetrics().horizontalAdvance(button.text()) <= button.width()
            assert button.toolTip() == f"{long} {index}"
    page.comparison.set_candidates(Candidate(label=f"v{n}", model_path=tmp_path / f"{n}.onnx") for n in range(3))
    row = page.listen.buttons_row  # the old buttons leave the row at once, not when their deletion comes round
    assert [row.itemAt(i).widget().text() for i in range(row.count())] == ["1  v0", "2  v1", "3  v2"]


def test_empty_plots_show_a_placeholder_and_the_render_button_stays_put(page, qtbot, tmp_path):
    listen = page.listen
    view = listen.view
    assert view.stack.currentWidget() is view.placeholder
    for plot, side in ((view.mel, "left"), (view.mel, "bottom"), (view.waveform, "bottom")):
        axis = plot.getPlotItem().getAxis(side)
        assert not axis.autoSIPrefix and axis.labelUnits == ""
    before = listen.render_button.mapTo(listen, listen.render_button.rect().topLeft())
    listen.progress.setVisible(True)
    QApplication.processEvents()
    assert listen.render_button.mapTo(listen, listen.render_button.rect().topLeft()) == before


def _left_to_right(buttons) -> list:
    """``buttons`` in reading order: by row (top first), then left to right."""
    return sorted(buttons, key=lambda b: (b.mapToGlobal(b.rect().topLeft()).y(), b.mapToGlobal(b.rect().topLeft()).x()))


def test_number_keys_and_buttons_follow_the_lists_order_and_r_leaves_none_pressed(page, qtbot, tmp_path):
    """Candidates listed as a run lists them (best val_mel first, then last, then the start voice): the buttons
    read in that order from the left (key 1 is the top checked entry), key 2 picks the second; after R (the
    reference recording) no candidate button looks pressed until a key picks one again; the list sorted
    otherwise (by name) reorders buttons and keys with it."""
    labels = ["epoch 6 · val_mel 0.6120", "epoch 4 · val_mel 0.6231", "epoch 1 · val_mel 0.7100", "last", "start: joe"]
    listen = page.listen
    qtbot.waitUntil(lambda: not listen.lines_box.slot.busy(), timeout=120_000)
    listen.candidates_box.add([Candidate(label=t, model_path=tmp_path / f"{n}.ckpt") for n, t in enumerate(labels)])
    _clips(page, tmp_path, ["One.", "Two."], label="start: joe")
    QApplication.processEvents()
    buttons = _left_to_right(listen.buttons.buttons())
    assert [b.text() for b in buttons] == ["1  ep 6", "2  ep 4", "3  ep 1", "4  last", "5  start"]
    assert [b.toolTip() for b in buttons] == labels
    listen.line_list.setFocus()
    listen.line_list.setCurrentRow(1)
    qtbot.keyClick(listen.line_list, Qt.Key.Key_2)
    assert [b.isChecked() for b in buttons] == [False, True, False, False, False]
    assert listen.view.title.text().startswith("2 · epoch 4 · val_mel 0.6231")
    qtbot.keyClick(listen.line_list, Qt.Key.Key_R)
    assert listen.view.title.text().startswith("Reference recording")
    assert not any(b.isChecked() for b in buttons)
    listen.player.stop()
    qtbot.keyClick(listen.line_list, Qt.Key.Key_4)
    assert [b.isChecked() for b in buttons] == [False, False, False, True, False]
    assert listen.view.title.text().startswith("4 · last")

    box = listen.candidates_box
    box.list.item(3).setCheckState(Qt.CheckState.Unchecked)  # "last" left out: the keys close up
    box.list.sortItems(Qt.SortOrder.DescendingOrder)  # start: joe, epoch 6, epoch 4, epoch 1 (last unchecked)
    QApplication.processEvents()
    shown = [e.candidate.label for e in box.entries(checked_only=True)]
    assert shown == [labels[4], labels[0], labels[1], labels[2]]
    buttons = _left_to_right(listen.buttons.buttons())
    assert [b.text() for b in buttons] == ["1  start", "2  ep 6", "3  ep 4", "4  ep 1"]
    assert [b.toolTip() for b in buttons] == shown
    qtbot.keyClick(listen.line_list, Qt.Key.Key_1)
    assert listen.view.title.text().startswith("1 · start: joe") and buttons[0].isChecked()


def test_a_runs_candidate_buttons_show_whole_short_labels_in_a_1024_by_640_window(qtbot, tmp_path):
    """A run's eight candidates (five ranked epochs, last, export, the start voice) in a 1024×640 main window:
    every button shows its key and whole short label ("2  ep 8", none cut to "…"), within its own width and
    inside the window; the full label is its tooltip."""
    from conftest import shown_window
    from PySide6.QtWidgets import QStyle

    window = shown_window(qtbot, tmp_path / "runs", "Compare")
    listen = window.compare_page.listen
    labels = [f"epoch {e} · val_mel 0.{600 + e}" for e in (12, 9, 11, 10, 8)] + ["last", "export", "start: joe"]
    listen.candidates_box.add([Candidate(label=t, model_path=tmp_path / f"{n}.ckpt") for n, t in enumerate(labels)])
    qtbot.waitUntil(lambda: all(b.isVisible() for b in listen.buttons.buttons()))  # shown and laid out
    QApplication.processEvents()
    buttons = _left_to_right(listen.buttons.buttons())
    shown = ["ep 12", "ep 9", "ep 11", "ep 10", "ep 8", "last", "export", "start"]  # as listed
    assert [b.text() for b in buttons] == [f"{n}  {text}" for n, text in enumerate(shown, start=1)]
    assert buttons[4].toolTip() == "epoch 8 · val_mel 0.608" and buttons[7].toolTip() == "start: joe"
    inside = window.rect()
    for button in buttons:
        margin = 2 * button.style().pixelMetric(QStyle.PixelMetric.PM_ButtonMargin)
        assert button.fontMetrics().horizontalAdvance(button.text()) + margin <= button.width(), button.text()
        corner = button.mapTo(window, button.rect().topLeft())
        assert button.isVisible() and inside.contains(corner) and inside.contains(corner + button.rect().bottomRight())
    window.close()
    listen.slot.join(30)
    gc.collect()


def test_a_long_line_elides_in_the_lines_list_and_shows_whole_in_its_tooltip(page, qtbot):
    """A line longer than the lines list ends in "…" inside it (it was cut at the right edge, scrolling sideways),
    and its tooltip is the whole line."""
    listen = page.listen
    long_line = "It was a bright cold day in April, and the clocks were striking thirteen. " * 3
    listen.lines_box.choose_typed(f"Short.\n{long_line.strip()}")
    qtbot.waitUntil(lambda: listen.line_list.count() == 2, timeout=5_000)
    item, viewport = listen.line_list.item(1), listen.line_list.viewport()
    assert listen.line_list.visualItemRect(item).right() <= viewport.rect().right()
    assert not listen.line_list.horizontalScrollBar().isVisible()
    assert item.toolTip().endswith(long_line.strip()) and item.toolTip().startswith(item.text())
