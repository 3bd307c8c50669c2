"""The loss chart's legend beside the plot: one checkbox per loss (its line drawn as the icon) and a log-scale
switch. Rows are the losses' kinds (mel, kl, dur, gen, disc; a fine-tune's stft, prior_mel), columns training and
validation."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QCheckBox, QGridLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget

MEANINGS = {
    "mel": "mel-spectrogram L1 loss: how far the spoken audio is from the recording (lower is better)",
    "kl": "KL divergence between the text and audio latents (starts in the hundreds, falls fast)",
    "dur": "duration predictor loss: how well phoneme lengths are predicted",
    "gen": "generator's adversarial loss (against the discriminators)",
    "disc": "discriminators' loss (real against generated audio)",
    "stft": "multi-resolution STFT loss: the spoken audio's spectral detail against the recording's (a fine-tune's)",
    "prior_mel": "mel L1 of the audio decoded from the text's latents, as the voice speaks, against the recording",
}
"""What each kind of loss measures (tooltips)."""
ICON = QSize(22, 10)


def line_icon(colour: tuple[int, int, int], dashed: bool) -> QIcon:
    """A short line in ``colour``, dashed for a validation loss, as the curve is drawn."""
    pixmap = QPixmap(ICON)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    pen = QPen(QColor(*colour), 2, Qt.PenStyle.DashLine if dashed else Qt.PenStyle.SolidLine)
    painter.setPen(pen)
    painter.drawLine(1, ICON.height() // 2, ICON.width() - 1, ICON.height() // 2)
    painter.end()
    return QIcon(pixmap)


class LossLegend(QWidget):
    """Checkable legend of ``losses`` (``(name, colour, dashed)``: ``train_mel``, ``val_mel``…).

    Attributes:
        boxes: ``{loss name: QCheckBox}``. log_scale: the log-scale ``QCheckBox``.

    Signals:
        toggled(str, bool): a loss was shown (True) or hidden.
    """

    toggled = Signal(str, bool)

    def __init__(self, losses, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.boxes: dict[str, QCheckBox] = {}
        grid = QGridLayout()
        grid.setSpacing(2)
        grid.setContentsMargins(0, 0, 0, 0)
        kinds: list[str] = []
        for name, colour, dashed in losses:
            split, kind = name.split("_", 1)
            if kind not in kinds:
                kinds.append(kind)
                label = QLabel(kind)
                label.setToolTip(MEANINGS.get(kind, kind))
                grid.addWidget(label, len(kinds) - 1, 0)
            box = QCheckBox("val" if dashed else split)
            box.setIcon(line_icon(colour, dashed))
            box.setIconSize(ICON)
            box.setChecked(True)
            box.setAccessibleName(name)
            box.setToolTip(f"{name}: {MEANINGS.get(kind, kind)}. Uncheck to hide it.")
            box.toggled.connect(lambda on, name=name: self.toggled.emit(name, on))
            grid.addWidget(box, kinds.index(kind), 2 if dashed else 1)
            self.boxes[name] = box
        self.log_scale = QCheckBox("log scale")
        self.log_scale.setChecked(True)
        self.log_scale.setToolTip("A logarithmic loss axis: a large loss (kl early on) no longer flattens the rest.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 0, 0, 0)
        layout.setSpacing(4)
        layout.addLayout(grid)
        layout.addWidget(self.log_scale)
        layout.addStretch(1)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Preferred)

    def shown(self, name: str) -> bool:
        """Whether loss ``name`` is checked (a name without a box: shown)."""
        box = self.boxes.get(name)
        return box is None or box.isChecked()
