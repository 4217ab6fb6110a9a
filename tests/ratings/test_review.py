"""Headless services behind rater mode and the agreement panel: undoable rating saves, item votes and
disagreements, one item's measures, and the demo rating set.

Expected values are counted by hand from the small tables written here, or read back with sqlite3.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from fieldstudio.demo.ratings import add_demo_ratings
from fieldstudio.ratings import review as rating_review
from fieldstudio.ratings.acceptability import rules as ar
from tests.support.demo_data import RATERS, RATING_ROWS, SET_NAME
from fieldstudio.media import library
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings.acceptability import service as acceptability
from fieldstudio.ratings.edits import RecordRating

SAMPLE = Path(__file__).resolve().parents[2] / "sample_data" / "media" / "images"
PHOTOS = ["ppe_electricians_hardhat_vest_wire_room_mta.jpg", "ppe_worker_hardhat_vest_warehouse_zone_frame045.png",
          "retail_grocery_Bravo-Orange-Juice_024.jpg"]


@pytest.fixture
def voted_items(project):
    """Three sample photos in a set; verdicts: photo 1 a/a/a, photo 2 a/r/u, photo 3 r/r (c missing)."""
    report = library.add_paths(project, [SAMPLE / n for n in PHOTOS])
    ids = [library.find_media(project, n).id for n in PHOTOS]
    ratings.create_rating_set(project, "s", "the target is visible", fields=[{"name": "n", "type": "number"}])
    items = ratings.add_items(project, "s", ids).added
    assert len(report.media_ids) == 3 and len(items) == 3
    table = [("accept", "accept", "accept"), ("accept", "reject", "unsure"), ("reject", "reject", None)]
    for item, votes in zip(items, table):
        for rater, v in zip("abc", votes):
            if v:
                ratings.record_rating(project, item, rater, v)
    ratings.record_source_verdicts(project, "s", "scorer:x", {items[0]: ("reject", [], {}),
                                                             items[2]: ("reject", [], {})})
    return items


def db_rows(project_or_path, sql, *args):
    con = sqlite3.connect(getattr(project_or_path, "path", project_or_path))
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def test_record_rating_undo_removes_a_new_rating_and_redo_puts_it_back(project, voted_items):
    edit = RecordRating(project, voted_items[0], " d ", "reject", reasons=["blurry"], fields={"n": "3"}, comment="hm",
                        seconds_spent=4.5)
    edit.do()
    row = db_rows(project, "SELECT id, verdict, reasons, fields, seconds_spent FROM rating WHERE rater = 'd'")
    assert len(row) == 1 and row[0][1:] == ("reject", '["blurry"]', '{"n": 3.0, "_comment": "hm"}', 4.5)
    edit.undo()
    assert db_rows(project, "SELECT count(*) FROM rating WHERE rater = 'd'") == [(0,)]
    assert ratings.rater_progress(project, "s", "d") == (0, 3)
    edit.do()  # redo restores the same row, same id
    assert db_rows(project, "SELECT id, verdict FROM rating WHERE rater = 'd'") == [(row[0][0], "reject")]


def test_record_rating_undo_restores_the_replaced_verdict(project, voted_items):
    before = db_rows(project, "SELECT id, verdict, reasons, fields, seconds_spent, created_at FROM rating "
                              "WHERE rater = 'a' AND item_id = ?", voted_items[1])
    edit = RecordRating(project, voted_items[1], "a", "reject", reasons=["occluded"], seconds_spent=2.0)
    edit.do()
    assert db_rows(project, "SELECT verdict FROM rating WHERE rater = 'a' AND item_id = ?", voted_items[1]) == [("reject",)]
    edit.undo()
    after = db_rows(project, "SELECT id, verdict, reasons, fields, seconds_spent, created_at FROM rating "
                             "WHERE rater = 'a' AND item_id = ?", voted_items[1])
    assert after == before


def test_bad_verdict_raises_and_writes_nothing(project, voted_items):
    with pytest.raises(ratings.RatingError):
        RecordRating(project, voted_items[0], "d", "maybe").do()
    assert db_rows(project, "SELECT count(*) FROM rating WHERE rater = 'd'") == [(0,)]


def test_item_votes_and_disagreements(project, voted_items):
    votes = rating_review.item_votes(project, "s")
    assert [(v.accept, v.reject, v.unsure, v.majority, v.status) for v in votes] == [
        (3, 0, 0, "accept", "majority"), (1, 1, 1, None, "tie"), (0, 2, 0, "reject", "majority")]
    assert votes[0].sources == {"scorer:x": "reject"} and "scorer:x" not in votes[0].votes
    assert [v.item.id for v in rating_review.rater_disagreements(project, "s")] == [voted_items[1]]
    assert rating_review.verdict_counts(project, "s") == {"accept": 4, "reject": 3, "unsure": 1}


def test_others_on_item_excludes_the_rater_and_lists_machines_last(project, voted_items):
    others = rating_review.others_on_item(project, voted_items[0], "b")
    assert [(r.rater, r.verdict) for r in others] == [("a", "accept"), ("c", "accept"), ("scorer:x", "reject")]


def test_set_agreement_alpha_by_hand(project, voted_items):
    # values per item: 1 (a, a, a), 2 (a, r; the unsure left out), 3 (r, r)
    # coincidences: item1 a-a 3*2/(3-1)=3, item2 a-r 1/(2-1)=1 each way, item3 r-r 2/(2-1)=2
    # o_aa=3, o_rr=2, o_ar=o_ra=1; n_a=4, n_r=3, n=7; D_o = 2/7, D_e = 2*4*3/(7*6) = 4/7 -> alpha = 1 - 0.5
    summary = rating_review.set_agreement(project, "s", n_resamples=50)
    assert summary.alpha.estimate == pytest.approx(0.5)
    assert summary.n_raters == 3 and set(summary.sources) == {"scorer:x"}


def test_measure_item_matches_the_set_scorer(project, voted_items):
    single = rating_review.measure_item(project, voted_items[1])
    whole = {m.item_id: m for m in acceptability.measure_rating_set(project, "s")}
    assert single.measured.measures == whole[voted_items[1]].measures
    assert single.verdict == ar.evaluate(ar.DEFAULT_RULES, whole[voted_items[1]].measures)
    assert [t.term for t in single.terms] == [t.name for t in ar.DEFAULT_RULES.terms]


def test_demo_ratings_on_the_demo_project(tmp_path):
    from fieldstudio.demo.project import build_demo
    from fieldstudio.store.project import Project

    path = tmp_path / "demo.fieldstudio"
    build_demo(path)  # calls add_demo_ratings
    assert db_rows(path, "SELECT count(*) FROM rating_item") == [(12,)]
    with Project.open(path) as p:
        info = ratings.get_rating_set(p, SET_NAME)
        assert info.raters == sorted(RATERS) and info.rules is not None
        summary = rating_review.set_agreement(p, SET_NAME, n_resamples=20)
        assert summary.majority_ties == 1 and summary.n_unsure == 3
        # every item with a worker measures its ground-truth box
        assert all(m.target_source == "ground truth" for m in acceptability.measure_rating_set(p, SET_NAME)[:3])
        with pytest.raises(ratings.RatingError):
            add_demo_ratings(p)
    rows = db_rows(path, "SELECT rater, count(*) FROM rating GROUP BY rater ORDER BY rater")
    assert rows == [("Ana Ruiz", 12), ("Ben Okafor", 12), ("Chen Wei", 11), ("scorer:acceptability-rules", 12)]
    # the raters' verdicts, reasons, comments and times are the rows of sample_data/demo/ratings.csv
    stored = {(f if n is None else f"{f}#{n}", rater): (verdict, json.loads(reasons),
                                                         json.loads(fields).get(ratings.COMMENT_KEY) or "", seconds)
              for f, n, rater, verdict, reasons, fields, seconds in db_rows(
                  path, "SELECT m.file_name, i.frame_index, r.rater, r.verdict, r.reasons, r.fields, r.seconds_spent "
                        "FROM rating r JOIN rating_item i ON i.id = r.item_id JOIN media m ON m.id = i.media_id "
                        "WHERE r.rater IN ('Ana Ruiz', 'Ben Okafor', 'Chen Wei')")}
    assert stored == {(row["item"], row["rater"]): (row["verdict"], [x.strip() for x in row["reasons"].split(";")
                                                                     if x.strip()],
                                                    row["comment"], float(row["seconds_spent"]))
                      for _, row in RATING_ROWS}
