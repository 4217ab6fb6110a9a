"""Answer files name FieldWorkArena tasks with or without the ``fieldworkarena.`` prefix (item 7f)."""

from __future__ import annotations

import json

from sqlalchemy import select

from fieldstudio.store.models import Answer, Task
from fieldstudio.scoring import imported_answers
from fieldstudio.tasks import importing
from tests.support.shared_data import SHARED_DATA

TASKS = SHARED_DATA / "fieldworkarena" / "ground_truth" / "Tasks_1.1.json"


def _answers_by_external_id(project, run_id) -> dict[str, str]:
    with project.read() as s:
        rows = s.execute(select(Task.external_id, Answer.raw_text).join(Answer, Answer.task_id == Task.id)
                         .where(Answer.run_id == run_id)).all()
    return dict(rows)


def test_prefixed_answer_ids_match_benchmark_tasks(project, tmp_path):
    raw_ids = [t["id"] for t in json.loads(TASKS.read_text(encoding="utf-8"))][:3]  # "1.1.0001", ...
    importing.import_tasks(project, [TASKS])
    answers = tmp_path / "answers.csv"
    answers.write_text("task_id,answer\n" + "".join(f"fieldworkarena.{i},answer {n}\n" for n, i in enumerate(raw_ids)),
                       encoding="utf-8")
    report = imported_answers.import_answers(project, answers, "prefixed")
    assert (report.answers_imported, report.unknown_ids) == (3, [])
    assert _answers_by_external_id(project, report.run_id) == {i: f"answer {n}" for n, i in enumerate(raw_ids)}


def test_bare_answer_ids_match_prefixed_csv_tasks(project, tmp_path):
    tasks = tmp_path / "tasks.csv"
    tasks.write_text("task_id,query\nfieldworkarena.9.9.0001,How many?\nfieldworkarena.9.9.0002,Where?\n",
                     encoding="utf-8")
    importing.import_tasks(project, [tasks])
    answers = tmp_path / "answers.csv"
    answers.write_text("task_id,answer\n9.9.0001,three\nfieldworkarena.9.9.0002,dock 4\n9.9.0003,none\n",
                       encoding="utf-8")
    report = imported_answers.import_answers(project, answers, "bare")
    assert (report.answers_imported, report.unknown_ids) == (2, ["9.9.0003"])
    assert _answers_by_external_id(project, report.run_id) == {"fieldworkarena.9.9.0001": "three",
                                                              "fieldworkarena.9.9.0002": "dock 4"}
