"""IndustryEQA annotation files and answer files (``JackYFL/IndustryEQA``, benchmarks.md §2.1, §2.2, §5).

Annotation (``annotation/industryeqa.json``): a JSON array of ``{question_id (int 1-1344), type, question,
direct_answer, reasoning_answer, path, transformed_status ("0"/"1"), reasoning_status ("0"/"1")}``, 153
records with ``model`` and ``difficulty`` as well. Each becomes a task with ``query = question``,
``ground_truth = direct_answer``, ``ground_truth_extra = {"reasoning_answer": ...}``, ``category = type``,
``scenario = "warehouse"`` and the video ``path`` as its one input.

Derived attributes (fieldstudio rules, §2.1), stored in ``extra``:

* ``scale``: ``small`` for ids 1-971, ``large`` for 972-1344;
* ``human_presence``: ``no_human`` if ``"no_human"`` is in ``path``, else ``human`` if ``"human"`` is
  (``no_human`` is tested first because it contains ``human``), else None;
* ``reasoning_subset``: ``reasoning_status == "1"``, compared as a string. An int ``1`` is accepted with a
  warning, never silently read as false (pitfall 17).

Old split files (initial commit ``ad3ab29``, ``results/results/large_all_new_new.json``): large ids restart
at 1, so combined id = large id + 971 (pitfall 16). A file whose every ``path`` is under ``data/large/`` and
whose ids all lie in 1-373 is read that way, with a warning; the file's own id is kept as
``extra["split_question_id"]``.

Answer files (``data/results/<stem>-<frames>-<model>.json``, §2.2): ``[{question_id, question,
generated_direct_answer, generated_reasoning_answer}]``; the direct answer is the answer text and the
reasoning answer is kept in ``extra``.

Export (``to_annotation_record``): the annotation array ``{question_id (int), type, question, direct_answer,
reasoning_answer, path, transformed_status, reasoning_status}`` plus the record's own further keys (``model``,
``difficulty``, unknown keys) for tasks imported from IndustryEQA. ``question_id`` must be a whole number and a
task needs a ground truth and one input (the video path).

``TASK_FORMAT`` (``industryeqa``, read and written) and ``ANSWER_FORMAT`` (``industryeqa-answers``) declare both
for the registry (``tasks/formats/__init__.py``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fieldstudio.tasks.formats.file_format import ANSWERS, TASKS, FileFormat, write_json_array
from fieldstudio.tasks.formats.parsed_records import ParsedAnswer, ParsedInput, ParsedTask, ParseResult, read_json_array

SOURCE = "industryeqa"
SMALL_MAX_ID = 971
LARGE_SPLIT_COUNT = 373
FIELDS = ("question_id", "type", "question", "direct_answer", "reasoning_answer", "path",
          "transformed_status", "reasoning_status")
OPTIONAL_FIELDS = ("model", "difficulty")
_DERIVED = ("scale", "human_presence", "reasoning_subset", "reasoning_status", "transformed_status",
            "split_question_id")
"""``Task.extra`` keys ``parse_annotation_file`` derives or lifts out of named fields (not written back as keys)."""


def scale_of(question_id: int) -> str:
    """``small`` for ids 1-971, ``large`` above (§2.1)."""
    return "small" if question_id <= SMALL_MAX_ID else "large"


def human_presence_of(path: str) -> str | None:
    """``no_human`` / ``human`` from the video path, testing ``no_human`` first; None if neither."""
    if "no_human" in path:
        return "no_human"
    if "human" in path:
        return "human"
    return None


def _flag(value: Any, name: str, file: Path, record: str, result: ParseResult) -> str | None:
    """A ``"0"``/``"1"`` status as the string the benchmark compares; ints accepted with a warning."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        result.problem(file, record, f"{name} is {value!r}, expected the string \"0\" or \"1\"", "warning")
        return str(value)
    if isinstance(value, int):
        result.problem(file, record, f"{name} is the number {value}, expected the string \"{value}\"; "
                                     "read as the string (the benchmark compares with == \"1\")", "warning")
        return str(value)
    return value


def _question_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def looks_like_annotation(records: Any) -> bool:
    """True for an IndustryEQA annotation array (first object has question_id and direct_answer)."""
    return (isinstance(records, list) and bool(records) and isinstance(records[0], dict)
            and "question_id" in records[0] and "direct_answer" in records[0])


def looks_like_answers(records: Any) -> bool:
    """True for an IndustryEQA answer file (first object has question_id and generated_direct_answer)."""
    return (isinstance(records, list) and bool(records) and isinstance(records[0], dict)
            and "question_id" in records[0] and "generated_direct_answer" in records[0])


def looks_like_annotation_only(records: Any) -> bool:
    """True for an annotation array that is not an answer file (a file with both answers' and annotation's keys
    holds answers)."""
    return looks_like_annotation(records) and not looks_like_answers(records)


def parse_annotation_file(path: Path) -> ParseResult:
    """Tasks from an IndustryEQA annotation file (combined or old split). Never raises for bad input."""
    path = Path(path)
    result = ParseResult(format="industryeqa")
    records = read_json_array(path, result, "IndustryEQA questions")
    if records is None:
        return result
    dicts = [r for r in records if isinstance(r, dict)]
    ids = [_question_id(r.get("question_id")) for r in dicts]
    old_large_split = (
        bool(dicts) and all(isinstance(r.get("path"), str) and "data/large/" in r["path"] for r in dicts)
        and all(i is not None and 1 <= i <= LARGE_SPLIT_COUNT for i in ids)
    )
    if old_large_split:
        result.problem(path, None, f"looks like the old large split (ids restart at 1); {SMALL_MAX_ID} was added "
                                   "to every question_id", "warning")
    seen: set[int] = set()
    for index, record in enumerate(records):
        where = f"record {index + 1}"
        if not isinstance(record, dict):
            result.problem(path, where, f"is a {type(record).__name__}, expected an object")
            continue
        qid = _question_id(record.get("question_id"))
        if qid is None:
            result.problem(path, where, f"question_id {record.get('question_id')!r} is not a whole number")
            continue
        split_id = qid
        if old_large_split:
            qid += SMALL_MAX_ID
        rid = str(qid)
        missing = [f for f in ("question", "direct_answer", "path") if not isinstance(record.get(f), str)]
        if missing:
            result.problem(path, rid, f"has no {', '.join(missing)}")
            continue
        if qid in seen:
            result.problem(path, rid, "appears twice in the file; the second record was skipped")
            continue
        seen.add(qid)
        video = record["path"]
        reasoning_status = _flag(record.get("reasoning_status"), "reasoning_status", path, rid, result)
        transformed_status = _flag(record.get("transformed_status"), "transformed_status", path, rid, result)
        extra: dict[str, Any] = {
            "scale": scale_of(qid),
            "human_presence": human_presence_of(video),
            "reasoning_subset": reasoning_status == "1",
            "reasoning_status": reasoning_status,
            "transformed_status": transformed_status,
        }
        if old_large_split:
            extra["split_question_id"] = split_id
        if "data/small/" in video and extra["scale"] != "small" or "data/large/" in video and extra["scale"] != "large":
            result.problem(path, rid, f"path {video!r} disagrees with the scale from the id ({extra['scale']})", "warning")
        for key, value in record.items():
            if key not in FIELDS:
                extra[key] = value  # model, difficulty and any unknown key, kept as metadata
        reasoning_answer = record.get("reasoning_answer")
        result.tasks.append(ParsedTask(
            external_id=rid, source=SOURCE, query=record["question"], answer_type="free_text",
            ground_truth=record["direct_answer"],
            ground_truth_extra={"reasoning_answer": reasoning_answer} if reasoning_answer is not None else None,
            category=record.get("type") if isinstance(record.get("type"), str) else None,
            scenario="warehouse", inputs=[ParsedInput(video)], extra=extra,
        ))
    return result


def parse_answer_file(path: Path) -> ParseResult:
    """Answers from an IndustryEQA baseline output file (``generated_direct_answer`` is the answer text)."""
    path = Path(path)
    result = ParseResult(format="industryeqa-answers")
    records = read_json_array(path, result, "IndustryEQA answers")
    if records is None:
        return result
    for index, record in enumerate(records):
        where = f"record {index + 1}"
        if not isinstance(record, dict):
            result.problem(path, where, f"is a {type(record).__name__}, expected an object")
            continue
        qid = _question_id(record.get("question_id"))
        if qid is None:
            result.problem(path, where, f"question_id {record.get('question_id')!r} is not a whole number")
            continue
        direct = record.get("generated_direct_answer")
        if not isinstance(direct, str):
            result.problem(path, str(qid), "has no generated_direct_answer")
            continue
        extra = {"direct_answer": direct, "reasoning_answer": record.get("generated_reasoning_answer")}
        result.answers.append(ParsedAnswer(str(qid), direct, extra))
    return result


# ---------------------------------------------------------------- export
def to_annotation_record(task: ParsedTask) -> dict[str, Any]:
    """One task as an IndustryEQA annotation object. Raises ValueError naming what the task lacks."""
    try:
        qid = int(task.external_id)
    except (TypeError, ValueError):
        raise ValueError("has an id that is not a whole number (IndustryEQA question_id)") from None
    if task.ground_truth is None:
        raise ValueError("has no ground truth (IndustryEQA direct_answer)")
    if not task.inputs:
        raise ValueError("has no input (IndustryEQA path of the video)")
    ours = task.source == SOURCE
    extra = task.extra if ours else {}
    record: dict[str, Any] = {"question_id": qid, "type": task.category, "question": task.query,
                              "direct_answer": task.ground_truth}
    reasoning = (task.ground_truth_extra or {}).get("reasoning_answer")
    if reasoning is not None:
        record["reasoning_answer"] = reasoning
    record["path"] = task.inputs[0].name
    for key in ("transformed_status", "reasoning_status"):
        if extra.get(key) is not None:
            record[key] = extra[key]
    for key, value in extra.items():
        if key not in _DERIVED and key not in FIELDS:
            record[key] = value
    if record["type"] is None:
        del record["type"]
    return record


TASK_FORMAT = FileFormat(
    name="industryeqa", kind=TASKS, benchmark="IndustryEQA", choice="industryeqa", suffixes=(".json",),
    summary="annotation JSON", source=SOURCE, sniff=looks_like_annotation_only, parse=parse_annotation_file,
    to_record=to_annotation_record, write=write_json_array)
"""IndustryEQA's annotation file (combined or old split), read and written."""

ANSWER_FORMAT = FileFormat(
    name="industryeqa-answers", kind=ANSWERS, benchmark="IndustryEQA", choice="industryeqa", suffixes=(".json",),
    summary="answer files", source=SOURCE, sniff=looks_like_answers, parse=parse_answer_file)
"""IndustryEQA's baseline output files."""
