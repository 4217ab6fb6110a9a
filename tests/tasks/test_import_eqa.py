"""IndustryEQA and OpenEQA import (benchmarks.md §2.1, §2.2, §3.3, §5 pitfalls 16 and 17).

No IndustryEQA file may be vendored (no licence), so its fixtures are written here from the field list and
example records of benchmarks.md §2.1. OpenEQA is tested on the real open-eqa-v0.json.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from tests.support.shared_data import SHARED_DATA

import pytest
from sqlalchemy import func, select

from fieldstudio.store.models import Answer, Media, Run, Task, TaskInput
from fieldstudio.store.project import Project
from fieldstudio.tasks.formats import industryeqa
from fieldstudio.tasks.formats import openeqa
from fieldstudio.tasks.formats import detect_format, sniff_format
from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.tasks.importing import import_tasks

OPENEQA = (SHARED_DATA / "openeqa")

IEQA_RECORDS = [
    {"question_id": 1, "type": "Human Safety", "question": "What do the workers wear on their heads?",
     "direct_answer": "Baseball caps.", "reasoning_answer": "The visible workers wear baseball caps.",
     "path": "data/small/human_1/small_01/video_01.mp4", "transformed_status": "1", "reasoning_status": "1"},
    {"question_id": 118, "type": "Equipment Safety",
     "question": "Does the pallet rack leave about 18 in of flue space to the wall for sprinklers?",
     "direct_answer": "No", "reasoning_answer": "Rack and cartons sit flush against the wall.",
     "path": "data/small/human_2/small_01/video_01.mp4", "transformed_status": "1", "model": "o3",
     "difficulty": "complex", "reasoning_status": "1"},
    {"question_id": 500, "type": "Spatial Understanding", "question": "Is the aisle left of the rack clear?",
     "direct_answer": "Yes.", "reasoning_answer": "Nothing blocks it.",
     "path": "data/small/no_human/small_07/video1.mp4", "transformed_status": "0", "reasoning_status": "0"},
    {"question_id": 1344, "type": "Object Recognition",
     "question": "What is the primary function of the blue wheeled machines along the wall?",
     "direct_answer": "Air compression.", "reasoning_answer": "They are portable air compressors.",
     "path": "data/large/human/large_08/large03.mp4", "transformed_status": "0", "reasoning_status": "0"},
]


@pytest.fixture
def project(tmp_path):
    p = Project.create(tmp_path / "p.fieldstudio")
    yield p
    p.close()


def write_json(path: Path, value) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


# ---------------------------------------------------------------- IndustryEQA
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


# ---------------------------------------------------------------- OpenEQA
needs_openeqa = pytest.mark.skipif(not (OPENEQA / "open-eqa-v0.json").is_file(), reason="OpenEQA file not available")


@needs_openeqa
def test_openeqa_counts_on_real_file(project):
    raw = json.loads((OPENEQA / "open-eqa-v0.json").read_text(encoding="utf-8"))
    assert len(raw) == 1636 and sum("extra_answers" in r for r in raw) == 263  # benchmarks.md §3.3
    published = {"object localization": 263, "object state recognition": 252, "attribute recognition": 240,
                 "object recognition": 231, "spatial understanding": 220, "functional reasoning": 217,
                 "world knowledge": 213}
    assert Counter(r["category"] for r in raw) == published
    report = import_tasks(project, [OPENEQA / "open-eqa-v0.json"])
    assert report.created == 1636 and not report.errors
    assert dict(report.tasks_per_category) == published
    with project.read() as s:
        with_extra = s.scalars(select(Task).where(Task.ground_truth_extra.is_not(None))).all()
        first = s.scalars(select(Task).where(Task.external_id == "f2e82760-5c3c-41b1-88b6-85921b9e7b32")).one()
    assert len(with_extra) == 263
    assert all(isinstance(t.ground_truth_extra["extra_answers"], list) for t in with_extra)
    assert first.ground_truth == "Air conditioning unit" and first.category == "object recognition"
    assert first.extra["episode_history"] == "hm3d-v0/000-hm3d-BFRyYbPCCPE" and first.source == "openeqa"
    again = import_tasks(project, [OPENEQA / "open-eqa-v0.json"])
    assert (again.created, again.updated, again.unchanged) == (0, 0, 1636)


@needs_openeqa
def test_openeqa_id_list_is_not_a_task_file(project):
    fmt, reason = sniff_format(OPENEQA / "open-eqa-v0-184-questions.json")
    assert fmt == "unknown" and "list of ids" in reason
    report = import_tasks(project, [OPENEQA / "open-eqa-v0-184-questions.json"])
    assert report.tasks_imported == 0 and "list of ids" in report.errors[0].message


@needs_openeqa
def test_openeqa_predictions_import(project, tmp_path):
    import_tasks(project, [OPENEQA / "open-eqa-demo-data.json"])
    preds = write_json(tmp_path / "preds.json", [
        {"question_id": "f15fbfbb-eb0f-41e7-9d33-bc75e48e62d1", "answer": "Eight. They are wooden"},
        {"question_id": "not-a-question", "answer": "?"},
        {"question_id": "b0dafc4b-6a1c-4048-913c-90867c124367"},
    ])
    assert detect_format(preds) == "openeqa-results"
    report = import_answers(project, preds, "blind llm")
    assert report.answers_imported == 1 and report.unknown_ids == ["not-a-question"]
    assert any(p.record == "b0dafc4b-6a1c-4048-913c-90867c124367" for p in report.errors)
    with project.read() as s:
        assert s.scalars(select(Answer.raw_text)).all() == ["Eight. They are wooden"]
        assert s.scalar(select(func.count()).select_from(Run)) == 1


def test_openeqa_bad_file_gives_problem(tmp_path):
    f = tmp_path / "q.json"
    f.write_text("[{\"question\": \"x\"", encoding="utf-8")
    result = openeqa.parse_question_file(f)
    assert not result.tasks and "not valid JSON" in result.problems[0].message and result.problems[0].file == str(f)
