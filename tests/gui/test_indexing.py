"""The window finishes what an interrupted `add` left: frame indexes and the missing thumbnails (issue 36 item 2)."""

from __future__ import annotations

from fieldstudio.gui.main_window import MainWindow
from fieldstudio.media import inventory, library
from fieldstudio.store.project import Project
from tests.conftest import SAMPLE


def test_opening_a_project_finishes_the_indexes_and_thumbnails_an_add_left(qtbot, tmp_path):
    path = tmp_path / "interrupted.fieldstudio"
    with Project.create(path, name="interrupted") as p:
        ids = library.add_paths(p, [SAMPLE / "videos", SAMPLE / "images"]).media_ids   # stored, nothing made yet
        left = inventory.unfinished_media(p)
    assert len(left.videos_to_index) == 3 and sorted(left.without_thumbnail) == sorted(ids)
    w = MainWindow(Project.open(path))
    qtbot.addWidget(w)
    w.show()
    try:
        made = []
        w.session.indexer.thumbnails_made.connect(made.append)
        qtbot.waitUntil(lambda: bool(made), timeout=60000)
        assert made == [len(ids)]
        done = inventory.unfinished_media(w.state.project)
        assert done.videos_to_index == [] and done.without_thumbnail == []
    finally:
        w.close()
