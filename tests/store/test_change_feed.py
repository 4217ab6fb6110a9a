"""The change log read through its owner, store/change_feed.py (issue 35 item 3), and what it says when the
log cannot be read."""

from __future__ import annotations

import pytest
from sqlalchemy.exc import OperationalError

from fieldstudio.store import change_feed
from fieldstudio.tasks import task_records


def test_the_change_feed_says_when_the_log_cannot_be_read(project, monkeypatch):
    before = change_feed.latest_change(project)
    task_id = task_records.create_task(project, query="Is the gate shut?", answer_type="yes_no")
    assert [(c.table, c.row_id, c.action) for c in change_feed.changes_after(project, before)] == [
        ("task", task_id, "insert")]

    def unreachable():
        raise OperationalError("SELECT", {}, Exception("server closed the connection"))

    monkeypatch.setattr(project, "read", unreachable)
    with pytest.raises(change_feed.ChangeLogUnreadable, match="server closed the connection"):
        change_feed.changes_after(project, before)
