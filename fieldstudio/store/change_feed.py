"""What an open window polls to see other users' edits: the change counter and the changes after it (issue 22).

A front asks here instead of opening a session: ``latest_change`` once when the window opens a project, then
``changes_after`` about once a second (``gui.live_changes``). A read the database refuses for a moment (a shared
server restarting, the network gone) raises ``ChangeLogUnreadable``; polling again later is the remedy.
"""

from __future__ import annotations

from sqlalchemy.exc import SQLAlchemyError

from fieldstudio.core.errors import ProjectError
from fieldstudio.store.changes import Change, changes_since, last_seq
from fieldstudio.store.project import Project


class ChangeLogUnreadable(ProjectError):
    """The change log could not be read now (the database's own message is the text); nothing was changed."""


def latest_change(project: Project) -> int:
    """The highest change number committed so far in ``project`` (0 when none)."""
    with project.read() as s:
        return last_seq(s)


def changes_after(project: Project, seq: int, *, limit: int = 10_000) -> list[Change]:
    """The changes committed after change number ``seq``, oldest first (at most ``limit``).

    Raises ChangeLogUnreadable when the database cannot be read at the moment."""
    try:
        with project.read() as s:
            return changes_since(s, seq, limit=limit)
    except SQLAlchemyError as exc:
        raise ChangeLogUnreadable(str(exc)) from exc


__all__ = ["ChangeLogUnreadable", "latest_change", "changes_after"]
