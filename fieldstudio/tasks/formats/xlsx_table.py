"""fieldstudio's task table as an Excel workbook: the task CSV's columns in one sheet named ``tasks`` (export only).

Every cell is written as text, so a query starting with ``=`` never becomes a formula; characters XLSX cannot
hold are removed and a cell is cut at Excel's 32,767 characters. ``TASK_FORMAT`` (``xlsx-tasks``, picked as
``xlsx``) declares it for the registry (``tasks/formats/__init__.py``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from pathlib import Path

from fieldstudio.core.atomic import atomic_write_bytes
from fieldstudio.tasks.formats import csv_table
from fieldstudio.tasks.formats.file_format import TASKS, FileFormat
from fieldstudio.tasks.formats.parsed_records import ParsedTask


def workbook_bytes(tasks: Sequence[ParsedTask]) -> bytes:
    """The task CSV's columns (``csv_table.TASK_COLUMNS``) as an XLSX workbook (one sheet ``tasks``), every cell text."""
    from openpyxl import Workbook
    from openpyxl.cell import WriteOnlyCell
    from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE

    wb = Workbook(write_only=True)
    ws = wb.create_sheet("tasks")

    def cell(value: str) -> WriteOnlyCell:
        c = WriteOnlyCell(ws, value=ILLEGAL_CHARACTERS_RE.sub("", value)[:32767])
        c.data_type = "s"  # text, never a formula
        return c

    ws.append([cell(c) for c in csv_table.TASK_COLUMNS])
    for t in tasks:
        ws.append([cell(v) for v in (
            t.external_id, t.query, t.answer_type, t.ground_truth or "", t.category or "", t.sub_category or "",
            t.scenario or "", csv_table.format_inputs(t.inputs), t.eval_func or "", t.output_format or "",
            json.dumps(t.extra, ensure_ascii=False) if t.extra else "")])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def write_workbook(tasks: Sequence[ParsedTask], path: Path) -> None:
    """Write ``tasks`` as the workbook of ``workbook_bytes``, atomically. Raises OSError when it cannot be written."""
    atomic_write_bytes(Path(path), workbook_bytes(tasks))


TASK_FORMAT = FileFormat(
    name="xlsx-tasks", kind=TASKS, benchmark="XLSX", choice="xlsx", suffixes=(".xlsx",),
    summary="Excel workbook", source=None, to_record=lambda task: task, write=write_workbook)
"""Tasks as an Excel workbook; written only (a workbook is not imported)."""
