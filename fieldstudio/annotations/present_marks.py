"""Which marks of an import the project holds already, so that importing a file again adds nothing.

A mark is present when a live (not deleted) annotation of the same media, kind, frame and label has the same
geometry to within the import's tolerance (per coordinate, in pixels: the file format's own rounding, see
``annotations.imports.importing.match_tolerance``; by default half a unit of ``GEOMETRY_DECIMALS`` decimals), or
when a track of the project shows that mark there: a box track's interpolated box, a shape track's interpolated
shape (a format without tracks, YOLO or COCO without ``track_id``, writes them as marks on every frame). Track ids
are not compared: an import gives a track the next free id when the file's own is taken, so a second import of a
track would get another id. Each stored or interpolated mark answers for one mark of the file only (a file that
holds the same box twice, imported into a project that holds it once, adds the second).

This is the check of an import's rows, apart from how they are written, so a batched import can call it too.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Hashable

from sqlalchemy import select

from fieldstudio.core import shape_tracks, tracks
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


def split_present(project: Project, keys: Sequence[Hashable],
                  tolerance: Callable[[str], float] | None = None) -> list[bool]:
    """For each key of `keys` (from `mark_key`), whether the project holds it already (see the module text; each
    stored or interpolated mark answers for one key only). ``tolerance(media_id)``: the format's rounding in pixels per
    coordinate (default 0), to which half a unit of the key's last decimal (``GEOMETRY_DECIMALS``) is added. One read of the annotations of the media concerned."""
    media_ids = sorted({key[0] for key in keys})
    frames: dict[str, set] = {}
    for key in keys:
        frames.setdefault(key[0], set()).add(key[2])
    held: dict[Hashable, list[list]] = {}       # (media, kind, frame, label) -> [[flat geometry, taken], ...]
    tracked: dict[tuple[str, str, int], list] = {}   # (media, "box" | "shape", track) -> keyframe rows
    with project.read() as s:
        for start in range(0, len(media_ids), 500):
            rows = s.execute(select(Annotation.media_id, Annotation.kind, Annotation.frame_index, Annotation.label_id,
                                    Annotation.geometry, Annotation.track_id, Annotation.is_keyframe)
                             .where(Annotation.media_id.in_(media_ids[start:start + 500]),
                                    Annotation.deleted.is_(False)))
            for media_id, kind, frame, label_id, geometry, track_id, keyframe in rows:
                held.setdefault((media_id, kind, frame, label_id), []).append([_pairs(geometry), False])
                if track_id is not None and keyframe and frame is not None and kind in TRACKED:
                    tracked.setdefault((media_id, "box" if kind == "box" else "shape", track_id), []).append(
                        (frame, kind, label_id, geometry))
    for (media_id, what, _track), keys_of in tracked.items():
        _add_interpolated(held, media_id, what, sorted(keys_of, key=lambda k: k[0]), frames.get(media_id, set()))
    default = 0.5 * 10 ** -GEOMETRY_DECIMALS
    present = []
    for key in keys:
        # the format's rounding, plus the key's own (``mark_key`` rounds), plus float noise of the conversions
        tol = (0.0 if tolerance is None else tolerance(key[0])) + default + 1e-9
        want = _pairs(key[4])
        found = next((c for c in held.get(key[:4], ())
                      if not c[1] and shape_tracks.vertices_close(c[0], want, tol)), None)
        if found is not None:
            found[1] = True
        present.append(found is not None)
    return present


#: The kinds a track holds (``annotation_records.TRACK_KINDS``: not imported, this module stays below it).
TRACKED = ("box", "polygon", "polyline", "points", "skeleton")


def _add_interpolated(held: dict[Hashable, list[list]], media_id: str, what: str, keys: list[tuple],
                      wanted: set) -> None:
    """Add a track's interpolated marks on the ``wanted`` frames to ``held``, each with the label of the keyframe
    before it."""
    got = (tracks.interpolate_track([(f, g) for f, _k, _l, g in keys], sorted(wanted)) if what == "box" else
           shape_tracks.interpolate_shape_track([(f, g) for f, _k, _l, g in keys], sorted(wanted)))
    frames = [k[0] for k in keys]
    for frame, mark in got.items():
        if mark.keyframe:
            continue
        before = keys[bisect.bisect_left(frames, frame) - 1]
        geometry = mark.box if what == "box" else mark.vertices
        held.setdefault((media_id, before[1], frame, before[2]), []).append([_pairs(geometry), False])


def _pairs(geometry: Any) -> tuple:
    """A geometry as (x, y) pairs (a skeleton's absent point None): a box's four numbers as its two corners."""
    values = list(geometry or ())
    if values and not isinstance(values[0], (list, tuple)) and values[0] is not None:
        return tuple(zip(values[0::2], values[1::2]))
    return tuple(None if v is None else tuple(v) for v in values)
