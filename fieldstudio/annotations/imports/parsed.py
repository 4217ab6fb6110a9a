"""What a parser reads from an annotation file, before it is matched to the project's media and frames."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from operator import itemgetter
from typing import Any

from fieldstudio.core.skeletons import SkeletonTemplate


def size_problem(width: float, height: float, *, names: tuple[str, str] = ("width", "height")) -> str | None:
    """Why a box of this size is refused (a negative, zero or not finite width or height), or None.

    Each format's parser calls it per row: such a box is skipped with the reason, never flipped or kept.
    """
    for name, value in zip(names, (width, height)):
        if not math.isfinite(value):
            return f"{name} {value} is not a number; skipped"
        if value <= 0:
            return f"{name} {value:g} is {'zero' if value == 0 else 'negative'}: a box needs a size above 0; skipped"
    return None


class ImportFormatError(Exception):
    """Raised by a parser for a file it cannot read at all; the message names the file and the reason."""


@dataclass(frozen=True)
class ParsedBox:
    """One box of an annotation file.

    ``box`` is ``(x1, y1, x2, y2)`` pixels, or fractions of the image size when the group is
    ``normalised`` (YOLO). ``frame_index`` None means a photo (or a frame known only by ``pts_seconds``).
    ``track`` names the file's track (unique within its group); ``keyframe`` False marks a box the
    file says was interpolated (it is left to fieldstudio's interpolation). ``where`` says where in the
    file it came from, for the report. ``shape`` ``(kind, ((x, y), ...))`` makes it a polygon, polyline or points
    mark through those vertices (pixels, or fractions when ``normalised``; ``box`` is then their bounds, which place
    it); with a ``track`` it is a keyframe of a shape track (``keyframe`` False: kept only where interpolation
    would not give it back), else stored on its frame alone.
    """

    box: tuple[float, float, float, float]
    label: str | None
    frame_index: int | None = None
    pts_seconds: float | None = None
    track: str | None = None
    keyframe: bool = True
    attributes: dict[str, Any] | None = None
    where: str = ""
    shape: tuple[str, tuple[tuple[float, float], ...]] | None = None
    template: str | None = None  # a skeleton's template (``shape`` kind "skeleton"; its absent points None)
    written_degrees: float | None = None  # an angle's degrees as its file gives them (compared on import)
    end_frame_index: int | None = None  # a stopwatch's end frame (``shape`` kind "stopwatch", no vertices)

    @classmethod
    def made(cls, box: tuple[float, float, float, float], label: str | None, **fields: Any) -> "ParsedBox":
        """``ParsedBox(box, label, **fields)`` without the frozen class's ``object.__setattr__`` per field (a COCO
        import makes 10^5 of them; that was a fifth of reading one). Raises TypeError for a field it does not
        have, as the constructor does."""
        if not fields.keys() <= _FIELDS:
            raise TypeError(f"ParsedBox has no field(s) {', '.join(sorted(fields.keys() - _FIELDS))}")
        out = object.__new__(cls)
        out.__dict__.update(_DEFAULTS, box=box, label=label, **fields)
        return out

    def placed(self, box: tuple[float, float, float, float], frame_index: int | None) -> "ParsedBox":
        """This box with ``box`` and ``frame_index`` changed: ``dataclasses.replace``'s result without its per-call
        walk over the fields (an import places 10^5 boxes; that walk was a tenth of placing one)."""
        out = object.__new__(ParsedBox)
        out.__dict__.update(self.__dict__, box=box, frame_index=frame_index)
        return out


_DEFAULTS = {f.name: f.default for f in dataclasses.fields(ParsedBox) if f.default is not dataclasses.MISSING}
_FIELDS = frozenset(f.name for f in dataclasses.fields(ParsedBox))


def skeleton_box(template: str, points: tuple, label: str | None, **fields: Any) -> ParsedBox:
    """A ParsedBox carrying a skeleton of ``template``: ``points`` one (x, y) or None per template point."""
    placed = [p for p in points if p is not None]
    box = shape_box("points", tuple(placed), label, **fields)
    return ParsedBox(box.box, label, shape=("skeleton", tuple(points)), template=template, **fields)


def shape_box(kind: str, vertices: tuple[tuple[float, float], ...], label: str | None, **fields: Any) -> ParsedBox:
    """A ParsedBox carrying a ``kind`` shape through ``vertices``; its ``box`` is their bounds grown to at least
    a thousandth of a unit each way (a single point has a box to be placed by)."""
    xs, ys = list(map(itemgetter(0), vertices)), list(map(itemgetter(1), vertices))
    pad = 1e-3
    return ParsedBox.made((min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad), label,
                          shape=(kind, tuple(vertices)), **fields)


@dataclass
class ParsedMedia:
    """The boxes of one media as a file gives them, and how to find that media in the project.

    ``names`` are media file names or stems to try, best first; ``media_id`` is a fieldstudio media id
    when the file carries one (fieldstudio's own COCO export). ``kind`` is "image", "video" or "any".
    ``dense`` tracks list a box on every frame (MOT): their keyframes are recovered on import (the frames
    where linear interpolation between the kept ones would not give the box back).
    """

    source: str
    names: tuple[str, ...]
    kind: str = "any"
    media_id: str | None = None
    boxes: list[ParsedBox] = field(default_factory=list)
    normalised: bool = False
    dense: bool = False


@dataclass
class Parsed:
    """A parser's result: the groups, the files read, and (where, message) problems of single records.

    A parser that streams (COCO) leaves its groups' ``boxes`` empty and adds to ``streams`` a pair (a function
    yielding (group, box) pairs as it reads the file, a function giving (done, total) of that reading, in bytes):
    read every box through :meth:`boxes`, once. Problems of streamed records are added while they are read.
    """

    groups: list[ParsedMedia] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
    streams: list[tuple[Callable[[], Iterator[tuple[ParsedMedia, ParsedBox]]], Callable[[], tuple[int, int]]]] = \
        field(default_factory=list)
    #: label name -> the skeleton template the file gives it (a COCO keypoint category whose points are not a
    #: built-in template's); its skeletons name ``core.skeletons.LABEL_OWN``
    templates: dict[str, SkeletonTemplate] = field(default_factory=dict)
    #: label name -> how many points the file's skeletons of it have, when the file does not name them (YOLO pose
    #: without ``kpt_names``): read with the label's own template of that many points (``importing``)
    point_counts: dict[str, int] = field(default_factory=dict)

    def add(self, other: "Parsed") -> None:
        """Take in another file's result (a folder of files)."""
        self.groups += other.groups
        self.files += other.files
        self.problems += other.problems
        self.streams += other.streams
        self.templates.update(other.templates)
        self.point_counts.update(other.point_counts)

    def boxes(self) -> Iterator[tuple[ParsedMedia, ParsedBox]]:
        """Every (group, box): the groups' lists, then the streams (read as this is iterated; once only).

        Raises ImportFormatError when a streamed file turns out broken part-way."""
        for group in self.groups:
            for box in group.boxes:
                yield group, box
        for stream, _position in self.streams:
            yield from stream()

    @cached_property
    def listed_boxes(self) -> int:
        """How many boxes the groups' lists hold (counted once)."""
        return sum(len(g.boxes) for g in self.groups)

    def progress(self, boxes_done: int) -> tuple[int, int]:
        """(done, total) of reading :meth:`boxes` after ``boxes_done`` boxes: in boxes for groups' lists, in bytes
        read for streams (both parts scaled to one count)."""
        if not self.streams:
            return min(boxes_done, self.listed_boxes), self.listed_boxes
        done = total = 0
        for _stream, position in self.streams:
            d, t = position()
            done, total = done + d, total + t
        return done, total
