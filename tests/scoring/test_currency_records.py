"""A scoring that finds every score current keeps that finding (``scoring.currency_records``), and the next scoring
returns it without counting again, until any writer changes an answer, a task or a score (issue 37 item 4).

Each writer below changes the project one way; the scoring after it must count again (``currency.count_current``
is called: the spy says so) and must find exactly what changed, by counts worked out by hand. The database's
triggers and row counts catch the writer, whichever code path or connection it takes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import select, text

from fieldstudio.inference.runs.run_records import delete_run
from fieldstudio.scoring import currency, currency_records, service
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.scoring.scorers import REGISTRY
from fieldstudio.scoring.scoring_report import ScoringReport
from fieldstudio.scoring.staleness import answer_sha, scorer_sha
from fieldstudio.store.portable import raw_rows
from fieldstudio.store.models import Answer, ScoreCurrency, Task
from fieldstudio.tasks import task_records
from fieldstudio.tasks.importing import import_tasks
from tests.support.scoring_fixtures import add_run

HEADER = "task_id,query,answer_type,ground_truth,category,scenario,inputs,eval_func,camera\r\n"
TASKS = HEADER + "a,q?,count,3,,,,,\r\nb,q?,count,4,,,,,\r\nc,q?,free_text,the red crane,,,,,\r\n"
ANSWERS = "task_id,answer\r\na,3\r\nb,5\r\nc,a blue crane\r\n"
"""a right (1), b wrong (0), c free text fs-match cannot decide without a judge (unscored)."""


def _csv(path: Path, body: str) -> Path:
    path.write_bytes(body.encode("utf-8"))
    return path


@pytest.fixture
def counts_made(monkeypatch) -> list[int]:
    """One entry per ``currency.count_current`` call (the scoring counted instead of returning a kept finding)."""
    calls: list[int] = []
    real = currency.count_current

    def spy(session, sel, report):
        calls.append(1)
        return real(session, sel, report)

    monkeypatch.setattr(currency, "count_current", spy)
    return calls


@pytest.fixture
def scored_once(project, tmp_path):
    """A project with three tasks and one imported answer source, scored once with fs-match."""
    import_tasks(project, [_csv(tmp_path / "t.csv", TASKS)])
    import_answers(project, _csv(tmp_path / "a.csv", ANSWERS), "vlm")
    first = service.score_answers(project, "fs-match")
    assert (first.scored, first.unscored, first.written) == (2, 1, 3)
    return project


def _fields(report: ScoringReport) -> dict:
    return {k: v for k, v in dataclasses.asdict(report).items()}


def _task_id(project, external_id: str) -> str:
    with project.read() as s:
        return s.scalar(select(Task.id).where(Task.external_id == external_id))


def _answer_id(project, external_id: str) -> str:
    with project.read() as s:
        return s.scalar(select(Answer.id).join(Task, Task.id == Answer.task_id).where(Task.external_id == external_id))


def test_a_scoring_after_a_scoring_returns_the_kept_counts_without_counting(scored_once, counts_made):
    again = service.score_answers(scored_once, "fs-match")
    assert counts_made == []
    # the same counts as a full count in SQL of the same project (made here without the kept finding)
    full = ScoringReport("fs-match", again.version, judge=None)
    with scored_once.read() as s:
        sel = currency.Selection("fs-match", again.version, None, None, judged=False)
        full.answers = currency.count_answers(s, sel)
        currency.count_current(s, sel, full)
    assert _fields(again) == _fields(full)
    assert (again.answers, again.current, again.scored, again.unscored, again.written, again.stale) == (3, 3, 2, 1, 0, 0)
    assert dict(again.unscored_reasons) and sum(again.unscored_reasons.values()) == 1
    assert list(again.per_run.values()) == [[2, 1]]


def test_another_selection_is_not_answered_by_a_finding_of_the_first(scored_once, counts_made):
    """Other parameters, a judge, or one run of several: each is counted on its own."""
    other = service.score_answers(scored_once, "fwa-paper")          # another scorer: scored_once from nothing
    assert other.written == 3 and len(counts_made) == 2          # counted before and after writing
    counts_made.clear()
    fs = service.score_answers(scored_once, "fs-match")               # fwa-paper's rows were inserted since
    assert (fs.current, fs.written) == (3, 0) and len(counts_made) == 1
    counts_made.clear()
    assert service.score_answers(scored_once, "fs-match").current == 3 and counts_made == []


def _import_changed_answer(project, tmp_path):
    import_answers(project, _csv(tmp_path / "a2.csv", ANSWERS.replace("b,5", "b,4")), "vlm")


def _import_changed_task(project, tmp_path):
    import_tasks(project, [_csv(tmp_path / "t2.csv", TASKS.replace("b,q?,count,4", "b,q?,count,5"))])


def _edit_task(project, tmp_path):
    task_records.update_task(project, _task_id(project, "b"), ground_truth="5")


def _promote(project, tmp_path):
    service.promote_answer_to_ground_truth(project, _answer_id(project, "b"), "ana")


def _raw_update(project, tmp_path):
    # outside every service: a plain UPDATE on the engine's own connection (another tool, another process), which
    # keeps the answer's hash as fieldstudio's writers do
    answer_id = _answer_id(project, "b")
    with project.read() as s:
        (parsed, error), = raw_rows(s, "SELECT parsed, error FROM answer WHERE id = ?", (answer_id,))
    with project.engine.begin() as conn:
        conn.execute(text("UPDATE answer SET raw_text = '4', content_sha256 = :sha WHERE id = :i"),
                     {"sha": answer_sha("4", parsed, error), "i": answer_id})


@pytest.mark.parametrize("change", [_import_changed_answer, _import_changed_task, _edit_task, _promote, _raw_update],
                         ids=["answer import", "task import", "task editor", "promotion", "plain SQL update"])
def test_every_change_of_an_answer_or_a_task_is_scored_again(scored_once, counts_made, tmp_path, change):
    assert service.score_answers(scored_once, "fs-match").current == 3 and counts_made == []
    change(scored_once, tmp_path)
    after = service.score_answers(scored_once, "fs-match")
    assert counts_made, "the scoring returned a finding kept before the change"
    assert (after.answers, after.current, after.stale, after.written) == (3, 2, 1, 1)
    counts_made.clear()
    assert service.score_answers(scored_once, "fs-match").current == 3 and counts_made == []


def test_a_persons_override_is_a_new_score_row_and_is_counted(scored_once, counts_made):
    score_id = service.current_scores(scored_once, "fs-match").set_index("task_id").loc[_task_id(scored_once, "b"), "score_id"]
    service.override_score(scored_once, score_id, 1.0, "the count includes the hidden one", "ana")
    after = service.score_answers(scored_once, "fs-match")
    assert counts_made
    assert (after.current, after.kept_overrides, after.written) == (3, 1, 0)
    # not every answer is current by its columns (two rows of the scorer): nothing kept, counted every time
    counts_made.clear()
    assert service.score_answers(scored_once, "fs-match").kept_overrides == 1 and counts_made


def test_new_answers_a_deleted_run_and_a_new_task_are_counted(scored_once, counts_made, tmp_path):
    new_run = add_run(scored_once, "second", {_task_id(scored_once, "a"): "3", _task_id(scored_once, "b"): "4"})   # ORM inserts
    after = service.score_answers(scored_once, "fs-match")
    assert counts_made and (after.answers, after.current, after.written, after.scored) == (5, 3, 2, 4)
    counts_made.clear()
    delete_run(scored_once, new_run)                                  # its answers and scores go by cascade
    gone = service.score_answers(scored_once, "fs-match")
    assert counts_made and (gone.answers, gone.current, gone.written) == (3, 3, 0)
    counts_made.clear()
    task_records.create_task(scored_once, task_id="d", query="how many?", answer_type="count", ground_truth="1")
    assert service.score_answers(scored_once, "fs-match").current == 3 and counts_made   # a task insert counts too


def test_a_deleted_score_is_scored_again_even_when_an_insert_keeps_the_row_count(scored_once, counts_made):
    a_id = _answer_id(scored_once, "a")
    with scored_once.engine.begin() as conn:     # one transaction: the score table keeps its row count
        conn.execute(text("INSERT INTO score (id, answer_id, scorer, scorer_version, created_at) "
                          "VALUES ('other', :i, 'count', '1.0', '2026-01-01 00:00:00')"), {"i": a_id})
        conn.execute(text("DELETE FROM score WHERE answer_id = :i AND scorer = 'fs-match'"), {"i": a_id})
    after = service.score_answers(scored_once, "fs-match")
    assert counts_made and (after.current, after.written) == (2, 1)


def test_a_cancelled_scoring_keeps_nothing(project, tmp_path, counts_made):
    import_tasks(project, [_csv(tmp_path / "t.csv", TASKS)])
    import_answers(project, _csv(tmp_path / "a.csv", ANSWERS), "vlm")
    report = service.score_answers(project, "fs-match", cancelled=lambda: True)
    assert report.cancelled and report.written == 0
    with project.read() as s:
        assert s.scalars(select(ScoreCurrency)).all() == []


def test_the_finding_is_kept_with_the_state_it_was_counted_in(scored_once):
    with scored_once.read() as s:
        (row,) = s.scalars(select(ScoreCurrency)).all()
        counts = {t: s.scalar(text(f"SELECT count(*) FROM {t}")) for t in ("answer", "task", "score")}
    assert (row.answer_rows, row.task_rows, row.score_rows) == (counts["answer"], counts["task"], counts["score"])
    assert row.counts["answers"] == 3 and row.counts["current"] == 3
    version = REGISTRY["fs-match"].version
    assert row.selection == currency_records.selection_key(
        currency.Selection("fs-match", version, scorer_sha("fs-match", version, {}, None), None, judged=False))
