"""The error an annotation write raises when it cannot be made as asked (kept apart from ``annotation_records`` so
that the store's own rules, which ``annotation_records`` registers, can raise it without importing it back)."""

from __future__ import annotations

from fieldstudio.core.errors import FieldstudioError


class AnnotationError(FieldstudioError):
    """An annotation cannot be made or changed as asked (bad geometry, frame, kind or media)."""


def keyframe_taken(track_id: int, frame_index: int | None, kind: str) -> AnnotationError:
    """The refusal of a second live keyframe of track ``track_id`` on ``frame_index`` (a track has one per frame);
    ``kind`` is the refused mark's ("box", or a shape's kind)."""
    what = "a box" if kind == "box" else "a shape"
    return AnnotationError(f"track {track_id} already has {what} on frame {frame_index}; "
                           f"move that {what[2:]} instead of adding another")
