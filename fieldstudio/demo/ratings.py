"""The demo project's rating set, read from ``sample_data/demo/rating_set.json`` and ``ratings.csv``.

``rating_set.json`` names the set, its requirement, its documentation fields and the acceptability
scorer's rules (terms as ``ratings.acceptability.rules.parse_term`` reads them). ``ratings.csv`` holds the
three fictional raters' verdicts in the ratings CSV format ``ratings.csv_table`` imports; its items, in
order of first appearance, are the set's queue. Each item's ground truth is the worker's box
(``target_box``) where the demo annotations (``demo.annotations``) have a ``person`` box on that picture
or frame, so the acceptability measures look at the worker. ``sample_data/demo/README.md`` says how the
verdicts were made.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import ProjectError
from fieldstudio.core.paths import sample_data_dir
from fieldstudio.demo.annotations import read_annotation_file
from fieldstudio.ratings import csv_table
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.ratings.acceptability import rules as ar
from fieldstudio.store.models import Media
from fieldstudio.store.project import Project

__all__ = ["SET_FILE", "RATINGS_FILE", "DemoRatingsReport", "read_rating_set", "add_demo_ratings"]

SET_FILE = Path("demo") / "rating_set.json"
RATINGS_FILE = Path("demo") / "ratings.csv"
"""The demo's rating set and verdicts, relative to ``sample_data/``."""


def read_rating_set() -> dict[str, Any]:
    """``sample_data/demo/rating_set.json`` as a dict: name, requirement, fields, rules. Raises ProjectError."""
    path = sample_data_dir() / SET_FILE
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ProjectError(f"{path}: cannot read the demo rating set ({exc}); reinstall fieldstudio") from None
    if doc.get("format") != "fieldstudio-demo-rating-set" or doc.get("version") != 1:
        raise ProjectError(f"{path}: not a fieldstudio-demo-rating-set file, version 1")
    return doc


@dataclass
class DemoRatingsReport:
    """The rating set's id, its item ids (queue order), the ratings written, the sample files that were
    not in the project (their items left out) and the scorer's verdict counts (None when not scored)."""

    set_id: str
    item_ids: list[str] = field(default_factory=list)
    ratings: int = 0
    missing_media: list[str] = field(default_factory=list)
    scorer_counts: dict[str, int] | None = None


def _target_boxes() -> dict[tuple[str, int | None], list[float]]:
    """(file name, frame or None) -> the first ``person`` box of the demo annotations there."""
    out: dict[tuple[str, int | None], list[float]] = {}
    for a in read_annotation_file()["annotations"]:
        if a["kind"] == "box" and a.get("label") == "person":
            out.setdefault((a["media"], a.get("frame")), [float(v) for v in a["box"]])
    return out


def _split_item(text: str) -> tuple[str, int | None]:
    name, sep, frame = text.rpartition("#")
    return (name, int(frame)) if sep and frame.isdigit() else (text, None)


def add_demo_ratings(project: Project, *, score: bool = True) -> DemoRatingsReport:
    """Add the demo rating set, its items, its scorer rules and the three raters' verdicts; with ``score``
    also the acceptability scorer's verdicts (``scorer:acceptability-rules``).

    Media are found by file name; items whose sample file is missing are skipped and listed (their rows of
    ``ratings.csv`` are left out). The videos' frame index must be built first (``build_demo`` does).
    Raises RatingError when a set of that name already exists, ProjectError when a data file is unreadable.
    """
    spec = read_rating_set()
    rules = ar.Rules(tuple(ar.parse_term(t) for t in spec["rules"]))
    info = ratings.create_rating_set(project, spec["name"], spec["requirement"], fields=spec["fields"])
    report = DemoRatingsReport(info.id)
    with project.read() as s:
        media = {m.file_name: m.id for m in s.scalars(select(Media).where(Media.status == "ok"))}
    rows_file = sample_data_dir() / RATINGS_FILE
    _header, rows = csv_table.read_rows(rows_file)
    boxes = _target_boxes()
    places: dict[tuple[str, int | None], ratings.ItemRef] = {}
    left_out = 0
    for _line, row in rows:
        place = _split_item(row["item"])
        if place[0] not in media:
            left_out += 1
            if place[0] not in report.missing_media:
                report.missing_media.append(place[0])
        elif place not in places:
            box = boxes.get(place)
            places[place] = ratings.ItemRef(media[place[0]], place[1], {"target_box": box} if box else None)
    report.item_ids = ratings.add_items(project, info.id, list(places.values())).added
    imported = csv_table.import_ratings_csv(project, rows_file)
    if len(imported.problems) != left_out:          # only the rows of missing sample files may fail
        line, reason = imported.problems[0] if imported.problems else ("?", "a row was not imported")
        raise ProjectError(f"{rows_file}: line {line}: {reason}")
    report.ratings = imported.ratings
    ratings.update_rating_set(project, info.id, rules=rules.to_dict())
    if score and report.item_ids:
        from fieldstudio.ratings.acceptability.service import score_rating_set

        report.scorer_counts = score_rating_set(project, info.id).counts
    return report
