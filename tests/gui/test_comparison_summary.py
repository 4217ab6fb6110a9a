"""The Summary tab (fieldstudio.gui.panels.comparison_summary): each source's accuracy split by evidence coverage,
as a user reads it (values by hand in tests/support/evidence_answers.py)."""

from __future__ import annotations

from fieldstudio.compare import views as cv
from fieldstudio.gui.panels.comparison_summary import SummaryPanel
from tests.support.evidence_answers import SCORER, add_evidence_runs


def test_the_summary_shows_accuracy_split_by_evidence(qtbot, media_project):
    add_evidence_runs(media_project)
    panel = SummaryPanel()
    qtbot.addWidget(panel)
    panel.set_view(cv.load_view(media_project, SCORER, n_resamples=200))
    assert panel.evidence_label.text().splitlines() == [
        "Accuracy by evidence coverage (saw: a frame sent lies in the ground truth's span):",
        "misses — never saw it: mean 0.000, accuracy 0.000 (2/2 scored); unknown: mean 1.000, accuracy 1.000 "
        "(1/1 scored); no evidence: mean — (0/1 scored)",
        "sees — saw the evidence: mean 0.500, accuracy 0.500 (2/2 scored); never saw it: mean 0.000, accuracy "
        "0.000 (1/1 scored); no evidence: mean 1.000, accuracy 1.000 (1/1 scored)"]
    panel.set_view(None)
    assert panel.evidence_label.text() == ""
