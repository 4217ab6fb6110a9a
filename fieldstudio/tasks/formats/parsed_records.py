"""Plain records shared by every task and answer importer: what a parser returns, what an import reports.

Parsers (``fieldworkarena.py``, ``industryeqa.py``, ``openeqa.py``, ``csv_table.py``) turn a file into
``ParsedTask`` / ``ParsedAnswer`` records and ``ImportProblem``s, never touching the project;
``tasks/importing.py`` (tasks) and ``inference/runs/answer_import.py`` (answers) write them and return an
``ImportReport``. The CLI prints the report and the GUI shows it; neither holds logic of its own.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fieldstudio.core.file_names import printable_path
from fieldstudio.core.json_limits import JsonLimitError, load_json

ANSWER_TYPES = ("distance", "time_range", "time", "count", "json_report", "yes_no", "free_text")
"""Answer types an importer can set; a person can change them in the task editor.

``time`` is one time or a duration (FWA "at what time", "duration time"); ``yes_no`` comes only from an
explicit CSV column (a guess from the query would be too unreliable: "Is there anyone ...? If so, ...").
"""

_TIME_RANGE_RE = re.compile(r"\bstart(?:ing)?\s+(?:time\s+)?and\s+(?:the\s+)?end(?:ing)?\b|"
                            r"\bstart\s+time\b.*\bend\s+time\b", re.IGNORECASE | re.DOTALL)
_COUNT_RE = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b|\bcount\s+(?:the|how)\b", re.IGNORECASE)
_DISTANCE_RE = re.compile(r"\b(?:what(?:'s|\s+is)\s+the\s+distance|how\s+far|distance\s+between)\b", re.IGNORECASE)
_TIME_RE = re.compile(r"\bat\s+what\s+time\b|\bwhat\s+time\b|\bduration\b|\bhow\s+long\b", re.IGNORECASE)


def guess_answer_type(query: str, *, eval_func: str | None = None, output_format: str | None = None) -> str:
    """The answer type a task most likely expects, from its scoring function, output format and query.

    Rules, in order (the FWA fields are described in benchmarks.md §1.2): ``json_match`` or
    ``output_format == "json"`` -> ``json_report``; a question for start and end times -> ``time_range``;
    "how many" / "number of" -> ``count`` (checked before distance, because FWA 3.3 asks "how many
    incidents ... distance ... less than 1 meter"); "what is the distance" / "how far" / "distance
    between" -> ``distance``; "at what time" / "duration" / "how long" -> ``time``; else ``free_text``.
    A guess only: the importers never change a ground truth because of it.
    """
    if eval_func == "json_match" or (output_format or "").lower() == "json":
        return "json_report"
    q = query or ""
    if _TIME_RANGE_RE.search(q):
        return "time_range"
    if _COUNT_RE.search(q):
        return "count"
    if _DISTANCE_RE.search(q):
        return "distance"
    if _TIME_RE.search(q):
        return "time"
    return "free_text"


@dataclass
class ParsedInput:
    """One input a task names: a file name as written in the task file, with an optional time range (s)."""

    name: str
    start_s: float | None = None
    end_s: float | None = None


@dataclass
class ParsedTask:
    """One task as read from a task file, before it is matched to project media.

    ``external_id`` is the benchmark's id (FWA ``2.1.0001``, IndustryEQA ``"17"``, OpenEQA a UUID).
    ``ground_truth`` is None when the file has none (FWA public variant); ``ground_truth_extra`` holds
    further reference answers (IndustryEQA ``reasoning_answer``, OpenEQA ``extra_answers``). ``extra`` holds everything
    else the file says (kept as metadata, stored in ``Task.extra``).
    """

    external_id: str
    source: str
    query: str
    answer_type: str = "free_text"
    ground_truth: str | None = None
    ground_truth_extra: dict[str, Any] | None = None
    eval_func: str | None = None
    output_format: str | None = None
    category: str | None = None
    sub_category: str | None = None
    scenario: str | None = None
    inputs: list[ParsedInput] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ParsedAnswer:
    """One answer read from an answer file or a run log, linked to a task by its external id.

    ``raw_text`` is the answer as the file holds it (None: the file holds a null answer, which its benchmark
    scores, e.g. OpenEQA's 0); ``extra`` holds e.g. the normalised text an official evaluator would compare
    (``official_text``), the log file, the encoding.
    """

    external_id: str
    raw_text: str | None
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ImportProblem:
    """Something a user should know about an import: ``file``, the record or task id (if any), the reason.

    ``severity`` is ``error`` (the record or file was not imported) or ``warning`` (imported, but look).
    """

    file: str
    record: str | None
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        file = printable_path(self.file)  # bytes that are not UTF-8 (a folder's name) as \xNN
        where = f"{file} [{self.record}]" if self.record else file
        return f"{self.severity}: {where}: {self.message}"


@dataclass
class ParseResult:
    """What a parser read from one file: tasks and/or answers, and the problems found on the way."""

    format: str
    tasks: list[ParsedTask] = field(default_factory=list)
    answers: list[ParsedAnswer] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)

    def problem(self, file: object, record: str | None, message: str, severity: str = "error") -> None:
        """Add an ImportProblem."""
        self.problems.append(ImportProblem(str(file), record, message, severity))


@dataclass
class ImportReport:
    """What ``import_tasks`` / ``import_answers`` did.

    ``tasks_per_category``: imported (created, updated or unchanged) tasks per category (None becomes ``""``).
    ``missing_media``: external id -> input names that match no project media.
    ``unmapped``: tasks without a sub-category row (FWA ``4.1.0051``).
    ``unknown_ids``: answer ids that name no task of the project.
    ``merged_public``: tasks named both by FieldWorkArena's public task files and by its ground truth in this
    import, stored once with the ground truth's query and answer (the public wording kept beside them).
    """

    formats: dict[str, str] = field(default_factory=dict)  # file -> detected format
    tasks_per_category: Counter = field(default_factory=Counter)
    created: int = 0
    updated: int = 0
    unchanged: int = 0  # already stored exactly as the file states them: nothing written
    problems: list[ImportProblem] = field(default_factory=list)
    missing_media: dict[str, list[str]] = field(default_factory=dict)
    unmapped: list[str] = field(default_factory=list)
    answers_imported: int = 0
    unknown_ids: list[str] = field(default_factory=list)
    merged_public: int = 0
    answers_replaced: int = 0  # answers of the source that a re-import changed
    scores_stale: int = 0      # the scores those answers had: stale now (they judged the earlier text)
    truth_scores_stale: int = 0  # scores made stale by tasks whose ground truth this import changed
    run_id: str | None = None
    cancelled: bool = False

    @property
    def merged_public_text(self) -> str:
        """The sentence on ``merged_public`` that the window and the CLI print."""
        return (f"{self.merged_public} task(s) were in both FieldWorkArena's public task files and its ground "
                "truth: each is one task with the ground truth's query and answer (the public wording is kept "
                "beside it).")

    def replaced_text(self, how_to_score: str) -> str:
        """The sentence on ``answers_replaced`` that the window and the CLI print; ``how_to_score`` says where
        scoring is (``Compare ▸ Score…``, ``fieldstudio score``)."""
        return (f"{self.answers_replaced} answer(s) differ from the ones this source had: the earlier text is "
                f"replaced and its {self.scores_stale} score(s) are stale (they judged the earlier text; they are "
                f"left out of every summary until scored again): score again ({how_to_score}).")

    def truth_stale_text(self, how_to_score: str) -> str:
        """The sentence on ``truth_scores_stale`` that the window and the CLI print; ``how_to_score`` as in
        ``replaced_text``."""
        return (f"{self.truth_scores_stale} score(s) now stale: the import changed the ground truth they judged "
                f"(they are left out of every summary until scored again): score again ({how_to_score}).")

    @property
    def tasks_imported(self) -> int:
        """Tasks of the files now in the project: created, updated in place, or already there unchanged."""
        return self.created + self.updated + self.unchanged

    def exit_code(self, imported: int) -> int:
        """The command's exit code once ``imported`` tasks or answers are in: 0 when some are; 2 when nothing is
        and a whole file was refused (unreadable, not the format, too deep: the one-line errors of issue 36);
        1 when nothing is for another reason (no record in the file, every record refused on its own)."""
        if imported:
            return 0
        whole_file = any(p.severity == "error" and p.record is None for p in self.problems)
        return 2 if whole_file else 1

    @property
    def errors(self) -> list[ImportProblem]:
        """Problems whose record or file was not imported."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def warnings(self) -> list[ImportProblem]:
        """Problems of records that were imported all the same."""
        return [p for p in self.problems if p.severity == "warning"]


def read_json_file(path: Path, result: ParseResult) -> Any:
    """The decoded JSON of ``path`` (UTF-8, BOM allowed), or None with a problem naming the reason."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        result.problem(path, None, f"cannot be read ({exc.strerror or exc})")
        return None
    if not raw.strip():
        result.problem(path, None, "is empty")
        return None
    try:
        return load_json(raw.decode("utf-8-sig"))
    except JsonLimitError as exc:
        result.problem(path, None, str(exc))
    except UnicodeDecodeError as exc:
        result.problem(path, None, f"is not UTF-8 text ({exc.reason} at byte {exc.start})")
    except json.JSONDecodeError as exc:
        result.problem(path, None, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})")
    return None


def read_json_array(path: Path, result: ParseResult, what: str) -> list[Any] | None:
    """The decoded JSON array of ``path``, or None with a problem naming the reason.

    ``what`` names the expected records in the message (e.g. ``"OpenEQA questions"``).
    """
    records = read_json_file(path, result)
    if records is None:
        return None
    if not isinstance(records, list):
        result.problem(path, None, f"expected a JSON array of {what}, found a {type(records).__name__}")
        return None
    return records
