"""Score from the Compare tab (issue 19 §2), driven as a person would: the score dialog's scorer and judge
choices, the estimate before starting, progress and the grid and summary refreshing with the new scores;
scoring again asks only what changed. The judge is the fake OpenAI-compatible server; counts by hand from
tests/sample_sources.py."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.panels.comparison import ComparisonPanel
from fieldstudio.gui.panels.comparison_score import NO_JUDGE
from fieldstudio.inference import profiles
from fieldstudio.inference.profiles import ModelProfile
from tests import sample_sources
from tests.fake_openai import Reply
from tests.sample_sources import CAREFUL_RUN_NAME, GUESSER_RUN_NAME


@pytest.fixture
def panel(qtbot, project):
    ids = sample_sources.build(project)
    w = ComparisonPanel()
    qtbot.addWidget(w)
    w.resize(1500, 850)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=30000):
        w.set_project(project)
    return w, project, ids


def _choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))


def test_score_without_a_judge_fills_coverage(panel, qtbot):
    w, project, ids = panel
    assert w.summary.caption.text() == "No answers to summarise." or w.current_scorer() is None
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, sample_sources.MATCHER_SCORER)
    assert dialog.judge_combo.currentText() == NO_JUDGE
    qtbot.waitUntil(lambda: "No model is called" in dialog.estimate_label.text(), timeout=20000)
    assert dialog.estimate_label.text().startswith("84 answers; no judge")
    with qtbot.waitSignal(dialog.scored, timeout=30000) as done:
        qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
    report = done.args[0]
    assert (report.answers, report.scored, report.unscored) == (84, 73, 11)
    qtbot.waitUntil(lambda: w.current_scorer() == sample_sources.MATCHER_SCORER and w._worker is None, timeout=30000)
    assert dialog.progress_label.text().startswith("Done: 84 answers, 73 scored, 11 unscored")
    assert w.summary.coverage_label.text().splitlines()[0] == \
        f"Coverage: {CAREFUL_RUN_NAME} 31/42 scored, {GUESSER_RUN_NAME} 42/42 scored"
    text, headline, n = w.summary.cell("all", CAREFUL_RUN_NAME)
    assert (headline, n) == (pytest.approx(31 / 42), 31)             # the 11 unscored count 0
    assert text.startswith("0.738 [") and text.endswith("] 31/42 scored · of scored 1.000")
    dialog.close()


def test_score_with_a_judge_estimate_progress_and_cache(panel, qtbot, fake_openai, monkeypatch):
    from fieldstudio.gui.panels import comparison_score

    monkeypatch.setattr(comparison_score, "REFRESH_S", 0.0)             # refresh the grid at every answer
    w, project, ids = panel
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0,
                                      price_input_per_mtok=1.0, price_output_per_mtok=1.0))
    # a lenient judge: everything is correct except "I am not sure"
    fake_openai.responder = lambda request: Reply(
        text="incorrect" if sample_sources.UNSURE in request.body["messages"][-1]["content"] else "correct",
        prompt_tokens=400, completion_tokens=100)
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, "fwa-official")
    _choose(dialog.judge_combo, "judge")
    assert "judge optional" in dialog.judge_use.text()
    # 84 answers; careful's right "Yes" on the 15 even tasks 12..40 is the guesser's "Yes": one prompt each
    qtbot.waitUntil(lambda: "judge calls" in dialog.estimate_label.text(), timeout=20000)
    assert dialog.estimate.calls == 84 - 15 and dialog.estimate.cached == 0
    assert "69 judge calls" in dialog.estimate_label.text()
    shown, refreshes = [], []
    dialog.scores_written.connect(refreshes.append)
    with qtbot.waitSignal(dialog.scored, timeout=60000) as done:
        qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
        dialog.worker.signals.progress.connect(lambda *_: shown.append(dialog.progress_label.text()))
    report = done.args[0]
    assert (report.judge_calls, report.judge_cache_hits, report.scored) == (69, 15, 84)
    assert any(t.startswith("42 of 84 answers · ETA") and "judge calls, cost so far $0.0" in t for t in shown)
    assert len(refreshes) > 2 and set(refreshes) == {"fwa-official"}
    assert dialog._meter.calls == 69 and dialog._meter.cost_usd == pytest.approx(69 * 500 / 1e6)
    assert "judge judge: 69 calls, 15 from the cache, cost $0.0345" in dialog.progress_label.text()
    qtbot.waitUntil(lambda: w.current_scorer() == "fwa-official" and w._worker is None, timeout=30000)
    assert w.summary.coverage_label.text().splitlines()[0] == \
        f"Coverage: {CAREFUL_RUN_NAME} 42/42 scored, {GUESSER_RUN_NAME} 42/42 scored"
    # the lenient judge passes "Yes" on the 21 "No" tasks; the matchers say incorrect: 21 flagged cells
    assert int(w.model.grid.flag.sum()) == 21
    # scoring again: every prompt is in the cache, nothing to ask
    qtbot.waitUntil(lambda: dialog.estimate is not None and dialog.estimate.cached == 69, timeout=20000)
    assert dialog.estimate.calls == 0 and dialog.estimate.cost_usd == 0.0
    w.tabs.setCurrentWidget(w.summary)
    dialog.close()


def test_cancel_keeps_what_was_scored(panel, qtbot, fake_openai):
    w, project, ids = panel
    profiles.add_profile(ModelProfile(name="slow", base_url=fake_openai.base_url, model="s", retries=0))
    fake_openai.responder = lambda request: Reply(text="correct", delay_s=0.05)
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, "fwa-official")
    _choose(dialog.judge_combo, "slow")
    qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
    assert not dialog.close_button.isEnabled() and dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.progress.value() >= 3, timeout=20000)
    with qtbot.waitSignal(dialog.scored, timeout=30000) as done:
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    report = done.args[0]
    assert report.cancelled and 3 <= report.scored < 84
    assert dialog.progress_label.text().startswith(f"Cancelled: 84 answers, {report.scored} scored")
    from fieldstudio.scoring.service import current_scores

    assert int(current_scores(project, "fwa-official")["value"].notna().sum()) == report.scored   # written, kept
    assert dialog.close_button.isEnabled() and dialog.score_button.isEnabled()
    dialog.close()
    qtbot.waitUntil(lambda: w._worker is None, timeout=30000)            # the grid's last reload
