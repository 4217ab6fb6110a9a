"""OpenEQA question files and prediction files (``facebookresearch/open-eqa``, benchmarks.md §3.3).

Questions (``data/open-eqa-v0.json``, 1636 items): ``{question, answer, category, question_id (UUID
string), episode_history, extra_answers (list of str, on 263 items)}``. Each becomes a task with
``ground_truth = answer`` and ``ground_truth_extra = {"extra_answers": [...]}`` when present.
``episode_history`` (e.g. ``hm3d-v0/000-hm3d-BFRyYbPCCPE``) names a folder of episode frames, not a media
file, so it is kept in ``extra`` and the task has no inputs until frames are linked.

Predictions (the input of ``evaluate-predictions.py``): ``[{question_id, answer}]``.
``assets/open-eqa-v0-184-questions.json`` is a list of ids (a subset), not a task file; it is reported.

Export (``to_question_record``): ``{question, answer, category, question_id, episode_history, extra_answers}`` in
the order of ``data/open-eqa-v0.json``, written as ``json.dump(..., indent=2)`` writes it (ASCII escapes, no
final newline): exporting an imported ``open-eqa-v0.json`` gives the same bytes. Tasks without a ground truth
are left out (OpenEQA has no such record).

``TASK_FORMAT`` (``openeqa``, read and written) and ``ANSWER_FORMAT`` (``openeqa-results``) declare both for the
registry (``tasks/formats/__init__.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from fieldstudio.tasks.formats.file_format import ANSWERS, TASKS, FileFormat, write_json_array
from fieldstudio.tasks.formats.parsed_records import ParsedAnswer, ParsedTask, ParseResult, guess_answer_type, read_json_array

SOURCE = "openeqa"
FIELDS = ("question", "answer", "category", "question_id", "episode_history", "extra_answers")


def looks_like_questions(records: Any) -> bool:
    """True for an OpenEQA question array (question, answer and question_id on the first object)."""
    return (isinstance(records, list) and bool(records) and isinstance(records[0], dict)
            and {"question", "answer", "question_id"} <= records[0].keys())


def sniff_questions(records: Any) -> bool | str:
    """True for a question array (``looks_like_questions``); for a JSON list of ids, why it is not one."""
    if looks_like_questions(records):
        return True
    if isinstance(records, list) and records and all(isinstance(r, str) for r in records):
        return "is a JSON list of ids (such as OpenEQA's 184-question subset), not a task file"
    return False


def looks_like_predictions(records: Any) -> bool:
    """True for an OpenEQA prediction array (question_id and answer, no question)."""
    return (isinstance(records, list) and bool(records) and isinstance(records[0], dict)
            and {"question_id", "answer"} <= records[0].keys() and "question" not in records[0])


def parse_question_file(path: Path) -> ParseResult:
    """Tasks from an OpenEQA question file. Never raises for bad input."""
    path = Path(path)
    result = ParseResult(format="openeqa")
    records = read_json_array(path, result, "OpenEQA questions")
    if records is None:
        return result
    seen: set[str] = set()
    for index, record in enumerate(records):
        where = f"record {index + 1}"
        if not isinstance(record, dict):
            result.problem(path, where, f"is a {type(record).__name__}, expected an object")
            continue
        qid = record.get("question_id")
        if not isinstance(qid, str) or not qid.strip():
            result.problem(path, where, "has no question_id")
            continue
        if not isinstance(record.get("question"), str) or not isinstance(record.get("answer"), str):
            result.problem(path, qid, "has no question or no answer text")
            continue
        if qid in seen:
            result.problem(path, qid, "appears twice in the file; the second record was skipped")
            continue
        seen.add(qid)
        gt_extra = None
        if "extra_answers" in record:
            extras = record["extra_answers"]
            if not isinstance(extras, list) or not all(isinstance(a, str) for a in extras):
                result.problem(path, qid, "extra_answers is not a list of strings; kept as written", "warning")
            gt_extra = {"extra_answers": extras}
        extra: dict[str, Any] = {k: v for k, v in record.items() if k not in FIELDS[:4] + ("extra_answers",)}
        result.tasks.append(ParsedTask(
            external_id=qid, source=SOURCE, query=record["question"],
            answer_type=guess_answer_type(record["question"]), ground_truth=record["answer"],
            ground_truth_extra=gt_extra,
            category=record.get("category") if isinstance(record.get("category"), str) else None,
            extra=extra,
        ))
    return result


def parse_prediction_file(path: Path) -> ParseResult:
    """Answers from an OpenEQA prediction file ``[{question_id, answer}]``; an ``"answer": null`` imports as an
    answer without text (LLM-Match scores it 0, as OpenEQA's evaluator does), a missing or non-text answer is
    refused."""
    path = Path(path)
    result = ParseResult(format="openeqa-results")
    records = read_json_array(path, result, "OpenEQA predictions")
    if records is None:
        return result
    for index, record in enumerate(records):
        where = f"record {index + 1}"
        if not isinstance(record, dict) or not isinstance(record.get("question_id"), str):
            result.problem(path, where, "is not an object with a question_id string")
            continue
        answer = record.get("answer")
        if answer is None and "answer" in record:
            # evaluate-predictions.py keeps a null prediction and get_llm_match_score gives it mark 0 (0 %)
            result.problem(path, record["question_id"], "has a null answer: imported without text, scored 0 as "
                                                        "OpenEQA's evaluator scores it", "warning")
        elif not isinstance(answer, str):
            result.problem(path, record["question_id"], "has no answer text")
            continue
        extra = {k: v for k, v in record.items() if k not in ("question_id", "answer")}
        result.answers.append(ParsedAnswer(record["question_id"], answer, extra))
    return result


# ---------------------------------------------------------------- export
def to_question_record(task: ParsedTask) -> dict[str, Any]:
    """One task as an OpenEQA question object (key order of ``open-eqa-v0.json``). Raises ValueError."""
    if task.ground_truth is None:
        raise ValueError("has no ground truth (OpenEQA answer)")
    record: dict[str, Any] = {"question": task.query, "answer": task.ground_truth}
    if task.category is not None:
        record["category"] = task.category
    record["question_id"] = task.external_id
    extra = task.extra if task.source == SOURCE else {}
    if "episode_history" in extra:
        record["episode_history"] = extra["episode_history"]
    if task.ground_truth_extra and "extra_answers" in task.ground_truth_extra:
        record["extra_answers"] = task.ground_truth_extra["extra_answers"]
    for key, value in extra.items():
        if key not in record:
            record[key] = value
    return record


def write_question_file(records: Sequence[dict[str, Any]], path: Path) -> None:
    """Write question objects (``to_question_record``) as ``json.dump(records, indent=2)`` writes them, atomically.
    Raises OSError when the file cannot be written."""
    write_json_array(records, path, indent=2, ensure_ascii=True, final_newline=False)


TASK_FORMAT = FileFormat(
    name="openeqa", kind=TASKS, benchmark="OpenEQA", choice="openeqa", suffixes=(".json",),
    summary="question JSON", source=SOURCE, sniff=sniff_questions, parse=parse_question_file,
    to_record=to_question_record, write=write_question_file)
"""OpenEQA's question file, read and written."""

ANSWER_FORMAT = FileFormat(
    name="openeqa-results", kind=ANSWERS, benchmark="OpenEQA", choice="openeqa", suffixes=(".json",),
    summary="prediction files", source=SOURCE, sniff=looks_like_predictions, parse=parse_prediction_file)
"""OpenEQA prediction files, the input of its ``evaluate-predictions.py``."""
