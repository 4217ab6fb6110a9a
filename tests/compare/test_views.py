"""Headless services of the comparison view: the dense grid and its row flags, the summary cells, which media
frame an answer opens at, and a person's score on an answer with or without a machine score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fieldstudio.compare import views as cv
from fieldstudio.core.errors import FieldstudioError
from fieldstudio.scoring.service import current_scores, score_history
from fieldstudio.store.models import Answer, Score
from tests.support.run_fixtures import add_media
from tests.support.run_fixtures import add_task as add_task_with_inputs
from tests.support.scoring_fixtures import add_run, add_task, scored_now

SCORER = "fs-match"


def _long(rows: list[tuple[str, str, float | None]]) -> pd.DataFrame:
    """A long table like ``comparison.load_answers`` from (task, source, value) triples."""
    out = []
    for task, source, v in rows:
        out.append({"task_id": task, "external_id": f"x.{task}", "category": "A" if task < "t3" else "B",
                    "sub_category": "(none)", "scenario": "factory", "answer_type": "free_text", "query": f"q {task}",
                    "ground_truth": f"gt {task}", "source": source, "answer_id": f"{source}-{task}",
                    "answer": f"{source} answer to {task} " + "word " * 20, "error": None,
                    "value": np.nan if v is None else v, "correct": None if v is None else v > 0.5,
                    "correct_value": np.nan if v is None else float(v > 0.5), "overridden": False,
                    "score_id": None if v is None else f"s-{source}-{task}"})
    return pd.DataFrame(out)


def test_grid_arrays_and_row_flags():
    # t1: 1 / 1 agree, right; t2: 1 / 0 disagree, wrong; t3: 0.2 / 0.4 agree (both not correct), wrong;
    # t4: only m1 answered, unscored -> neither flag
    a = _long([("t1", "m1", 1.0), ("t1", "m2", 1.0), ("t2", "m1", 1.0), ("t2", "m2", 0.0),
               ("t3", "m1", 0.2), ("t3", "m2", 0.4), ("t4", "m1", None)])
    g = cv.build_grid(a, SCORER)
    assert g.sources == ["m1", "m2"] and g.shape == (4, 2) and g.scale == 1.0
    assert g.tasks["task_id"].tolist() == ["t1", "t2", "t3", "t4"]
    assert g.tasks["disagree"].tolist() == [False, True, False, False]
    assert g.tasks["wrong"].tolist() == [False, True, True, False]
    assert g.present[3].tolist() == [True, False] and g.answer_id[3, 1] is None
    assert g.value[2, 1] == 0.4 and np.isnan(g.value[3, 0])
    assert g.correct[1].tolist() == [1.0, 0.0]
    assert len(g.short[0, 0]) == cv.SHORT_CHARS and g.short[0, 0].endswith("…")
    assert "m2 answer to t3" in g.tasks.at[2, "search"]
    assert g.cell_of("t3", "m2") == (2, 1)
    with pytest.raises(KeyError):
        g.cell_of("t9", "m1")


def test_short_answer_of_long_and_spaced_texts():
    # the cut reads only the head of a long text; it must give what collapsing the whole text gives
    def whole(text: str, limit: int = cv.SHORT_CHARS) -> str:
        one = " ".join(text.split())
        return one if len(one) <= limit else one[: limit - 1] + "…"

    rng = np.random.default_rng(3)
    texts = ["word " * 500, " " * 5000 + "late words", "x" * 100, "a\n\t" * 300 + "b" * 50, "short", " ", "",
             "w " * 29 + " " * 1000 + "tail words here"]
    texts += ["".join(rng.choice(list("ab \n"), size=int(n))) for n in rng.integers(0, 2000, size=200)]
    for text in texts:
        assert cv.short_answer(text) == whole(text), repr(text[:40])
    assert cv.short_answer(None) == "" and cv.short_answer(float("nan")) == ""


def test_search_text_leaves_out_missing_answers():
    a = _long([("t1", "m1", 1.0), ("t1", "m2", None)])
    a["answer"] = pd.Series(["the forklift", None], dtype="str")    # a failed call has no text (NaN in a str column)
    g = cv.build_grid(a, SCORER)
    assert g.tasks.at[0, "search"] == "x.t1 q t1 gt t1 the forklift"


def test_scale_of_scorers():
    assert cv.score_scale("fwa-paper") == 1.0 and cv.score_scale("llm-match") == 100.0
    assert cv.score_scale("custom", np.array([0.2, 40.0])) == 100.0


def test_category_cells_means_and_all_row(project, any_n_intervals):
    tasks = [add_task(project, f"1.1.000{i}", "x", category="A") for i in range(3)] + \
            [add_task(project, f"2.1.000{i}", "x", category="B") for i in range(2)]
    run = add_run(project, "m", {t: "x" for t in tasks})
    values = [0.2, 0.6, 1.0, 0.0, None]
    with project.write() as s:
        ids = {a.task_id: a.id for a in s.query(Answer)}
        for t, v in zip(tasks, values):
            s.add(Score(answer_id=ids[t], scorer=SCORER, **scored_now(s, ids[t], SCORER), value=v,
                        correct=None if v is None else v > 0.5))
    view = cv.load_view(project, SCORER, n_resamples=500)
    cells = view.category_cells().set_index(["category", "source"])
    assert list(cells.index.get_level_values(0)) == ["A", "B", "all"]
    assert cells.loc[("A", "m"), "mean"] == pytest.approx(np.mean([0.2, 0.6, 1.0]))
    assert cells.loc[("B", "m"), "n"] == 1 and cells.loc[("B", "m"), "answers"] == 2
    assert cells.loc[("all", "m"), "mean"] == pytest.approx(np.mean([0.2, 0.6, 1.0, 0.0]))
    assert cells.loc[("B", "m"), "ci_low"] == cells.loc[("B", "m"), "ci_high"] == 0.0   # one value
    assert cells.loc[("B", "m"), "total"] == 2 and cells.loc[("all", "m"), "total"] == 5
    assert cells.loc[("B", "m"), "headline"] == pytest.approx(0.0)       # (0.0 + unscored as 0) / 2
    assert cells.loc[("all", "m"), "headline"] == pytest.approx((0.2 + 0.6 + 1.0 + 0.0 + 0.0) / 5)
    assert cv.cell_text(0.6, 0.5, 0.75, 8) == "0.600 [0.500–0.750] n=8"
    assert cv.cell_text(float("nan"), float("nan"), float("nan"), 0) == "— n=0"
    assert run in view.answers["run_id"].tolist()


def test_cell_text_says_coverage_and_n_too_small():
    assert cv.cell_text(0.6, 0.5, 0.75, 8, 10) == "0.600 (n too small) 8/10 scored"
    assert cv.cell_text(0.6, 0.5, 0.75, 12, 16) == "0.600 [0.500–0.750] 12/16 scored"
    assert cv.cell_text(float("nan"), float("nan"), float("nan"), 0, 4) == "— 0/4 scored"


def test_set_score_first_row_then_override(project):
    t = add_task(project, "1.1.0001", "3")
    run = add_run(project, "m", {t: "three"})
    with project.read() as s:
        answer_id = s.query(Answer).one().id
    with pytest.raises(FieldstudioError):
        cv.set_score(project, answer_id, SCORER, 1.0, "  ", "Dana")           # reason required
    with pytest.raises(FieldstudioError):
        cv.set_score(project, answer_id, SCORER, 2.0, "why", "Dana")          # fwa-official is 0-1
    first = cv.set_score(project, answer_id, SCORER, 1.0, "three is 3", "Dana")
    cur = current_scores(project, SCORER, [run])
    assert cur["score_id"].tolist() == [first] and cur["value"].tolist() == [1.0]
    assert cur["overridden"].tolist() == [True] and cur["correct"].tolist() == [True]
    second = cv.set_score(project, answer_id, SCORER, 0.0, "misread", "Kim")
    chain = score_history(project, second)
    assert [(h["value"], h["author"], h["reason"]) for h in chain] == [(1.0, "Dana", "three is 3"),
                                                                      (0.0, "Kim", "misread")]
    detail = cv.answer_detail(project, answer_id, SCORER)
    assert detail.score["value"] == 0.0 and detail.score["author"] == "Kim" and len(detail.history) == 2


def test_promote_keeps_the_old_ground_truth(project):
    t = add_task(project, "1.1.0001", "old truth")
    add_run(project, "m", {t: "new truth"})
    with project.read() as s:
        answer_id = s.query(Answer).one().id
    assert cv.promote(project, answer_id, "Dana", "checked on site") == t
    detail = cv.answer_detail(project, answer_id, None)
    assert detail.ground_truth == "new truth" and detail.score is None


def test_media_target_frames_seen_then_time_range(project, clips):
    ids = add_media(project, clips["vfr"])
    media_id = ids["vfr.mp4"]
    # frames the model saw: the earliest of the first media
    t1 = add_task(project, "1.1.0001", "x")
    add_run(project, "seen", {t1: {"raw_text": "a", "frames": [
        {"media_id": media_id, "frame_index": 90, "pts_s": 3.0}, {"media_id": media_id, "frame_index": 60,
                                                                 "pts_s": 2.0}]}})
    with project.read() as s:
        a1 = s.query(Answer).filter_by(task_id=t1).one().id
    assert cv.media_target(project, cv.answer_detail(project, a1, None)) == (media_id, 60)
    # no frames recorded: the frame shown at the input's start time. The clip's PTS are N/30 s below frame 150
    # and 5 + (N - 150)/15 s after (tests/support/video_fixtures.py), so 7.03 s is frame 150 + floor(2.03 * 15) = 180;
    # index = seconds x mean fps (20) would wrongly give 140.
    t2 = add_task_with_inputs(project, "when?", [("vfr.mp4", media_id)], ranges={0: (7.03, 9.0)})
    run = add_run(project, "plain", {t2: "b"})
    with project.read() as s:
        a2 = s.query(Answer).filter_by(run_id=run).one().id
    assert cv.media_target(project, cv.answer_detail(project, a2, None)) == (media_id, 180)
    # no media at all
    t3 = add_task(project, "1.1.0003", "x")
    add_run(project, "none", {t3: "c"})
    with project.read() as s:
        a3 = s.query(Answer).filter_by(task_id=t3).one().id
    assert cv.media_target(project, cv.answer_detail(project, a3, None)) is None


def test_load_view_reads_with_the_collector_paused_and_turns_it_back_on(project, monkeypatch):
    """The read allocates ~10^5 short-lived containers; a full collection they set off in the worker held the
    interpreter lock for 200-380 ms (issue 37). Paused while reading, on again after, and off stays off."""
    import gc

    during: list[bool] = []
    read = cv._read_view

    def spy(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        during.append(gc.isenabled())
        return read(*args, **kwargs)

    monkeypatch.setattr(cv, "_read_view", spy)
    monkeypatch.setattr(cv, "_last", None)
    assert gc.isenabled()
    cv.load_view(project, SCORER, n_resamples=10)
    assert during == [False] and gc.isenabled()
    gc.disable()
    try:
        monkeypatch.setattr(cv, "_last", None)
        cv.load_view(project, SCORER, n_resamples=10)
        assert not gc.isenabled()
    finally:
        gc.enable()
