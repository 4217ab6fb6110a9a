"""Rater mode and the agreement panel driven as a user would, on the demo project with its rating set.

Expected values come from outside the code under test: the rating rows read back with plain sqlite3,
Krippendorff's alpha from the ``krippendorff`` package on a raters x items reliability matrix built
here from those rows, and pairwise figures counted by hand from the demo's verdict table.
"""

from __future__ import annotations

import math
import sqlite3

import krippendorff
import numpy as np
import pytest
from PySide6.QtCore import Qt

from tests.support.demo_data import RATERS, SET_NAME
from fieldstudio.gui.panels.agreement import AgreementPanel
from fieldstudio.gui.panels.rating import RaterPanel

pytestmark = pytest.mark.gui
NEW_RATER = "Dana Test"


def rows(path, sql, *args):
    con = sqlite3.connect(path)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def queue(path) -> list[tuple[str, str, int | None]]:
    """(item id, file name, frame) in queue order, read with sqlite3."""
    return rows(path, "SELECT i.id, m.file_name, i.frame_index FROM rating_item i JOIN media m ON m.id = i.media_id "
                      "ORDER BY i.position")


def my_ratings(path, rater=NEW_RATER):
    return rows(path, "SELECT r.item_id, r.verdict, r.reasons, r.fields, r.seconds_spent FROM rating r "
                      "WHERE r.rater = ?", rater)


@pytest.fixture
def rater(qtbot, demo_project):
    w = RaterPanel()
    qtbot.addWidget(w)
    w.resize(1200, 760)
    w.show()
    qtbot.waitExposed(w)
    w.set_project(demo_project)
    w.set_rater(NEW_RATER)
    wait_image(w, qtbot)
    yield w
    w.set_project(None)


def wait_image(panel, qtbot):
    qtbot.waitUntil(lambda: panel.loader_idle() and not panel.canvas.image().isNull(), timeout=10000)
    qtbot.wait(30)


def press(panel, qtbot, key, modifier=Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(panel.canvas, key, modifier)


def test_verdict_keys_write_rows_at_once_and_enter_advances(rater, qtbot, demo_path):
    items = queue(demo_path)
    assert rater.progress_label.text() == f"0 / {len(items)}"
    assert rater.item_label.text().startswith(f"Item 1 of {len(items)}: {items[0][1]}")
    press(rater, qtbot, Qt.Key.Key_A)
    got = my_ratings(demo_path)
    assert [(g[0], g[1]) for g in got] == [(items[0][0], "accept")]
    assert rater.progress_label.text() == f"1 / {len(items)}"
    # tick reason 2 ("target out of frame"), then R replaces the verdict in the same row
    press(rater, qtbot, Qt.Key.Key_2)
    press(rater, qtbot, Qt.Key.Key_R)
    got = my_ratings(demo_path)
    assert len(got) == 1 and got[0][1] == "reject" and got[0][2] == '["target out of frame"]'
    press(rater, qtbot, Qt.Key.Key_Return)
    assert rater.item_label.text().startswith(f"Item 2 of {len(items)}: {items[1][1]}")
    wait_image(rater, qtbot)
    press(rater, qtbot, Qt.Key.Key_U)
    press(rater, qtbot, Qt.Key.Key_Return)
    assert rater.progress_label.text() == f"2 / {len(items)}"
    assert rater.item_label.text().startswith(f"Item 3 of {len(items)}")
    assert {(g[0], g[1]) for g in my_ratings(demo_path)} == {(items[0][0], "reject"), (items[1][0], "unsure")}
    # the other raters' rows are untouched: 35 demo ratings + 12 scorer verdicts + 2 new
    assert rows(demo_path, "SELECT count(*) FROM rating")[0][0] == 35 + 12 + 2


def test_ctrl_z_takes_back_the_last_verdict(rater, qtbot, demo_path):
    items = queue(demo_path)
    press(rater, qtbot, Qt.Key.Key_A)
    press(rater, qtbot, Qt.Key.Key_R)
    assert my_ratings(demo_path)[0][1] == "reject"
    press(rater, qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert [(g[0], g[1]) for g in my_ratings(demo_path)] == [(items[0][0], "accept")]
    assert rater.form.verdict_buttons["accept"].isChecked()
    press(rater, qtbot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert my_ratings(demo_path) == []
    assert rater.progress_label.text() == f"0 / {len(items)}"
    assert rater.saved_label.text() == "not rated yet"


def test_backspace_fields_time_and_resume(rater, qtbot, demo_path, demo_project):
    items = queue(demo_path)
    qtbot.wait(250)
    press(rater, qtbot, Qt.Key.Key_A)
    press(rater, qtbot, Qt.Key.Key_Return)
    wait_image(rater, qtbot)
    # Tab into the documentation fields: digits typed there are a value, not a reason key
    workers_edit = rater.form.field_edits["workers in view"]
    workers_edit.setFocus()
    qtbot.keyClicks(workers_edit, "2")
    assert not any(b.isChecked() for b in rater.form.reason_boxes)
    qtbot.keyClick(workers_edit, Qt.Key.Key_Escape)
    press(rater, qtbot, Qt.Key.Key_R)
    got = {g[0]: g for g in my_ratings(demo_path)}
    assert '"workers in view": 2.0' in got[items[1][0]][3]
    assert got[items[0][0]][4] >= 0.25  # seconds spent on the first item
    press(rater, qtbot, Qt.Key.Key_Backspace)
    assert rater.item_label.text().startswith(f"Item 1 of {len(items)}")
    assert rater.form.verdict_buttons["accept"].isChecked()
    # a new panel for the same rater resumes at the first item not rated
    other = RaterPanel()
    qtbot.addWidget(other)
    other.set_project(demo_project)
    other.set_rater(NEW_RATER)
    assert other.item_label.text().startswith(f"Item 3 of {len(items)}")
    assert other.progress_label.text() == f"2 / {len(items)}"
    other.set_project(None)


def test_tab_reaches_the_fields_where_letters_are_values(rater, qtbot, demo_path):
    items = queue(demo_path)
    qtbot.keyClick(rater.canvas, Qt.Key.Key_Tab)
    hard_hat = rater.form.field_edits["hard hat"]
    assert rater.focusWidget() is hard_hat
    qtbot.keyClick(hard_hat, Qt.Key.Key_N)   # "no", not the N shortcut (next item)
    assert hard_hat.currentText() == "no"
    assert rater.item_label.text().startswith(f"Item 1 of {len(items)}")
    qtbot.keyClick(hard_hat, Qt.Key.Key_Escape)
    press(rater, qtbot, Qt.Key.Key_R)
    press(rater, qtbot, Qt.Key.Key_N)
    assert rater.item_label.text().startswith(f"Item 2 of {len(items)}")
    assert '"hard hat": false' in my_ratings(demo_path)[0][3]


def test_blind_mode_hides_other_verdicts(rater, qtbot):
    assert rater.blind_box.isChecked()
    assert not rater.open_box.isVisible()
    assert rater.reveal.others_label.text() == ""
    rater.blind_box.setChecked(False)
    assert rater.open_box.isVisible()
    text = rater.reveal.others_label.text()
    for name in RATERS:  # the first demo item: everyone accepted
        assert f"{name}: <b style='color:#2e7d32'>accept</b>" in text
    assert "scorer:acceptability-rules" in text
    rater.blind_box.setChecked(True)
    assert rater.reveal.others_label.text() == ""


def demo_matrix(path):
    """Raters x items matrix of the human verdicts (accept 1, reject 0, unsure or missing NaN)."""
    item_ids = [i[0] for i in queue(path)]
    m = np.full((len(RATERS), len(item_ids)), np.nan)
    for item_id, rater, verdict in rows(path, "SELECT item_id, rater, verdict FROM rating"):
        if rater in RATERS and verdict in ("accept", "reject"):
            m[RATERS.index(rater), item_ids.index(item_id)] = 1.0 if verdict == "accept" else 0.0
    return m


@pytest.fixture
def agreement(qtbot, demo_project):
    w = AgreementPanel()
    qtbot.addWidget(w)
    w.resize(1100, 900)
    w.show()
    qtbot.waitExposed(w)
    w.set_project(demo_project)
    qtbot.waitUntil(lambda: not w.busy(), timeout=30000)
    yield w
    w.set_project(None)


def test_agreement_numbers_match_an_independent_computation(agreement, demo_path):
    expected = krippendorff.alpha(reliability_data=demo_matrix(demo_path), level_of_measurement="nominal")
    assert agreement.set_combo.currentText() == SET_NAME
    assert f"= {expected:.3f} [" in agreement.headline.text()
    assert math.isclose(agreement.summary.alpha.estimate, expected, abs_tol=1e-12)
    # pairs counted by hand from the demo table: Ana/Ben agree on 9 of 12; kappa = (0.75 - 0.5) / 0.5
    m = agreement.pairs_model
    pairs = {(m.rows[r][0], m.rows[r][1]): m.rows[r] for r in range(m.rowCount())}
    assert pairs[("Ana Ruiz", "Ben Okafor")][2:] == ["12", "9", "0.750", "0.500"]
    # counts per verdict: 35 human ratings, 3 unsure (Chen)
    assert "35 ratings: accept 14, reject 18, unsure 3" in agreement.counts_label.text()
    # machine verdicts are not raters, but have their own row
    raters = [agreement.raters_model.rows[r][0] for r in range(agreement.raters_model.rowCount())]
    assert raters == sorted(RATERS)
    assert agreement.sources_model.rows[0][0] == "scorer:acceptability-rules"


def test_clicking_a_disagreement_emits_its_item(agreement, qtbot, demo_path):
    items = queue(demo_path)
    label = {i[0]: i[1] if i[2] is None else f"{i[1]}#{i[2]}" for i in items}
    m = agreement.disagree_model
    shown = [m.rows[r][0] for r in range(m.rowCount())]
    # by hand: the frame-45 photo (A, A, R), clip frames 0, 10, 70 (2 R : 1 A) and 55 (A, R, U)
    assert shown == [label[items[k][0]] for k in (2, 4, 5, 8, 9)]
    view = agreement.disagree_view
    rect = view.visualRect(m.index(3, 0))
    with qtbot.waitSignal(agreement.open_item, timeout=2000) as sig:
        qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert sig.args == [items[8][0]]


def test_scorer_disagreement_opens_item_with_measures(agreement, rater, qtbot, demo_path):
    agreement.open_item.connect(lambda i: rater.show_item(i, review=True))
    m = agreement.scorer_model
    assert m.rowCount() >= 1
    view = agreement.scorer_view
    qtbot.mouseClick(view.viewport(), Qt.MouseButton.LeftButton, pos=view.visualRect(m.index(0, 0)).center())
    assert rater.item_label.text().split(": ", 1)[1].startswith(m.rows[0][0])
    assert not rater.blind_box.isChecked()
    qtbot.waitUntil(lambda: "Rules:" in rater.reveal.measures_label.text(), timeout=15000)
    wait_image(rater, qtbot)
    assert rater.reveal.overlays  # the measured target box is drawn
    rater.grab().save("/tmp/rater_review.png")


def test_screenshots(agreement, rater, qtbot):
    press(rater, qtbot, Qt.Key.Key_N)
    wait_image(rater, qtbot)
    press(rater, qtbot, Qt.Key.Key_3)
    press(rater, qtbot, Qt.Key.Key_R)
    assert rater.saved_label.text().startswith("your verdict: reject")
    rater.grab().save("/tmp/rater_mode.png")
    agreement.grab().save("/tmp/agreement_panel.png")
