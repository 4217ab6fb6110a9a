"""The error an annotation write raises when it cannot be made as asked (kept apart from ``annotation_records`` so
that the store's own rules, which ``annotation_records`` registers, can raise it without importing it back)."""

from __future__ import annotations

from fieldstudio.core.errors import FieldstudioError


class AnnotationError(FieldstudioError):
    """An annotation cannot be made or changed as asked (bad geometry, frame, kind or media)."""
