"""A skeleton template per label (issue 32 item 1): a hand's 5 points, a forklift's 4 corners, beside the built-in
17 COCO body points every label falls back to.

The templates live in the ``project_setting`` row ``"skeleton_templates"`` (small, read whole, no table of its
own): ``{label id: {"points": [names in order], "limbs": [[i, j], ...]}}`` (0-based indices). A label's template is
named ``label:<label id>`` in the skeleton marks that use it (``core.skeletons.label_template_name``), so renaming
the label keeps its marks. :class:`SetSkeletonTemplate` is the one undoable edit that changes a label's template;
it refuses (one line) a template that does not hold together (``core.skeletons.make_template``) and a change of the
number of points, or a reset to COCO, while skeleton marks use the template (their points are stored by index).
Every reader of a skeleton (records, canvas, zone checks, exports, imports) resolves the mark's template through
:func:`known`. Errors: :class:`SkeletonTemplateError`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations import labels
from fieldstudio.core import skeletons
from fieldstudio.core.shapes import ShapeError
from fieldstudio.store.edits import Edit
from fieldstudio.store.project import Project

SETTING_KEY = "skeleton_templates"


class SkeletonTemplateError(ann.AnnotationError):
    """A label's skeleton template cannot be set as asked (bad names or limbs, marks that use it)."""


def known(project: Project) -> dict[str, skeletons.SkeletonTemplate]:
    """{template name: template} of the project's label templates (the built-in ones not included)."""
    return skeletons.templates_from_setting(project.setting(SETTING_KEY))


def template_of(project: Project, name: str | None) -> skeletons.SkeletonTemplate:
    """The template a skeleton mark names (None: the COCO person). Raises ShapeError for an unknown name."""
    return skeletons.template(name, known(project))


def template_for_label(project: Project, label_id: str | None) -> skeletons.SkeletonTemplate:
    """The template a new skeleton of ``label_id`` gets: the label's own, else the COCO person."""
    own = None if label_id is None else known(project).get(skeletons.label_template_name(label_id))
    return own or skeletons.COCO_PERSON


def has_own(project: Project, label_id: str) -> bool:
    """Whether ``label_id`` has a template of its own (not the COCO fallback)."""
    return skeletons.label_template_name(label_id) in known(project)


def marks_using(project: Project, label_id: str) -> int:
    """How many live skeleton marks (of any label) use label ``label_id``'s own template."""
    name = skeletons.label_template_name(label_id)
    return sum(1 for r in ann.list_annotations(project, kinds=["skeleton"]) if r.text == name)


def checked(label_id: str, points: Sequence[str], limbs: Sequence[Sequence[int]]) -> skeletons.SkeletonTemplate:
    """The template made of ``points`` and ``limbs`` for ``label_id``. Raises SkeletonTemplateError (one line)."""
    try:
        return skeletons.make_template(skeletons.label_template_name(label_id), points, limbs)
    except ShapeError as exc:
        raise SkeletonTemplateError(str(exc)) from None


def parse_limbs(text: str) -> list[tuple[int, int]]:
    """``"0-1,1-2"`` as [(0, 1), (1, 2)] ("" none). Raises SkeletonTemplateError for a pair that is not two whole
    numbers joined by "-"."""
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        a, sep, b = part.partition("-")
        if not sep or not a.strip().isdigit() or not b.strip().isdigit():
            raise SkeletonTemplateError(f"limb {part!r} is not two point numbers joined by '-' (e.g. 0-1)")
        out.append((int(a), int(b)))
    return out


def label_named(project: Project, name_or_id: str) -> labels.LabelRecord:
    """The label called ``name_or_id`` (exact name first, then id). Raises NotFound naming the argument."""
    return labels.find_label(project, name_or_id) or labels.get_label(project, name_or_id)


def describe(project: Project, label_id: str) -> dict[str, Any]:
    """``{"label", "label_id", "own", "template", "points", "limbs", "marks"}``: the template a new skeleton of
    the label gets (``own`` False: the COCO person), limbs 0-based, ``marks`` the skeletons using its own one."""
    label = labels.get_label(project, label_id)
    tmpl = template_for_label(project, label_id)
    own = tmpl is not skeletons.COCO_PERSON
    return {"label": label.name, "label_id": label_id, "own": own, "template": tmpl.name, "points": list(tmpl.points),
            "limbs": [list(e) for e in tmpl.edges], "marks": marks_using(project, label_id) if own else 0}


@dataclass
class SetSkeletonTemplate(Edit):
    """Edit: give label ``label_id`` the template of ``points`` and ``limbs`` (``points`` None: back to the COCO
    person); undo puts the previous setting back. ``do`` raises SkeletonTemplateError before changing anything."""

    project: Project
    label_id: str
    points: Sequence[str] | None
    limbs: Sequence[Sequence[int]] = ()
    text: str = "Set skeleton template"
    previous: Any = field(default=None, init=False)

    def do(self) -> None:
        label = labels.get_label(self.project, self.label_id)
        value = dict(self.project.setting(SETTING_KEY) or {})
        old = template_for_label(self.project, self.label_id) if self.label_id in value else None
        new = None if self.points is None else checked(self.label_id, self.points, self.limbs)
        used = marks_using(self.project, self.label_id) if old is not None else 0
        if used and (new is None or len(new.points) != len(old.points)):
            change = "back to the 17 COCO points" if new is None else f"to {len(new.points)} points"
            raise SkeletonTemplateError(
                f"{used} skeleton mark(s) of {label.name} use its {len(old.points)} points: it cannot go {change} "
                "(rename points or change limbs, or delete those marks first)")
        self.previous = self.project.setting(SETTING_KEY)
        if new is None:
            value.pop(self.label_id, None)
        else:
            value[self.label_id] = {"points": list(new.points), "limbs": [list(e) for e in new.edges]}
        self.project.set_setting(SETTING_KEY, value)

    def undo(self) -> None:
        self.project.set_setting(SETTING_KEY, self.previous)


__all__ = ["SETTING_KEY", "SkeletonTemplateError", "known", "template_of", "template_for_label", "has_own",
           "marks_using", "checked", "parse_limbs", "label_named", "describe", "SetSkeletonTemplate"]
