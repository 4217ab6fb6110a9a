"""The comparison grid's cell painter (``gui.panels.comparison_delegate``): each cell's text elided to its column
once and kept, its background the score's colour, the kept texts dropped when the model's texts change."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from fieldstudio.gui.panels.comparison_delegate import TEXT_MARGIN_PX, GridDelegate
from fieldstudio.gui.panels.comparison_model import TASK_COLUMNS, score_colour
from fieldstudio.store.models import Answer, Score
from tests.support.gui_support import open_comparison
from tests.support.scoring_fixtures import add_run, add_task, scored_now

SCORER = "fs-match"
LONG = "the forklift parked beside the third rack on the left of the loading bay, next to two pallets of boxes"


@pytest.fixture
def long_answers(project):
    """Two tasks answered by one source with a long answer each, scored 1.0 (t1) and 0.0 (t2)."""
    ids = {k: add_task(project, f"1.1.000{n}", f"gt {k}") for n, k in enumerate(("t1", "t2"))}
    run = add_run(project, "alpha", {ids["t1"]: f"t1 {LONG}", ids["t2"]: f"t2 {LONG}"})
    with project.write() as s:
        for a in s.query(Answer).filter(Answer.run_id == run):
            v = 1.0 if a.task_id == ids["t1"] else 0.0
            s.add(Score(answer_id=a.id, scorer=SCORER, **scored_now(s, a.id, SCORER), value=v, correct=v > 0.5))
    return project


def _cell(w, row: int):  # noqa: ANN001, ANN202
    return w.proxy.index(row, len(TASK_COLUMNS))


def test_a_cell_shows_its_text_elided_to_its_column_on_its_score_colour(qtbot, long_answers):
    w = open_comparison(qtbot, long_answers, (1200, 700))
    delegate = w.table.itemDelegate()
    assert isinstance(delegate, GridDelegate)
    w.table.clearSelection()
    w.table.setCurrentIndex(w.proxy.index(0, 0))        # no source cell selected or current: the delegate's own paint
    w.table.setColumnWidth(len(TASK_COLUMNS), 150)
    image = w.table.viewport().grab().toImage()
    rect = w.table.visualRect(_cell(w, 1))
    assert image.pixelColor(rect.right() - 1, rect.bottom() - 1) == score_colour(0.0)   # t2: red
    rect0 = w.table.visualRect(_cell(w, 0))
    assert image.pixelColor(rect0.right() - 1, rect0.bottom() - 1) == score_colour(1.0)
    full = _cell(w, 1).data()
    assert full.startswith("0.00 · t2 the forklift") and full.endswith("…")             # data() keeps the whole text
    width = rect.width() - 2 * TEXT_MARGIN_PX
    laid = delegate._texts[(1, 0 + len(TASK_COLUMNS), width)].text()
    assert laid == w.table.fontMetrics().elidedText(full, Qt.TextElideMode.ElideRight, width)
    assert laid.endswith("…") and len(laid) < len(full) and full.startswith(laid[:-1])
    # some of the text is drawn: dark pixels inside the cell, left of its middle
    inside = [image.pixelColor(x, y) for x in range(rect.left() + 4, rect.center().x())
              for y in range(rect.top() + 2, rect.bottom() - 2)]
    assert min(c.lightness() for c in inside) < 100


def test_the_kept_texts_follow_the_model(qtbot, long_answers):
    w = open_comparison(qtbot, long_answers, (1200, 700))
    delegate = w.table.itemDelegate()
    w.table.setCurrentIndex(w.proxy.index(0, 0))
    w.table.viewport().grab()
    assert delegate.cached() > 0
    w.model.update_cell(1, 0, 1.0, 1.0, True, None)     # a person's override of t2: the cell's text changes
    assert delegate.cached() == 0
    w.table.viewport().grab()
    width = w.table.visualRect(_cell(w, 1)).width() - 2 * TEXT_MARGIN_PX
    assert delegate._texts[(1, len(TASK_COLUMNS), width)].text().startswith("✎ 1.00 · t2 the")
    w.table.setColumnWidth(len(TASK_COLUMNS), 400)      # another width: laid out again at that width
    w.table.viewport().grab()
    width = w.table.visualRect(_cell(w, 1)).width() - 2 * TEXT_MARGIN_PX
    assert width > 380 and (1, len(TASK_COLUMNS), width) in delegate._texts


def test_sorting_paints_each_row_with_its_own_text(qtbot, long_answers):
    w = open_comparison(qtbot, long_answers, (1200, 700))
    w.table.sortByColumn(len(TASK_COLUMNS), Qt.SortOrder.AscendingOrder)   # by score: t2 (0.0) first
    assert _cell(w, 0).data().startswith("0.00 · t2")
    w.table.setCurrentIndex(w.proxy.index(1, 0))
    image = w.table.viewport().grab().toImage()
    rect = w.table.visualRect(_cell(w, 0))
    assert image.pixelColor(rect.right() - 1, rect.bottom() - 1) == score_colour(0.0)


def test_the_shown_cells_are_laid_out_in_steps_before_the_paint(qtbot, long_answers, monkeypatch):
    from fieldstudio.gui.panels import comparison_delegate

    w = open_comparison(qtbot, long_answers, (1200, 700))
    w.table.setCurrentIndex(w.proxy.index(0, 0))
    delegate = w.table.itemDelegate()
    delegate.forget()
    monkeypatch.setattr(comparison_delegate, "CELLS_PER_STEP", 3)   # 2 rows x 4 columns: 3 steps
    done: list[int] = []
    delegate.lay_out_visible(w.table, lambda: done.append(delegate.cached()), 1)
    assert delegate.cached() == 0                                    # nothing before the first step's turn
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    assert done == [8]                                               # every shown cell, all of them with a text
    w.table.viewport().grab()
    assert delegate.cached() == 8                                    # the paint laid out nothing more


def test_the_grid_looks_as_qts_own_delegate_paints_it(qtbot, long_answers):
    from PySide6.QtWidgets import QStyledItemDelegate

    w = open_comparison(qtbot, long_answers, (1200, 700))
    w.table.setColumnWidth(len(TASK_COLUMNS), 150)                   # the long answers elided
    w.table.setCurrentIndex(w.proxy.index(1, len(TASK_COLUMNS)))     # one cell selected, as Qt paints it
    ours = w.table.viewport().grab().toImage()
    mine = w.table.itemDelegate()
    qts = QStyledItemDelegate(w.table)
    w.table.setItemDelegate(qts)
    assert w.table.viewport().grab().toImage() == ours               # pixel for pixel
    w.table.setItemDelegate(mine)


def test_the_kept_texts_stay_under_their_bound_and_the_painted_ones_are_kept(qtbot, long_answers, monkeypatch):
    from fieldstudio.gui.panels import comparison_delegate

    monkeypatch.setattr(comparison_delegate, "MAX_KEPT_TEXTS", 12)
    w = open_comparison(qtbot, long_answers, (1200, 700))
    w.table.setCurrentIndex(w.proxy.index(0, 0))
    delegate = w.table.itemDelegate()
    column, seen = len(TASK_COLUMNS), set()
    for width in range(100, 300, 20):                      # ten widths of the answer column: 20 texts of its cells
        w.table.setColumnWidth(column, width)
        w.table.viewport().grab()
        assert delegate.cached() <= 12
        laid = w.table.visualRect(_cell(w, 1)).width() - 2 * TEXT_MARGIN_PX
        assert (1, column, laid) in delegate._texts       # the cell just painted is kept
        seen.add(laid)
    assert len(seen) == 10 and len({k for k in delegate._texts if k[:2] == (1, column)}) < 10  # old widths gone
