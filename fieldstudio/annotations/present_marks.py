"""Which marks of an import the project holds already, so that importing a file again adds nothing.

A mark is present when a live (not deleted) annotation of the same media, kind, frame and label has the same
geometry to within ``GEOMETRY_DECIMALS`` decimals of a pixel. Track ids are not compared: an import gives a
track the next free id when the file's own is taken, so a second import of a track would get another id. Each
stored annotation answers for one mark only (a file that holds the same box twice, imported into a project that
holds it once, adds the second).

This is the check of an import's rows, apart from how they are written, so a batched import can call it too.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, Hashable

from sqlalchemy import select

from fieldstudio.store.models import Annotation
from fieldstudio.store.project import Project

#: Geometry is compared rounded to this many decimals of a pixel (formats store 2 to 6; floats add noise).
GEOMETRY_DECIMALS = 3


def mark_key(media_id: str, kind: str, frame_index: int | None, label_id: str | None, geometry: Any) -> Hashable:
    """The identity of a mark for the comparison (see the module's docstring)."""
    return media_id, kind, frame_index, label_id, _rounded(geometry)


def _rounded(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_rounded(v) for v in value)
    if isinstance(value, float):
        return round(value, GEOMETRY_DECIMALS) + 0.0        # + 0.0: -0.0 and 0.0 are one key
    return value


def media_with_marks(project: Project, media_ids: Iterable[str]) -> set[str]:
    """Which of ``media_ids`` hold a live mark: the only media whose marks an import must compare."""
    media_ids = sorted(set(media_ids))
    held: set[str] = set()
    with project.read() as s:
        for start in range(0, len(media_ids), 500):
            held.update(s.scalars(select(Annotation.media_id).distinct().where(
                Annotation.media_id.in_(media_ids[start:start + 500]), Annotation.deleted.is_(False))))
    return held


def split_present(project: Project, keys: Sequence[Hashable]) -> list[bool]:
    """For each key of `keys` (from `mark_key`), whether the project holds it already (each stored annotation
    answers for one key only). One read of the annotations of the media concerned."""
    media_ids = sorted({key[0] for key in keys})
    stored: Counter[Hashable] = Counter()
    with project.read() as s:
        for start in range(0, len(media_ids), 500):
            rows = s.execute(select(Annotation.media_id, Annotation.kind, Annotation.frame_index, Annotation.label_id,
                                    Annotation.geometry)
                             .where(Annotation.media_id.in_(media_ids[start:start + 500]),
                                    Annotation.deleted.is_(False)))
            stored.update(mark_key(*row) for row in rows)
    present = []
    for key in keys:
        if stored[key] > 0:
            stored[key] -= 1
            present.append(True)
        else:
            present.append(False)
    return present
