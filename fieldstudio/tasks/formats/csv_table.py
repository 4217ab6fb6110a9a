"""fieldstudio's own CSV task and answer files: import and export.

**Task CSV** (UTF-8, a BOM is allowed; else the encoding is detected, e.g. Excel's cp1252 or cp932;
comma-separated, fields quoted as RFC 4180; first row is the header; column order is free, names are
case-insensitive). Required: ``task_id`` (or ``id``), ``query``. Optional:

=================  ====================================================================================
``answer_type``    one of ``records.ANSWER_TYPES``; empty -> guessed from the query
``ground_truth``   the reference answer text (empty -> none)
``category``       free text (e.g. ``2.1``)
``sub_category``   free text
``scenario``       ``factory``, ``warehouse``, ``retail`` or ``other``
``inputs``         media names separated by ``;``; a name may carry a time range in seconds as a W3C
                   media fragment: ``clip.mp4#t=12.5,30``
``eval_func``      e.g. ``fuzzy_match``
``output_format``  ``text`` or ``json``
``extra``          a JSON object kept as the task's metadata
=================  ====================================================================================

Any other column is kept in ``extra`` under its header name. The source of every CSV task is ``csv``.

**Answer CSV**: header ``task_id,answer``; further columns are kept in the answer's ``extra``.

In both, a header without ``task_id`` may name the id column ``id``.

Exports quote every field that needs it (csv.QUOTE_MINIMAL) so answers with tabs and newlines survive
(benchmarks.md §5 pitfall 8), and are written atomically.

``TASK_FORMAT`` (``csv-tasks``) and ``ANSWER_FORMAT`` (``csv-answers``) declare both for the registry
(``tasks/formats/__init__.py``); a user picks either as ``csv``.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fieldstudio.core.atomic import atomic_writer
from fieldstudio.core.spreadsheet_cells import protect_cell, unprotect_cell
from fieldstudio.tasks.formats.file_format import ANSWERS, READS_CSV, TASKS, FileFormat, csv_lines
from fieldstudio.tasks.formats.parsed_records import (
    ANSWER_TYPES,
    ParsedAnswer,
    ParsedInput,
    ParsedTask,
    ParseResult,
    guess_answer_type,
)

SOURCE = "csv"
TASK_COLUMNS = ("task_id", "query", "answer_type", "ground_truth", "category", "sub_category", "scenario",
                "inputs", "eval_func", "output_format", "extra")
ANSWER_COLUMNS = ("task_id", "answer")
SCENARIOS = ("factory", "warehouse", "retail", "other")
_FRAGMENT_RE = re.compile(r"^(?P<name>.*?)#t=(?P<start>[0-9.]*)(?:,(?P<end>[0-9.]*))?$")


def normalise_header(cells: Iterable[str]) -> list[str]:
    """Header cells stripped and lower-cased; ``id`` becomes ``task_id`` when there is no ``task_id``."""
    header = [c.strip().lower() for c in cells]
    if "task_id" not in header and "id" in header:
        header[header.index("id")] = "task_id"
    return header


def _no_known_columns(header: list[str]) -> str:
    return f"is a CSV file whose header ({', '.join(header)}) has neither task_id+query nor task_id+answer"


def sniff_task_csv(cells: list[str]) -> bool | str:
    """True when a CSV header row (as written) is a task CSV's: ``task_id`` (or ``id``) and ``query``; else why not."""
    header = normalise_header(cells)
    return True if "task_id" in header and "query" in header else _no_known_columns(header)


def sniff_answer_csv(cells: list[str]) -> bool | str:
    """True when a CSV header row (as written) is an answer CSV's: ``task_id`` (or ``id``) and ``answer``, and no
    ``query`` (a header with both is a task CSV); else why not."""
    header = normalise_header(cells)
    if "task_id" in header and "answer" in header and "query" not in header:
        return True
    return _no_known_columns(header)


def parse_inputs(cell: str) -> list[ParsedInput]:
    """``"a.jpg; clip.mp4#t=12.5,30"`` -> two inputs, the second from 12.5 s to 30 s. Raises ValueError."""
    inputs = []
    for part in (cell or "").split(";"):
        part = part.strip()
        if not part:
            continue
        m = _FRAGMENT_RE.match(part)
        if m:
            start = float(m.group("start")) if m.group("start") else None
            end = float(m.group("end")) if m.group("end") else None
            if start is not None and end is not None and end < start:
                raise ValueError(f"time range of {m.group('name')!r} ends before it starts")
            inputs.append(ParsedInput(m.group("name").strip(), start, end))
        else:
            inputs.append(ParsedInput(part))
    return inputs


def format_inputs(inputs: Iterable[ParsedInput]) -> str:
    """The ``inputs`` cell for a list of inputs (inverse of ``parse_inputs``)."""
    parts = []
    for i in inputs:
        if i.start_s is None and i.end_s is None:
            parts.append(i.name)
        else:
            start = "" if i.start_s is None else f"{i.start_s:g}"
            parts.append(f"{i.name}#t={start}" + ("" if i.end_s is None else f",{i.end_s:g}"))
    return ";".join(parts)


def _read_rows(path: Path, result: ParseResult, required: tuple[str, ...]) -> list[dict[str, str]] | None:
    from fieldstudio.core.text_encoding import decode_text  # charset-normalizer: only when a CSV is read

    try:
        text, encoding = decode_text(Path(path).read_bytes())
    except OSError as exc:
        result.problem(path, None, f"cannot be read ({exc.strerror or exc})")
        return None
    except UnicodeDecodeError as exc:
        result.problem(path, None, f"is not text in UTF-8 or any encoding detected ({exc.reason} at byte {exc.start})")
        return None
    if not text or text.isspace():  # not strip(): a copy of the whole text
        result.problem(path, None, "is empty")
        return None
    if encoding != "utf-8":  # a guess: say it, since a wrong one garbles every accent without an error
        result.problem(path, None, f"is not UTF-8: read as {encoding}, the encoding detected; check its non-ASCII "
                       "text (or save it as CSV UTF-8)", "warning")
    try:
        reader = csv.DictReader(csv_lines(text))
        header = normalise_header(reader.fieldnames or [])
        reader.fieldnames = header
        missing = [c for c in required if c not in header]
        if missing:
            result.problem(path, None, f"has no column {', '.join(missing)} in its header ({', '.join(header)})")
            return None
        rows = [{k: unprotect_cell(v) if isinstance(v, str) else v for k, v in row.items()} for row in reader]
        if not rows:
            result.problem(path, None, "has a header but no rows", "warning")
        return rows
    except csv.Error as exc:
        result.problem(path, None, f"is not a valid CSV file ({exc})")
        return None


def parse_task_csv(path: Path) -> ParseResult:
    """Tasks from a task CSV (see the module docstring). Never raises for bad input."""
    path = Path(path)
    result = ParseResult(format="csv-tasks")
    rows = _read_rows(path, result, ("task_id", "query"))
    if rows is None:
        return result
    seen: set[str] = set()
    for line, row in enumerate(rows, start=2):
        if None in row:
            result.problem(path, f"line {line}", "has more cells than the header; the extra cells were ignored",
                           "warning")
            row.pop(None)
        cells = {k: (v or "").strip() if k != "query" and k != "ground_truth" else (v or "")
                 for k, v in row.items()}
        task_id = cells.get("task_id", "")
        if not task_id:
            if any(cells.values()):
                result.problem(path, f"line {line}", "has no task_id")
            continue
        if task_id in seen:
            result.problem(path, task_id, f"appears twice (line {line}); the second row was skipped")
            continue
        if not cells.get("query", "").strip():
            result.problem(path, task_id, "has no query")
            continue
        try:
            inputs = parse_inputs(cells.get("inputs", ""))
        except ValueError as exc:
            result.problem(path, task_id, f"inputs: {exc}")
            continue
        extra: dict[str, Any] = {}
        if cells.get("extra"):
            try:
                extra = json.loads(cells["extra"])
            except json.JSONDecodeError as exc:
                result.problem(path, task_id, f"extra is not valid JSON ({exc.msg}); ignored", "warning")
                extra = {}
            if not isinstance(extra, dict):
                result.problem(path, task_id, "extra is not a JSON object; ignored", "warning")
                extra = {}
        for key, value in cells.items():
            if key not in TASK_COLUMNS and value:
                extra[key] = value
        eval_func = cells.get("eval_func") or None
        output_format = cells.get("output_format") or None
        answer_type = cells.get("answer_type") or ""
        if answer_type and answer_type not in ANSWER_TYPES:
            result.problem(path, task_id, f"answer_type {answer_type!r} is not one of {', '.join(ANSWER_TYPES)}; "
                                          "guessed instead", "warning")
            answer_type = ""
        scenario = cells.get("scenario") or None
        if scenario and scenario not in SCENARIOS:
            result.problem(path, task_id, f"scenario {scenario!r} is not one of {', '.join(SCENARIOS)}; kept",
                           "warning")
        seen.add(task_id)
        result.tasks.append(ParsedTask(
            external_id=task_id, source=SOURCE, query=cells["query"],
            answer_type=answer_type or guess_answer_type(cells["query"], eval_func=eval_func,
                                                         output_format=output_format),
            ground_truth=cells.get("ground_truth") or None, eval_func=eval_func, output_format=output_format,
            category=cells.get("category") or None, sub_category=cells.get("sub_category") or None,
            scenario=scenario, inputs=inputs, extra=extra,
        ))
    return result


def parse_answer_csv(path: Path) -> ParseResult:
    """Answers from an answer CSV (``task_id,answer``). Never raises for bad input."""
    path = Path(path)
    result = ParseResult(format="csv-answers")
    rows = _read_rows(path, result, ANSWER_COLUMNS)
    if rows is None:
        return result
    seen: set[str] = set()
    for line, row in enumerate(rows, start=2):
        row.pop(None, None)
        task_id = (row.get("task_id") or "").strip()
        if not task_id:
            if any((v or "").strip() for v in row.values()):
                result.problem(path, f"line {line}", "has no task_id")
            continue
        if task_id in seen:
            result.problem(path, task_id, f"answered twice (line {line}); the second row was skipped")
            continue
        seen.add(task_id)
        extra = {k: v for k, v in row.items() if k not in ANSWER_COLUMNS and v}
        result.answers.append(ParsedAnswer(task_id, row.get("answer") or "", extra))
    return result


def export_task_csv(tasks: Iterable[ParsedTask], path: Path, *, raw_cells: bool = False) -> int:
    """Write tasks as a task CSV with every column of ``TASK_COLUMNS``, atomically; returns the count.

    ``extra`` is written as a JSON object (empty cell when empty); a cell a spreadsheet would run as a formula
    gets a leading apostrophe (``core.spreadsheet_cells``), taken off again on import, unless ``raw_cells``
    (cells exactly as stored); re-importing the file gives the same records apart from ``source``, which becomes
    ``csv``.
    """
    cell = (lambda v: v) if raw_cells else protect_cell
    n = 0
    with atomic_writer(Path(path), "w") as fh:
        writer = csv.writer(fh, lineterminator="\r\n")
        writer.writerow(TASK_COLUMNS)
        for t in tasks:
            writer.writerow([cell(v) for v in (
                t.external_id, t.query, t.answer_type, t.ground_truth or "", t.category or "", t.sub_category or "",
                t.scenario or "", format_inputs(t.inputs), t.eval_func or "", t.output_format or "",
                json.dumps(t.extra, ensure_ascii=False) if t.extra else "")])
            n += 1
    return n


TASK_FORMAT = FileFormat(
    name="csv-tasks", kind=TASKS, benchmark="CSV", choice="csv", suffixes=(".csv", ".tsv"),
    summary="task_id,query,…", source=SOURCE, reads=READS_CSV, sniff=sniff_task_csv, parse=parse_task_csv,
    to_record=lambda task: task, write=export_task_csv)
"""fieldstudio's task CSV (the module docstring), read and written."""

ANSWER_FORMAT = FileFormat(
    name="csv-answers", kind=ANSWERS, benchmark="CSV", choice="csv", suffixes=(".csv", ".tsv"),
    summary="task_id,answer", source=None, reads=READS_CSV, sniff=sniff_answer_csv, parse=parse_answer_csv)
"""fieldstudio's answer CSV: its ids are linked to tasks of any source."""
