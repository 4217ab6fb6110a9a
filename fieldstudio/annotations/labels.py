"""The project's label set: names, display colours and the number keys 1-9 that pick them.

Every change is one short write transaction. A label is deleted only when no live (not soft-deleted)
annotation uses it; soft-deleted annotations that still pointed at it lose their label (the foreign
key sets it to NULL), so undoing their deletion afterwards brings them back unlabelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import func, select

from fieldstudio.core.errors import FieldstudioError, NotFound
from fieldstudio.store.models import Annotation, Label
from fieldstudio.store.project import Project

#: Colours given to new labels in turn (Okabe-Ito colour-blind-safe palette, then a few extra).
PALETTE = ("#e69f00", "#56b4e9", "#009e73", "#f0e442", "#0072b2", "#d55e00", "#cc79a7",
           "#999999", "#ff4f79", "#7fdbff")
_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$")


class LabelError(FieldstudioError):
    """A label cannot be created or changed (empty or duplicate name, bad colour, key in use, in use)."""


@dataclass(frozen=True)
class LabelRecord:
    """One label: ``color`` is ``#rrggbb`` (or ``#rrggbbaa``); ``shortcut`` is the key 1-9 or None."""

    id: str
    name: str
    color: str
    shortcut: int | None


def _record(row: Label) -> LabelRecord:
    return LabelRecord(row.id, row.name, row.color, row.shortcut)


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


def list_labels(project: Project) -> list[LabelRecord]:
    """Every label, those with a key first (by key), then the rest by name."""
    with project.read() as s:
        rows = list(s.scalars(select(Label)))
    rows.sort(key=lambda r: (r.shortcut is None, r.shortcut or 0, r.name.lower()))
    return [_record(r) for r in rows]


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


def label_for_key(project: Project, key: int) -> LabelRecord | None:
    """The label picked by number key ``key`` (1-9), or None."""
    with project.read() as s:
        row = s.scalars(select(Label).where(Label.shortcut == key)).first()
        return None if row is None else _record(row)


def create_label(project: Project, name: str, color: str | None = None, shortcut: int | None = None, *,
                 auto_shortcut: bool = True, label_id: str | None = None) -> str:
    """Add a label and return its id.

    ``color`` defaults to the next colour of PALETTE; ``shortcut`` (1-9) defaults, with
    ``auto_shortcut``, to the lowest free key (None when 1-9 are all taken). ``label_id`` re-creates a
    deleted label under its old id (undo). Raises LabelError for an empty or duplicate name, a bad
    colour or a key already in use.
    """
    name = _check_name(name)
    shortcut = _check_shortcut(shortcut)
    with project.write() as s:
        if s.scalars(select(Label.id).where(Label.name == name)).first() is not None:
            raise LabelError(f"a label named {name!r} already exists")
        used = set(s.scalars(select(Label.shortcut).where(Label.shortcut.is_not(None))))
        if shortcut is not None and shortcut in used:
            raise LabelError(f"key {shortcut} already picks another label")
        if shortcut is None and auto_shortcut:
            shortcut = next((k for k in range(1, 10) if k not in used), None)
        if color is None:
            n = s.scalar(select(func.count()).select_from(Label)) or 0
            color = PALETTE[n % len(PALETTE)]
        row = Label(name=name, color=_check_colour(color), shortcut=shortcut)
        if label_id is not None:
            row.id = label_id
        s.add(row)
        s.flush()
        return row.id


def ensure_label(project: Project, name: str, color: str | None = None) -> str:
    """The id of the label named ``name``, creating it (with ``color``) if it does not exist."""
    found = find_label(project, name)
    return found.id if found else create_label(project, name, color)


def update_label(project: Project, label_id: str, *, name: str | None = None, color: str | None = None,
                 shortcut: int | None | str = "keep") -> LabelRecord:
    """Rename, recolour or re-key a label in one transaction; returns the label as it was before.

    ``shortcut="keep"`` leaves the key; None removes it; 1-9 sets it. Raises NotFound, LabelError
    (duplicate name, bad colour, key used by another label).
    """
    new_name = None if name is None else _check_name(name)
    new_colour = None if color is None else _check_colour(color)
    new_key = shortcut if shortcut == "keep" else _check_shortcut(shortcut)  # type: ignore[arg-type]
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
        if new_key != "keep":
            if new_key is not None:
                other = s.scalars(select(Label).where(Label.shortcut == new_key, Label.id != label_id)).first()
                if other is not None:
                    raise LabelError(f"key {new_key} already picks the label {other.name!r}")
            row.shortcut = new_key
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
