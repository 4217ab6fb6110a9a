"""The evaluation tabs: their modules are imported on a worker once a project is shown, not on the first click."""

from __future__ import annotations

from fieldstudio.gui import workspace


def test_the_tabs_modules_are_imported_in_the_background_once_a_project_is_shown(empty_window, qtbot):
    ws = empty_window.workspace
    assert empty_window.state.project is not None
    qtbot.waitUntil(lambda: ws.tabs_imported, timeout=60_000)
    assert all(f"fieldstudio.gui.panels.{module}" in __import__("sys").modules for _n, module, *_ in workspace.TABS)
    assert ws.panels == {}                    # imported, not built: a panel is built when its tab is first shown
    assert ws.show_panel("comparison") is ws.panels["comparison"]


def test_the_import_stops_between_modules_when_cancelled():
    seen = []
    workspace.import_tab_modules(progress=lambda done, total: seen.append((done, total)), cancelled=lambda: True)
    assert seen == []
    workspace.import_tab_modules(progress=lambda done, total: seen.append((done, total)),
                                 cancelled=lambda: len(seen) >= 2)
    assert seen == [(1, len(workspace.TABS)), (2, len(workspace.TABS))]
