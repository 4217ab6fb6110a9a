"""Which scores still stand, decided in SQL on the hashes stored with the answer and the task (issue 37 item 4):
every path that writes or changes an answer or a task keeps its hash in step (checked against the hash of the
stored columns, computed independently of the stored one), an answer or task changed by that path is stale and
scored again, and the SQL takes only what the Python check (``ScoreCheck.stands``) keeps."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select, update

from fieldstudio.inference.runs import queue as run_queue
from fieldstudio.scoring import currency, service
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.scoring.inputs import read_inputs
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.scoring_report import ScoringReport
from fieldstudio.scoring.staleness import ScoreCheck, answer_sha, scorer_sha, truth_sha
from fieldstudio.store.models import Answer, Score, Task
from fieldstudio.store.portable import raw_rows
from fieldstudio.tasks import task_records
from fieldstudio.tasks.importing import import_tasks
from tests.support import run_fixtures
from tests.support.fake_openai import Reply
from tests.support.scoring_fixtures import add_run, add_task

HEADER = "task_id,query,answer_type,ground_truth,category,scenario,inputs,eval_func,camera\r\n"


def _csv(path: Path, text_: str) -> Path:
    path.write_bytes(text_.encode("utf-8"))
    return path


def _in_step(project) -> None:
    """Every answer's and task's stored hash is the hash of its stored columns (read back as text)."""
    with project.read() as s:
        answers = raw_rows(s, "SELECT id, raw_text, parsed, error, content_sha256 FROM answer")
        tasks = read_inputs(project, None, "fs-match")[1]
        stored = dict(raw_rows(s, "SELECT id, truth_sha256 FROM task"))
    assert answers and tasks
    for answer_id, raw, parsed, error, sha in answers:
        assert sha == answer_sha(raw, parsed, error), (answer_id, raw, parsed, error)
    for task_id, task in tasks.items():
        assert stored[task_id] == truth_sha(task), task


def _selection(scorer: str = "fs-match", *, judged: bool = False) -> currency.Selection:
    version = REGISTRY[scorer].version
    return currency.Selection(scorer, version, scorer_sha(scorer, version, {}, None), None, judged=judged)


def _sql_current(project, sel: currency.Selection) -> set[str]:
    """The answer ids the SQL takes as current: every answer minus those ``to_score`` pages out."""
    with project.read() as s:
        every = {r[0] for r in raw_rows(s, "SELECT id FROM answer")}
        left = {r[0] for r in currency.to_score(s, sel, "", 10_000)}
    return every - left


def test_answers_import_keeps_the_hash_and_a_changed_answer_is_scored_again(project, tmp_path):
    import_tasks(project, [_csv(tmp_path / "t.csv", HEADER + "a,q?,count,3,,,,,\r\nb,q?,count,4,,,,,\r\n")])
    import_answers(project, _csv(tmp_path / "a1.csv", "task_id,answer,latency_s\r\na,3,1.5\r\nb,5,\r\n"), "vlm")
    _in_step(project)
    assert service.score_answers(project, "fs-match").scored == 2
    again = service.score_answers(project, "fs-match")
    assert (again.current, again.stale, again.written, again.scored) == (2, 0, 0, 2)
    import_answers(project, _csv(tmp_path / "a2.csv", "task_id,answer,latency_s\r\na,3,1.5\r\nb,4,\r\n"), "vlm")   # b changed
    _in_step(project)
    rescored = service.score_answers(project, "fs-match")
    assert (rescored.current, rescored.stale, rescored.written) == (1, 1, 1)
    scores = service.current_scores(project, "fs-match")
    assert sorted(scores["value"]) == [1.0, 1.0] and scores["stale_reason"].isna().all()


def test_task_import_and_edit_keep_the_hash_and_a_changed_ground_truth_is_scored_again(project, tmp_path):
    import_tasks(project, [_csv(tmp_path / "t.csv", HEADER + "a,q?,count,3,,,,,\r\nb,q?,count,4,,,,,\r\n")])
    import_answers(project, _csv(tmp_path / "a.csv", "task_id,answer\r\na,3\r\nb,4\r\n"), "vlm")
    _in_step(project)
    service.score_answers(project, "fs-match")
    # the same file with b's ground truth changed: an update of the stored task through the import
    import_tasks(project, [_csv(tmp_path / "t2.csv", HEADER + "a,q?,count,3,,,,,\r\nb,q?,count,5,,,,,\r\n")])
    _in_step(project)
    first = service.score_answers(project, "fs-match")
    assert (first.current, first.stale, first.written) == (1, 1, 1)
    with project.read() as s:
        a_id = s.scalar(select(Task.id).where(Task.external_id == "a"))
    task_records.update_task(project, a_id, ground_truth="7")          # the task editor's path
    _in_step(project)
    second = service.score_answers(project, "fs-match")
    assert (second.current, second.stale, second.written) == (1, 1, 1)
    assert sorted(service.current_scores(project, "fs-match")["value"]) == [0.0, 0.0]


def test_orm_rows_with_explicit_none_and_promotion_keep_the_hash(project):
    """The ORM stores an explicit None in a JSON column as the JSON text 'null' (the bulk inserts store SQL NULL):
    both hash as no parsed answer, as the scorer reads both; promoting an answer to the ground truth changes the
    task's hash."""
    t1 = add_task(project, "1.1.0001", "3", answer_type="count")
    t2 = add_task(project, "1.1.0002", "4", answer_type="count", extra={"reasoning_status": "ok"})
    add_run(project, "m", {t1: {"raw_text": "3", "parsed": None}, t2: {"raw_text": "six", "parsed": {"x": [1]}}})
    with project.read() as s:
        assert raw_rows(s, "SELECT parsed FROM answer WHERE task_id = ?", (t1,)) == [("null",)]
        t2_answer = s.scalar(select(Answer.id).where(Answer.task_id == t2))
    _in_step(project)
    service.score_answers(project, "fs-match")
    assert service.score_answers(project, "fs-match").current == 2
    service.promote_answer_to_ground_truth(project, t2_answer, "ana")
    _in_step(project)
    after = service.score_answers(project, "fs-match")
    assert (after.current, after.stale) == (1, 1)


def test_run_answers_and_retried_answers_keep_the_hash(project, fake_openai):
    """A run's finished answers are written by one Core UPDATE (``queue.UPDATE_PENDING``); a retry makes failed
    answers pending again through the ORM: both keep the hash, and a retried answer is scored again."""
    ids = [run_fixtures.add_task(project, q, external_id=q, ground_truth="2", answer_type="count")
           for q in ("fine", "broken")]

    def respond(request):
        if "broken" in json.dumps(request.body["messages"]):
            return Reply(status=503, error_message="overloaded")
        return Reply(text="2")

    fake_openai.responder = respond
    profile = run_fixtures.fake_profile(fake_openai)
    run_id = run_queue.create_run(project, profile, ids)
    run_queue.execute_run(project, run_id, profile=profile)
    _in_step(project)
    first = service.score_answers(project, "fs-match")
    assert (first.scored, first.unscored, first.failed_answers) == (1, 1, 1)
    fake_openai.responder = lambda request: Reply(text="2")
    run_queue.execute_run(project, run_id, profile=profile, retry_failed=True)
    _in_step(project)
    again = service.score_answers(project, "fs-match")
    assert (again.current, again.stale, again.scored, again.failed_answers) == (1, 1, 2, 0)


def test_the_sql_takes_only_what_the_python_check_keeps(project):
    """Answers in every state a score row can be in; the SQL's current set is exactly those the Python check
    keeps among answers with a single machine row, and never one it would score again."""
    tasks = [add_task(project, f"1.1.{i:04d}", str(i), answer_type="count") for i in range(8)]
    run = add_run(project, "m", {t: str(i) for i, t in enumerate(tasks)})
    service.score_answers(project, "fs-match")
    with project.read() as s:
        ids = dict(s.execute(select(Answer.task_id, Answer.id).where(Answer.run_id == run)).all())
        row_of = dict(s.execute(select(Score.answer_id, Score.id)).all())
    a = [ids[t] for t in tasks]
    service.override_score(project, row_of[a[1]], 0.0, "wrong unit", "ana")        # a person's row: Python decides
    with project.write() as s:
        s.execute(update(Answer).where(Answer.id == a[2]).values(content_sha256=None))     # hash unknown
        s.execute(update(Score).where(Score.id == row_of[a[3]]).values(scorer_version="0.1"))  # old version
        s.execute(update(Score).where(Score.id == row_of[a[4]]).values(truth_sha256="0" * 64))  # other truth
        old = s.get(Score, row_of[a[6]])
        s.add(Score(answer_id=a[6], scorer="fs-match", scorer_version=old.scorer_version, value=old.value,
                    answer_sha256=old.answer_sha256, truth_sha256=old.truth_sha256,
                    scorer_sha256=old.scorer_sha256))                               # two machine rows
    sel = _selection()
    assert _sql_current(project, sel) == {a[0], a[5], a[7]}
    # a reader asks range by range (answer ids in order), testing "one row" by index instead of one list
    reader = currency.Selection.for_reading("fs-match", sel.version)
    ordered = sorted(a)
    with project.read() as s:
        whole = currency.current_answer_ids(s, reader)
        ranged = [currency.current_answer_ids(s, reader, (ordered[k], ordered[min(k + 2, 7)])) for k in (0, 3, 6)]
    assert whole == set().union(*ranged) == {a[0], a[5], a[7]}
    assert all(part <= set(ordered[k:k + 3]) for part, k in zip(ranged, (0, 3, 6)))
    service.score_answers(project, "fwa-paper")              # another scorer's row beside every answer's
    assert _sql_current(project, sel) == {a[0], a[5], a[7]}
    answers, task_inputs, in_force = read_inputs(project, None, "fs-match")
    check = ScoreCheck("fs-match", sel.version, sel.scorer_now, judged=False)
    keeps = {aid for aid, _, task_id, raw, parsed, error in answers
             if check.stands(in_force[aid], answer_sha(raw, parsed, error), task_inputs[task_id])}
    assert keeps == {a[0], a[1], a[2], a[5], a[6], a[7]}
    report = service.score_answers(project, "fs-match")
    assert (report.answers, report.current, report.kept_overrides, report.stale, report.written) == (8, 6, 1, 2, 2)


def test_with_a_judge_undecided_and_failed_rows_are_left_to_the_python_check(project):
    tasks = [add_task(project, f"1.1.{i:04d}", str(i), answer_type="count") for i in range(3)]
    add_run(project, "m", {t: str(i) for i, t in enumerate(tasks)})
    service.score_answers(project, "fs-match")
    with project.write() as s:
        rows = list(s.scalars(select(Score).order_by(Score.answer_id)))
        rows[0].judge = {"raw": "yes", "judge_failed": True}
        rows[1].value, rows[1].explanation = None, "needs a judge: the answer is free text"
        kept = rows[2].answer_id
    assert _sql_current(project, _selection(judged=True)) == {kept}
    assert len(_sql_current(project, _selection(judged=False))) == 3


def test_streamed_scoring_gives_the_same_report_in_small_chunks_and_cancels_between_them(project, monkeypatch):
    tasks = [add_task(project, f"1.1.{i:04d}", str(i % 3), answer_type="count") for i in range(7)]
    add_run(project, "m1", {t: str(i % 2) for i, t in enumerate(tasks)})
    add_run(project, "m2", {t: "1" for t in tasks})
    whole = service.score_answers(project, "fs-match")
    with project.write() as s:
        s.execute(Score.__table__.delete())
    monkeypatch.setattr(service, "DETERMINISTIC_BATCH", 3)
    seen: list[tuple[int, int]] = []
    chunked = service.score_answers(project, "fs-match", progress=lambda d, t: seen.append((d, t)))
    assert (chunked.scored, chunked.unscored, chunked.per_run, chunked.unscored_reasons) == \
           (whole.scored, whole.unscored, whole.per_run, whole.unscored_reasons)
    assert seen == [(0, 14), (3, 14), (6, 14), (9, 14), (12, 14), (14, 14)]
    with project.write() as s:
        s.execute(Score.__table__.delete())
    calls = iter([False, False, True])
    cancelled = service.score_answers(project, "fs-match", cancelled=lambda: next(calls))
    assert cancelled.cancelled and cancelled.written == 6
    rest = service.score_answers(project, "fs-match")
    assert (rest.current, rest.written) == (6, 8)
    counted = ScoringReport("fs-match", "x")
    with project.read() as s:
        assert currency.count_current(s, _selection(), counted) == 14
    assert (counted.scored, counted.unscored, counted.per_run, counted.unscored_reasons) == \
           (whole.scored, whole.unscored, whole.per_run, whole.unscored_reasons)


def test_a_chunk_reads_the_same_rows_in_force_by_its_ids_as_by_its_range(project, monkeypatch):
    """``inputs.read_chunk``: a short chunk reads its score rows by answer id, a long one by its id range; both give
    the same row in force per answer (a person's override included) and nothing of the answers in between."""
    from fieldstudio.scoring import inputs

    tasks = [add_task(project, f"1.1.{i:04d}", str(i % 3), answer_type="count") for i in range(6)]
    add_run(project, "m1", {t: str(i % 2) for i, t in enumerate(tasks)})
    add_run(project, "m2", {t: "1" for t in tasks})
    service.score_answers(project, "fs-match")
    in_force = service.current_scores(project, "fs-match").sort_values("answer_id")
    service.override_score(project, in_force["score_id"].iloc[2], 1.0, "checked by hand", "ana")
    with project.read() as s:
        every = raw_rows(s, "SELECT id, run_id, task_id, raw_text, parsed, error FROM answer ORDER BY id")
    chunk = [every[1], every[2], every[7], every[10]]            # spread: other answers lie between them
    results = []
    for by_ids in (inputs.BY_IDS, 0):
        monkeypatch.setattr(inputs, "BY_IDS", by_ids)
        with project.read() as s:
            results.append(inputs.read_chunk(project, s, "fs-match", chunk, {}))
    by_id, by_range = results
    assert by_id.keys() == by_range.keys() == {a[0] for a in chunk}
    assert {k: v.id for k, v in by_id.items()} == {k: v.id for k, v in by_range.items()}
    assert by_id[every[2][0]].author == "ana"                    # the override is the row in force
