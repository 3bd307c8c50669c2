"""One clip up close: its waveform with trim handles and a split cursor, its mel spectrogram under it
(``studio.widgets.mel_view.MelView``, the Compare page's), its text with a live phoneme preview.

The editor holds no dataset logic: it shows what it is given and emits what the
user asks for; the Dataset page carries the requests out
(``trainer.dataset.curation``). A typed text that differs from the saved one is
*pending* (:meth:`ClipEditor.pending_text`): the page saves it before it shows
another clip or runs any action, so an edit is never dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QLineEdit, QPushButton, QSplitter, QTableView, QVBoxLayout, QWidget

from engines.errors import VoiceStudioError
from studio.widgets.clip_table import DRAFT_COLOR, DRAFT_TIP
from studio.widgets.compact import keep_rows_visible, scrolled, split
from studio.widgets.elided_label import ElidedLabel
from studio.widgets.flow_layout import flow_row
from studio.widgets.mel_view import MelView
from studio.widgets.waveform import WaveformView

if TYPE_CHECKING:
    from trainer.dataset.curation import TextPreview

PREVIEW_DELAY_MS = 150
"""The phoneme preview follows typing after this pause."""
TABLE_ROWS = 6
"""The clip table is never squeezed under this many rows."""
EDITOR_WIDTH = 330
"""The editor's starting width beside the clip table (px); the splitter between them moves it."""
WAVEFORM_LEAST = 90
"""The waveform's least height (px): enough to see a clip's shape and place trim handles."""
MEL_LEAST = 70
"""The mel spectrogram's least height (px): its 80 bands at under a pixel each, enough to see pitch and noise."""
PLOT_MOST = 220
"""The waveform's and the mel spectrogram's greatest height (px): what is left goes under the buttons."""


def clips_and_editor(table: QTableView, editor: QWidget) -> QSplitter:
    """The clip ``table`` beside the ``editor`` in a draggable horizontal splitter.

    Beside (not under) the table, the editor's waveform, transcript and buttons (wrapping to the
    editor's width) all show on a 1024×640 screen while the table keeps ``TABLE_ROWS`` rows; the
    table gets what the window gains, and neither side can be dragged shut. On a window too short
    for the editor, its scroll area scrolls.
    """
    keep_rows_visible(table, TABLE_ROWS)
    table.setMinimumWidth(EDITOR_WIDTH)
    area = scrolled(editor)
    area.setMinimumWidth(EDITOR_WIDTH * 2 // 3)
    return split(Qt.Orientation.Horizontal, table, area, fixed=1, size=EDITOR_WIDTH)


class ClipEditor(QWidget):
    """Waveform (drag the shaded region's edges to trim, click to place the split cursor), mel spectrogram
    (``mel``, on the waveform's time axis) and text.

    Signals:
        text_saved(str, str): clip id, new text.
        confirm_requested(str): clip id whose draft text is right as it is.
        trim_requested(str, float, float): clip id, start and end in seconds.
        split_requested(str, float): clip id, split point in seconds.
        play_requested(str): clip id (also the space bar on the page).
    """

    text_saved = Signal(str, str)
    confirm_requested = Signal(str)
    trim_requested = Signal(str, float, float)
    split_requested = Signal(str, float)
    play_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.clip_id: str | None = None
        self.saved_text = ""
        """The clip's text as the manifest has it; the text box differs from it while an edit is pending."""
        self.duration_s = 0.0
        self.preview_function: Callable[[str], TextPreview] | None = None
        """``text -> trainer.dataset.curation.TextPreview`` (the text as spoken, its phonemes, phoneme_ids and the
        symbols the voice lacks) for the live preview; set by the page."""
        self.waveform = WaveformView()
        self.waveform.setMaximumHeight(PLOT_MOST)
        self.waveform.setMinimumHeight(WAVEFORM_LEAST)
        self.mel = MelView(axes=False)
        self.mel.setMaximumHeight(PLOT_MOST)
        self.mel.setMinimumHeight(MEL_LEAST)
        self.mel.setXLink(self.waveform)  # the same moment above and below
        self.mel.setToolTip("Mel spectrogram: 80 mel bands, low pitches at the bottom; brighter is louder")
        self._mel_audio: np.ndarray | None = None
        """The samples the mel spectrogram shows (or is being computed from)."""
        self.mel_note = QLabel()
        """Why the mel spectrogram is not drawn (librosa missing), else hidden."""
        self.mel_note.setWordWrap(True)
        self.mel_note.setVisible(False)
        self.mel.drawn.connect(self._on_mel_drawn)
        self.region = pg.LinearRegionItem(brush=pg.mkBrush(59, 130, 246, 40))
        self.cursor = pg.InfiniteLine(angle=90, movable=True, pen=pg.mkPen("#ef4444"))
        self.waveform.addItem(self.region)
        self.waveform.addItem(self.cursor)
        self.waveform.scene().sigMouseClicked.connect(self._on_waveform_clicked)
        self.text = QLineEdit()
        self.text.setPlaceholderText("Transcript")
        self.text.textEdited.connect(lambda _: self._preview_timer.start())
        self.text.returnPressed.connect(self._on_save_clicked)
        self.phonemes = ElidedLabel(elide=Qt.TextElideMode.ElideMiddle)
        """One line whatever the clip (a wrapped one pushed the buttons out of view): the phonemes' middle elides,
        keeping the phoneme_ids count at its end; the whole line is the tooltip."""
        self._preview_timer = QTimer(self)
        self._preview_timer.setSingleShot(True)
        self._preview_timer.setInterval(PREVIEW_DELAY_MS)
        self._preview_timer.timeout.connect(self.update_preview)
        self.buttons = {
            "play": QPushButton("Play (Space)"),
            "save": QPushButton("Save text"),
            "confirm": QPushButton("Confirm draft"),
            "trim": QPushButton("Trim to region"),
            "split": QPushButton("Split at cursor"),
        }
        self.buttons["play"].clicked.connect(lambda: self.clip_id and self.play_requested.emit(self.clip_id))
        self.buttons["save"].clicked.connect(self._on_save_clicked)
        self.buttons["confirm"].clicked.connect(lambda: self.clip_id and self.confirm_requested.emit(self.clip_id))
        self.buttons["trim"].clicked.connect(self._on_trim_clicked)
        self.buttons["split"].clicked.connect(self._on_split_clicked)
        row = self._button_row = flow_row(*self.buttons.values())  # wraps beside a narrow editor
        layout = self._column = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.waveform)
        layout.addWidget(self.mel)
        layout.addWidget(self.mel_note)
        layout.addWidget(self.text)
        layout.addWidget(self.phonemes)
        layout.addWidget(row)
        layout.addStretch(1)
        self.show_clip(None)

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """The least height (px) that shows everything at ``width`` px: the waveform and the mel spectrogram at
        their least heights, the transcript, the phonemes and the wrapped buttons. A scroll area holding the editor
        scrolls only below it, and gives the plots whatever is more (Qt's own answer would be their preferred
        heights)."""
        parts = (
            self.waveform.minimumHeight(),
            self.mel.minimumHeight(),
            self.mel_note.heightForWidth(width) if self.mel_note.isVisibleTo(self) else 0,
            self.text.sizeHint().height(),
            self.phonemes.sizeHint().height(),
            self._button_row.heightForWidth(width),
        )
        return sum(parts) + self._column.spacing() * (len(parts) - 1)

    def show_clip(
        self,
        clip_id: str | None,
        audio: np.ndarray | None = None,
        sample_rate: int = 22050,
        text: str = "",
        reviewed: bool = True,
        speech: tuple[float, float] | None = None,
    ) -> None:
        """Show a clip: ``audio`` float32 ``[N]``; the trim region starts on ``speech`` (seconds) or the whole clip.

        The same clip shown again at the same length (the page reloads after a job) keeps the trim region and
        split cursor where the user left them.
        """
        duration_s = 0.0 if audio is None else len(audio) / sample_rate
        same = clip_id is not None and clip_id == self.clip_id and duration_s == self.duration_s
        region, cursor = self.region.getRegion(), self.cursor.value()
        self.clip_id, self.duration_s, self.saved_text = clip_id, duration_s, text
        if audio is None:
            self.waveform.clear_audio(sample_rate)
        else:
            self.waveform.set_audio(audio, sample_rate)
        if not (same and _same_samples(audio, self._mel_audio)):  # a reload of the clip unchanged: drawn already
            self._mel_audio = audio
            self.mel.set_audio(audio, sample_rate)
        self.waveform.setXRange(0, max(self.duration_s, 0.1), padding=0)
        self.region.setBounds((0, self.duration_s))
        self.region.setRegion(region if same else speech or (0, self.duration_s))
        self.cursor.setBounds((0, self.duration_s))
        self.cursor.setValue(cursor if same else self.duration_s / 2)
        if not (same and self.text.text() == text):  # a reload keeps the text cursor where the user left it
            self.text.setText(text)
            self.text.setCursorPosition(0)  # a long transcript shows from its start (setText leaves it at its end)
        self.text.setStyleSheet("" if reviewed else f"background: {DRAFT_COLOR}")  # drafts stand out, as in the table
        self.text.setToolTip("" if reviewed else DRAFT_TIP)
        self.buttons["confirm"].setEnabled(clip_id is not None and not reviewed and bool(text))
        for name in ("play", "save", "trim", "split"):
            self.buttons[name].setEnabled(clip_id is not None)
        self.text.setEnabled(clip_id is not None)
        self.update_preview()

    def pending_text(self) -> str | None:
        """The typed text when it differs from the saved one (whitespace aside), else None."""
        typed = self.text.text()
        if self.clip_id is None or " ".join(typed.split()) == " ".join(self.saved_text.split()):
            return None
        return typed

    def take_pending(self) -> tuple[str, str] | None:
        """``(clip_id, text)`` of a pending edit, now counted as saved (the caller saves it); else None."""
        typed = self.pending_text()
        if typed is None:
            return None
        self.saved_text = typed
        return self.clip_id, typed

    def show_pending(self, text: str) -> None:
        """Put back an edit of the shown clip that is not saved yet (it stays pending)."""
        self.text.setText(text)
        self.update_preview()

    def update_preview(self) -> None:
        """Phonemes of the text as typed, with the phoneme_ids count and any symbols the voice lacks."""
        line = self._preview_line(self.text.text().strip())
        self.phonemes.setText(line)
        self.phonemes.setToolTip(line)

    def _preview_line(self, text: str) -> str:
        """The phoneme preview of ``text``, or why there is none; ``""`` for no text or no preview function."""
        if not text or self.preview_function is None:
            return ""
        try:
            preview = self.preview_function(text)
        except VoiceStudioError as exc:  # e.g. the project's voice names an espeak voice espeak-ng lacks
            return f"No phoneme preview: {exc}"
        line = f"{preview.phonemes}   ({preview.num_phoneme_ids} phoneme_ids)"
        if preview.normalized:  # the text front end says it otherwise than it is written: that first
            line = f'Reads "{preview.normalized}":   {line}'
        if preview.missing:
            line += "   missing from the voice: " + ", ".join(f"{s} ×{n}" for s, n in preview.missing.items())
        return line

    def _on_mel_drawn(self, why_not: str) -> None:
        """The mel spectrogram is on screen, or ``why_not`` is said under it."""
        self.mel_note.setText(why_not)
        self.mel_note.setVisible(bool(why_not))

    def _on_waveform_clicked(self, event) -> None:
        point = self.waveform.getPlotItem().vb.mapSceneToView(event.scenePos())
        if 0 <= point.x() <= self.duration_s:
            self.cursor.setValue(point.x())

    def _on_save_clicked(self) -> None:
        if self.clip_id and self.text.text().strip():
            self.text_saved.emit(self.clip_id, self.text.text())

    def _on_trim_clicked(self) -> None:
        start, end = self.region.getRegion()
        if self.clip_id:
            self.trim_requested.emit(self.clip_id, float(start), float(end))

    def _on_split_clicked(self) -> None:
        if self.clip_id:
            self.split_requested.emit(self.clip_id, float(self.cursor.value()))


def _same_samples(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Whether two clips' samples are the same (both ``None`` included)."""
    return a is b or (a is not None and b is not None and np.array_equal(a, b))
