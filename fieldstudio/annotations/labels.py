"""The project's label set: names, display colours, the number keys 1-9 that pick them, the kinds of
mark each is offered for, and the typed attributes of the boxes that carry it.

Each tool has its own label list (:func:`list_labels` with ``kind``): a label's ``kinds`` names the kinds
of mark ("box", "ruler", "segment", "event", "tag") it is offered for, None meaning every kind (labels of
projects made before the lists existed, and those made by imports). A key 1-9 picks one label per list,
so two labels may share a key when no kind offers both. A label's ``attributes`` declare typed fields
(:class:`AttributeSpec`: yes/no, choice, number, text) that the box editor shows; the values are stored
on the annotation as before (a JSON object), checked by :func:`check_attribute_values`.

Every change is one short write transaction. A label is deleted only when no live (not soft-deleted)
annotation uses it; soft-deleted annotations that still pointed at it lose their label (the foreign
key sets it to NULL), so undoing their deletion afterwards brings them back unlabelled.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select

from fieldstudio.annotations.colours import PALETTE, next_colour  # noqa: F401 - PALETTE: re-exported
from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.store.models import Annotation, Label
from fieldstudio.store.project import Project

_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$")


#: The kinds of mark with a label list, in the order the window names them.
MARK_KINDS = ("box", "ruler", "polygon", "polyline", "points", "skeleton", "segment", "event")
#: Labels a kind's list starts with: a ruler measures a distance, whatever label the last box had.
DEFAULT_LABEL_NAMES = {"ruler": "distance"}
ATTRIBUTE_TYPES = ("bool", "choice", "number", "text")
_KINDS = (*MARK_KINDS, "tag")


class LabelError(FieldstudioError):
    """A label cannot be created or changed (empty or duplicate name, bad colour, key in use, in use)."""


@dataclass(frozen=True)
class AttributeSpec:
    """One typed attribute of a label's boxes: ``type`` is "bool" (yes/no), "choice" (one of
    ``choices``), "number" (a float) or "text"."""

    name: str
    type: str
    choices: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "type": self.type}
        if self.choices:
            out["choices"] = list(self.choices)
        return out


@dataclass(frozen=True)
class LabelRecord:
    """One label: ``color`` is ``#rrggbb`` (or ``#rrggbbaa``); ``shortcut`` is the key 1-9 or None;
    ``kinds`` the kinds of mark it is offered for (None: every kind); ``attributes`` its boxes' fields."""

    id: str
    name: str
    color: str
    shortcut: int | None
    kinds: tuple[str, ...] | None = None
    attributes: tuple[AttributeSpec, ...] = ()

    def offered_for(self, kind: str | None) -> bool:
        """Whether the label list of ``kind`` offers this label (every list when ``kinds`` is None)."""
        return kind is None or self.kinds is None or kind in self.kinds


def _record(row: Label) -> LabelRecord:
    specs = tuple(AttributeSpec(a["name"], a["type"], tuple(a.get("choices") or ())) for a in row.attributes or ())
    return LabelRecord(row.id, row.name, row.color, row.shortcut,
                       None if row.kinds is None else tuple(row.kinds), specs)


def _overlap(a: Sequence[str] | None, b: Sequence[str] | None) -> bool:
    """Whether two labels' kinds share a list (None is every list)."""
    return a is None or b is None or bool(set(a) & set(b))


def _check_kinds(kinds: Iterable[str] | None) -> list[str] | None:
    if kinds is None:
        return None
    out = list(dict.fromkeys(kinds))
    bad = [k for k in out if k not in _KINDS]
    if bad:
        raise LabelError(f"unknown kind of mark {bad[0]!r}: use {', '.join(_KINDS)}")
    if not out:
        raise LabelError("a label needs at least one kind of mark to be offered for")
    return out


def parse_attribute_specs(specs: Iterable[AttributeSpec | dict[str, Any]] | None) -> list[AttributeSpec]:
    """Check attribute declarations (AttributeSpec or ``{"name", "type", "choices"}``).

    Raises LabelError for an empty or repeated name, an unknown type, or a choice without choices."""
    out: list[AttributeSpec] = []
    for spec in specs or ():
        if isinstance(spec, dict):
            spec = AttributeSpec(str(spec.get("name", "")), str(spec.get("type", "")),
                                 tuple(str(c) for c in spec.get("choices") or ()))
        name = spec.name.strip()
        if not name:
            raise LabelError("an attribute needs a name")
        if name in {s.name for s in out}:
            raise LabelError(f"the attribute {name!r} is declared twice")
        if spec.type not in ATTRIBUTE_TYPES:
            raise LabelError(f"attribute {name!r}: type {spec.type!r} is not one of {', '.join(ATTRIBUTE_TYPES)}")
        choices = tuple(dict.fromkeys(c.strip() for c in spec.choices if c.strip()))
        if spec.type == "choice" and not choices:
            raise LabelError(f"attribute {name!r}: a choice needs at least one choice")
        out.append(AttributeSpec(name, spec.type, choices if spec.type == "choice" else ()))
    return out


_YES, _NO = {"yes", "y", "true", "1", "on"}, {"no", "n", "false", "0", "off"}


def check_attribute_values(specs: Sequence[AttributeSpec], values: dict[str, Any] | None) -> dict[str, Any] | None:
    """``values`` with each declared attribute converted to its type: "bool" to True/False (from
    yes/no/true/false too, as the old free-text field stored them), "number" to float, "choice" to one of
    its choices, "text" to a string; None or "" drops it. Undeclared keys are kept as they are (nothing
    stored is lost). Returns None when nothing is left. Raises LabelError naming the attribute and value.
    """
    by_name = {s.name: s for s in specs}
    out: dict[str, Any] = {}
    for key, value in (values or {}).items():
        spec = by_name.get(key)
        if spec is None:
            if value is not None and value != "":
                out[key] = value
            continue
        if value is None or (isinstance(value, str) and not value.strip()):
            continue
        if spec.type == "bool":
            text = str(value).strip().lower()
            if isinstance(value, bool):
                out[key] = value
            elif text in _YES:
                out[key] = True
            elif text in _NO:
                out[key] = False
            else:
                raise LabelError(f"attribute {key!r}: {value!r} is not yes or no")
        elif spec.type == "number":
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise LabelError(f"attribute {key!r}: {value!r} is not a number") from None
            if number != number or number in (float("inf"), float("-inf")):
                raise LabelError(f"attribute {key!r}: {value!r} is not a finite number")
            out[key] = number
        elif spec.type == "choice":
            if str(value) not in spec.choices:
                raise LabelError(f"attribute {key!r}: {value!r} is not one of {', '.join(spec.choices)}")
            out[key] = str(value)
        else:
            out[key] = str(value)
    return out or None


def _check_name(name: str) -> str:
    name = (name or "").strip()
    if not name:
        raise LabelError("a label needs a name")
    if len(name) > 200:
        raise LabelError(f"the label name {name[:20]!r}... is longer than 200 characters")
    return name


def _check_colour(color: str) -> str:
    if not isinstance(color, str) or not _COLOUR.match(color):
        raise LabelError(f"colour {color!r} is not of the form #rrggbb")
    return color.lower()


def _check_shortcut(shortcut: int | None) -> int | None:
    if shortcut is None:
        return None
    if not isinstance(shortcut, int) or not 1 <= shortcut <= 9:
        raise LabelError(f"a label's key must be 1-9, got {shortcut!r}")
    return shortcut


def list_labels(project: Project, kind: str | None = None) -> list[LabelRecord]:
    """Every label (or the label list of ``kind``), those with a key first (by key), then the rest by name."""
    with project.read() as s:
        rows = list(s.scalars(select(Label)))
    rows.sort(key=lambda r: (r.shortcut is None, r.shortcut or 0, r.name.lower()))
    return [rec for rec in map(_record, rows) if rec.offered_for(kind)]


def default_label(project: Project, kind: str) -> LabelRecord | None:
    """The label a new mark of ``kind`` gets before the user picks one.

    A kind with a default name (``DEFAULT_LABEL_NAMES``: a ruler's is "distance") gets the label of that
    name or None (the annotation tools then create it with the mark), never another label of its list,
    so a ruler is not named after the boxes' label. Another kind gets the first label declared for it
    (``kinds`` naming it), else None (unlabelled)."""
    name = DEFAULT_LABEL_NAMES.get(kind)
    if name is not None:
        found = find_label(project, name)
        return found if found is not None and found.offered_for(kind) else None
    return next((r for r in list_labels(project, kind) if r.kinds is not None), None)


def get_label(project: Project, label_id: str) -> LabelRecord:
    """The label with this id. Raises NotFound."""
    with project.read() as s:
        row = s.get(Label, label_id)
        if row is None:
            raise NotFound(f"no label with id {label_id!r} in {project.path.name}")
        return _record(row)


def find_label(project: Project, name: str) -> LabelRecord | None:
    """The label named ``name`` (exact, after trimming spaces), or None."""
    with project.read() as s:
        row = s.scalars(select(Label).where(Label.name == name.strip())).first()
        return None if row is None else _record(row)


def label_for_key(project: Project, key: int, kind: str | None = None) -> LabelRecord | None:
    """The label picked by number key ``key`` (1-9) in the label list of ``kind`` (any list: None), or None.

    A label declared for ``kind`` wins over one offered for every kind when both carry the key."""
    with project.read() as s:
        found = [_record(r) for r in s.scalars(select(Label).where(Label.shortcut == key))]
    found = [r for r in found if r.offered_for(kind)]
    found.sort(key=lambda r: r.kinds is None)
    return found[0] if found else None


def labels_by_key(project: Project, kind: str | None = None) -> dict[int, LabelRecord]:
    """{key 1-9: the label that key picks in the label list of ``kind``}, as ``label_for_key`` decides each key,
    in one read (a menu or a chooser names all nine at once)."""
    out: dict[int, LabelRecord] = {}
    for rec in sorted(list_labels(project, kind), key=lambda r: r.kinds is None):
        if rec.shortcut is not None:
            out.setdefault(rec.shortcut, rec)
    return dict(sorted(out.items()))


def create_label(project: Project, name: str, color: str | None = None, shortcut: int | None = None, *,
                 auto_shortcut: bool = True, label_id: str | None = None, kinds: Iterable[str] | None = None,
                 attributes: Iterable[AttributeSpec | dict[str, Any]] | None = None) -> str:
    """Add a label and return its id.

    ``color`` defaults to the palette colour farthest from the colours already used
    (:func:`fieldstudio.annotations.colours.next_colour`); ``shortcut`` (1-9) defaults, with
    ``auto_shortcut``, to the lowest key free in the lists it joins (None when 1-9 are all taken).
    ``kinds`` (None: every list) and ``attributes`` as in :class:`LabelRecord`. ``label_id``
    re-creates a deleted label under its old id (undo). Raises LabelError for an empty or duplicate name,
    a bad colour, kind or attribute, or a key already in use in one of its lists.
    """
    name = _check_name(name)
    shortcut = _check_shortcut(shortcut)
    kinds = _check_kinds(kinds)
    specs = [a.as_json() for a in parse_attribute_specs(attributes)] or None
    with project.write() as s:
        if s.scalars(select(Label.id).where(Label.name == name)).first() is not None:
            raise LabelError(f"a label named {name!r} already exists")
        others = list(s.scalars(select(Label)))
        used = {r.shortcut for r in others if r.shortcut is not None and _overlap(r.kinds, kinds)}
        if shortcut is not None and shortcut in used:
            raise LabelError(f"key {shortcut} already picks another label")
        if shortcut is None and auto_shortcut:
            shortcut = next((k for k in range(1, 10) if k not in used), None)
        if color is None:
            color = next_colour([r.color for r in others])
        row = Label(name=name, color=_check_colour(color), shortcut=shortcut, kinds=kinds, attributes=specs)
        if label_id is not None:
            row.id = label_id
        s.add(row)
        s.flush()
        return row.id


def ensure_label(project: Project, name: str, color: str | None = None, kind: str | None = None) -> str:
    """The id of the label named ``name``, creating it (with ``color``) if it does not exist.

    With ``kind``, a new label is offered for that kind only, and an existing one declared for other
    kinds is offered for ``kind`` too."""
    found = find_label(project, name)
    if found is None:
        return create_label(project, name, color, kinds=None if kind is None else [kind])
    if kind is not None and not found.offered_for(kind):
        update_label(project, found.id, kinds=[*found.kinds, kind])
    return found.id


_KEEP = "keep"


def update_label(project: Project, label_id: str, *, name: str | None = None, color: str | None = None,
                 shortcut: int | None | str = _KEEP, kinds: Iterable[str] | None | str = _KEEP,
                 attributes: Iterable[AttributeSpec | dict[str, Any]] | None | str = _KEEP) -> LabelRecord:
    """Rename, recolour, re-key, re-list or re-declare a label in one transaction; returns it as it was.

    ``shortcut="keep"`` leaves the key; None removes it; 1-9 sets it. ``kinds`` and ``attributes``:
    "keep" leaves them, else as in :func:`create_label` (``kinds`` None: every list). Raises NotFound,
    LabelError (duplicate name, bad colour, kind or attribute, key used by another label of a list).
    """
    new_name = None if name is None else _check_name(name)
    new_colour = None if color is None else _check_colour(color)
    new_key = shortcut if shortcut == _KEEP else _check_shortcut(shortcut)  # type: ignore[arg-type]
    new_kinds = kinds if kinds == _KEEP else _check_kinds(kinds)  # type: ignore[arg-type]
    new_specs = attributes if attributes == _KEEP else (
        [a.as_json() for a in parse_attribute_specs(attributes)] or None)  # type: ignore[arg-type]
    with project.write() as s:
        row = s.get(Label, label_id)
        if row is None:
            raise NotFound(f"no label with id {label_id!r} in {project.path.name}")
        before = _record(row)
        if new_name is not None and new_name != row.name:
            if s.scalars(select(Label.id).where(Label.name == new_name)).first() is not None:
                raise LabelError(f"a label named {new_name!r} already exists")
            row.name = new_name
        if new_colour is not None:
            row.color = new_colour
        if new_kinds != _KEEP:
            row.kinds = new_kinds
        if new_specs != _KEEP:
            row.attributes = new_specs
        if new_key != _KEEP:
            row.shortcut = new_key
        if row.shortcut is not None and (new_key != _KEEP or new_kinds != _KEEP):
            for other in s.scalars(select(Label).where(Label.shortcut == row.shortcut, Label.id != label_id)):
                if _overlap(other.kinds, row.kinds):
                    raise LabelError(f"key {row.shortcut} already picks the label {other.name!r}")
        return before


def rename_label(project: Project, label_id: str, name: str) -> LabelRecord:
    """Rename a label; returns it as it was. See :func:`update_label`."""
    return update_label(project, label_id, name=name)


def recolour_label(project: Project, label_id: str, color: str) -> LabelRecord:
    """Change a label's colour (``#rrggbb``); returns it as it was. See :func:`update_label`."""
    return update_label(project, label_id, color=color)


def label_use_count(project: Project, label_id: str) -> int:
    """Number of live (not deleted) annotations that carry the label."""
    with project.read() as s:
        return s.scalar(select(func.count()).select_from(Annotation)
                        .where(Annotation.label_id == label_id, Annotation.deleted.is_(False))) or 0


def delete_label(project: Project, label_id: str) -> LabelRecord:
    """Delete a label that no live annotation uses; returns it (to re-create it on undo).

    Raises NotFound, and LabelError naming how many annotations still use it.
    """
    with project.write() as s:
        row = s.get(Label, label_id)
        if row is None:
            raise NotFound(f"no label with id {label_id!r} in {project.path.name}")
        used = s.scalar(select(func.count()).select_from(Annotation)
                        .where(Annotation.label_id == label_id, Annotation.deleted.is_(False))) or 0
        if used:
            raise LabelError(f"the label {row.name!r} is used by {used} annotation(s); "
                             "relabel or delete them first")
        before = _record(row)
        s.delete(row)
        return before
