"""What a parser reads from an annotation file, before it is matched to the project's media and frames."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


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
    file it came from, for the report.
    """

    box: tuple[float, float, float, float]
    label: str | None
    frame_index: int | None = None
    pts_seconds: float | None = None
    track: str | None = None
    keyframe: bool = True
    attributes: dict[str, Any] | None = None
    where: str = ""


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
    """A parser's result: the groups, the files read, and (where, message) problems of single records."""

    groups: list[ParsedMedia] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    problems: list[tuple[str, str]] = field(default_factory=list)
