"""The per-epoch curves of a fine-tune's scores as a picture (not a test): the Train page's quality chart.

``tests/bench/finetune_quality.py --chart PNG`` draws its scored epochs with the studio's own chart
(``studio.widgets.quality_chart.QualityChart``: WER, speaker similarity, DNSMOS overall and the F0 gap per epoch, each
point with ± its noise band) offscreen and saves it, with a verdict line naming joe's scores and the recordings', so
the README shows the curves a user sees on the Train page.
"""

from __future__ import annotations

import os
from pathlib import Path

MEASURES = ("wer", "similarity", "dnsmos_ovrl", "f0_gap_hz")
"""The leaderboard fields the chart draws (``studio.widgets.quality_chart.MEASURES``)."""
SIZE = (900, 560)
"""Pixels of the saved picture."""


def series(rows: list, epochs: list[int]) -> dict[str, tuple[list[int], list[float]]]:
    """``{measure: (epochs from 1, values)}`` of the epochs' leaderboard rows (``rows[0]`` is the start's: left out)."""
    found: dict[str, tuple[list[int], list[float]]] = {name: ([], []) for name in MEASURES}
    for row, epoch in zip(rows[1:], epochs, strict=True):
        for name in MEASURES:
            value = getattr(row, name)
            if value is not None:
                found[name][0].append(epoch + 1)
                found[name][1].append(float(value))
    return found


def save_chart(png: Path, rows: list, epochs: list[int], recordings=None) -> Path:
    """Draw the epochs' scores (``rows``: the start's row, then one per epoch of ``epochs``, from 0) with the
    Train page's quality chart offscreen and save it as ``png``; the line above the plots says joe's scores and,
    where given, the ``recordings`` row's."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    from studio.widgets.quality_chart import QualityChart
    from trainer.evaluate.bands import DEFAULT_BANDS

    app = QApplication.instance() or QApplication([])
    chart = QualityChart()
    chart.set_evaluations(series(rows, epochs), DEFAULT_BANDS, epochs=epochs[-1] + 1)
    chart.set_verdict(_legend(rows[0], recordings))
    chart.resize(*SIZE)
    chart.show()
    app.processEvents()
    png.parent.mkdir(parents=True, exist_ok=True)
    if not chart.grab().save(str(png)):
        raise OSError(f"{png}: the picture could not be written")
    chart.close()
    return png


def _legend(start, recordings) -> str:
    """``joe: WER 0.07, similarity 0.576, DNSMOS 3.40; the recordings: WER 0.04, DNSMOS 3.17``."""
    said = f"joe: WER {start.wer:.2f}, similarity {start.similarity:.3f}, DNSMOS {start.dnsmos_ovrl:.2f}"
    if recordings is not None and recordings.wer is not None and recordings.dnsmos_ovrl is not None:
        said += f"; the recordings: WER {recordings.wer:.2f}, DNSMOS {recordings.dnsmos_ovrl:.2f}"
    return said
