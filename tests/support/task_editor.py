"""The task editor panel as its window tests drive it: the ``panel`` fixture (a shown ``TaskEditorPanel`` on a
project holding the annotation fixtures' media), the project's tasks in creation order, and a combo choice."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from fieldstudio.gui.panels.tasks import TaskEditorPanel
from fieldstudio.store.models import Task
from tests.support.annotation_fixtures import add_test_media


@pytest.fixture
def panel(qtbot, project):
    add_test_media(project)
    w = TaskEditorPanel()
    qtbot.addWidget(w)
    w.resize(1200, 800)
    w.show()
    with qtbot.waitSignal(w.loaded, timeout=20000):
        w.set_project(project)
    return w


def rows(project) -> list[Task]:
    with project.read() as s:
        return list(s.scalars(select(Task).order_by(Task.created_at)))


def choose(combo, data) -> None:
    combo.setCurrentIndex(combo.findData(data))
