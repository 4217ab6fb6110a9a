"""What a task or answer file format declares (``FileFormat``), and how a file is read for sniffing.

Each format module (``fieldworkarena.py``, ``industryeqa.py``, ``openeqa.py``, ``csv_table.py``,
``xlsx_table.py``) declares its formats as ``FileFormat`` objects; ``tasks/formats/__init__.py`` lists them
in its registry and answers every question about them (which format a file is, which names a user picks, which
formats can be written).

A format's ``sniff`` looks at what its container gives (``reads``): the decoded JSON value of a JSON file, the
header cells of a CSV file, or the path of a log file or a folder. ``read_for_sniffing`` reads a file once per
container, so a JSON file is decoded once however many formats look at it.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fieldstudio.core.atomic import atomic_write_text
from fieldstudio.tasks.formats.parsed_records import ParsedTask, ParseResult, read_json_file

TASKS = "tasks"
ANSWERS = "answers"
READS_JSON = "json"
"""The format reads a JSON file; ``sniff`` gets the decoded value (a list for every benchmark's file)."""
READS_CSV = "csv"
"""The format reads a CSV file; ``sniff`` gets its header row's cells as written (not normalised)."""
READS_PATH = "path"
"""The format reads a path (a log file, or a folder of them); ``sniff`` gets the ``Path``."""


@dataclass(frozen=True)
class FileFormat:
    """One file format fieldstudio reads, writes, or both.

    Attributes:
        name: the registry name (``fieldworkarena``, ``fieldworkarena-log``, ``csv-tasks``...); what
            ``ImportReport.formats`` and an imported run's ``params["format"]`` record.
        kind: ``tasks`` or ``answers``: what the file holds.
        benchmark: the benchmark as a user reads its name (``FieldWorkArena``; ``CSV`` for fieldstudio's tables).
        choice: the name a user picks the format by (``--format``, the export list): a benchmark's task and
            answer formats share it (``fieldworkarena``), fieldstudio's tables are ``csv`` and ``xlsx``.
        suffixes: the file suffixes it is read or written as, lower case with the dot, the usual one first.
            A file whose suffix no readable format claims is tried as JSON.
        summary: a few words on what the file is, for help texts (``GreenAgent JSON``, ``run logs``).
        source: ``Task.source`` of the tasks the file holds (tasks), or of the tasks its answers are linked to
            first when an id names tasks of several sources (answers; None: no preference).
        reads: what ``sniff`` is given: ``READS_JSON``, ``READS_CSV`` or ``READS_PATH``.
        folders: True when a folder is one file of this format (a folder of run logs).
        sniff: ``sniff(value) -> True`` when the file is of this format; a reason (str) a user should read
            when it nearly is (a CSV header without the columns, a JSON list of ids); False otherwise.
            None for a format that is only written.
        parse: ``parse(path, **options) -> ParseResult``; never raises for bad input. None: only written.
        options: the keyword options ``parse`` takes (FieldWorkArena tasks: ``domains``, ``taxonomy``).
        to_record: ``to_record(task) -> record``: one ParsedTask as the file holds it; raises ValueError
            naming what the task lacks when the format cannot hold it. None: not written.
        write: ``write(records, path)``: the records, written atomically; OSError when the file cannot be
            written. None: not written.
    """

    name: str
    kind: str
    benchmark: str
    choice: str
    suffixes: tuple[str, ...]
    summary: str = ""
    source: str | None = None
    reads: str = READS_JSON
    folders: bool = False
    sniff: Callable[[Any], bool | str] | None = None
    parse: Callable[..., ParseResult] | None = None
    options: tuple[str, ...] = ()
    to_record: Callable[[ParsedTask], Any] | None = None
    write: Callable[[Sequence[Any], Path], Any] | None = None

    @property
    def readable(self) -> bool:
        """True when files of this format can be detected and imported."""
        return self.sniff is not None and self.parse is not None

    @property
    def writable(self) -> bool:
        """True when tasks can be exported in this format."""
        return self.to_record is not None and self.write is not None


_LINE = re.compile(r"[^\r\n]*(?:\r\n?|\n)|[^\r\n]+")


def csv_lines(text: str) -> Iterator[str]:
    """`text`'s lines for `csv.reader`, each with its ending (``\\r\\n``, ``\\r`` or ``\\n``, as
    ``io.StringIO(text, newline="")`` splits them), as slices: `io.StringIO` would hold a second copy of the whole
    file at 4 bytes a character (800 MB for a 200 MB CSV; found by robtest's huge-CSV try)."""
    return (match.group(0) for match in _LINE.finditer(text))


def csv_first_row(path: Path) -> list[str] | None:
    """The first row of a CSV file as written, or None when it cannot be read as text (see ``decode_text``:
    UTF-8 with or without a BOM, else the encoding detected) or is empty."""
    from fieldstudio.core.text_encoding import decode_text  # charset-normalizer: only when a CSV is read

    try:
        text, _ = decode_text(Path(path).read_bytes())
        row = next(csv.reader(csv_lines(text)), None)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return row or None


def read_for_sniffing(path: Path, reads: str) -> tuple[Any, str | None]:
    """(value, None) with what a format reading ``reads`` sniffs in ``path``, or (None, reason) when the file
    cannot be read as that container, the reason in plain words ("is an empty JSON array")."""
    if reads == READS_PATH:
        return path, None
    if reads == READS_CSV:
        header = csv_first_row(path)
        return (header, None) if header is not None else (None, "is empty or not a CSV text file")
    probe = ParseResult(format="unknown")
    records = read_json_file(path, probe)
    if records is None:
        return None, probe.problems[0].message if probe.problems else "cannot be read"
    if isinstance(records, list) and not records:
        return None, "is an empty JSON array"
    return records, None


def write_json_array(records: Sequence[Any], path: Path, *, indent: int = 4, ensure_ascii: bool = False,
                     final_newline: bool = True) -> None:
    """Write ``records`` as one JSON array, atomically: by default UTF-8 with a 4-space indent and a final newline
    (as the benchmarks' own task files are written). Raises OSError when the file cannot be written."""
    text = json.dumps(list(records), ensure_ascii=ensure_ascii, indent=indent)
    atomic_write_text(Path(path), text + "\n" if final_newline else text)
