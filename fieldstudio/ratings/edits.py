"""Undoable rating edits for rater mode: save a verdict, and take it back with Ctrl+Z.

The same pattern as ``annotations.edits``: an edit's ``do()`` and ``undo()`` each commit one short write
transaction before returning. Saving a verdict is :func:`ratings.records.record_rating`; undoing it puts
back exactly what was there before (the earlier rating row with its id, reasons, fields, comment,
history, time spent and save time), or removes the rating when there was none, so the item counts as
unrated again and the rater's progress goes back by one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select

from fieldstudio.core.errors import NotFound
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.edits import Edit
from fieldstudio.store.models import Rating, RatingItem
from fieldstudio.store.project import Project

__all__ = ["RatingSnapshot", "snapshot", "restore", "RecordRating"]


@dataclass(frozen=True)
class RatingSnapshot:
    """Everything stored in one rating row (``fields`` with its reserved ``_`` keys), to put it back."""

    id: str
    verdict: str
    reasons: list[str]
    fields: dict[str, Any]
    seconds_spent: float | None
    created_at: datetime | None


def snapshot(project: Project, item_id: str, rater: str) -> RatingSnapshot | None:
    """The stored rating of ``rater`` on one item, or None when there is none."""
    with project.read() as s:
        row = s.scalars(select(Rating).where(Rating.item_id == item_id, Rating.rater == rater)).one_or_none()
        if row is None:
            return None
        return RatingSnapshot(row.id, row.verdict, list(row.reasons or []), dict(row.fields or {}),
                              row.seconds_spent, row.created_at)


def restore(project: Project, item_id: str, rater: str, snap: RatingSnapshot | None) -> None:
    """Make ``rater``'s rating of one item exactly ``snap`` (None: delete it), in one write transaction.

    Raises NotFound when the item no longer exists (and ``snap`` is not None).
    """
    with project.write() as s:
        row = s.scalars(select(Rating).where(Rating.item_id == item_id, Rating.rater == rater)).one_or_none()
        if snap is None:
            if row is not None:
                s.delete(row)
            return
        if s.get(RatingItem, item_id) is None:
            raise NotFound(f"no rating item with id {item_id!r}")
        if row is None:
            row = Rating(id=snap.id, item_id=item_id, rater=rater)
            s.add(row)
        row.verdict, row.reasons, row.fields = snap.verdict, list(snap.reasons), dict(snap.fields)
        row.seconds_spent = snap.seconds_spent
        if snap.created_at is not None:
            row.created_at = snap.created_at


class RecordRating(Edit):
    """Edit: ``ratings.record_rating(project, item_id, rater, verdict, **kwargs)``; undo restores the
    rating that was there before (or removes the new one); redo writes the saved rating back.

    The first ``do()`` raises (and commits nothing) on bad input, as ``record_rating`` does.
    ``view`` holds the RatingView the first ``do()`` returned.
    """

    def __init__(self, project: Project, item_id: str, rater: str, verdict: str, *,
                 reasons: Iterable[str] = (), fields: Mapping[str, Any] | None = None,
                 comment: str | None = None, seconds_spent: float | None = None):
        self.project, self.item_id, self.rater, self.verdict = project, item_id, (rater or "").strip(), verdict
        self._kwargs = dict(reasons=list(reasons), fields=dict(fields or {}), comment=comment,
                            seconds_spent=seconds_spent)
        self.text = f"Rate {verdict}"
        self.before: RatingSnapshot | None = None
        self.after: RatingSnapshot | None = None
        self.view: ratings.RatingView | None = None

    def do(self) -> None:
        if self.view is None:
            self.before = snapshot(self.project, self.item_id, self.rater)
            self.view = ratings.record_rating(self.project, self.item_id, self.rater, self.verdict, **self._kwargs)
            self.after = snapshot(self.project, self.item_id, self.rater)
        else:
            restore(self.project, self.item_id, self.rater, self.after)

    def undo(self) -> None:
        restore(self.project, self.item_id, self.rater, self.before)
