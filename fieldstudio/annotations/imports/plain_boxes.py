"""The boxes of an import, held in columns until they are stored: about 70 bytes a box.

A COCO file of 10^6 boxes on photos is mostly such boxes; kept as one object each (the parsed box, then the mark to
insert, then the ORM row) they took well over 1 GB. Here each box is a media number, a frame and its PTS, four
coordinates, a label number and a track id (0: none; MOT, CVAT and COCO tracks' keyframes) in ``array`` columns; the rows to insert are made a batch at a time
(``mark_batches.insert_boxes``). A polygon, polyline, points mark or skeleton (issue 32) is kept the same way, with
its kind and its vertices beside the columns (its bounds in the four coordinates).
"""

from __future__ import annotations

from array import array
from collections.abc import Hashable, Iterator, Sequence
from typing import Any

from fieldstudio.annotations import present_marks
from fieldstudio.core import skeletons
from fieldstudio.store.models import new_id, utcnow


class PlainBoxes:
    """Boxes placed by the import (frame checked, pixels clipped), each kept or not (``kept``, set by the check of
    what the project holds already). Labels are (existing label id, name of a label to create) pairs."""

    def __init__(self) -> None:
        self.media_ids: list[str] = []
        self._media_number: dict[str, int] = {}
        self.labels: list[tuple[str | None, str | None]] = []
        self._label_number: dict[tuple[str | None, str | None], int] = {}
        self.media = array("i")
        self.frame = array("q")        # -1: a photo (no frame)
        self.pts = array("q")
        self.coords = array("d")       # x1, y1, x2, y2 per box, upright full-resolution pixels
        self.label = array("i")
        self.track = array("q")        # 0: no track
        self.attributes: dict[int, dict[str, Any]] = {}
        self.shapes: dict[int, tuple[str, list, str | None]] = {}   # row -> (kind, vertices, text) of a non-box
        self.kept = bytearray()

    def __len__(self) -> int:
        return len(self.media)

    def append(self, media_id: str, frame_index: int | None, pts: int | None, box: Sequence[float],
               label: tuple[str | None, str | None], attributes: dict[str, Any] | None,
               track_id: int | None = None, shape: tuple[str, list, str | None] | None = None) -> None:
        """Add one box: ``frame_index``/``pts`` None on a photo; ``label`` (label id, or the name to create);
        ``track_id`` (>= 1) makes it a keyframe of that track (the import has checked the track has no other box
        on that frame). ``shape`` ``(kind, vertices, text)`` makes it that mark instead (vertices validated, in
        pixels; ``box`` its bounds; ``text`` a skeleton's template)."""
        number = self._media_number.get(media_id)
        if number is None:
            number = self._media_number[media_id] = len(self.media_ids)
            self.media_ids.append(media_id)
        slot = self._label_number.get(label)
        if slot is None:
            slot = self._label_number[label] = len(self.labels)
            self.labels.append(label)
        if attributes:
            self.attributes[len(self.media)] = attributes
        if shape is not None:
            self.shapes[len(self.media)] = shape
        self.media.append(number)
        self.frame.append(-1 if frame_index is None else frame_index)
        self.pts.append(0 if pts is None else pts)
        self.coords.extend(box)
        self.label.append(slot)
        self.track.append(track_id or 0)
        self.kept.append(1)

    def media_id(self, i: int) -> str:
        return self.media_ids[self.media[i]]

    def key(self, i: int) -> Hashable | None:
        """The ``present_marks`` key of box ``i``, or None when its label is still to create (no stored mark has
        it)."""
        label_id, create = self.labels[self.label[i]]
        if create is not None:
            return None
        frame = self.frame[i]
        kind, geometry, _text = self.shapes.get(i) or ("box", list(self.coords[4 * i:4 * i + 4]), None)
        return present_marks.mark_key(self.media_id(i), kind, None if frame < 0 else frame, label_id, geometry)

    def kept_count(self) -> int:
        return self.kept.count(1)

    def kept_kinds(self, kept: bool = True) -> dict[str, int]:
        """How many kept rows (``kept`` False: rows not kept, the project holds them) of each kind ("box",
        "polygon", ..., "skeleton")."""
        out: dict[str, int] = {}
        for i, keep in enumerate(self.kept):
            if bool(keep) == kept:
                kind = self.shapes[i][0] if i in self.shapes else "box"
                out[kind] = out.get(kind, 0) + 1
        return out

    def kept_label_names(self) -> set[str]:
        """The names of the labels to create that a kept box needs."""
        slots = {slot for slot, keep in zip(self.label, self.kept) if keep}
        return {self.labels[slot][1] for slot in slots if self.labels[slot][1] is not None}

    def kept_label_names_by_row(self) -> Iterator[str | None]:
        """For each kept box in order, the name of the label it waits for (None: none to create)."""
        for slot, keep in zip(self.label, self.kept):
            if keep:
                yield self.labels[slot][1]

    def rows(self, created: dict[str, str]) -> Iterator[dict[str, Any]]:
        """The kept boxes as ``annotation`` rows (ids made here), labels to create named by ``created`` (name ->
        id). Each dict names the same columns, as ``changes.insert_tracked`` wants."""
        now = utcnow()
        label_ids = [label_id if create is None else created[create] for label_id, create in self.labels]
        for i in range(len(self.media)):
            if not self.kept[i]:
                continue
            frame = self.frame[i]
            kind, geometry, text = self.shapes.get(i) or ("box", list(self.coords[4 * i:4 * i + 4]), None)
            if text == skeletons.LABEL_OWN:   # a skeleton of its label's own template, named now the label has an id
                text = skeletons.label_template_name(label_ids[self.label[i]])
            yield {"id": new_id(), "media_id": self.media_ids[self.media[i]], "kind": kind,
                   "label_id": label_ids[self.label[i]], "text": text,
                   "frame_index": None if frame < 0 else frame, "pts": None if frame < 0 else self.pts[i],
                   "end_frame_index": None, "end_pts": None, "geometry": geometry,
                   "attributes": self.attributes.get(i), "track_id": self.track[i] or None, "is_keyframe": True, "on_floor": False,
                   "author": None, "deleted": False, "created_at": now}


class DenseTrack:
    """The placed boxes of one track of a ``dense`` group (MOT) in columns until the import picks its keyframes: a
    frame and four coordinates, 40 bytes a box, where a placed box object each took about 630 (the whole file's
    boxes are held until every track is complete: an import of 10^6 MOT boxes peaked at 1.2 GB). ``first`` gives
    what a MOT track's boxes share (label, attributes, where)."""

    __slots__ = ("first", "frames", "coords")

    def __init__(self, first: Any) -> None:   # a ParsedBox, placed
        self.first = first
        self.frames = array("q")
        self.coords = array("d")

    def add(self, placed: Any) -> None:
        """Add a placed ParsedBox of the track (its frame index set, its label and attributes ``first``'s)."""
        self.frames.append(placed.frame_index)
        self.coords.extend(placed.box)

    def boxes(self) -> list[Any]:
        """The track's boxes as placed ParsedBoxes again (one track's at a time), in the order added."""
        c, first = self.coords, self.first
        return [first.placed(tuple(c[4 * i:4 * i + 4]), f) for i, f in enumerate(self.frames)]
