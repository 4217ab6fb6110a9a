"""Score from the Compare tab (issue 19 §2), driven as a person would: the score dialog's scorer and judge
choices, the estimate before starting, progress and the grid and summary refreshing with the new scores;
scoring again asks only what changed. The judge is the fake OpenAI-compatible server; counts by hand from
tests/support/sample_sources.py."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.panels.comparison import ComparisonPanel
from fieldstudio.gui.panels.comparison_score import NO_JUDGE
from fieldstudio.inference import profiles
from fieldstudio.inference.profiles import ModelProfile
from tests.support import sample_sources
from tests.support.fake_openai import Reply
from tests.support.sample_sources import CAREFUL_RUN_NAME, GUESSER_RUN_NAME

FS_PROMPT = "fwa-logic+fs-prompt"
"""FieldWorkArena's rules over fieldstudio's own judge prompts: the fake judge replies to those prompts."""


@pytest.fixture
def sample_panel(qtbot, project):
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


def test_score_without_a_judge_fills_coverage(sample_panel, qtbot):
    w, project, ids = sample_panel
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


def test_score_with_a_judge_estimate_progress_and_cache(sample_panel, qtbot, fake_openai, monkeypatch):
    from fieldstudio.gui.panels import comparison_score

    monkeypatch.setattr(comparison_score, "REFRESH_S", 0.0)             # refresh the grid at every answer
    w, project, ids = sample_panel
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0,
                                      price_input_per_mtok=1.0, price_output_per_mtok=1.0))
    # a lenient judge: everything is correct except "I am not sure"
    fake_openai.responder = lambda request: Reply(
        text="incorrect" if sample_sources.UNSURE in request.body["messages"][-1]["content"] else "correct",
        prompt_tokens=400, completion_tokens=100)
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, FS_PROMPT)
    assert dialog.judge() == "judge"              # the only profile, for a scorer that needs a judge
    assert "needs a judge" in dialog.judge_use.text()
    assert "reads no benchmark files" in dialog.official_note.text() and not dialog.official_browse.isEnabled()
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
    assert len(refreshes) > 2 and set(refreshes) == {FS_PROMPT}
    assert dialog._meter.calls == 69 and dialog._meter.cost_usd == pytest.approx(69 * 500 / 1e6)
    assert "judge judge: 69 calls, 15 from the cache, cost $0.0345" in dialog.progress_label.text()
    qtbot.waitUntil(lambda: w.current_scorer() == FS_PROMPT and w._worker is None, timeout=30000)
    assert w.summary.coverage_label.text().splitlines()[0] == \
        f"Coverage: {CAREFUL_RUN_NAME} 42/42 scored, {GUESSER_RUN_NAME} 42/42 scored"
    # the lenient judge passes "Yes" on the 21 "No" tasks; the matchers say incorrect: 21 flagged cells
    assert int(w.model.grid.flag.sum()) == 21
    # scoring again: every score is current, nothing to ask (issue 37 item 4: not even the cache)
    qtbot.waitUntil(lambda: dialog.estimate is not None and dialog.estimate.current == 84, timeout=20000)
    assert dialog.estimate.calls == 0 and dialog.estimate.judged == 0 and dialog.estimate.cost_usd == 0.0
    assert "84 already scored and current are not judged again" in dialog.estimate_label.text()
    w.tabs.setCurrentWidget(w.summary)
    dialog.close()
    profiles.add_profile(ModelProfile(name="another", base_url=fake_openai.base_url, model="a", retries=0))
    again = w.open_score_dialog()                  # two profiles: the one scored with is chosen again
    _choose(again.scorer_combo, FS_PROMPT)
    assert again.judge() == "judge"
    again.close()


def test_cancel_keeps_what_was_scored(sample_panel, qtbot, fake_openai):
    w, project, ids = sample_panel
    profiles.add_profile(ModelProfile(name="slow", base_url=fake_openai.base_url, model="s", retries=0))
    fake_openai.responder = lambda request: Reply(text="correct", delay_s=0.05)
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, FS_PROMPT)
    _choose(dialog.judge_combo, "slow")
    qtbot.waitUntil(dialog.score_button.isEnabled, timeout=20000)       # once the estimate is shown
    qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
    assert not dialog.close_button.isEnabled() and dialog.cancel_button.isEnabled()
    qtbot.waitUntil(lambda: dialog.progress.value() >= 3, timeout=20000)
    with qtbot.waitSignal(dialog.scored, timeout=30000) as done:
        qtbot.mouseClick(dialog.cancel_button, Qt.MouseButton.LeftButton)
    report = done.args[0]
    assert report.cancelled and 3 <= report.scored < 84
    done = dialog.progress.value()
    assert 3 <= done < 84 and dialog.progress.maximum() == 84           # the bar stays where scoring stopped
    assert dialog.progress_label.text().startswith(
        f"Cancelled after {done} of 84 answers ({84 - done} not reached: Score again; the judge's replies so far "
        f"are cached): {report.scored} scored")
    from fieldstudio.scoring.service import current_scores

    assert int(current_scores(project, FS_PROMPT)["value"].notna().sum()) == report.scored   # written, kept
    assert dialog.close_button.isEnabled()
    qtbot.waitUntil(dialog.score_button.isEnabled, timeout=20000)       # after the new estimate
    dialog.close()
    qtbot.waitUntil(lambda: w._worker is None, timeout=30000)            # the grid's last reload


def test_official_scorer_asks_for_the_benchmark_files_once(sample_panel, qtbot, fake_openai, monkeypatch, standin_fwa,
                                                         tmp_path):
    """fwa-official in the window: the folder is asked with the folder dialog (a refused one says why), then
    remembered; the stand-in's prompts and settings (99 tokens, seed 7, its system message) reach the judge."""
    from fieldstudio.gui.panels import comparison_score
    from fieldstudio.scoring.official.source import located_folder
    from fieldstudio.scoring.service import current_scores

    w, project, ids = sample_panel
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    fake_openai.responder = lambda request: Reply(
        text="incorrect" if sample_sources.UNSURE in request.body["messages"][-1]["content"] else "correct")
    asked: list[str] = []
    answers: list[object] = []

    def folder_dialog(parent, caption, start=""):
        asked.append(parent.official_note.text())
        return str(answers.pop(0)) if answers else ""

    monkeypatch.setattr(comparison_score.QFileDialog, "getExistingDirectory", staticmethod(folder_dialog))
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, "fwa-official")
    _choose(dialog.judge_combo, "judge")
    assert dialog.official_browse.isEnabled() and dialog.official_edit.text() == ""
    assert "Browse… to choose their folder" in dialog.official_note.text()
    qtbot.waitUntil(lambda: "Cannot estimate" in dialog.estimate_label.text(), timeout=20000)
    assert "not located" in dialog.estimate_label.text()

    # a folder without the evaluator file is refused with the reason; cancelling keeps the reason in view
    empty = tmp_path / "empty"
    empty.mkdir()
    answers[:] = [empty]
    assert dialog.browse_official() is None
    assert len(asked) == 2 and f"{empty}: no FieldWorkArena file" in asked[1]
    assert dialog.official_note.text().startswith(f"Refused: {empty}: no FieldWorkArena file")
    assert located_folder("fieldworkarena") is None

    answers[:] = [standin_fwa]
    qtbot.mouseClick(dialog.official_browse, Qt.MouseButton.LeftButton)
    assert located_folder("fieldworkarena") == standin_fwa.resolve()        # remembered: asked once
    assert dialog.official_edit.text() == str(standin_fwa.resolve())
    note = dialog.official_note.text()
    assert "automatic_evaluation.py = test stand-in" in note and "judge model standin-judge-1" in note
    assert "temperature 0, top_p 1, seed 7, 99 tokens, system message 'stand-in system'" in note
    # the same 69 distinct prompts as with fieldstudio's prompts (15 shared "Yes" answers), each capped at 99
    qtbot.waitUntil(lambda: dialog.estimate is not None and dialog.estimate.scorer == "fwa-official"
                    and dialog.estimate.judge == "judge", timeout=20000)
    assert dialog.estimate.calls == 69 and "at most 99 per call" in dialog.estimate_label.text()

    with qtbot.waitSignal(dialog.scored, timeout=60000) as done:
        qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
    report = done.args[0]
    assert (report.answers, report.scored, report.judge_calls, report.judge_cache_hits) == (84, 84, 69, 15)
    sent = fake_openai.chat_requests()
    assert len(sent) == 69 and {(r.body["max_tokens"], r.body["seed"]) for r in sent} == {(99, 7)}
    assert {r.body["messages"][0]["content"] for r in sent} == {"stand-in system"}
    assert all(r.body["messages"][-1]["content"].startswith("Stand-in grading request.") for r in sent)
    qtbot.waitUntil(lambda: w.current_scorer() == "fwa-official" and w._worker is None, timeout=30000)
    # by hand: careful 31 "correct" + 11 hedges the judge calls incorrect (0); guesser all "correct"
    assert w.summary.coverage_label.text().splitlines()[0] == \
        f"Coverage: {CAREFUL_RUN_NAME} 42/42 scored, {GUESSER_RUN_NAME} 42/42 scored"
    text, headline, n = w.summary.cell("all", CAREFUL_RUN_NAME)
    assert (headline, n) == (pytest.approx(31 / 42), 42) and text.startswith("0.738 [")
    assert w.summary.cell("all", GUESSER_RUN_NAME)[1] == pytest.approx(1.0)
    assert int(w.model.grid.flag.sum()) == 21                           # guesser's "Yes" on the "No" tasks
    scores = current_scores(project, "fwa-official")
    assert int(scores["value"].sum()) == 31 + 42
    dialog.close()

    # a new dialog: prefilled from the remembered folder, nothing asked again
    again = w.open_score_dialog()
    _choose(again.scorer_combo, "fwa-official")
    assert again.official_edit.text() == str(standin_fwa.resolve()) and again.official_source() is not None
    assert len(asked) == 3
    # Browse… with a good folder located asks for another; a refused one leaves the located folder in use
    answers[:] = [empty]
    assert again.browse_official() is None and len(asked) == 4
    assert again.official_note.text().startswith(f"Refused: {empty}: no FieldWorkArena file")
    assert f"Still in use: {standin_fwa.resolve()}" in again.official_note.text()
    assert located_folder("fieldworkarena") == standin_fwa.resolve() and again.official_source() is not None
    again.close()


def test_scorers_needing_a_judge_are_disabled_without_a_profile(sample_panel):
    from fieldstudio.scoring.scorers import REGISTRY

    w, project, ids = sample_panel
    dialog = w.open_score_dialog()
    items = dialog.scorer_combo.model()
    by_name = {dialog.scorer_combo.itemData(i): i for i in range(dialog.scorer_combo.count())}
    for name, info in REGISTRY.items():
        assert items.item(by_name[name]).isEnabled() == (not info.needs_judge), name
        assert info.description in dialog.scorer_combo.itemData(by_name[name], Qt.ItemDataRole.ToolTipRole)
    assert dialog.scorer_combo.itemText(by_name["fwa-official"]) == \
        "fwa-official · needs a judge · FieldWorkArena's own prompts"
    assert dialog.scorer_combo.itemText(by_name["fs-match"]) == "fs-match · no judge"
    assert "fwa-official" in dialog.scorer_note.text() and "no model profile" in dialog.scorer_note.text()
    assert REGISTRY[dialog.scorer()].needs_judge is False
    dialog.close()


def test_a_dead_judge_stops_the_scoring_with_its_address(sample_panel, qtbot):
    """A judge profile whose server is down (a closed loopback port): the dialog shows why it stopped, in
    place of the progress and ETA, after a few answers instead of retrying all 84."""
    import socket

    w, project, ids = sample_panel
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    profiles.add_profile(ModelProfile(name="dead", base_url=url, model="d", retries=0))
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, FS_PROMPT)
    _choose(dialog.judge_combo, "dead")
    qtbot.waitUntil(dialog.score_button.isEnabled, timeout=20000)       # the estimate calls no judge
    qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: dialog.worker is None, timeout=30000)
    text = dialog.progress_label.text()
    assert text.startswith("Scoring stopped: judge profile 'dead': the judge at " + url + " does not answer")
    assert "ETA" not in text and dialog.score_button.isEnabled()
    dialog.grab().save("/tmp/negations_dead_judge.png")
    dialog.close()
    qtbot.waitUntil(lambda: w._worker is None, timeout=30000)


def test_score_stays_disabled_with_the_reason_while_the_estimate_fails(sample_panel, qtbot, fake_openai, monkeypatch,
                                                                      standin_fwa):
    """Score is enabled only once the judge calls and cost are estimated: not while estimating, not after
    the estimate failed (its reason on the button's tooltip and under "Before starting"), except when only
    the benchmark's judge files are not located: Score asks for their folder."""
    from fieldstudio.gui.panels import comparison_score

    w, project, ids = sample_panel
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, "fwa-official")                     # its judge files are not located yet
    _choose(dialog.judge_combo, "judge")
    assert not dialog.score_button.isEnabled()                        # estimating
    assert dialog.score_button.toolTip() == "Not available: estimating the judge calls and their cost…"
    qtbot.waitUntil(lambda: "Cannot estimate" in dialog.estimate_label.text(), timeout=20000)
    assert "the FieldWorkArena judge files are not located" in dialog.estimate_label.text()
    # the judge files not located yet: Score stays enabled, since it asks for their folder first (start)
    assert dialog.score_button.isEnabled()
    assert dialog.score_button.toolTip().startswith("Score asks first for the folder of the "), \
        dialog.score_button.toolTip()
    # a failure of any other kind is shown the same way
    real_estimate = comparison_score.estimate_scoring
    monkeypatch.setattr(comparison_score, "estimate_scoring",
                        lambda *a, **k: (_ for _ in ()).throw(RuntimeError("database is locked")))
    _choose(dialog.scorer_combo, FS_PROMPT)
    qtbot.waitUntil(lambda: dialog.estimate_label.text() == "Cannot estimate: database is locked", timeout=20000)
    assert not dialog.score_button.isEnabled()
    assert dialog.score_button.toolTip() == "Not available: the judge calls cannot be estimated: database is locked"
    # once an estimate succeeds, Score is enabled and says what it does
    monkeypatch.setattr(comparison_score, "estimate_scoring", real_estimate)
    monkeypatch.setattr(comparison_score.QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: str(standin_fwa)))
    _choose(dialog.scorer_combo, "fwa-official")
    assert dialog.browse_official() is not None
    qtbot.waitUntil(dialog.score_button.isEnabled, timeout=20000)
    assert dialog.estimate is not None and dialog.estimate.scorer == "fwa-official" and dialog.estimate.calls == 69
    assert dialog.score_button.toolTip() == comparison_score.SCORE_TIP
    dialog.close()


def test_score_with_the_judge_files_not_located_asks_for_their_folder_and_scores(sample_panel, qtbot, fake_openai,
                                                                                 monkeypatch, standin_fwa):
    """The estimate fails only because the benchmark's files are not located: a click on Score asks for their
    folder (the file dialog), then scores with them."""
    from fieldstudio.gui.panels import comparison_score

    w, project, ids = sample_panel
    profiles.add_profile(ModelProfile(name="judge", base_url=fake_openai.base_url, model="j", retries=0))
    asked: list[str] = []

    def folder_dialog(*_a, **_k):
        asked.append("asked")
        return str(standin_fwa)

    monkeypatch.setattr(comparison_score.QFileDialog, "getExistingDirectory", staticmethod(folder_dialog))
    dialog = w.open_score_dialog()
    _choose(dialog.scorer_combo, "fwa-official")
    _choose(dialog.judge_combo, "judge")
    qtbot.waitUntil(lambda: "Cannot estimate" in dialog.estimate_label.text(), timeout=20000)
    qtbot.waitUntil(dialog.score_button.isEnabled, timeout=5000)
    qtbot.mouseClick(dialog.score_button, Qt.MouseButton.LeftButton)
    assert asked == ["asked"]
    qtbot.waitUntil(lambda: dialog.report is not None, timeout=60000)
    assert dialog.report.scored > 0, dialog.progress_label.text()
    dialog.close()
    qtbot.waitUntil(lambda: w._worker is None, timeout=30000)
