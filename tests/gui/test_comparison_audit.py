"""The Compare tab driven as a person would: coverage under the grid and in the summary, the cells the
matchers flag beside a judge, and the judge audit marked from the keyboard with undo. Expected values by hand
(tests/support/sample_sources.py)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from fieldstudio.compare import audit
from fieldstudio.gui.panels.comparison import ComparisonPanel
from tests.support import sample_sources
from tests.support.sample_sources import CAREFUL_RUN_NAME, GUESSER_RUN_NAME

SCORER = "fwa-official"


@pytest.fixture
def judged_sample_panel(qtbot, project):
    ids = sample_sources.build(project)
    sample_sources.add_judged_scores(project, ids, SCORER)
    w = ComparisonPanel()
    qtbot.addWidget(w)
    w.resize(1500, 850)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=30000):
        w.set_project(project)
    return w, project, ids


def test_coverage_and_matcher_flags_in_the_grid(judged_sample_panel):
    w, project, ids = judged_sample_panel
    assert w.coverage_label.text() == (f"Of the tasks in the grid: {CAREFUL_RUN_NAME} 42/42 scored, {GUESSER_RUN_NAME} 42/42 scored · "
                                       "⚑ 21 judged answers the matchers decide otherwise")
    w.flagged_check.setChecked(True)
    assert w.count_label.text() == "21 of 42 tasks"
    m = w.table.model()
    col = next(c for c in range(m.columnCount()) if m.headerData(c, Qt.Orientation.Horizontal) == GUESSER_RUN_NAME)
    assert all(m.index(r, col).data() == "⚑ 1.00 · Yes" for r in range(m.rowCount()))
    assert "the judge says correct: check by hand" in m.index(0, col).data(Qt.ItemDataRole.ToolTipRole)
    assert w.select_cell(ids["tasks"][1], GUESSER_RUN_NAME)                 # task 1: ground truth "No"
    assert w.detail.text.toPlainText().startswith("⚑ Check by hand: deterministic matchers: incorrect")
    w.flagged_check.setChecked(False)
    assert w.select_cell(ids["tasks"][12], CAREFUL_RUN_NAME)                # right, and the judge agrees
    assert w.detail.text.toPlainText().startswith("Matcher audit: deterministic matchers: correct")


def test_judge_audit_from_the_keyboard(judged_sample_panel, qtbot):
    w, project, ids = judged_sample_panel
    w.tabs.setCurrentWidget(w.audit)
    a = w.audit
    a.person.setText("Dana")
    a.refresh()
    assert a.model.rowCount() == audit.DEFAULT_SAMPLE
    assert a.intro.text().startswith("30 of 84 judged answers of fwa-official (seeded sample; the 21 the "
                                     "deterministic matchers decide otherwise first)")
    first = a.model.sample.iloc[0]
    assert (first["source"], first["answer"]) == (GUESSER_RUN_NAME, "Yes")   # a flagged answer comes first
    a.table.setFocus()
    a.table.selectRow(0)
    qtbot.keyClick(a.table, Qt.Key.Key_X)            # the person: incorrect; the judge said correct
    assert a.model.index(0, 3).data() == "incorrect" and a.table.currentIndex().row() == 1
    # 0 of 1 agree; p_e = 1 x 0 + 0 x 1 = 0, kappa = (0 - 0) / 1 = 0; no interval below 10 marks
    assert a.agreement.text() == (f"fwa-official, judge {sample_sources.JUDGE_MODEL}: 1 marked, accuracy 0.000 "
                                  "(n too small), Cohen's kappa 0.000 (n too small), 1 false accepts, 0 false rejects")
    assert a.false_accepts.toPlainText().startswith(f"{first['external_id']} (fwa-official, "
                                                    f"{sample_sources.JUDGE_MODEL}, marked by Dana): Yes")
    qtbot.keyClick(a.table, Qt.Key.Key_C)            # second answer: correct, as the judge said
    assert a.agreement.text().startswith(f"fwa-official, judge {sample_sources.JUDGE_MODEL}: 2 marked, "
                                         "accuracy 0.500")
    a.undo_stack.undo()                              # Ctrl+Z in the window: the group's active stack
    assert audit.audit_agreement(project).iloc[0]["n"] == 1
    assert a.agreement.text().startswith(f"fwa-official, judge {sample_sources.JUDGE_MODEL}: 1 marked")
    a.undo_stack.redo()
    assert audit.audit_agreement(project).iloc[0]["n"] == 2
    w.grab().save("/tmp/compare_audit.png")


def test_blind_marks_by_two_people_and_their_agreement_beside_the_judges(judged_sample_panel, qtbot):
    from fieldstudio.gui.panels.comparison_audit import HIDDEN

    w, project, ids = judged_sample_panel
    w.tabs.setCurrentWidget(w.audit)
    a = w.audit
    assert a.blind.isChecked()                                   # blind by default, as in rater mode
    verdicts = {"Ana": [Qt.Key.Key_X, Qt.Key.Key_C, Qt.Key.Key_C, Qt.Key.Key_X],
                "Ben": [Qt.Key.Key_X, Qt.Key.Key_C, Qt.Key.Key_X, Qt.Key.Key_X]}
    for person, keys in verdicts.items():
        a.person.setText(person)
        a.refresh()
        a.table.setFocus()
        a.table.selectRow(0)
        # before the mark: no verdict of the judge in the table or the detail
        assert a.model.index(0, 2).data() == HIDDEN and "Judge (" in a.detail.toPlainText()
        assert f"): {HIDDEN}" in a.detail.toPlainText() and "its reply" not in a.detail.toPlainText()
        if person == "Ana":
            w.grab().save("/tmp/compare_audit_blind.png")
        for key in keys:
            qtbot.keyClick(a.table, key)
        assert a.model.index(0, 2).data() == "correct"           # shown once marked
        assert a.model.index(len(keys), 2).data() == HIDDEN      # the next one still hidden
    a.blind.setChecked(False)
    assert a.model.index(len(keys), 2).data() == "correct"
    # Ana and Ben on the same 4 answers: 3 agree; Ana passes 2 of 4, Ben 1 of 4: p_e = 0.5 x 0.25 + 0.5 x 0.75 =
    # 0.5, kappa = (0.75 - 0.5) / 0.5 = 0.5; below 10 answers no interval
    lines = a.people.toPlainText().splitlines()
    assert lines[0] == "People with each other:"
    assert "fwa-official, people Ana / Ben: 4 answers, Cohen's kappa 0.500 (n too small)" in lines
    assert a.agreement.text().startswith(f"fwa-official, judge {sample_sources.JUDGE_MODEL}: 8 marked")
    w.grab().save("/tmp/compare_audit_people.png")


def test_edit_undo_in_the_window_takes_back_a_mark(qtbot, project):
    from fieldstudio.gui.main_window import MainWindow

    ids = sample_sources.build(project)
    sample_sources.add_judged_scores(project, ids, SCORER)
    win = MainWindow(project)
    qtbot.addWidget(win)
    win.show()
    panel = win.workspace.show_panel("comparison")
    qtbot.waitUntil(lambda: panel.view is not None and panel._worker is None, timeout=30000)
    panel.tabs.setCurrentWidget(panel.audit)
    panel.audit.person.setText("Dana")
    panel.audit.refresh()
    panel.audit.table.selectRow(0)
    qtbot.keyClick(panel.audit.table, Qt.Key.Key_N)
    assert audit.audit_agreement(project).iloc[0]["n"] == 1
    assert win.undo_group.activeStack() is panel.undo_stack           # the Compare tab's stack is in front
    first = panel.audit.model.sample.iloc[0]
    assert win.undo_group.undoText() == f"Mark {first['external_id']} / {first['source']} incorrect"
    win.undo_group.undo()                                                # Edit ▸ Undo
    assert audit.audit_agreement(project).empty
    assert panel.audit.model.index(0, 3).data() == "—"


def test_visiting_compare_does_not_widen_the_window(qtbot, demo_window):
    """The coverage line under the grid wraps: unwrapped, its one line per source became the whole window's
    minimum width, and a 1280 px window grew past a laptop's screen on going back to Media (with its docks).
    The same holds after visiting every tab, with a video shown (its transport read-out set the minimum width:
    1298 px), each dock raised and each Behaviour tab in front. In the Behaviour dock the Events list shows
    Subject, Behaviour, Start and Stop, the Time budget Total and %, without scrolling."""
    from PySide6.QtWidgets import QDockWidget

    from fieldstudio.annotations.behaviour import behaviour_events
    from tests.support.gui_support import open_media

    win = demo_window

    def fits() -> None:
        qtbot.wait(100)
        assert win.width() <= 1280 and win.minimumSizeHint().width() <= 1280

    def shown(table, columns: tuple[int, ...]) -> bool:  # the logical columns lie inside the viewport
        header = table.horizontalHeader()
        return all(0 <= header.sectionViewportPosition(c)
                   and header.sectionViewportPosition(c) + header.sectionSize(c) <= table.viewport().width()
                   for c in columns)

    panel = win.workspace.show_panel("comparison")
    qtbot.waitUntil(lambda: panel.view is not None and panel._worker is None, timeout=30000)
    assert panel.coverage_label.text().startswith("Of the tasks in the grid: ")
    for i in range(win.modes.count()):                                    # every other tab too
        win.modes.setCurrentIndex(i)
        fits()
    win.modes.setCurrentIndex(0)                                          # back to Media, docks shown again
    mid = open_media(win, qtbot, "worker_zone_hardhat_vest_from_gif.mp4")
    project = win.state.project
    for frame, stop, subject, behaviour in ((0, 30, "worker A", "walking in zone"), (31, 60, "worker B", "stand")):
        behaviour_events.add_event_edit(project, mid, behaviour, "state", frame, subject=subject, coder="Dana Coder",
                                        end_frame_index=stop).do()
    for dock in win.findChildren(QDockWidget):
        dock.raise_()
        fits()
    behaviour = win.behaviour.panel
    win.behaviour.dock.raise_()
    behaviour.all_coders.setChecked(True)                                 # every coder's events, whoever codes here
    for i in range(behaviour.tabs.count()):
        behaviour.tabs.setCurrentIndex(i)
        fits()
    behaviour.tabs.setCurrentIndex(0)
    qtbot.waitUntil(lambda: behaviour.event_table.model().rowCount() == 2)
    assert shown(behaviour.event_table, (2, 3, 0, 1))                     # Subject, Behaviour, Start, Stop
    behaviour.tabs.setCurrentIndex(1)
    behaviour.budget_coder.setCurrentText("Dana Coder")
    behaviour.show_budget()
    qtbot.waitUntil(lambda: behaviour.budget_table.rowCount() == 2)
    qtbot.wait(100)
    assert shown(behaviour.budget_table, (0, 1, 4, 6))                    # Subject, Behaviour, Total, %
    assert behaviour.budget_table.item(0, 1).toolTip() == "walking in zone: state event"
    fits()
    assert win.width() == 1280


def test_export_report_from_the_window_uses_the_compare_tabs_scorer(qtbot, project, tmp_path, monkeypatch):
    """File ▸ Export report… writes the report of the scorer the Compare tab shows, whichever has the most
    scores (the report took the latter and did not say so: a fresh-eyes finding)."""
    from PySide6.QtWidgets import QMessageBox

    from fieldstudio.gui import raw_cells_choice
    from fieldstudio.gui.main_window import MainWindow
    from fieldstudio.scoring.service import score_answers
    from tests.support.gui_support import file_menu_action

    ids = sample_sources.build(project)
    sample_sources.add_judged_scores(project, ids, SCORER)
    score_answers(project, "fs-match")
    win = MainWindow(project)
    qtbot.addWidget(win)
    win.show()
    panel = win.workspace.show_panel("comparison")
    qtbot.waitUntil(lambda: panel.view is not None and panel._worker is None, timeout=30000)
    shown: list[str] = []
    monkeypatch.setattr(QMessageBox, "information", lambda _p, _t, text, *a, **k: shown.append(text))
    for scorer in ("fs-match", SCORER):
        with qtbot.waitSignal(panel.loaded, timeout=30000):
            panel.reload(scorer)
        out = tmp_path / f"{scorer}.csv"
        monkeypatch.setattr(raw_cells_choice, "ask_save_path",
                            lambda *a, o=out, **k: raw_cells_choice.SaveChoice(str(o), "", False))
        file_menu_action(win, "Export &report…").trigger()
        qtbot.waitUntil(lambda n=len(shown): len(shown) > n, timeout=60000)
        assert shown[-1].startswith(f"Wrote {out} (csv, 84 answer(s), scorer {scorer})"), shown[-1]
