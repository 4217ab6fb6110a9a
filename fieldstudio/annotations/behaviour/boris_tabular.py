"""BORIS's tabular events (CSV / TSV), written and read: one observation = one video of the project.

The layout is the one BORIS's ``export_tabular_events`` writes (BORIS 8 to 10, read in its source, not copied; the
tests run BORIS 10.0.2's own writer on the same events and compare the files byte for byte):
one header row, then one row per START, STOP or POINT, columns

    Observation id, Observation date, Description, Observation duration, Observation type, Source,
    Time offset (s), Media duration (s), FPS, Subject, Behavior, Behavioral category,
    [Modifier #1 .. #n], Behavior type, Time, Media file name, Image index, Image file path, Comment

with the observation id = the video's file name, observation type "Media file(s)", source
"player #1:<file name>", durations and FPS to the millisecond, the time in seconds to the millisecond (after the
first frame), the frame index as "Image index", "NA" as image path (BORIS's value for media observations). There
are as many "Modifier #" columns as the event with the most modifiers has. A state event still running is not
written (BORIS refuses unpaired states); the count is returned.

BORIS reads no tabular events file (its event imports take a ``.boris`` project or a spreadsheet): to bring events
into BORIS, :func:`import_sheet_rows` writes the XLSX sheet its Observations ▸ Import observations reads into an open
observation (columns time, subject, code, modifier, comment).

Reading takes BORIS's older layout too (a preamble before the header, "Status" instead of "Behavior type",
"Modifiers" joined by "|"): each STOP closes the earliest open START of the same subject and behaviour; a frame is
the row's "Image index" when it is a whole number, else the frame shown at that time. A state BORIS stops because an
exclusive one starts is recorded 1 ms before that start with the image index "NA" (BORIS's ``write_event``: the
stop must sort before the start); the frame shown 1 ms earlier is the one before the start, so such a STOP takes
the frame of the START of the same subject 1 ms later, as fieldstudio's own coding stops it (:mod:`coding`).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fieldstudio.annotations.behaviour.behaviour_events import BehaviourEvent
from fieldstudio.core.atomic import atomic_path
from fieldstudio.core.errors import FieldstudioError

NA = "NA"


def _delimiter(path: Path) -> str:
    return "\t" if Path(path).suffix.lower() in (".tsv", ".tab", ".txt") else ","


def _marks(closed: Sequence[BehaviourEvent]) -> list[tuple[float, int, BehaviourEvent, str, int]]:
    """(time in s, 0 for a STOP else 1, event, START / STOP / POINT, frame) of each stopped state's start and stop and
    each point, in BORIS's order (see :func:`tabular_rows`)."""
    marks: list[tuple[float, int, BehaviourEvent, str, int]] = []
    for e in closed:
        if e.type == "point":
            marks.append((e.start_s, 1, e, "POINT", e.frame_index))
        else:
            marks.append((e.start_s, 1, e, "START", e.frame_index))
            marks.append((e.stop_s, 0, e, "STOP", e.end_frame_index))
    marks.sort(key=lambda m: (round(m[0], 6), m[2].subject, m[2].behaviour, "|".join(m[2].modifiers), m[1]))
    return marks


#: The columns BORIS's Observations ▸ Import observations reads from a spreadsheet (``import_observations.py``
#: ``load_observations_from_spreadsheet``: any order, any case), the only event import of BORIS besides a project.
IMPORT_SHEET_COLUMNS = ("time", "subject", "code", "modifier", "comment")


def import_sheet_rows(events: Sequence[BehaviourEvent]) -> tuple[list[list], int]:
    """The header and one row per START / STOP / POINT of ``events`` as BORIS's spreadsheet import reads them into
    the open observation: time in seconds after the first frame (a number, to the millisecond), subject, behaviour
    code, the modifiers joined by "|" (BORIS's modifier string: a STOP repeats its START's, which is how BORIS pairs
    them), no comment; in BORIS's order. Returns (rows, running states left out)."""
    closed = [e for e in events if not e.is_open]
    rows: list[list] = [list(IMPORT_SHEET_COLUMNS)]
    for time_s, _, e, _status, _frame in _marks(closed):
        rows.append([round(time_s, 3), e.subject, e.behaviour, "|".join(e.modifiers), ""])
    return rows, len(events) - len(closed)


def write_import_sheet(path: Path, rows: Sequence[Sequence]) -> None:
    """Write ``rows`` as the first sheet of an XLSX workbook (BORIS reads sheet 0 with openpyxl), atomically."""
    from openpyxl import Workbook

    book = Workbook(write_only=True)
    sheet = book.create_sheet("events")
    for row in rows:
        sheet.append(list(row))
    with atomic_path(Path(path)) as tmp:
        book.save(tmp)


def tabular_rows(events: Sequence[BehaviourEvent], *, file_name: str, duration_s: float | None,
                 fps: float | None, description: str = "") -> tuple[list[list[str]], int]:
    """The header and one row per START / STOP / POINT of ``events`` (one video), in BORIS's order: it keeps an
    observation's events sorted as lists (time, subject, behaviour, modifiers), so events at one time go by subject,
    then behaviour, then modifiers (a STOP before a START of the same ones); and the number of running states left
    out."""
    closed = [e for e in events if not e.is_open]
    n_modifiers = max((len(e.modifiers) for e in closed), default=0)
    header = ["Observation id", "Observation date", "Description", "Observation duration", "Observation type",
              "Source", "Time offset (s)", "Media duration (s)", "FPS", "Subject", "Behavior",
              "Behavioral category", *[f"Modifier #{i + 1}" for i in range(n_modifiers)], "Behavior type", "Time",
              "Media file name", "Image index", "Image file path", "Comment"]
    seconds = "" if duration_s is None else f"{duration_s:.3f}"
    rows = [header]
    for time_s, _, e, status, frame in _marks(closed):
        modifiers = list(e.modifiers) + [""] * (n_modifiers - len(e.modifiers))
        rows.append([file_name, "", description, seconds, "Media file(s)", f"player #1:{file_name}", "0.0",
                     seconds, "" if fps is None else f"{fps:.3f}", e.subject, e.behaviour, "", *modifiers, status,
                     f"{time_s:.3f}", file_name, str(frame), NA, ""])
    return rows, len(events) - len(closed)


def write_tabular(path: Path, rows: Sequence[Sequence[str]]) -> None:
    """Write ``rows`` as CSV (``.csv``) or TSV (``.tsv``, ``.tab``, ``.txt``), UTF-8 with CRLF line ends, as BORIS
    does (its tablib writes them so: the tests compare our file with BORIS's byte for byte)."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, delimiter=_delimiter(path), lineterminator="\r\n").writerows(rows)


@dataclass
class ParsedEvent:
    """One event read from a tabular file: times in seconds after the first frame, ``frame`` / ``end_frame`` when
    the file gave them; ``stop_s`` None for a START never stopped; ``line``: the file's line of its START or POINT."""

    subject: str
    behaviour: str
    type: str
    modifiers: tuple[str, ...]
    start_s: float
    stop_s: float | None
    frame: int | None = None
    end_frame: int | None = None
    line: int = 0


@dataclass
class ParsedTabular:
    """What a file held: its ``events``, the observation ids seen and the ``problems`` (line: reason)."""

    events: list[ParsedEvent] = field(default_factory=list)
    observations: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _whole(text: str) -> int | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return int(value) if value.is_integer() and value >= 0 else None


def read_tabular(path: Path) -> ParsedTabular:
    """Read BORIS's tabular events (CSV or TSV, told by the content). Raises FieldstudioError when no header
    row with "Behavior", "Time" and "Behavior type" (or "Status") is found."""
    data = Path(path).read_bytes()
    # BORIS writes UTF-8; a spreadsheet may save UTF-16 with its byte-order mark. Anything else is refused, not guessed
    encoding = "utf-16" if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise FieldstudioError(f"{Path(path).name}: not BORIS's tabular events: byte {exc.start} is not "
                               f"{'UTF-16' if encoding == 'utf-16' else 'UTF-8'} text") from None
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",\t;")
        delimiter = dialect.delimiter
    except csv.Error:
        delimiter = _delimiter(Path(path))
    lines = list(csv.reader(io.StringIO(text), delimiter=delimiter))
    at = next((i for i, row in enumerate(lines) if "Behavior" in row and "Time" in row
               and ("Behavior type" in row or "Status" in row)), None)
    if at is None:
        raise FieldstudioError(f"{Path(path).name}: not BORIS's tabular events (no header row with Behavior, "
                               "Time and Behavior type)")
    header = lines[at]
    col = {name: header.index(name) for name in header if name}
    status_col = col.get("Behavior type", col.get("Status"))
    modifier_cols = [col[n] for n in header if n.startswith("Modifier #")]
    out = ParsedTabular()
    open_: dict[tuple[str, str], list[ParsedEvent]] = {}
    start_frames: dict[tuple[str, int], int] = {}   # (subject, time in ms) -> the frame of a START there
    unframed_stops: list[ParsedEvent] = []
    for n, row in enumerate(lines[at + 1:], start=at + 2):
        if not any(c.strip() for c in row):
            continue
        cell = lambda name: row[col[name]].strip() if name in col and col[name] < len(row) else ""  # noqa: E731
        obs = cell("Observation id")
        if obs and obs not in out.observations:
            out.observations.append(obs)
        status = row[status_col].strip().upper() if status_col < len(row) else ""
        try:
            time_s = float(cell("Time"))
        except ValueError:
            out.problems.append(f"line {n}: time {cell('Time')!r} is not a number; skipped")
            continue
        if modifier_cols:
            modifiers = tuple(row[c].strip() for c in modifier_cols if c < len(row) and row[c].strip())
        else:
            modifiers = tuple(m for m in cell("Modifiers").split("|") if m)
        frame = _whole(cell("Image index")) if "Image index" in col else None
        subject = "" if cell("Subject") == "No focal subject" else cell("Subject")
        key = (subject, cell("Behavior"))
        if status == "POINT":
            out.events.append(ParsedEvent(subject, key[1], "point", modifiers, time_s, time_s, frame, frame, n))
        elif status == "START":
            event = ParsedEvent(subject, key[1], "state", modifiers, time_s, None, frame, line=n)
            out.events.append(event)
            if frame is not None:
                start_frames.setdefault((subject, round(time_s * 1000)), frame)
            open_.setdefault(key, []).append(event)
        elif status == "STOP":
            if not open_.get(key):
                out.problems.append(f"line {n}: STOP of {key[1]} ({subject or 'no subject'}) without a START; "
                                    "skipped")
                continue
            event = open_[key].pop(0)
            event.stop_s, event.end_frame = time_s, frame
            if frame is None:
                unframed_stops.append(event)
        else:
            out.problems.append(f"line {n}: behavior type {status!r} is not START, STOP or POINT; skipped")
    for event in unframed_stops:   # BORIS's exclusive stop (see the module text): the next start's frame
        event.end_frame = start_frames.get((event.subject, round(event.stop_s * 1000) + 1))
    for (subject, behaviour), left in open_.items():
        for e in left:
            out.problems.append(f"{behaviour} ({subject or 'no subject'}) started at {e.start_s:.3f} s and never "
                                "stops; kept running")
    return out
