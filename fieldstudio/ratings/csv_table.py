"""Ratings from a CSV file (``fieldstudio ratings import``) and agreement tables to CSV.

Import format (UTF-8, else the encoding is detected, e.g. Excel's cp1252 or cp932; a header row; issue 6): ``rating_set, item, rater, verdict`` then any columns.

* ``item`` is a media file name (or id) for a photo, or ``name#frame`` for frame ``frame`` of a video;
  the media must already be in the project.
* ``verdict`` is accept, reject or unsure (a, r, u accepted).
* Optional columns with a set meaning: ``requirement`` (a new set's requirement), ``reasons``
  (checklist reasons separated by ``;`` or ``|``), ``comment``, ``seconds`` or ``seconds_spent``.
* Every other column is a documentation field. A set that does not exist yet is created with those
  fields; a field new to an existing set is added to it. A field's type is ``number`` when every
  non-empty value in its column parses as a number, ``text`` otherwise.

A row that cannot be used (unknown media, bad verdict, bad value) is reported with its line number and
reason; the other rows are imported.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fieldstudio.core.agreement import AgreementSummary
from fieldstudio.core.atomic import atomic_writer
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.core.spreadsheet_cells import protect_cell, unprotect_cell
from fieldstudio.core.text_encoding import decode_text
from fieldstudio.media import library
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project

__all__ = ["REQUIRED", "RatingsCsvError", "CsvImportReport", "read_rows", "parse_item_ref", "import_ratings_csv",
           "write_agreement_csv", "write_ratings_csv"]

REQUIRED = ("rating_set", "item", "rater", "verdict")
_SPECIAL = {"requirement", "reasons", "comment", "seconds", "seconds_spent"}
_VERDICT = {"accept": "accept", "a": "accept", "reject": "reject", "r": "reject", "unsure": "unsure", "u": "unsure"}


class RatingsCsvError(FieldstudioError):
    """The CSV file cannot be read at all (missing, not text, no header, a required column missing)."""


@dataclass
class CsvImportReport:
    """``rows`` read, ``ratings`` recorded, ``sets_created`` and ``items_added``; ``problems`` holds
    (line number, reason) for every row that was not imported."""

    rows: int = 0
    ratings: int = 0
    sets_created: list[str] = field(default_factory=list)
    items_added: int = 0
    problems: list[tuple[int, str]] = field(default_factory=list)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def read_rows(path: Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """(header, [(line number, {column: value})]) of a ratings CSV file, values stripped.

    Raises RatingsCsvError when the file cannot be read or a required column is missing.
    """
    try:
        text, _ = decode_text(Path(path).read_bytes())
        reader = csv.DictReader(io.StringIO(text, newline=""))
        header = [h.strip() for h in (reader.fieldnames or [])]
        rows = [(reader.line_num, {(k or "").strip(): unprotect_cell((v or "").strip()) for k, v in row.items()
                                   if not isinstance(v, list)}) for row in reader]
    except FileNotFoundError:
        raise RatingsCsvError(f"{path}: no such file") from None
    except UnicodeDecodeError:
        raise RatingsCsvError(f"{path}: is not text in UTF-8 or a detectable encoding; save it as CSV UTF-8") from None
    except (OSError, csv.Error) as exc:
        raise RatingsCsvError(f"{path}: cannot be read as CSV ({exc})") from None
    missing = [c for c in REQUIRED if c not in header]
    if missing:
        raise RatingsCsvError(f"{path}: missing column(s) {', '.join(missing)}; the header needs "
                              f"{', '.join(REQUIRED)} then any documentation fields")
    return header, rows


def parse_item_ref(project: Project, text: str) -> tuple[str, int | None]:
    """(media id, frame index or None) of ``name`` or ``name#frame``. Raises NotFound for unknown media."""
    name, frame = text, None
    m = re.fullmatch(r"(.+)#(\d+)", text)
    if m:
        name, frame = m.group(1), int(m.group(2))
    media = library.find_media(project, name)
    return media.id, frame


def import_ratings_csv(project: Project, path: Path, *,
                       progress: Callable[[int, int], None] = lambda done, total: None,
                       cancelled: Callable[[], bool] = lambda: False) -> CsvImportReport:
    """Import ratings from a CSV file (format in the module docstring); one write per row.

    Raises RatingsCsvError when the file cannot be used at all; bad rows are reported, not raised.
    """
    path = Path(path)
    header, rows = read_rows(path)
    field_cols = [c for c in header if c and c not in REQUIRED and c not in _SPECIAL]
    report = CsvImportReport(rows=len(rows))
    # field types per set, from the values of that set's rows
    per_set: dict[str, list[dict[str, str]]] = {}
    for _, row in rows:
        per_set.setdefault(row.get("rating_set", ""), []).append(row)
    known = {s.name: s for s in ratings.list_rating_sets(project)}
    for name, set_rows in per_set.items():
        if not name:
            continue
        specs = []
        for col in field_cols:
            values = [r.get(col, "") for r in set_rows if r.get(col, "")]
            specs.append({"name": col, "type": "number" if values and all(map(_is_number, values)) else "text"})
        if name not in known:
            requirement = next((r["requirement"] for r in set_rows if r.get("requirement")), "")
            known[name] = ratings.create_rating_set(project, name, requirement, fields=specs)
            report.sets_created.append(name)
        else:
            have = {f["name"] for f in known[name].fields}
            extra = [f for f in specs if f["name"] not in have]
            if extra:
                known[name] = ratings.update_rating_set(project, name, fields=known[name].fields + extra)
    item_ids: dict[str, dict[tuple[str, int | None], str]] = {}
    for done, (line, row) in enumerate(rows):
        if cancelled():
            break
        try:
            set_name = row.get("rating_set", "")
            if not set_name:
                raise ratings.RatingError("the rating_set column is empty")
            verdict = _VERDICT.get(row.get("verdict", "").lower())
            if verdict is None:
                raise ratings.RatingError(f"verdict {row.get('verdict')!r} is not accept, reject or unsure")
            if not row.get("item"):
                raise ratings.RatingError("the item column is empty")
            media_id, frame = parse_item_ref(project, row["item"])
            places = item_ids.get(set_name)
            if places is None:
                places = {(i.media_id, i.frame_index): i.id for i in ratings.list_items(project, set_name)}
                item_ids[set_name] = places
            key = (media_id, frame)
            if key not in places:
                added = ratings.add_items(project, set_name, [(media_id, frame)])
                report.items_added += len(added.added)
                places.clear()
                places.update({(i.media_id, i.frame_index): i.id for i in ratings.list_items(project, set_name)})
                if key not in places:        # a video's frame 0 given without "#0", or a photo with "#0"
                    key = (media_id, 0 if frame is None else None)
            reasons = [r.strip() for r in re.split(r"[;|]", row.get("reasons", "")) if r.strip()]
            seconds_text = row.get("seconds_spent") or row.get("seconds") or ""
            seconds = float(seconds_text) if seconds_text else None
            fields: dict[str, Any] = {c: row[c] for c in field_cols if row.get(c)}
            ratings.record_rating(project, places[key], row.get("rater", ""), verdict, reasons=reasons,
                                  fields=fields, comment=row.get("comment") or None, seconds_spent=seconds)
            report.ratings += 1
        except (FieldstudioError, NotFound, ValueError, KeyError) as exc:
            report.problems.append((line, str(exc)))
        progress(done + 1, len(rows))
    return report


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def write_agreement_csv(summary: AgreementSummary, path: Path, *, rating_set: str = "", raw_cells: bool = False) -> None:
    """Write an agreement summary as a long CSV table, atomically.

    Columns: rating_set, statistic, subject, n, estimate, ci_low, ci_high, excluded. Statistics:
    ``krippendorff_alpha`` (subject "verdict" or a numeric field), ``acceptance_rate`` (per rater),
    ``pairwise_agreement`` and ``cohen_kappa`` (subject "A | B"), ``rater_vs_majority`` and
    ``source_vs_majority`` (excluded = ties, no majority and unsure counts). A text cell a spreadsheet would run
    as a formula (a rater's name) gets a leading apostrophe unless ``raw_cells``.
    """
    cell = (lambda v: v) if raw_cells else protect_cell
    rows: list[list[Any]] = []
    a = summary.alpha
    rows.append(["krippendorff_alpha", "verdict", a.n, a.estimate, a.ci_low, a.ci_high, f"unsure={a.unscored}"])
    for name, iv in summary.field_alpha.items():
        rows.append(["krippendorff_alpha", name, iv.n, iv.estimate, iv.ci_low, iv.ci_high, ""])
    for rater, acc in summary.acceptance.items():
        rows.append(["acceptance_rate", rater, acc["accept"] + acc["reject"], acc["acceptance_rate"], None, None,
                     f"unsure={acc['unsure']}"])
    for p in summary.pairwise:
        rows.append(["pairwise_agreement", f"{p.rater_a} | {p.rater_b}", p.n, p.rate, None, None, ""])
        rows.append(["cohen_kappa", f"{p.rater_a} | {p.rater_b}", p.n, p.kappa, None, None, ""])
    for kind, group in (("rater_vs_majority", summary.raters), ("source_vs_majority", summary.sources)):
        for name, v in group.items():
            rows.append([kind, name, v.n, v.agreement.estimate, v.agreement.ci_low, v.agreement.ci_high,
                         f"ties={v.ties}; no_majority={v.no_majority}; unsure={v.unsure}"])
    with atomic_writer(Path(path)) as fh:
        w = csv.writer(fh)
        w.writerow(["rating_set", "statistic", "subject", "n", "estimate", "ci_low", "ci_high", "excluded"])
        for r in rows:
            w.writerow([cell(v) for v in (rating_set, *(_fmt(v) for v in r))])


def write_ratings_csv(project: Project, ref: str, path: Path, *, raw_cells: bool = False) -> int:
    """Write every rating of a set in the import format (plus ``comment`` and ``seconds_spent``); returns
    the number of rows. Importing the file into another project reproduces the verdicts and fields. A text cell
    a spreadsheet would run as a formula gets a leading apostrophe (taken off on import) unless ``raw_cells``."""
    cell = (lambda v: v) if raw_cells else protect_cell
    info = ratings.get_rating_set(project, ref)
    names = [f["name"] for f in info.fields]
    rows = ratings.list_ratings(project, ref)
    with atomic_writer(Path(path)) as fh:
        w = csv.writer(fh)
        w.writerow([*REQUIRED, "reasons", "comment", "seconds_spent", *names])
        for r in rows:
            w.writerow([cell(v) for v in (info.name, r.item_label, r.rater, r.verdict, ";".join(r.reasons),
                                                   r.comment or "", _fmt(r.seconds_spent),
                                                   *(_fmt(r.fields.get(n)) for n in names))])
    return len(rows)
