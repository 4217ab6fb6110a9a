"""Sorting the comparison grid by a header click (``ComparisonTableModel.sort``): the model orders its own rows
from its arrays, with Qt's stable-sort semantics (absent answers, then unscored ones, then scores; equal keys in
task-id order both ways), and the current cell, the selection and the filters follow their tasks."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QItemSelectionModel, Qt

from fieldstudio.gui.panels.comparison_model import SORT_ROLE, TASK_COLUMNS, ComparisonTableModel
from fieldstudio.store.models import Answer, Score
from tests.support.gui_support import open_comparison
from tests.support.scoring_fixtures import add_run, add_task, scored_now

SCORER = "fs-match"
# alpha's score of each task, by hand: None = answered but not scored, "absent" = alpha did not answer
ALPHA = {"t0": 0.5, "t1": None, "t2": 1.0, "t3": 0.0, "t4": 0.5, "t5": "absent"}


@pytest.fixture
def sortable(project):
    """Six tasks (ids 1.1.0000-1.1.0005 in the order t0-t5); alpha answers all but t5 and is scored as ALPHA says;
    beta answers every task (unscored)."""
    ids = {k: add_task(project, f"1.1.000{n}", f"gt {k}") for n, k in enumerate(ALPHA)}
    alpha = add_run(project, "alpha", {ids[k]: f"alpha {k}" for k, v in ALPHA.items() if v != "absent"})
    add_run(project, "beta", {ids[k]: f"beta {k}" for k in ALPHA})
    by_id = {v: k for k, v in ids.items()}
    with project.write() as s:
        for a in s.query(Answer).filter(Answer.run_id == alpha):
            v = ALPHA[by_id[a.task_id]]
            if v is not None:
                s.add(Score(answer_id=a.id, scorer=SCORER, **scored_now(s, a.id, SCORER), value=v, correct=v > 0.5))
    return project


def shown(w) -> list[str]:  # noqa: ANN001
    """The task keys (t0-t5) of the rows shown, top to bottom."""
    return [f"t{int(tid[-1])}" for tid in (w.proxy.index(r, 0).data() for r in range(w.proxy.rowCount()))]


def alpha_column(w) -> int:  # noqa: ANN001
    return len(TASK_COLUMNS) + w.model.grid.sources.index("alpha")


def test_a_source_column_sorts_absent_then_unscored_then_by_score_equal_scores_in_task_order(qtbot, sortable):
    w = open_comparison(qtbot, sortable)
    assert shown(w) == ["t0", "t1", "t2", "t3", "t4", "t5"]
    w.table.sortByColumn(alpha_column(w), Qt.SortOrder.AscendingOrder)
    assert shown(w) == ["t5", "t1", "t3", "t0", "t4", "t2"]
    w.table.sortByColumn(alpha_column(w), Qt.SortOrder.DescendingOrder)
    assert shown(w) == ["t2", "t0", "t4", "t3", "t1", "t5"]      # t0 before t4 both ways, as Qt's stable sort
    w.table.sortByColumn(0, Qt.SortOrder.DescendingOrder)
    assert shown(w) == ["t5", "t4", "t3", "t2", "t1", "t0"]
    w.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
    assert shown(w) == ["t0", "t1", "t2", "t3", "t4", "t5"]
    assert w.proxy.sortColumn() == -1                             # the proxy itself never sorts


def test_the_sort_reads_the_arrays_not_the_models_data(qtbot, sortable, monkeypatch):
    w = open_comparison(qtbot, sortable)
    asked: list[int] = []
    data = ComparisonTableModel.data
    monkeypatch.setattr(ComparisonTableModel, "data", lambda self, index, role=Qt.ItemDataRole.DisplayRole:
                        (asked.append(role.value if hasattr(role, "value") else role), data(self, index, role))[1])
    w.table.sortByColumn(alpha_column(w), Qt.SortOrder.DescendingOrder)
    w.table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    assert int(SORT_ROLE) not in asked and shown(w)[0] == "t0"


def test_the_current_cell_and_the_selection_follow_their_tasks_through_a_sort(qtbot, sortable):
    w = open_comparison(qtbot, sortable)
    col = alpha_column(w)
    assert w.select_cell(w.model.grid.tasks.at[3, "task_id"], "alpha")          # t3, alpha
    w.table.selectionModel().select(w.proxy.index(4, col), QItemSelectionModel.SelectionFlag.Select)  # and t4
    w.table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    current = w.table.currentIndex()
    assert current.row() == 3 and shown(w)[3] == "t3"
    assert w._current_cell_key() == (str(w.model.grid.tasks.at[3, "task_id"]), "alpha")
    assert sorted(f"t{tid[-1]}" for tid in (w.model.grid.tasks.set_index("task_id").loc[t, "external_id"]
                                           for t in w.selected_task_ids())) == ["t3", "t4"]


def test_a_changed_score_in_the_sorted_column_moves_its_row_and_filters_keep_the_sort(qtbot, sortable):
    w = open_comparison(qtbot, sortable)
    col = alpha_column(w)
    w.table.sortByColumn(col, Qt.SortOrder.DescendingOrder)
    k = w.model.grid.sources.index("alpha")
    w.model.update_cell(3, k, 1.0, 1.0, True, None)          # a person sets t3 (grid row 3) to 1.0
    assert shown(w) == ["t2", "t3", "t0", "t4", "t1", "t5"]
    assert w.proxy.index(1, col).data().startswith("✎ 1.00")
    w.search_edit.setText("alpha t")                          # t5 has no alpha answer: filtered out, order kept
    qtbot.waitUntil(lambda: w.proxy.rowCount() == 5, timeout=5000)
    assert shown(w) == ["t2", "t3", "t0", "t4", "t1"]


def test_a_sort_keeps_the_laid_out_texts_and_paints_each_row_its_own(qtbot, sortable):
    w = open_comparison(qtbot, sortable)
    delegate = w.table.itemDelegate()
    w.table.setCurrentIndex(w.proxy.index(0, 0))
    w.table.viewport().grab()
    kept = dict(delegate._texts)
    w.table.sortByColumn(alpha_column(w), Qt.SortOrder.DescendingOrder)
    w.table.viewport().grab()
    assert delegate._texts == kept                          # the same cells, keyed by the grid's row: none laid again
    col = alpha_column(w)
    for r in range(w.proxy.rowCount()):                     # each row's laid-out text is its own task's
        g = w.model.grid_row(w.proxy.mapToSource(w.proxy.index(r, col)).row())
        texts = [t.text() for (gr, c, _w), t in delegate._texts.items() if (gr, c) == (g, col)]
        assert all(w.proxy.index(r, col).data().startswith(t.rstrip("…")) for t in texts)


def test_after_a_header_click_the_grid_paints_once_the_shown_texts_are_laid_out(qtbot, sortable):
    w = open_comparison(qtbot, sortable)
    delegate = w.table.itemDelegate()
    header = w.table.horizontalHeader()
    delegate.forget()
    header.setSortIndicator(alpha_column(w), Qt.SortOrder.DescendingOrder)     # what a click on its section does
    assert shown(w)[0] == "t2" and not w.table.updatesEnabled()                # sorted; the paint held
    qtbot.waitUntil(w.table.updatesEnabled, timeout=5000)
    rows, columns = w.proxy.rowCount(), w.proxy.columnCount()
    assert delegate.cached() == rows * columns - 1                             # every shown cell but t5's empty one
