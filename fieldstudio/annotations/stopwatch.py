"""The stopwatch between two frames of a video, kept as a measurement (an annotation of kind ``stopwatch``).

A stopwatch stores its start and end frames (``frame_index``, ``end_frame_index``) with their PTS read from the
video's frame table when it is made, as a segment does; the time between them is ``end PTS - start PTS`` in
seconds (``pts * time_base``), never a frame count divided by a frame rate, so a variable-rate video reads its
real time. ``frames`` is ``end - start``: the number of frame steps from the start frame to the end frame.
Marked in either order, the earlier frame is the start. Errors: AnnotationError (a photo, a frame outside the
frame table), NotFound.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from fieldstudio.annotations.annotation_records import (AnnotationError, AnnotationRecord, frame_pts, get_annotation,
                                                        insert_annotation, media_row)
from fieldstudio.store.project import Project


@dataclass(frozen=True)
class StopwatchReading:
    """What a stopwatch reads: start and end frames, their PTS in seconds, the time and the frame steps between."""

    annotation_id: str | None
    start_frame: int
    end_frame: int
    start_s: float
    end_s: float

    @property
    def seconds(self) -> float:
        """End PTS minus start PTS, in seconds."""
        return self.end_s - self.start_s

    @property
    def frames(self) -> int:
        """Frame steps from the start frame to the end frame."""
        return self.end_frame - self.start_frame

    def text(self) -> str:
        """"1.234 s, 37 frames (frame 10 to 47)"."""
        return (f"{self.seconds:.3f} s, {self.frames} frame{'s' if self.frames != 1 else ''} "
                f"(frame {self.start_frame} to {self.end_frame})")


def reading_of(record: AnnotationRecord) -> StopwatchReading:
    """The reading of a stored stopwatch record. Raises AnnotationError for another kind."""
    if record.kind != "stopwatch" or record.end_frame_index is None:
        raise AnnotationError(f"annotation {record.id} is a {record.kind}, not a stopwatch")
    return StopwatchReading(record.id, record.frame_index, record.end_frame_index, record.pts_seconds,
                            record.end_pts_seconds)


def add_stopwatch(project: Project, media_id: str, start_frame: int, end_frame: int, *,
                  text: str | None = None, author: str | None = None) -> str:
    """Keep the stopwatch from ``start_frame`` to ``end_frame`` (either order) on a video; returns its id.
    Raises AnnotationError for a photo or document, or a frame outside the frame table."""
    first, last = sorted((int(start_frame), int(end_frame)))
    return insert_annotation(project, media_id, "stopwatch", frame_index=first, frame_required=True,
                             end_frame_index=last, text=text, author=author)


def read_stopwatch(project: Project, annotation_id: str) -> StopwatchReading:
    """The reading of a stored stopwatch. Raises NotFound, AnnotationError (not a stopwatch)."""
    return reading_of(get_annotation(project, annotation_id))


def time_between(project: Project, media_id: str, start_frame: int, end_frame: int) -> StopwatchReading:
    """The reading between two frames of a video, without keeping it (the CLI without ``--keep``).
    Raises AnnotationError for a frame outside the frame table, NotFound for an unknown media."""
    first, last = sorted((int(start_frame), int(end_frame)))
    with project.read() as s:
        media = media_row(s, media_id)
        if media.kind != "video":
            raise AnnotationError(f"{media.file_name}: a stopwatch runs on a video, not on a {media.kind}")
        base = Fraction(media.time_base_num or 1, media.time_base_den or 1)
        p0 = frame_pts(s, media, first, required=True)[1]
        p1 = frame_pts(s, media, last, required=True)[1]
    return StopwatchReading(None, first, last, float(p0 * base), float(p1 * base))
