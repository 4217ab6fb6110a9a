"""OpenEQA import on the real open-eqa-v0.json (benchmarks.md §3.3); IndustryEQA's is in test_industryeqa.py."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from sqlalchemy import func, select

from fieldstudio.scoring.imported_answers import import_answers
from fieldstudio.store.models import Answer, Run, Task
from fieldstudio.tasks.formats import detect_format, openeqa, sniff_format
from fieldstudio.tasks.importing import import_tasks
from tests.support.shared_data import SHARED_DATA

OPENEQA = (SHARED_DATA / "openeqa")

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
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps([
        {"question_id": "f15fbfbb-eb0f-41e7-9d33-bc75e48e62d1", "answer": "Eight. They are wooden"},
        {"question_id": "not-a-question", "answer": "?"},
        {"question_id": "b0dafc4b-6a1c-4048-913c-90867c124367"},
    ]), encoding="utf-8")
    assert detect_format(preds) == "openeqa-results"
    report = import_answers(project, preds, "blind llm")
    assert report.answers_imported == 1 and report.unknown_ids == ["not-a-question"]
    assert any(p.record == "b0dafc4b-6a1c-4048-913c-90867c124367" for p in report.errors)
    with project.read() as s:
        assert s.scalars(select(Answer.raw_text)).all() == ["Eight. They are wooden"]
        assert s.scalar(select(func.count()).select_from(Run)) == 1


def test_a_null_prediction_imports_and_scores_zero_as_openeqa_scores_it(project, tmp_path):
    from fieldstudio.compare.official import official_figures
    from fieldstudio.compare.answer_table import load_answers
    from fieldstudio.scoring.scorers import llm_match

    import_tasks(project, [OPENEQA / "open-eqa-demo-data.json"])
    preds = tmp_path / "preds.json"
    preds.write_text(json.dumps([{"question_id": "f15fbfbb-eb0f-41e7-9d33-bc75e48e62d1", "answer": None}]),
                     encoding="utf-8")
    report = import_answers(project, preds, "nulls")
    assert report.answers_imported == 1 and any("null answer" in p.message for p in report.problems)
    with project.read() as s:
        assert s.scalars(select(Answer.raw_text)).all() == [None]
    # get_llm_match_score returns 0 for a None prediction, evaluate-predictions.py clips it to 1: 0 %, no judge asked
    assert llm_match.score("How many chairs?", "Eight chairs", None).value == 0.0
    figure = official_figures(load_answers(project, "llm-match"), "llm-match")["nulls"]
    assert (figure.answered, figure.printed) == (1, "0.0")          # answered: in the results file


def test_openeqa_bad_file_gives_problem(tmp_path):
    f = tmp_path / "q.json"
    f.write_text("[{\"question\": \"x\"", encoding="utf-8")
    result = openeqa.parse_question_file(f)
    assert not result.tasks and "not valid JSON" in result.problems[0].message and result.problems[0].file == str(f)
