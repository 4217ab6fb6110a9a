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


def test_new_thumbnails_redraw_their_library_rows_without_reading_every_row_again(qtbot, tmp_path):
    from PySide6.QtCore import Qt

    from fieldstudio.gui.panels.library import MediaListModel

    path = tmp_path / "photos.fieldstudio"
    with Project.create(path, name="photos") as p:
        ids = library.add_paths(p, [SAMPLE / "images"]).media_ids   # stored, no thumbnail made yet
    w = MainWindow(Project.open(path))
    qtbot.addWidget(w)
    w.show()
    try:
        model = w.library.model
        resets, changed, made = [], [], []
        model.modelReset.connect(lambda: resets.append(True))
        model.dataChanged.connect(lambda a, b, roles: changed.append((a.row(), b.row(), list(roles))))
        w.session.indexer.thumbnails_made.connect(made.append)
        qtbot.waitUntil(lambda: bool(made), timeout=60000)
        assert sorted(made[0].media_ids) == sorted(ids)
        assert resets == []                       # not a reload: the rows stay, their icons are drawn again
        assert (0, len(ids) - 1, [Qt.ItemDataRole.DecorationRole]) in changed
        first = model.index(0)
        model.data(first, Qt.ItemDataRole.DecorationRole)              # asks for it: decoded in a later turn
        qtbot.waitUntil(lambda: model.rows[0].id in model._icons)
        shown = model.data(first, Qt.ItemDataRole.DecorationRole).pixmap(96, 72).toImage()
        fresh = MediaListModel(path)._icon(model.rows[0]).pixmap(96, 72).toImage()
        assert shown == fresh                     # the new thumbnail, not the placeholder decoded before it
    finally:
        w.close()
