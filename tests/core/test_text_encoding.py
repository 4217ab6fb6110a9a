"""CSV files as Excel writes them on Western and Japanese Windows (cp1252, cp932): tasks, answers, ratings (item 7b).

The expected text is the Python string each file was encoded from (``str.encode(codec)``), not what we decode.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.ratings import csv_table as ratings_csv
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.models import Answer, Task
from fieldstudio.scoring import imported_answers
from fieldstudio.tasks import importing
from tests.conftest import SAMPLE
from tests.support.run_fixtures import add_media

TEXTS = {
    "cp1252": ("Is the café's crème brûlée on shelf 3?", "Yes – 5 €", "Größe 12½ cm"),
    "cp932": ("作業員はヘルメットを着用していますか？", "はい、２名です", "ラベル：危険物"),
}


@pytest.mark.parametrize("codec", sorted(TEXTS))
def test_task_and_answer_csv_in_windows_code_pages(project, tmp_path, codec):
    query, answer, _ = TEXTS[codec]
    tasks = tmp_path / "tasks.csv"
    tasks.write_bytes(f"task_id,query,ground_truth\r\nt1,{query},{answer}\r\n".encode(codec))
    with pytest.raises(UnicodeDecodeError):
        tasks.read_bytes().decode("utf-8")  # the file is really not UTF-8
    said = f"is not UTF-8: read as {codec}, the encoding detected; check its non-ASCII text (or save it as CSV UTF-8)"
    report = importing.import_tasks(project, [tasks])
    assert [(p.severity, p.message) for p in report.problems] == [("warning", said)] and report.created == 1
    answers = tmp_path / "answers.csv"
    answers.write_bytes(f"task_id,answer\r\nt1,{answer}\r\n".encode(codec))
    got = imported_answers.import_answers(project, answers, "excel")
    assert [(p.severity, p.message) for p in got.problems] == [("warning", said)] and got.answers_imported == 1
    with project.read() as s:
        task = s.scalars(select(Task)).one()
        stored = s.scalars(select(Answer.raw_text)).one()
    assert (task.query, task.ground_truth, stored) == (query, answer, answer)


@pytest.mark.parametrize("codec", sorted(TEXTS))
def test_rating_csv_in_windows_code_pages(project, tmp_path, codec):
    _, _, reading = TEXTS[codec]
    photo = "retail_grocery_Bravo-Orange-Juice_024.jpg"
    add_media(project, SAMPLE / "images" / photo)
    path = tmp_path / "ratings.csv"
    path.write_bytes(f"rating_set,item,rater,verdict,label_text\r\nshelf,{photo},ana,accept,{reading}\r\n"
                     .encode(codec))
    report = ratings_csv.import_ratings_csv(project, path)
    assert report.problems == [] and report.ratings == 1
    [view] = ratings.list_ratings(project, "shelf")
    assert view.fields == {"label_text": reading}
