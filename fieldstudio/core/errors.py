"""Errors that the user sees: each names the file or thing concerned and the reason."""

from __future__ import annotations

from pathlib import Path


class FieldstudioError(Exception):
    """Base class of every error fieldstudio reports to a user in plain words."""


class MediaError(FieldstudioError):
    """A media file cannot be read: ``path`` names it and ``reason`` says why, in plain words."""

    def __init__(self, path: Path | str, reason: str):
        self.path = Path(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


class ProjectError(FieldstudioError):
    """A project file cannot be opened or used (corrupt, not a project, from a newer version)."""


class ProjectReadOnly(ProjectError):
    """The project file (or its folder) cannot be written; nothing was changed."""


class NotFound(FieldstudioError):
    """A media, task or other record named by the user does not exist in the project."""


class CalibrationError(FieldstudioError):
    """A calibration is degenerate (zero length, collinear points) or a point maps to infinity."""
