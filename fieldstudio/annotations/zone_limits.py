"""What a zone check may be asked, beside ``annotations.zones``: the frames of the range must be frames of the zone's
video (first before last, none before 0 or past the last frame of its frame table), and a zone whose edges cross
gets its inside rule stated (``core.shapes.contains`` counts crossings: even-odd), since "inside" is then not what
the outline suggests for the part where its lobes overlap."""

from __future__ import annotations

from sqlalchemy import func, select

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.annotations.zones import ZoneError
from fieldstudio.core import shapes
from fieldstudio.store.models import FrameIndexRow, Media
from fieldstudio.store.project import Project


def check_frame_range(project: Project, zone_id: str, start: int | None, end: int | None) -> None:
    """Refuse a range of frames no zone check can answer for zone ``zone_id``: a frame below 0, a first frame after
    the last, a frame past the last of the video's frame table, frames asked of a zone on a photo. Raises
    ZoneError (the message names the frames and the video's range); NotFound for an unknown annotation."""
    if start is None and end is None:
        return
    zone = ann.get_annotation(project, zone_id)
    with project.read() as s:
        media = s.get(Media, zone.media_id)
        frames = s.execute(select(func.count()).where(FrameIndexRow.media_id == zone.media_id)).scalar_one()
    name = media.file_name if media is not None else zone.media_id
    if zone.frame_index is None:
        raise ZoneError(f"the zone is on the photo {name}: it has no frames to choose")
    for what, frame in (("first", start), ("last", end)):
        if frame is not None and frame < 0:
            raise ZoneError(f"the {what} frame {frame} is before frame 0")
        if frame is not None and frames and frame >= frames:
            raise ZoneError(f"the {what} frame {frame} is past the last frame of {name} ({frames - 1})")
    if start is not None and end is not None and start > end:
        raise ZoneError(f"the first frame {start} is after the last frame {end}: give the range first to last")


def inside_rule(vertices: list) -> str | None:
    """How "inside" is decided for a zone whose edges cross ("the zone's edges cross at (x, y): ..."), None for a
    simple polygon (inside is then what its outline encloses)."""
    crossing = shapes.first_crossing(vertices)
    if crossing is None:
        return None
    return (f"the zone's edges cross at ({crossing[0]:.1f}, {crossing[1]:.1f}): a point is inside where a ray from it "
            "crosses the outline an odd number of times (even-odd rule), so where its parts overlap is outside")


__all__ = ["check_frame_range", "inside_rule"]
