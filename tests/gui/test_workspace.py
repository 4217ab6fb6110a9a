"""The evaluation tabs: their modules are imported on a worker once a project is shown, not on the first click."""

from __future__ import annotations

from fieldstudio.gui import workspace
from fieldstudio.tasks import task_records
from tests.support.gui_support import blank_window


def test_the_tabs_modules_are_imported_in_the_background_once_the_project_has_tasks(empty_window, qtbot):
    ws = empty_window.workspace
    project = empty_window.state.project
    qtbot.wait(workspace.TAB_IMPORT_DELAY_MS + 1000)
    assert not ws.tabs_imported and ws._importing is None     # media only: nothing to show in the tabs yet
    task_records.create_task(project, query="How many workers wear a helmet?")
    ws.tasks_imported()                                       # as the window tells it after an import
    qtbot.waitUntil(lambda: ws.tabs_imported, timeout=60_000)
    assert all(f"fieldstudio.gui.panels.{module}" in __import__("sys").modules for _n, module, *_ in workspace.TABS)
    assert ws.panels == {}                    # imported, not built: a panel is built when its tab is first shown
    assert ws.show_panel("comparison") is ws.panels["comparison"]


def test_the_import_stops_between_modules_when_cancelled():
    seen = []
    assert not workspace.import_tab_modules(progress=lambda done, total: seen.append((done, total)),
                                            cancelled=lambda: True)
    assert seen == []
    assert not workspace.import_tab_modules(progress=lambda done, total: seen.append((done, total)),
                                            cancelled=lambda: len(seen) >= 2)
    assert seen == [(1, len(workspace.TABS)), (2, len(workspace.TABS))]
    assert workspace.import_tab_modules(progress=lambda done, total: None, cancelled=lambda: False)


def test_closing_the_project_before_the_import_starts_cancels_it(qtbot, tmp_path, monkeypatch):
    monkeypatch.setattr(workspace, "TAB_IMPORT_DELAY_MS", 1500)
    window = blank_window(qtbot, tmp_path / "p.fieldstudio")
    ws = window.workspace
    importing = ws._importing           # started for any project; a project without tasks makes it end at once
    assert importing is not None and not ws.tabs_imported
    window.session.close()                        # the project closes within the delay
    assert ws._importing is None and importing._cancel.is_set()
    qtbot.wait(2000)
    assert not ws.tabs_imported                   # the cancelled worker imported nothing and said so


def test_the_imported_modules_are_set_aside_from_the_collectors_full_walks():
    """After the tabs' imports every object alive is in the collector's permanent generation (``gc.freeze``): a full
    collection in a worker no longer walks the ~200,000 objects of the modules while the window waits for the lock."""
    import gc

    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        assert workspace.import_tab_modules(progress=lambda done, total: None, cancelled=lambda: False)
        assert gc.get_freeze_count() > 10_000
    finally:
        gc.unfreeze()
