"""Scores tied by hash to what they judged (issue 31 item 2): a changed reference, answer or scorer makes a score
stale; stale scores are left out of the summaries and the report with "n stale", and scoring again re-scores
exactly the stale and unscored answers."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import update

from fieldstudio.compare import answer_table, coverage, report_export
from fieldstudio.compare import comparison as cmp
from fieldstudio.scoring import staleness
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.service import current_scores, override_score, score_answers, score_history
from fieldstudio.store.models import Score, Task
from tests.support.scoring_fixtures import add_run, add_task

VERSION = REGISTRY["fs-match"].version


@pytest.fixture
def counted(project):
    """Three count tasks (ground truth 1, 2, 3) answered right by one source and scored with fs-match."""
    tasks = [add_task(project, f"1.1.000{i}", str(i), answer_type="count", eval_func="number_match",
                      query=f"How many people in clip {i}?") for i in (1, 2, 3)]
    run = add_run(project, "vlm", {t: str(i) for i, t in zip((1, 2, 3), tasks)})
    first = score_answers(project, "fs-match")
    assert (first.scored, first.written, first.current, first.stale) == (3, 3, 0, 0)
    return project, tasks, run


def _set_truth(project, task_id: str, text: str) -> None:
    with project.write() as s:
        s.get(Task, task_id).ground_truth = text


def test_stale_reason_names_what_changed():
    judged = staleness.Judged("a", "t", "s", "1")
    common = dict(scorer="fs-match", version="1.4", version_now="1.4")
    assert staleness.stale_reason(judged, answer_now="a", truth_now="t", reference_now="1", **common) is None
    assert staleness.stale_reason(judged, answer_now="a", truth_now="t2", reference_now="2", **common) == \
        "the ground truth changed: 1 → 2"
    assert staleness.stale_reason(judged, answer_now="b", truth_now="t", reference_now="1", **common) == \
        "the answer changed"
    assert staleness.stale_reason(judged, answer_now="a", truth_now="t", reference_now="1", scorer="fs-match",
                                  version="1.4", version_now="2.0") == "scorer fs-match 1.4 → 2.0"
    # a person judged the answer against the ground truth, not the scorer's rules: a new version leaves it
    assert staleness.stale_reason(judged, answer_now="a", truth_now="t", reference_now="1", scorer="fs-match",
                                  version="1.4", version_now="2.0", by_person=True) is None
    assert staleness.stale_reason(staleness.Judged(None, None, None, None), answer_now="a", truth_now="t",
                                  reference_now="1", **common) == staleness.BEFORE_HASHES


def test_the_hashes_follow_what_a_scorer_reads():
    from fieldstudio.scoring.scorers.scorer_info import TaskInputs

    task = TaskInputs("t", "x", "fieldworkarena", "q?", "count", "1", None, None, None, None)
    assert staleness.truth_sha(task) == staleness.truth_sha(task._replace(external_id="y"))   # not read
    for changed in (task._replace(ground_truth="2"), task._replace(answer_type="number"),
                    task._replace(tolerances={"r_th": 1}), task._replace(query="q2?"),
                    task._replace(ground_truth_extra={"annotation_link": {"kind": "count", "media_id": "m"}}),
                    task._replace(extra={"reasoning_status": "eligible"})):
        assert staleness.truth_sha(changed) != staleness.truth_sha(task)
    assert staleness.answer_sha("1", None, None) != staleness.answer_sha("1", '{"direct_answer": "2"}', None)
    assert staleness.answer_sha("1", {"a": 1}, None) == staleness.answer_sha("1", json.dumps({"a": 1}), None)
    assert staleness.answer_sha(None, None, "timeout") != staleness.answer_sha(None, None, None)
    assert staleness.scorer_sha("fwa-paper", "1", {"alpha": 0.5}) != staleness.scorer_sha("fwa-paper", "1", {})


def test_a_changed_reference_makes_the_score_stale_everywhere_and_only_it_is_scored_again(counted):
    project, tasks, run = counted
    _set_truth(project, tasks[0], "2")           # the supervisor's stray box: 1 -> 2
    scores = current_scores(project, "fs-match").set_index("task_id")
    assert scores.loc[tasks[0], "stale_reason"] == "the ground truth changed: 1 → 2"
    assert scores.loc[tasks[1], "stale_reason"] is None and scores.loc[tasks[2], "stale_reason"] is None
    # the long table: the stale verdict is not a value, its old value kept beside it
    answers = answer_table.load_answers(project, "fs-match").set_index("task_id")
    assert answers["value"].isna().tolist() == [True, False, False]
    assert answers.loc[tasks[0], "stale_value"] == 1.0 and answers.loc[tasks[0], "correct"] is None
    # the summary: 2 of 3 scored, 1 stale; mean over the two current scores; the headline counts the stale one 0
    c = cmp.build_comparison(project, "fs-match", n_resamples=50)
    row = c.summary.loc["vlm"]
    assert (row["n"], row["total"], row["stale"], row["unscored"]) == (2, 3, 1, 1)
    assert row["mean"] == 1.0 and row["headline"] == pytest.approx(2 / 3)
    assert coverage.coverage_text(row["n"], row["total"], row["stale"]) == "2/3 scored, 1 stale"
    assert coverage.answered_text(row["answers"], row["total"], row["n"], row["stale"]) == \
        "3 answered, 0 missing, 1 unscored, 1 stale"
    # scoring again scores exactly that one
    again = score_answers(project, "fs-match")
    assert (again.stale, again.current, again.written) == (1, 2, 1)
    scores = current_scores(project, "fs-match").set_index("task_id")
    assert scores["stale_reason"].isna().all() and scores.loc[tasks[0], "value"] < 1.0
    nothing = score_answers(project, "fs-match")
    assert (nothing.stale, nothing.current, nothing.written) == (0, 3, 0)


def test_the_report_leaves_stale_scores_out_and_says_how_many(counted, tmp_path):
    project, tasks, run = counted
    _set_truth(project, tasks[2], "4")
    summary = json.loads(report_export.export_report(project, tmp_path / "r.json", scorer="fs-match",
                                                     n_resamples=50).path.read_text())
    entry = summary["sources"]["vlm"]["all"]
    assert (entry["n"], entry["stale"], entry["total"], entry["mean"]) == (2, 1, 3, 1.0)
    html = report_export.export_report(project, tmp_path / "r.html", scorer="fs-match", n_resamples=50)
    text = html.path.read_text()
    assert "2/3 scored, 1 stale" in text and "stale (the ground truth changed: 3 → 4)" in text
    csv = report_export.export_report(project, tmp_path / "r.csv", scorer="fs-match", n_resamples=50)
    import pandas as pd

    table = pd.read_csv(csv.path).set_index("external_id")
    assert table.loc["1.1.0003", "stale_reason"] == "the ground truth changed: 3 → 4"
    assert pd.isna(table.loc["1.1.0003", "value"]) and table.loc["1.1.0001", "value"] == 1.0
    assert table.loc["1.1.0003", "explanation"].startswith("stale (the ground truth changed: 3 → 4); it said: ")


def test_an_older_scorer_version_is_stale_and_scored_again(counted):
    project, tasks, run = counted
    with project.write() as s:
        s.execute(update(Score).where(Score.answer_id.is_not(None)).values(scorer_version="0.9"))
    reasons = set(current_scores(project, "fs-match")["stale_reason"])
    assert reasons == {f"scorer fs-match 0.9 → {VERSION}"}
    again = score_answers(project, "fs-match")
    assert (again.stale, again.current, again.written) == (3, 0, 3)
    assert current_scores(project, "fs-match")["stale_reason"].isna().all()


def test_other_parameters_score_again(project):
    t = add_task(project, "1.1.0001", "2.0 m", answer_type="distance", eval_func="distance_match")
    add_run(project, "vlm", {t: "2.3 m"})
    assert score_answers(project, "fwa-paper").written == 1
    assert score_answers(project, "fwa-paper").current == 1
    other = score_answers(project, "fwa-paper", params={"r_th": 0.1})
    assert (other.current, other.stale) == (0, 1)


def test_scores_from_before_the_hashes_are_stale_until_scored_again(counted):
    project, tasks, run = counted
    with project.write() as s:               # what migration 0007 leaves on the rows it finds
        s.execute(update(Score).values(answer_sha256=None, truth_sha256=None, scorer_sha256=None, judged_truth=None))
    assert set(current_scores(project, "fs-match")["stale_reason"]) == {staleness.BEFORE_HASHES}
    c = cmp.build_comparison(project, "fs-match", n_resamples=50)
    assert (c.summary.loc["vlm", "n"], c.summary.loc["vlm", "stale"]) == (0, 3)
    again = score_answers(project, "fs-match")
    assert (again.stale, again.written) == (3, 3)
    assert current_scores(project, "fs-match")["stale_reason"].isna().all()


def test_a_persons_verdict_stands_until_what_it_judged_changes(counted):
    project, tasks, run = counted
    scores = current_scores(project, "fs-match").set_index("task_id")
    person = override_score(project, scores.loc[tasks[1], "score_id"], 0.0, "miscounted", "ann")
    kept = score_answers(project, "fs-match")
    assert (kept.kept_overrides, kept.stale, kept.written) == (1, 0, 0)
    assert current_scores(project, "fs-match").set_index("task_id").loc[tasks[1], "score_id"] == person
    _set_truth(project, tasks[1], "5")
    assert current_scores(project, "fs-match").set_index("task_id").loc[tasks[1], "stale_reason"] == \
        "the ground truth changed: 2 → 5"
    again = score_answers(project, "fs-match")
    assert (again.stale, again.written, again.kept_overrides) == (1, 1, 0)
    now = current_scores(project, "fs-match").set_index("task_id").loc[tasks[1]]
    assert now["stale_reason"] is None and not now["overridden"] and now["score_id"] != person
    # the person's verdict stays in the history
    assert [h["author"] for h in score_history(project, person)] == [None, "ann"]


def _linked_count_project(project):
    """One person boxed on the test photo; the count task "How many people appear in this clip?" linked to the
    boxes of 'person' (ground truth 1), answered "1" and scored 1.0 with fs-match; a second task, typed in."""
    from fieldstudio.annotations import annotation_records as ann
    from fieldstudio.annotations import labels
    from fieldstudio.tasks import task_records as ts
    from fieldstudio.tasks.ground_truth import GroundTruthLink, link_fields
    from tests.support.annotation_fixtures import PHOTO_ID

    person = labels.create_label(project, "person")
    ann.add_box(project, PHOTO_ID, (10, 10, 40, 80), person)
    linked = ts.create_task(project, external_id="1.1.0001", query="How many people appear in this clip?",
                            inputs=[{"media_id": PHOTO_ID}])
    ts.update_task(project, linked, **link_fields(project, None, GroundTruthLink("count", media_id=PHOTO_ID,
                                                                                  label_id=person)))
    typed = ts.create_task(project, external_id="1.1.0002", query="How many forklifts?", answer_type="count",
                           ground_truth="3")
    add_run(project, "vlm", {linked: "1", typed: "3"})
    assert score_answers(project, "fs-match").scored == 2
    ann.add_box(project, PHOTO_ID, (200, 150, 30, 40), person)      # the supervisor's stray box on a trash can
    return linked, typed


def test_a_stray_box_makes_a_pending_change_and_accepting_it_makes_exactly_that_score_stale(media_project):
    from fieldstudio.tasks import ground_truth as gt
    from fieldstudio.tasks import task_records as ts

    project = media_project
    linked, typed = _linked_count_project(project)
    (change,) = gt.pending_changes(project)
    assert (change.task_id, change.old, change.new, change.ok) == (linked, "1", "2", True)
    assert change.text == "1.1.0001: '1' → '2' (2 distinct object(s) (0 track(s), 2 single box(es)))"
    # nothing changed yet: the ground truth and its score stand; Compare's detail shows the pending change
    assert ts.get_task(project, linked).ground_truth == "1"
    scores = current_scores(project, "fs-match").set_index("task_id")
    assert scores["stale_reason"].isna().all()
    from fieldstudio.compare import views

    detail = views.answer_detail(project, scores.loc[linked, "answer_id"], "fs-match")
    assert detail.pending_ground_truth == change.text and detail.score["stale_reason"] is None
    # accepting is one undoable edit; the score that judged "1" is then stale, and only it is scored again
    edit = ts.UpdateTask(project, linked, "Accept ground truth from annotations", ground_truth=change.new)
    edit.do()
    scores = current_scores(project, "fs-match").set_index("task_id")
    assert scores.loc[linked, "stale_reason"] == "the ground truth changed: 1 → 2"
    assert scores.loc[typed, "stale_reason"] is None
    again = score_answers(project, "fs-match")
    assert (again.stale, again.current, again.written) == (1, 1, 1)
    assert current_scores(project, "fs-match").set_index("task_id").loc[linked, "value"] < 1.0
    assert gt.pending_changes(project) == []
    edit.undo()                                              # back to 1: the new score is stale in turn
    assert ts.get_task(project, linked).ground_truth == "1"
    assert current_scores(project, "fs-match").set_index("task_id").loc[linked, "stale_reason"] == \
        "the ground truth changed: 2 → 1"


def test_refresh_ground_truth_lists_and_applies_only_with_apply(media_project, monkeypatch):
    from typer.testing import CliRunner

    from fieldstudio.cli.app import app
    from fieldstudio.tasks import task_records as ts

    project = media_project
    linked, _ = _linked_count_project(project)
    monkeypatch.setenv("COLUMNS", "250")                     # no line the test reads is wrapped
    runner = CliRunner()
    listed = runner.invoke(app, ["refresh-ground-truth", str(project.path)])
    assert listed.exit_code == 0, listed.output
    assert "1 pending ground-truth change(s) from annotations; nothing changed: run again with --apply" in \
        listed.output
    assert "1.1.0001: '1' → '2' (2 distinct object(s)" in listed.output
    assert ts.get_task(project, linked).ground_truth == "1"
    applied = runner.invoke(app, ["refresh-ground-truth", str(project.path), "--apply"])
    assert applied.exit_code == 0, applied.output
    assert "1 linked ground truth(s) changed from annotations; their earlier scores are stale" in applied.output
    assert ts.get_task(project, linked).ground_truth == "2"
    scored = runner.invoke(app, ["score", str(project.path), "--scorer", "fs-match"])
    assert scored.exit_code == 0, scored.output
    assert "1 already current (not scored again), 1 stale scored again; 1 rows written" in scored.output


def test_info_says_how_many_scores_are_stale(counted):
    """`fieldstudio info` counts the stale scores in force beside all the scores (issue 36 leftover)."""
    from typer.testing import CliRunner

    from fieldstudio.cli.app import app
    from fieldstudio.scoring.store import count_stale_scores

    project, tasks, _run = counted
    assert count_stale_scores(project) == 0
    _set_truth(project, tasks[0], "2")
    assert count_stale_scores(project) == 1
    result = CliRunner().invoke(app, ["info", str(project.path)])
    assert result.exit_code == 0 and "scores: 3 (1 stale: `fieldstudio score` scores them again)" in result.output
    assert json.loads(CliRunner().invoke(app, ["info", str(project.path), "--json"]).output)["scores_stale"] == 1


def test_a_task_re_import_that_changes_the_ground_truth_says_how_many_scores_are_stale(project, tmp_path):
    """Re-importing a task CSV whose ground truth changed: the task is updated, its score is kept but stale, and
    the command says so, as the answer import does (issue 36 leftover)."""
    from typer.testing import CliRunner

    from fieldstudio.cli.app import app

    tasks = [add_task(project, f"q{i}", str(i), answer_type="count", eval_func="number_match", source="csv",
                      category="1.1", query=f"How many people in clip {i}?") for i in (1, 2)]
    add_run(project, "vlm", {t: str(i) for i, t in zip((1, 2), tasks)})
    assert score_answers(project, "fs-match").written == 2
    csv_file = tmp_path / "tasks.csv"
    csv_file.write_text("task_id,query,answer_type,ground_truth,category,eval_func\n"
                        "q1,How many people in clip 1?,count,5,1.1,number_match\n"
                        "q2,How many people in clip 2?,count,2,1.1,number_match\n")
    result = CliRunner().invoke(app, ["tasks", "import", str(project.path), str(csv_file)])
    assert result.exit_code == 0, result.output
    assert "1 score(s) now stale" in result.output, result.output          # q2 kept its truth: its score stands
    again = CliRunner().invoke(app, ["tasks", "import", str(project.path), str(csv_file)])
    assert again.exit_code == 0 and "now stale" not in again.output        # nothing changed the second time
