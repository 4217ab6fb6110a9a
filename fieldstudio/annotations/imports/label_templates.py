"""The skeleton templates an annotation import reads a file's skeletons with, and those it gives labels.

A COCO category or a CVAT skeleton label names its points; a YOLO pose set only counts them (``kpt_shape``). Which
template applies is decided once per import, before any mark is placed, from the project's labels and templates.
"""

from __future__ import annotations

from fieldstudio.annotations import skeleton_templates
from fieldstudio.annotations.imports.import_report import AnnotationImportReport
from fieldstudio.annotations.imports.parsed import Parsed
from fieldstudio.core import skeletons
from fieldstudio.store.project import Project


def label_templates(project: Project, parsed: Parsed, existing: dict[str, str],
                     report: AnnotationImportReport) -> tuple[dict, dict]:
    """(label name -> the template its skeletons are read with, label name -> the template the import gives it) for
    the templates the file gives labels (``parsed.templates``): a label that has the same points already keeps
    its own; a label with other points keeps them, and the file's skeletons of it are skipped (``importing._shape_of``)."""
    own, adopt = {}, {}
    known = skeleton_templates.known(project)
    for name, tmpl in parsed.templates.items():
        have = known.get(skeletons.label_template_name(existing[name])) if name in existing else None
        if have is None:
            own[name] = adopt[name] = tmpl
        elif have.points == tmpl.points:
            own[name] = have
        else:
            report.notes.append(f"label {name} has its own skeleton template ({', '.join(have.points)}), not the "
                                f"file's ({', '.join(tmpl.points)}): its skeletons are skipped")
    for name, count in parsed.point_counts.items():   # points the file counts but does not name (YOLO pose)
        have = known.get(skeletons.label_template_name(existing[name])) if name in existing else None
        if have is not None:     # the label's own template, when it has as many points; else each line refused
            own[name] = have if len(have.points) == count else (
                f"label {name}'s skeleton template has {len(have.points)} points ({', '.join(have.points)}), "
                f"the file's pose lines {count}; skipped")
        elif count == len(skeletons.COCO_PERSON.points):
            own[name] = skeletons.COCO_PERSON
        else:
            own[name] = adopt[name] = skeletons.make_template(skeletons.LABEL_OWN,
                                                             [str(i + 1) for i in range(count)], [])
    return own, adopt
