"""File ▸ What left this machine shows, per endpoint and day, the frames sent and whether they were blurred."""

from __future__ import annotations

from PySide6.QtCore import Qt

from fieldstudio.inference.runs import queue as run_queue
from tests.support.face_photos import write_sample
from tests.support.run_fixtures import add_media, add_task, fake_profile


def test_the_menu_entry_lists_what_each_endpoint_was_sent(empty_window, fake_openai, tmp_path):
    window = empty_window
    project = window.state.project
    action = window.findChild(type(window.actions["quit"]), "what_left_action")
    action.trigger()
    assert window._sent_dialog.rows == []
    assert "Nothing has left this machine" in window._sent_dialog.summary.text()
    ids = add_media(project, write_sample(tmp_path, "astronaut"))
    task = add_task(project, "Who?", [("astronaut.png", ids["astronaut.png"])])
    profile = fake_profile(fake_openai, privacy="blur-faces")
    run_queue.execute_run(project, run_queue.create_run(project, profile, [task]), profile=profile)
    action.trigger()
    dialog = window._sent_dialog
    [row] = dialog.rows
    model = dialog.model
    cells = {model.headerData(c, Qt.Orientation.Horizontal): model.index(0, c).data()
             for c in range(model.columnCount())}
    assert (cells["Endpoint"], cells["Frames"], cells["Blurred"], cells["Not blurred"], cells["Faces blurred"],
            cells["Redacted"]) == (fake_openai.base_url, "1", "1", "0", "1", "all")
    assert (cells["Judge requests"], cells["Judge characters"]) == ("0", "0")     # no scoring yet
    assert "1 frame(s) sent to 1 endpoint(s); 0 of them NOT blurred" in dialog.summary.text()
    dialog.close()
