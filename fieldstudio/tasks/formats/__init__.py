"""The task and answer file formats: an explicit registry of the ``FileFormat`` each format module declares.

Every question about formats is asked here, so no importer, exporter or front holds a list or an if-chain of
format names:

* ``sniff_format(path)`` names the format of a file (``unknown`` with the reason in plain words);
  ``format_mismatch`` says why a file is not of the format a user chose;
* ``get(name)`` is a format by its registry name (``fieldworkarena``, ``fieldworkarena-log``, ``csv-tasks``...);
  ``readable(kind)`` and ``writable()`` the formats that can be imported or exported;
* ``choices()`` the names a user picks a format by (``--format``): ``fieldworkarena``, ``industryeqa``,
  ``openeqa``, ``csv``; ``export_choices()`` adds ``xlsx``; ``by_choice`` finds the format of a kind;
* ``file_suffixes(kind)`` the files a folder walk or a file dialog looks at; ``describe_choices`` and
  ``describe_files`` the words help texts show.

How a file is sniffed: a folder is offered to the formats that read folders; a file to the formats claiming
its suffix, or, when none does, to the JSON formats (a task file named ``*.txt`` is still found). Each format
reads its container (``file_format.read_for_sniffing``: the decoded JSON, the CSV header, the path) once and
says True, a reason (it nearly is), or False. The first True wins; with none, the container's own reason (not
UTF-8, an empty array), else the first format's reason, else a generic one.

Adding a format: declare a ``FileFormat`` in its module here and add it to ``FORMATS`` (docs/ARCHITECTURE.md).
"""

from __future__ import annotations

from pathlib import Path

from fieldstudio.core.wording import or_list
from fieldstudio.tasks.formats import csv_table, fieldworkarena, industryeqa, openeqa, xlsx_table
from fieldstudio.tasks.formats.file_format import (
    ANSWERS,
    READS_CSV,
    READS_JSON,
    TASKS,
    FileFormat,
    read_for_sniffing,
)

UNKNOWN = "unknown"
"""What ``sniff_format`` names a file of no known format."""

FORMATS: tuple[FileFormat, ...] = (
    fieldworkarena.TASK_FORMAT,
    fieldworkarena.ANSWER_FORMAT,
    industryeqa.TASK_FORMAT,
    industryeqa.ANSWER_FORMAT,
    openeqa.TASK_FORMAT,
    openeqa.ANSWER_FORMAT,
    csv_table.TASK_FORMAT,
    csv_table.ANSWER_FORMAT,
    xlsx_table.TASK_FORMAT,
)
"""Every format, in the order they are sniffed and offered to a user."""

_BY_NAME = {f.name: f for f in FORMATS}


def get(name: str) -> FileFormat:
    """The format registered as ``name``. Raises KeyError naming the known formats."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown file format {name!r}; known: {', '.join(_BY_NAME)}") from None


def readable(kind: str | None = None) -> tuple[FileFormat, ...]:
    """The formats that can be detected and imported (of ``kind``, ``tasks`` or ``answers``, when given)."""
    return tuple(f for f in FORMATS if f.readable and (kind is None or f.kind == kind))


def names(kind: str) -> tuple[str, ...]:
    """The registry names of the readable formats of ``kind``: ``names("tasks")`` is ``("fieldworkarena",
    "industryeqa", "openeqa", "csv-tasks")``."""
    return tuple(f.name for f in readable(kind))


def writable() -> tuple[FileFormat, ...]:
    """The formats tasks can be exported in, in the order a user is offered them."""
    return tuple(f for f in FORMATS if f.writable)


def choices() -> tuple[str, ...]:
    """The names a user picks an import format by (``--format``), each once, in order:
    ``("fieldworkarena", "industryeqa", "openeqa", "csv")``."""
    return tuple(dict.fromkeys(f.choice for f in readable()))


def export_choices() -> tuple[str, ...]:
    """The names a user picks an export format by: ``choices()`` that can be written, then ``xlsx``."""
    return tuple(dict.fromkeys(f.choice for f in writable()))


def by_choice(choice: str, kind: str) -> FileFormat:
    """The format of ``kind`` a user means by ``choice`` (``by_choice("csv", "answers")`` is ``csv-answers``).
    For ``tasks`` a writable-only format counts too (``xlsx``). Raises KeyError for a choice with no such format."""
    for f in FORMATS:
        if f.choice == choice and f.kind == kind and (f.readable or (kind == TASKS and f.writable)):
            return f
    raise KeyError(f"no {kind} format {choice!r}")


def file_suffixes(kind: str) -> tuple[str, ...]:
    """The file suffixes the readable formats of ``kind`` are read from, each once, in registry order
    (tasks: ``.json``, ``.csv``, ``.tsv``)."""
    return tuple(dict.fromkeys(s for f in readable(kind) for s in f.suffixes))


def describe_choices(formats: tuple[FileFormat, ...]) -> str:
    """``fieldworkarena (GreenAgent JSON), ..., csv (task_id,query,…) or xlsx (...)``: the choices of ``formats``
    with the summary of the first format of each, for a help text."""
    seen: dict[str, str] = {}
    for f in formats:
        seen.setdefault(f.choice, f"{f.choice} ({f.summary})" if f.summary else f.choice)
    return or_list(list(seen.values()))


def describe_files(kind: str) -> str:
    """``FieldWorkArena run logs (a file or a folder), ... or CSV task_id,answer``: the files of ``kind`` a user
    can import, for a help text or a dialog."""
    return or_list([f"{f.benchmark} {f.summary}" if f.summary else f.benchmark for f in readable(kind)])


# ---------------------------------------------------------------- detection
def sniff_format(path: Path) -> tuple[str, str]:
    """(format, reason): the registry name of ``path``'s format, or ``unknown`` and why, in plain words
    ("does not exist", "is an empty JSON array", "is a JSON list of ids ..."). Reads the file at most once
    per container; never raises for a bad file."""
    path = Path(path)
    if path.is_dir():
        candidates = [f for f in readable() if f.folders]
    elif not path.is_file():
        return UNKNOWN, "does not exist"
    else:
        suffix = path.suffix.lower()
        candidates = ([f for f in readable() if suffix in f.suffixes]
                      or [f for f in readable() if f.reads == READS_JSON])
    read: dict[str, tuple[object, str | None]] = {}
    near_misses: list[str] = []
    for f in candidates:
        if f.reads not in read:
            read[f.reads] = read_for_sniffing(path, f.reads)
        value, unreadable = read[f.reads]
        if unreadable is not None:
            continue
        verdict = f.sniff(value)
        if verdict is True:
            return f.name, ""
        if isinstance(verdict, str) and verdict:
            near_misses.append(verdict)
    unreadable_reasons = [reason for _, reason in read.values() if reason]
    if unreadable_reasons:
        return UNKNOWN, unreadable_reasons[0]
    if near_misses:
        return UNKNOWN, near_misses[0]
    if path.is_dir():
        return UNKNOWN, "is a folder of no known format"
    if read.keys() == {READS_JSON}:
        json_benchmarks = list(dict.fromkeys(f.benchmark for f in candidates))
        return UNKNOWN, f"is JSON but not a {or_list(json_benchmarks)} task or answer file"
    if read.keys() == {READS_CSV}:
        return UNKNOWN, "is a CSV file of no known format"
    return UNKNOWN, "is of no known format"


def detect_format(path: Path) -> str:
    """The registry name of a task or answer file's format, or ``unknown``."""
    return sniff_format(path)[0]


def format_mismatch(path: Path, choice: str, *, answers: bool = False) -> str | None:
    """Why ``path`` is not a task file (or, with ``answers``, an answer file) of the format a user chose
    (one of ``choices()``), in plain words; None when it is. Raises ValueError for another choice."""
    if choice not in choices():
        raise ValueError(f"format {choice!r}: choose one of {', '.join(choices())}")
    expected = by_choice(choice, ANSWERS if answers else TASKS).name
    found, reason = sniff_format(path)
    if found == expected:
        return None
    what = f"{choice} answers" if answers else choice
    return f"is not {what}: " + (reason if found == UNKNOWN else f"it looks like {found}")


__all__ = ["FileFormat", "FORMATS", "TASKS", "ANSWERS", "UNKNOWN", "get", "readable", "names", "writable", "choices",
           "export_choices", "by_choice", "file_suffixes", "describe_choices", "describe_files", "sniff_format",
           "detect_format", "format_mismatch"]
