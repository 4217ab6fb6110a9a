"""IndustryEQA import (benchmarks.md §2.1, §2.2, §5 pitfalls 16 and 17); OpenEQA's is in test_openeqa.py.

No IndustryEQA file may be vendored (no licence), so its records are written from the field list and example
records of benchmarks.md §2.1 (tests/support/industryeqa_records.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy import select

from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.store.models import Answer, Media, Task, TaskInput
from fieldstudio.tasks.formats import detect_format, industryeqa
from fieldstudio.tasks.importing import import_tasks
from tests.support.industryeqa_records import IEQA_RECORDS


def write_json(path: Path, value) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def test_industryeqa_fields_and_derived_attributes(tmp_path):
    f = write_json(tmp_path / "industryeqa.json", IEQA_RECORDS)
    assert detect_format(f) == "industryeqa"
    result = industryeqa.parse_annotation_file(f)
    assert not result.problems
    tasks = {t.external_id: t for t in result.tasks}
    assert list(tasks) == ["1", "118", "500", "1344"]
    t1, t118, t500, t1344 = tasks.values()
    assert (t1.query, t1.ground_truth, t1.category) == (IEQA_RECORDS[0]["question"], "Baseball caps.", "Human Safety")
    assert t1.ground_truth_extra == {"reasoning_answer": "The visible workers wear baseball caps."}
    assert [i.name for i in t1.inputs] == ["data/small/human_1/small_01/video_01.mp4"]
    assert (t1.extra["scale"], t1.extra["human_presence"], t1.extra["reasoning_subset"]) == ("small", "human", True)
    assert (t500.extra["human_presence"], t500.extra["reasoning_subset"]) == ("no_human", False)
    assert t1344.extra["scale"] == "large" and t1344.extra["human_presence"] == "human"
    assert t118.extra["model"] == "o3" and t118.extra["difficulty"] == "complex"  # extra keys kept
    assert industryeqa.scale_of(971) == "small" and industryeqa.scale_of(972) == "large"


def test_industryeqa_int_status_is_not_silently_false(tmp_path):
    record = dict(IEQA_RECORDS[0], reasoning_status=1, question_id=2)
    result = industryeqa.parse_annotation_file(write_json(tmp_path / "a.json", [record]))
    (task,) = result.tasks
    assert task.extra["reasoning_subset"] is True
    assert any("reasoning_status is the number 1" in p.message and p.severity == "warning" for p in result.problems)


def test_industryeqa_old_large_split_adds_971(tmp_path):
    records = [dict(IEQA_RECORDS[3], question_id=1), dict(IEQA_RECORDS[3], question_id=373)]
    result = industryeqa.parse_annotation_file(write_json(tmp_path / "large_all_new_new.json", records))
    assert [t.external_id for t in result.tasks] == ["972", "1344"]
    assert result.tasks[1].extra["split_question_id"] == 373
    assert any("old large split" in p.message for p in result.problems)


def test_industryeqa_import_matches_media_by_relative_path(project, tmp_path):
    with project.write() as s:  # two videos with the same file name in different folders
        s.add(Media(kind="video", path="data/small/human_1/small_01/video_01.mp4", file_name="video_01.mp4"))
        s.add(Media(kind="video", path="data/small/human_2/small_01/video_01.mp4", file_name="video_01.mp4"))
        s.add(Media(kind="video", path="/abs/elsewhere/data/large/human/large_08/large03.mp4", file_name="large03.mp4"))
    with project.read() as s:
        by_path = dict(s.execute(select(Media.path, Media.id)).all())
    report = import_tasks(project, [write_json(tmp_path / "industryeqa.json", IEQA_RECORDS)])
    assert report.created == 4 and dict(report.tasks_per_category)["Human Safety"] == 1
    assert report.missing_media == {"500": ["data/small/no_human/small_07/video1.mp4"]}
    with project.read() as s:
        linked = dict(s.execute(select(Task.external_id, TaskInput.media_id).join(TaskInput)).all())
        row = s.scalars(select(Task).where(Task.external_id == "118")).one()
    assert linked["1"] == by_path["data/small/human_1/small_01/video_01.mp4"]
    assert linked["118"] == by_path["data/small/human_2/small_01/video_01.mp4"]
    assert linked["1344"] == by_path["/abs/elsewhere/data/large/human/large_08/large03.mp4"]
    assert row.source == "industryeqa" and row.scenario == "warehouse"
    assert row.ground_truth_extra == {"reasoning_answer": IEQA_RECORDS[1]["reasoning_answer"]}


def test_industryeqa_answers_import(project, tmp_path):
    import_tasks(project, [write_json(tmp_path / "industryeqa.json", IEQA_RECORDS)])
    answers = write_json(tmp_path / "industryeqa-30-gpt-4o.json", [
        {"question_id": 1, "question": "...", "generated_direct_answer": "Caps.",
         "generated_reasoning_answer": "They wear caps."},
        {"question_id": 1344, "question": "...", "generated_direct_answer": "",
         "generated_reasoning_answer": "Failed to parse the answer."},
        {"question_id": 77, "question": "...", "generated_direct_answer": "x", "generated_reasoning_answer": "y"},
    ])
    assert detect_format(answers) == "industryeqa-answers"
    report = import_answers(project, answers, "gpt-4o 30 frames")
    assert report.answers_imported == 2 and report.unknown_ids == ["77"]
    with project.read() as s:
        rows = {e: (a.raw_text, a.parsed) for e, a in s.execute(
            select(Task.external_id, Answer).join(Answer, Answer.task_id == Task.id)).all()}
    assert rows["1"] == ("Caps.", {"direct_answer": "Caps.", "reasoning_answer": "They wear caps."})
    assert rows["1344"][0] == ""
