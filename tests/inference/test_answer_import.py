"""Answers imported by inference (runs and answers), their stale scores removed by the score store (issue 35 item 3),
and the format registry the import and the fronts ask (item 2)."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, text

from fieldstudio.inference.runs import answer_import
from fieldstudio.scoring import store as score_store
from fieldstudio.scoring.service import current_scores, score_answers
from fieldstudio.store.models import Answer, Score, Task
from fieldstudio.store.project import Project
from fieldstudio.tasks.importing import import_tasks


@pytest.fixture
def csv_tasks_project(tmp_path):
    """A project with two tasks (t1 a distance, t2 a count) imported from a fieldstudio CSV file."""
    p = Project.create(tmp_path / "p.fieldstudio")
    (tmp_path / "tasks.csv").write_text("task_id,query,answer_type,ground_truth\r\n"
                                        "t1,How far?,distance,2.5 m\r\nt2,How many?,count,3\r\n", "utf-8")
    import_tasks(p, [tmp_path / "tasks.csv"])
    yield p
    p.close()


def answers_file(tmp_path: Path, name: str, t1: str, t2: str) -> Path:
    path = tmp_path / name
    path.write_text(f"task_id,answer\r\nt1,{t1}\r\nt2,{t2}\r\n", "utf-8")
    return path


def test_the_import_hands_only_the_changed_answers_to_replaced_inside_its_transaction(csv_tasks_project, tmp_path):
    calls = []

    def replaced(session, answer_ids) -> int:
        calls.append((session.in_transaction(), list(answer_ids)))
        return 7

    first = answer_import.import_answers(csv_tasks_project, answers_file(tmp_path, "a.csv", "2.5 m", "3"), "vlm",
                                         replaced=replaced)
    assert calls == [] and (first.answers_imported, first.answers_replaced, first.scores_stale) == (2, 0, 0)
    again = answer_import.import_answers(csv_tasks_project, answers_file(tmp_path, "b.csv", "9 m", "3"), "vlm",
                                         replaced=replaced)
    with csv_tasks_project.read() as s:
        changed = s.scalar(select(Answer.id).join(Task, Answer.task_id == Task.id).where(Task.external_id == "t1"))
    assert calls == [(True, [changed])]
    assert (again.run_id, again.answers_replaced, again.scores_stale) == (first.run_id, 1, 7)


def test_batched_import_keeps_ids_rewrites_only_the_changed_and_stores_no_json_null(tmp_path, monkeypatch):
    """Answers go in by bulk insert, BATCH at a time (issue 37): over several batches each task gets one answer
    (a CSV row answering a task again is skipped by the parser), a re-import keeps the answers' ids and rewrites
    only the changed one, and an answer without parsed values stores SQL NULL, as the ORM did."""
    monkeypatch.setattr(answer_import, "BATCH", 4)
    p = Project.create(tmp_path / "p.fieldstudio")
    lines = ["task_id,query,ground_truth"] + [f"t{i},How many?,{i}" for i in range(10)]
    (tmp_path / "tasks.csv").write_text("\r\n".join(lines) + "\r\n", "utf-8")
    import_tasks(p, [tmp_path / "tasks.csv"])

    def write(name: str, answers: list[tuple[int, str]]) -> Path:
        path = tmp_path / name
        path.write_text("task_id,answer\r\n" + "".join(f"t{i},{a}\r\n" for i, a in answers), "utf-8")
        return path

    def stored(run_id: str) -> dict[str, tuple]:
        with p.read() as s:
            return {ext: (aid, raw) for ext, aid, raw in s.execute(
                select(Task.external_id, Answer.id, Answer.raw_text).join(Task, Answer.task_id == Task.id)
                .where(Answer.run_id == run_id))}

    first = answer_import.import_answers(p, write("a.csv", [(i, str(i)) for i in range(10)] + [(3, "three")]),
                                         "vlm", replaced=lambda s, ids: 0)
    before = stored(first.run_id)
    assert (first.answers_imported, len(before), before["t3"][1]) == (10, 10, "3")
    calls = []
    again = answer_import.import_answers(p, write("b.csv", [(i, "x" if i == 7 else str(i))
                                                            for i in range(10)]),
                                         "vlm", replaced=lambda s, ids: calls.append(list(ids)) or len(ids))
    after = stored(first.run_id)
    assert calls == [[before["t7"][0]]] and (again.answers_replaced, again.scores_stale) == (1, 1)
    assert {k: v[0] for k, v in after.items()} == {k: v[0] for k, v in before.items()}
    assert after["t7"][1] == "x"
    with p.read() as s:
        assert s.scalar(text("SELECT count(*) FROM answer WHERE parsed IS NULL")) == 10
    p.close()


def test_stale_scores_of_counts_the_scores_in_force_and_removes_none(csv_tasks_project, tmp_path):
    report = answer_import.import_answers(csv_tasks_project, answers_file(tmp_path, "a.csv", "2.5 m", "3"), "vlm",
                                          replaced=score_store.stale_scores_of)
    assert score_answers(csv_tasks_project, "fs-match").scored == 2
    assert score_store.count_scores(csv_tasks_project) == 2
    with csv_tasks_project.read() as s:
        ids = dict(s.execute(select(Task.external_id, Answer.id).join(Answer, Answer.task_id == Task.id)
                             .where(Answer.run_id == report.run_id)).all())
    with csv_tasks_project.write() as s:
        assert score_store.stale_scores_of(s, [ids["t1"]]) == 1
        assert score_store.stale_scores_of(s, []) == 0
    assert score_store.count_scores(csv_tasks_project) == 2          # nothing removed
    assert set(current_scores(csv_tasks_project, "fs-match")["answer_id"]) == {ids["t1"], ids["t2"]}

