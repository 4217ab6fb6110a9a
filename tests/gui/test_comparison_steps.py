"""The Compare panel's steps (issue 37 item 2): the Summary and Judge audit pages built after the grid's, the
grid's rows filtered once per load with the filters set before it, then the filters, count and selection."""

from __future__ import annotations

import pytest
from sqlalchemy import update

from fieldstudio.gui.panels.comparison import ComparisonPanel
from fieldstudio.gui.panels.comparison_model import ComparisonFilterProxy
from fieldstudio.store.models import Answer, Score
from tests.support.gui_support import open_comparison
from tests.support.scoring_fixtures import add_run, add_task, scored_now

SCORER = "fs-match"
# task -> category; source -> task -> score (> 0.5 is correct). By hand: wrong (some source not correct) = t2, t3
CATEGORIES = {"t1": "A", "t2": "A", "t3": "B", "t4": "B"}
SCORES = {"alpha": {"t1": 1.0, "t2": 0.0, "t3": 1.0, "t4": 1.0}, "beta": {"t1": 1.0, "t2": 1.0, "t3": 0.0, "t4": 1.0}}


def _add_source(project, ids: dict[str, str], source: str, scores: dict[str, float]) -> None:
    run = add_run(project, source, {ids[k]: f"{source} says {k}" for k in scores})
    with project.write() as s:
        for a in s.query(Answer).filter(Answer.run_id == run):
            v = scores[next(k for k, i in ids.items() if i == a.task_id)]
            s.add(Score(answer_id=a.id, scorer=SCORER, **scored_now(s, a.id, SCORER), value=v, correct=v > 0.5))


@pytest.fixture
def scored_by_category(project):
    ids = {k: add_task(project, f"1.1.000{n}", f"gt {k}", category=cat) for n, (k, cat) in enumerate(CATEGORIES.items())}
    for source, scores in SCORES.items():
        _add_source(project, ids, source, scores)
    return project, ids


def _shown(w: ComparisonPanel) -> set[str]:
    m = w.table.model()
    return {m.index(r, 0).data() for r in range(m.rowCount())}


def test_the_summary_and_audit_pages_are_built_after_the_grid(qtbot):
    w = ComparisonPanel()
    qtbot.addWidget(w)
    assert w._summary is None and w._audit is None            # not built with the grid
    assert [w.tabs.tabText(i) for i in range(3)] == ["Grid", "Summary", "Judge audit"]
    w.show()
    qtbot.waitUntil(lambda: w._summary is not None and w._audit is not None, timeout=5000)
    assert w.tabs.widget(1) is w.summary and w.tabs.widget(2) is w.audit
    assert w.audit.undo_stack is w.undo_stack                 # the stack the window's undo group was given


def test_a_page_asked_for_before_its_step_is_built_and_shown(qtbot):
    w = ComparisonPanel()
    qtbot.addWidget(w)
    w.tabs.setCurrentIndex(2)                                   # the user clicks Judge audit at once
    assert w._audit is not None and w.tabs.currentWidget() is w.audit
    w.tabs.setCurrentWidget(w.summary)
    assert w.tabs.currentIndex() == 1 and w.tabs.count() == 3


def test_a_load_filters_the_rows_once(qtbot, scored_by_category, monkeypatch):
    project, _ = scored_by_category
    asked: list[int] = []
    keep = ComparisonFilterProxy.filterAcceptsRow
    monkeypatch.setattr(ComparisonFilterProxy, "filterAcceptsRow",
                        lambda self, row, parent: asked.append(row) or keep(self, row, parent))
    open_comparison(qtbot, project, (1200, 700))
    assert sorted(asked) == [0, 1, 2, 3]                        # each row once (it was twice: reset, then refilter)


def test_the_rows_a_load_shows_first_are_those_the_filters_keep(qtbot, scored_by_category):
    project, ids = scored_by_category
    w = open_comparison(qtbot, project, (1200, 700))
    w.wrong_check.setChecked(True)
    assert _shown(w) == {"1.1.0001", "1.1.0002"}                # t2, t3 (external ids 1.1.0001, 1.1.0002)
    at_reset: list[set[str]] = []
    w.model.modelReset.connect(lambda: at_reset.append(_shown(w)))
    _add_source(project, ids, "gamma", {"t4": 0.0})              # a new source: the grid resets; t4 now wrong
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.reload(SCORER)
    assert at_reset == [{"1.1.0001", "1.1.0002", "1.1.0003"}]  # already filtered when the rows came
    assert _shown(w) == {"1.1.0001", "1.1.0002", "1.1.0003"} and w.count_label.text() == "3 of 4 tasks"
    with project.write() as s:                                  # the same tasks and sources: updated in place
        s.execute(update(Score).where(Score.answer_id.in_(
            s.query(Answer.id).filter(Answer.task_id == ids["t1"]).scalar_subquery())).values(value=0.0, correct=False))
    asked: list[int] = []
    keep = ComparisonFilterProxy.filterAcceptsRow
    w.proxy.filterAcceptsRow = lambda row, parent: asked.append(row) or keep(w.proxy, row, parent)
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.reload(SCORER)
    assert at_reset == [{"1.1.0001", "1.1.0002", "1.1.0003"}]  # no reset this time
    assert _shown(w) == {"1.1.0000", "1.1.0001", "1.1.0002", "1.1.0003"}
    assert sorted(asked) == [0, 1, 2, 3]                        # the changed rows asked again, once each


def test_the_summary_fitted_in_a_later_step_has_the_widths_of_one_fitted_at_once(qtbot, scored_by_category):
    from PySide6.QtWidgets import QHeaderView

    from fieldstudio.compare.views import load_view
    from fieldstudio.gui.panels.comparison_summary import SummaryPanel

    project, _ = scored_by_category
    view = load_view(project, SCORER)
    at_once, later = SummaryPanel(), SummaryPanel()
    for panel in (at_once, later):
        qtbot.addWidget(panel)
        panel.resize(1200, 700)
        panel.show()
    at_once.set_view(view)
    later.set_view(view, fit=False)
    assert later.table.horizontalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.Interactive
    later.fit_columns()
    widths = [[p.table.columnWidth(c) for c in range(p.table_model.columnCount())] for p in (at_once, later)]
    heights = [[p.table.rowHeight(r) for r in range(p.table_model.rowCount())] for p in (at_once, later)]
    assert widths[0] == widths[1] and heights[0] == heights[1] and len(widths[0]) == 2
    assert later.table.verticalHeader().sectionResizeMode(0) == QHeaderView.ResizeMode.ResizeToContents


def test_a_reload_with_nothing_committed_shows_nothing_again(qtbot, scored_by_category):
    project, ids = scored_by_category
    w = open_comparison(qtbot, project, (1200, 700))
    view = w.view
    shown: list[str] = []
    w.model.modelReset.connect(lambda: shown.append("grid reset"))
    w.model.dataChanged.connect(lambda *_: shown.append("grid changed"))
    w.summary.table_model.modelReset.connect(lambda: shown.append("summary"))
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.reload(SCORER)
    assert w.view is view and shown == [] and w._worker is None
    _add_source(project, ids, "gamma", {"t1": 1.0})          # a commit: read and shown again
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.reload(SCORER)
    assert w.view is not view and shown == ["grid reset", "summary"]
    assert w.model.grid.sources == ["alpha", "beta", "gamma"]


def test_a_load_paints_the_grid_once(qtbot, scored_by_category):
    # the reset and its delayed layout asked Qt for two full paints of the grid in a row; the rows are now laid out
    # with painting off and painted in a step of their own
    from PySide6.QtCore import QEvent, QObject

    project, ids = scored_by_category
    w = open_comparison(qtbot, project, (1200, 700))
    painted: list[int] = []

    class Paints(QObject):
        def eventFilter(self, obj, event):  # noqa: ANN001, ANN202
            if event.type() == QEvent.Type.Paint:
                painted.append(len(w.model.grid.sources))
            return False

    paints = Paints(w)
    w.table.viewport().installEventFilter(paints)
    _add_source(project, ids, "gamma", {"t1": 1.0})          # a commit: the grid resets to three sources
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.reload(SCORER)
    qtbot.wait(100)
    assert w.table.updatesEnabled() and w.model.grid.sources == ["alpha", "beta", "gamma"]
    assert painted.count(3) == 1, painted
