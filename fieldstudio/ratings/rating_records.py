"""The rating service: rating sets (a queue of photos or exact video frames judged against a written
requirement), the rater's queue, and ratings (accept / reject / unsure, reasons, documentation fields).

Every change is one short write transaction (``Project.write``), committed before the function
returns, so a rater who closes the laptop mid-queue loses nothing and resumes at the first item they
have not rated. Raters never see each other's answers through ``next_item``/``item_at``; those return
items only.

Records that are not raters: verdicts of a scorer or a model are stored as ratings whose ``rater``
starts with ``scorer:`` or ``model:`` (e.g. ``scorer:acceptability-rules``). They are kept apart from
the human raters in every agreement statistic (``verdict_tables``).

The schema has no column for a rater's comment or for earlier versions of a rating; they live in the
rating's ``fields`` JSON under the reserved keys ``_comment`` and ``_history`` (documentation field
names may not start with ``_``). ``Rating.created_at`` holds when the verdict was last saved.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.core.readings import parse_degrees, parse_inches
from fieldstudio.store.models import Media, Rating, RatingItem, RatingSet, new_id, utcnow
from fieldstudio.store.project import Project

__all__ = ["REASONS", "FIELD_TYPES", "VERDICT_VALUES", "MACHINE_PREFIXES", "COMMENT_KEY", "HISTORY_KEY",
           "RatingError", "ItemRef", "RatingSetInfo", "ItemView", "RatingView", "AddItemsReport",
           "validate_fields", "create_rating_set", "update_rating_set", "get_rating_set", "list_rating_sets",
           "add_items", "list_items", "next_item", "item_at", "rater_progress", "record_rating", "get_rating",
           "list_ratings", "verdict_tables", "numeric_field_tables", "is_machine", "clean_fields",
           "record_source_verdicts", "count_ratings"]

REASONS = ("blurry", "target out of frame", "occluded", "too far", "wrong angle", "poor light", "other")
"""The default reason checklist (issue 6), in the order number keys 1..7 tick them."""
FIELD_TYPES = ("number", "text", "choice", "yes_no")
VERDICT_VALUES = ("accept", "reject", "unsure")
MACHINE_PREFIXES = ("scorer:", "model:")
COMMENT_KEY = "_comment"
HISTORY_KEY = "_history"


class RatingError(FieldstudioError):
    """A rating set, item or rating cannot be made as asked (bad verdict, unknown field, duplicate name)."""


def is_machine(rater: str) -> bool:
    """True for a scorer's or a model's verdicts (``scorer:...``, ``model:...``), False for a person."""
    return rater.startswith(MACHINE_PREFIXES)


# --------------------------------------------------------------------------- records returned


@dataclass(frozen=True)
class RatingSetInfo:
    """A rating set with its counts: ``items``, ``ratings`` (human and machine), ``raters`` (human names)."""

    id: str
    name: str
    requirement: str
    reasons: list[str]
    fields: list[dict[str, Any]]
    rules: dict[str, Any] | None
    items: int = 0
    ratings: int = 0
    raters: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ItemView:
    """One item of the queue: a photo (``frame_index`` None) or frame ``frame_index`` of a video.

    ``position`` is its 0-based place in the queue; ``total`` the queue's length; ``sha256`` the
    media file's hash; ``ground_truth`` what is known (never shown to a rater while rating).
    """

    id: str
    rating_set_id: str
    position: int
    total: int
    media_id: str | None
    file_name: str | None
    kind: str | None
    frame_index: int | None
    sha256: str | None
    ground_truth: dict[str, Any] | None

    @property
    def label(self) -> str:
        """``name`` for a photo, ``name#frame`` for a video frame (the CSV import's notation)."""
        name = self.file_name or "(missing media)"
        return name if self.frame_index is None else f"{name}#{self.frame_index}"


@dataclass(frozen=True)
class RatingView:
    """One rating: verdict, ticked reasons, documentation ``fields`` (reserved keys removed),
    ``comment``, total ``seconds_spent`` on the item, ``saved_at`` (UTC) and the item's place."""

    id: str
    item_id: str
    position: int
    item_label: str
    rater: str
    verdict: str
    reasons: list[str]
    fields: dict[str, Any]
    comment: str | None
    seconds_spent: float | None
    saved_at: datetime | None


@dataclass
class AddItemsReport:
    """``added`` item ids in queue order; ``duplicates`` (media id, frame) already in the set; ``cancelled``."""

    added: list[str] = field(default_factory=list)
    duplicates: list[tuple[str, int | None]] = field(default_factory=list)
    cancelled: bool = False


@dataclass(frozen=True)
class ItemRef:
    """An item to add: a media id, a frame index for a video (None for a photo) and known ground truth,
    e.g. ``{"verdict": "accept", "fields": {"tape": "3 5/8 in"}, "target_box": [x1, y1, x2, y2]}``."""

    media_id: str
    frame_index: int | None = None
    ground_truth: dict[str, Any] | None = None


# --------------------------------------------------------------------------- rating sets


def validate_fields(fields: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """Check and normalise documentation field definitions.

    Each field is ``{"name", "type": number|text|choice|yes_no, "unit", "tolerance", "choices"}``; a
    number may have a unit (e.g. "in", "deg") and a tolerance (same unit, >= 0); a choice needs a
    non-empty ``choices`` list. Raises RatingError naming the field and the problem.
    """
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for f in fields or []:
        name = str(f.get("name", "")).strip()
        if not name or name.startswith("_"):
            raise RatingError(f"documentation field {f!r}: needs a name not starting with '_'")
        if name in seen:
            raise RatingError(f"documentation field {name!r} is defined twice")
        seen.add(name)
        ftype = str(f.get("type", "text")).strip().lower()
        if ftype not in FIELD_TYPES:
            raise RatingError(f"documentation field {name!r}: type {ftype!r} is not one of {', '.join(FIELD_TYPES)}")
        spec: dict[str, Any] = {"name": name, "type": ftype, "unit": f.get("unit"), "tolerance": None,
                                "choices": None}
        if ftype == "number" and f.get("tolerance") is not None:
            try:
                tol = float(f["tolerance"])
            except (TypeError, ValueError):
                raise RatingError(f"documentation field {name!r}: tolerance {f['tolerance']!r} "
                                  "is not a number") from None
            if not math.isfinite(tol) or tol < 0:
                raise RatingError(f"documentation field {name!r}: tolerance must be >= 0")
            spec["tolerance"] = tol
        if ftype == "choice":
            choices = [str(c) for c in f.get("choices") or []]
            if not choices:
                raise RatingError(f"documentation field {name!r}: a choice field needs a list of choices")
            spec["choices"] = choices
        out.append(spec)
    return out


def _find_set(s, ref: str) -> RatingSet:  # noqa: ANN001 - Session
    row = s.get(RatingSet, ref)
    if row is None:
        row = s.scalars(select(RatingSet).where(RatingSet.name == ref)).one_or_none()
    if row is None and len(ref) >= 6:
        rows = list(s.scalars(select(RatingSet).where(RatingSet.id.startswith(ref.lower()))))
        row = rows[0] if len(rows) == 1 else None
    if row is None:
        names = ", ".join(sorted(s.scalars(select(RatingSet.name)))) or "none yet"
        raise NotFound(f"no rating set named {ref!r} (rating sets: {names})")
    return row


def _info(s, row: RatingSet) -> RatingSetInfo:  # noqa: ANN001 - Session
    n_items = s.scalar(select(func.count()).select_from(RatingItem).where(RatingItem.rating_set_id == row.id))
    raters = list(s.scalars(select(Rating.rater).join(RatingItem, Rating.item_id == RatingItem.id)
                            .where(RatingItem.rating_set_id == row.id).distinct()))
    n_ratings = s.scalar(select(func.count()).select_from(Rating).join(RatingItem, Rating.item_id == RatingItem.id)
                         .where(RatingItem.rating_set_id == row.id))
    return RatingSetInfo(row.id, row.name, row.requirement or "", list(row.reasons or []), list(row.fields or []),
                         row.rules, n_items or 0, n_ratings or 0, sorted(r for r in raters if not is_machine(r)))


def create_rating_set(project: Project, name: str, requirement: str = "", *,
                      reasons: Sequence[str] | None = None, fields: Sequence[Mapping[str, Any]] | None = None,
                      set_id: str | None = None) -> RatingSetInfo:
    """Create an empty rating set named ``name`` (unique in the project).

    ``reasons`` defaults to :data:`REASONS`; ``fields`` are checked by :func:`validate_fields`;
    ``set_id`` keeps a UUID made elsewhere (a rating package). Raises RatingError for an empty or
    taken name, ProjectReadOnly when the project cannot be written.
    """
    name = (name or "").strip()
    if not name:
        raise RatingError("a rating set needs a name")
    specs = validate_fields(fields)
    with project.write() as s:
        if s.scalars(select(RatingSet).where(RatingSet.name == name)).first() is not None:
            raise RatingError(f"a rating set named {name!r} already exists in {project.path.name}")
        row = RatingSet(id=set_id or new_id(), name=name, requirement=requirement or "",
                        reasons=list(REASONS if reasons is None else reasons), fields=specs)
        s.add(row)
        s.flush()
        return _info(s, row)


def update_rating_set(project: Project, ref: str, *, requirement: str | None = None,
                      reasons: Sequence[str] | None = None, fields: Sequence[Mapping[str, Any]] | None = None,
                      rules: dict[str, Any] | None = None) -> RatingSetInfo:
    """Change a rating set's requirement, reasons, fields or stored rules (arguments left None are kept)."""
    specs = None if fields is None else validate_fields(fields)
    with project.write() as s:
        row = _find_set(s, ref)
        if requirement is not None:
            row.requirement = requirement
        if reasons is not None:
            row.reasons = list(reasons)
        if specs is not None:
            row.fields = specs
        if rules is not None:
            row.rules = rules
        s.flush()
        return _info(s, row)


def get_rating_set(project: Project, ref: str) -> RatingSetInfo:
    """The rating set named ``ref`` (its name, id or an id prefix of 6+ characters). Raises NotFound."""
    with project.read() as s:
        return _info(s, _find_set(s, ref))


def list_rating_sets(project: Project) -> list[RatingSetInfo]:
    """Every rating set of the project with its counts, by name."""
    with project.read() as s:
        return [_info(s, row) for row in s.scalars(select(RatingSet).order_by(RatingSet.name))]


# --------------------------------------------------------------------------- items and the queue


def add_items(project: Project, ref: str, items: Sequence[ItemRef | str | tuple[str, int | None]], *,
              progress: Callable[[int, int], None] = lambda done, total: None,
              cancelled: Callable[[], bool] = lambda: False) -> AddItemsReport:
    """Append photos or exact video frames to the queue of a rating set, in the order given.

    An item is an :class:`ItemRef`, a media id (a photo, or frame 0 of a video) or ``(media_id,
    frame_index)``. A (media, frame) already in the set is skipped and listed in ``duplicates``. Each
    item's ``sha256`` is its media file's hash. One write transaction for the whole batch.
    Raises NotFound for an unknown media id, RatingError for a document, a frame index on a photo or
    a frame index outside the video's decoded frames.
    """
    refs = [ItemRef(i) if isinstance(i, str) else ItemRef(i[0], i[1]) if isinstance(i, tuple) else i
            for i in items]
    report = AddItemsReport()
    with project.write() as s:
        row = _find_set(s, ref)
        existing = {(m, f) for m, f in s.execute(select(RatingItem.media_id, RatingItem.frame_index)
                                                 .where(RatingItem.rating_set_id == row.id))}
        last = s.scalar(select(func.max(RatingItem.position)).where(RatingItem.rating_set_id == row.id))
        position = 0 if last is None else last + 1
        for done, item in enumerate(refs):
            if cancelled():
                report.cancelled = True
                break
            media = s.get(Media, item.media_id)
            if media is None:
                raise NotFound(f"no media with id {item.media_id!r} in {project.path.name}")
            frame = item.frame_index
            if media.kind == "document":
                raise RatingError(f"{media.file_name}: a document cannot be rated; add photos or video frames")
            if media.kind == "image" and frame not in (None, 0):
                raise RatingError(f"{media.file_name}: a photo has only frame 0, not {frame}")
            if media.kind == "image":
                frame = None
            elif frame is None:
                frame = 0
            if media.kind == "video" and (frame < 0 or (media.frame_count is not None and frame >= media.frame_count)):
                raise RatingError(f"{media.file_name}: frame {frame} is outside the video's "
                                  f"{media.frame_count} decoded frames")
            if (media.id, frame) in existing:
                report.duplicates.append((media.id, frame))
                continue
            new = RatingItem(id=new_id(), rating_set_id=row.id, position=position, media_id=media.id,
                             frame_index=frame, sha256=media.sha256, ground_truth=item.ground_truth)
            s.add(new)
            existing.add((media.id, frame))
            report.added.append(new.id)
            position += 1
            progress(done + 1, len(refs))
    return report


def _queue(s, set_id: str) -> list[tuple[RatingItem, Media | None]]:  # noqa: ANN001 - Session
    return [tuple(r) for r in s.execute(select(RatingItem, Media).outerjoin(Media, RatingItem.media_id == Media.id)
                          .where(RatingItem.rating_set_id == set_id).order_by(RatingItem.position, RatingItem.id))]


def list_items(project: Project, ref: str) -> list[ItemView]:
    """The queue of a rating set in order (index in the list = queue place)."""
    with project.read() as s:
        queue = _queue(s, _find_set(s, ref).id)
    return [ItemView(i.id, i.rating_set_id, k, len(queue), i.media_id, m.file_name if m else None,
                     m.kind if m else None, i.frame_index, i.sha256, i.ground_truth)
            for k, (i, m) in enumerate(queue)]


def next_item(project: Project, ref: str, rater: str, *, after: int | None = None) -> ItemView | None:
    """The next item ``rater`` has not rated, in queue order; None when every item is rated.

    ``after`` None starts from the beginning (resume where the rater stopped); ``after=k`` looks
    after queue place k first and wraps around (skip: the item at k stays unrated for later).
    """
    rater = _check_rater(rater)
    items = list_items(project, ref)
    with project.read() as s:
        rated = set(s.scalars(select(Rating.item_id).join(RatingItem, Rating.item_id == RatingItem.id)
                              .where(Rating.rater == rater, RatingItem.rating_set_id == items[0].rating_set_id)
                              )) if items else set()
    start = 0 if after is None else after + 1
    order = items[start:] + items[:start]
    return next((i for i in order if i.id not in rated and (after is None or i.position != after)), None)


def item_at(project: Project, ref: str, position: int) -> ItemView:
    """The item at queue place ``position`` (0-based; Backspace goes to position - 1). Raises IndexError."""
    items = list_items(project, ref)
    if not 0 <= position < len(items):
        raise IndexError(f"queue place {position} is outside the {len(items)} items of {ref!r}")
    return items[position]


def rater_progress(project: Project, ref: str, rater: str) -> tuple[int, int]:
    """(items ``rater`` has rated, items in the set): the "37 / 120" of rater mode."""
    with project.read() as s:
        row = _find_set(s, ref)
        total = s.scalar(select(func.count()).select_from(RatingItem).where(RatingItem.rating_set_id == row.id))
        done = s.scalar(select(func.count()).select_from(Rating).join(RatingItem, Rating.item_id == RatingItem.id)
                        .where(RatingItem.rating_set_id == row.id, Rating.rater == rater))
    return done or 0, total or 0


# --------------------------------------------------------------------------- ratings


def _check_rater(rater: str) -> str:
    name = (rater or "").strip()
    if not name:
        raise RatingError("choose the rater's name first")
    if len(name) > 200:
        raise RatingError("a rater's name has at most 200 characters")
    return name


def _field_value(spec: Mapping[str, Any], value: Any) -> Any:
    """A documentation value converted to its field's type; RatingError when it does not fit."""
    name, ftype = spec["name"], spec["type"]
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if ftype == "number":
        if isinstance(value, bool):
            raise RatingError(f"field {name!r} expects a number, got {value!r}")
        if isinstance(value, (int, float)):
            number = float(value)
        else:
            text = str(value).strip()
            try:
                number = float(text)
            except ValueError:
                unit = (spec.get("unit") or "").lower()
                parsed = parse_degrees(text) if unit in ("deg", "°", "degree", "degrees") else parse_inches(text)
                if parsed is None:
                    raise RatingError(f"field {name!r} expects a number, got {value!r}") from None
                number = float(parsed)
        if not math.isfinite(number):
            raise RatingError(f"field {name!r} expects a finite number, got {value!r}")
        return number
    if ftype == "yes_no":
        if isinstance(value, bool):
            return value
        v = str(value).strip().lower()
        if v in ("yes", "y", "true", "1"):
            return True
        if v in ("no", "n", "false", "0"):
            return False
        raise RatingError(f"field {name!r} expects yes or no, got {value!r}")
    if ftype == "choice":
        v = str(value).strip()
        if v not in spec["choices"]:
            raise RatingError(f"field {name!r} expects one of {', '.join(spec['choices'])}, got {value!r}")
        return v
    return str(value)


def clean_fields(stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """A rating's documentation fields without the reserved ``_`` keys."""
    return {k: v for k, v in (stored or {}).items() if not k.startswith("_")}


def _rating_view(r: Rating, item: RatingItem, media: Media | None) -> RatingView:
    label = (media.file_name if media else "(missing media)") + ("" if item.frame_index is None
                                                                else f"#{item.frame_index}")
    return RatingView(r.id, r.item_id, item.position, label, r.rater, r.verdict, list(r.reasons or []),
                      clean_fields(r.fields), (r.fields or {}).get(COMMENT_KEY), r.seconds_spent, r.created_at)


def record_rating(project: Project, item_id: str, rater: str, verdict: str, *, reasons: Iterable[str] = (),
                  fields: Mapping[str, Any] | None = None, comment: str | None = None,
                  seconds_spent: float | None = None, extra: Mapping[str, Any] | None = None) -> RatingView:
    """Save ``rater``'s verdict on one item in one write transaction (a second call replaces the first).

    Args:
        verdict: "accept", "reject" or "unsure" (case-insensitive).
        reasons: ticked reasons, each one of the set's checklist.
        fields: documentation values by field name, converted to the field's type (a number field
            also takes fractional inches such as ``3 5/8"`` or degrees such as ``12.4°``).
        seconds_spent: time on the item in this visit (s); added to the time of earlier visits.
        extra: reserved ``_`` keys to store with the fields (e.g. a scorer's failing terms).
    Raises:
        RatingError for a bad verdict, an unknown reason or field, or a value that does not fit its
        field; NotFound for an unknown item.
    """
    rater = _check_rater(rater)
    v = str(verdict or "").strip().lower()
    if v not in VERDICT_VALUES:
        raise RatingError(f"verdict {verdict!r} is not one of accept, reject, unsure")
    if seconds_spent is not None and (not math.isfinite(seconds_spent) or seconds_spent < 0):
        raise RatingError(f"time spent {seconds_spent!r} must be a non-negative number of seconds")
    with project.write() as s:
        item = s.get(RatingItem, item_id)
        if item is None:
            raise NotFound(f"no rating item with id {item_id!r}")
        rating_set = s.get(RatingSet, item.rating_set_id)
        allowed = list(rating_set.reasons or [])
        ticked = list(dict.fromkeys(str(r).strip() for r in reasons if str(r).strip()))
        unknown = [r for r in ticked if r not in allowed]
        if unknown and not is_machine(rater):
            raise RatingError(f"reason(s) {', '.join(map(repr, unknown))} are not in the checklist of "
                              f"{rating_set.name!r}: {', '.join(allowed)}")
        specs = {f["name"]: f for f in rating_set.fields or []}
        values: dict[str, Any] = {}
        for name, value in (fields or {}).items():
            if name not in specs:
                raise RatingError(f"{rating_set.name!r} has no documentation field {name!r}"
                                  f" (fields: {', '.join(specs) or 'none'})")
            converted = _field_value(specs[name], value)
            if converted is not None:
                values[name] = converted
        if comment:
            values[COMMENT_KEY] = str(comment)
        values.update({k: val for k, val in (extra or {}).items() if k.startswith("_")})
        row = s.scalars(select(Rating).where(Rating.item_id == item_id, Rating.rater == rater)).one_or_none()
        if row is None:
            row = Rating(id=new_id(), item_id=item_id, rater=rater)
            s.add(row)
            total = seconds_spent
        else:
            history = (row.fields or {}).get(HISTORY_KEY)
            if history:
                values[HISTORY_KEY] = history
            total = seconds_spent if row.seconds_spent is None else row.seconds_spent + (seconds_spent or 0.0)
        row.verdict, row.reasons, row.fields = v, ticked, values
        row.seconds_spent = total
        row.created_at = utcnow()
        s.flush()
        return _rating_view(row, item, s.get(Media, item.media_id) if item.media_id else None)


def get_rating(project: Project, item_id: str, rater: str) -> RatingView | None:
    """``rater``'s rating of one item, or None (rater mode shows only the rater's own answer)."""
    with project.read() as s:
        row = s.execute(select(Rating, RatingItem, Media).join(RatingItem, Rating.item_id == RatingItem.id)
                        .outerjoin(Media, RatingItem.media_id == Media.id)
                        .where(Rating.item_id == item_id, Rating.rater == rater)).first()
    return None if row is None else _rating_view(*row)


def list_ratings(project: Project, ref: str, *, rater: str | None = None,
                 include_machine: bool = True) -> list[RatingView]:
    """The ratings of a rating set in queue order, then by rater; optionally of one rater only."""
    with project.read() as s:
        row = _find_set(s, ref)
        q = (select(Rating, RatingItem, Media).join(RatingItem, Rating.item_id == RatingItem.id)
             .outerjoin(Media, RatingItem.media_id == Media.id).where(RatingItem.rating_set_id == row.id)
             .order_by(RatingItem.position, Rating.rater))
        if rater is not None:
            q = q.where(Rating.rater == rater)
        rows = list(s.execute(q))
    return [_rating_view(*r) for r in rows if include_machine or not is_machine(r[0].rater)]


def count_ratings(project: Project) -> int:
    """Number of ratings in the project, by people and by machines (``is_machine``) alike."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Rating)) or 0


def verdict_tables(project: Project, ref: str) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, str]]]:
    """The verdicts of a rating set for ``core.agreement``.

    Returns (humans, sources): ``humans`` = ``{item_id: {rater: verdict}}`` for every item of the
    set (items nobody rated map to ``{}``); ``sources`` = ``{scorer or model name: {item_id: verdict}}``.
    """
    humans: dict[str, dict[str, str]] = {i.id: {} for i in list_items(project, ref)}
    sources: dict[str, dict[str, str]] = {}
    for r in list_ratings(project, ref):
        if is_machine(r.rater):
            sources.setdefault(r.rater, {})[r.item_id] = r.verdict
        else:
            humans.setdefault(r.item_id, {})[r.rater] = r.verdict
    return humans, sources


def numeric_field_tables(project: Project, ref: str) -> dict[str, dict[str, dict[str, float]]]:
    """``{field: {item_id: {rater: value}}}`` for every number field of the set (human raters only)."""
    info = get_rating_set(project, ref)
    names = [f["name"] for f in info.fields if f["type"] == "number"]
    tables: dict[str, dict[str, dict[str, float]]] = {n: {} for n in names}
    for r in list_ratings(project, ref, include_machine=False):
        for n in names:
            if isinstance(r.fields.get(n), (int, float)):
                tables[n].setdefault(r.item_id, {})[r.rater] = float(r.fields[n])
    return tables


def record_source_verdicts(project: Project, ref: str, source: str,
                           verdicts: Mapping[str, tuple[str, Sequence[str], Mapping[str, Any]]]) -> int:
    """Store a scorer's or a model's verdicts on items of a set in one write transaction.

    Args:
        source: a name starting with ``scorer:`` or ``model:`` (kept apart from the human raters).
        verdicts: ``{item_id: (verdict, reasons, extra)}``; ``extra`` keys must start with ``_``
            (e.g. ``_failing_terms``). A previous verdict of the same source on an item is replaced.
    Returns: the number of verdicts written. Raises RatingError for a source that is not a machine name
    or a bad verdict, NotFound for an item outside the set.
    """
    if not is_machine(source):
        raise RatingError(f"{source!r}: a scorer's or model's name starts with 'scorer:' or 'model:'")
    with project.write() as s:
        row = _find_set(s, ref)
        item_ids = set(s.scalars(select(RatingItem.id).where(RatingItem.rating_set_id == row.id)))
        existing = {r.item_id: r for r in s.scalars(select(Rating).join(RatingItem, Rating.item_id == RatingItem.id)
                                                   .where(RatingItem.rating_set_id == row.id, Rating.rater == source))}
        now = utcnow()
        for item_id, (verdict, reasons, extra) in verdicts.items():
            if item_id not in item_ids:
                raise NotFound(f"item {item_id!r} is not in rating set {row.name!r}")
            v = str(verdict).strip().lower()
            if v not in VERDICT_VALUES:
                raise RatingError(f"verdict {verdict!r} is not one of accept, reject, unsure")
            rating = existing.get(item_id)
            if rating is None:
                rating = Rating(id=new_id(), item_id=item_id, rater=source)
                s.add(rating)
            rating.verdict, rating.reasons = v, list(reasons)
            rating.fields = {k: val for k, val in extra.items() if k.startswith("_")}
            rating.created_at = now
    return len(verdicts)
