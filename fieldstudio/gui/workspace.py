"""The evaluation side of the main window: the Tasks, Runs, Compare, Rate and Agreement tabs.

The viewer stays the first tab ("Media"). The task editor's "Use current frame" takes the last exact frame
the viewer showed, so a supervisor scrubs to the moment (Alt+1), then writes the question (Alt+2). Each
panel is built the first time its tab is shown: they bring pandas and matplotlib, which would add seconds
to the window's cold start. The main window only builds a ``Workspace`` and forwards the project.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence, QUndoGroup, QUndoStack
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

if TYPE_CHECKING:
    from collections.abc import Callable

    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.project import Project

#: (attribute, module, class, tab title, key, tooltip) of the central tabs after "Media"
TABS = (
    ("tasks", "tasks", "TaskEditorPanel", "Tasks", "Alt+2",
     "Write and edit tasks: question, inputs, answer type, ground truth"),
    ("runs", "runs", "RunPanel", "Runs", "Alt+3",
     "Run model profiles over tasks, with cost estimate, progress and cancel"),
    ("comparison", "comparison", "ComparisonPanel", "Compare", "Alt+4",
     "Tasks x answer sources with scores, intervals and cost"),
    ("rater", "rating", "RaterPanel", "Rate", "Alt+5",
     "Judge proof-of-work items one at a time (A accept, R reject, U unsure)"),
    ("agreement", "agreement", "AgreementPanel", "Agreement", "Alt+6",
     "Rater agreement (Krippendorff's alpha) and scorer vs raters"),
)

OPENS_MEDIA = ("tasks", "comparison", "rater")
"""Panels with an ``open_media_at(media_id, frame)`` signal: the viewer comes forward on that frame."""

UNDOABLE = ("tasks", "rater", "comparison")
"""Panels with an ``undo_stack`` (gui/undo.py): it joins the window's undo group and is active with its tab."""


class Workspace:
    """Builds the evaluation tabs into ``modes`` (the window's central tabs; the Media tab is index 0).

    ``window`` gets the tab keys (Alt+1..6); ``notify(message)`` shows a panel's status; ``show_media_frame
    (media_id, frame)`` brings the viewer forward; ``set_viewer_mode(on)`` is called with True when the
    Media tab comes forward and False for another tab. The tasks, rater and comparison (judge audit) panels'
    undo stacks join ``undo_group``, whose active stack follows the tab in front (``media_stack`` on the Media
    tab).
    """

    def __init__(self, window: QWidget, modes: QTabWidget, undo_group: QUndoGroup, media_stack: QUndoStack,
                 state: ViewState, *, notify: Callable[[str], None], set_viewer_mode: Callable[[bool], None]):
        self.window, self.modes, self.state = window, modes, state
        self._notify, self._set_viewer_mode = notify, set_viewer_mode
        self.undo_group, self._media_stack = undo_group, media_stack
        self.project: Project | None = None
        self.panels: dict[str, QWidget] = {}
        self._pages: dict[str, QWidget] = {}
        self._specs = {spec[0]: spec for spec in TABS}
        self.tab_actions: list[QAction] = []
        self._add_action("&Media", "Alt+1", "The viewer: library, photos, video frames and documents",
                         lambda: modes.setCurrentIndex(0))
        # leaving the Tasks tab saves the form being edited (edits are never left unsaved)
        self._last_index = 0
        for attr, _module, _cls, title, key, tip in TABS:
            page = QWidget()
            page.setObjectName(f"{attr}_page")
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[attr] = page
            index = modes.addTab(page, title)
            modes.setTabToolTip(index, f"{tip} ({key})")
            self._add_action(f"&{title}", key, tip, lambda _=False, a=attr: self.show_panel(a))
        modes.currentChanged.connect(self._tab_changed)

    def _add_action(self, text: str, key: str, tip: str, slot) -> None:  # noqa: ANN001 - callable
        action = QAction(text, self.window)
        action.setShortcut(QKeySequence(key))
        action.setToolTip(f"{tip} ({key})")
        action.triggered.connect(slot)
        self.window.addAction(action)
        self.tab_actions.append(action)

    # --- panels ----------------------------------------------------------------------------------
    def panel(self, attr: str) -> QWidget:
        """The panel of tab ``attr`` ("tasks", "runs", "comparison", "rater", "agreement"), built on first use."""
        if attr not in self.panels:
            _attr, module, cls, *_ = self._specs[attr]
            widget = getattr(importlib.import_module(f"fieldstudio.gui.panels.{module}"), cls)()
            self._pages[attr].layout().addWidget(widget)
            self.panels[attr] = widget
            self._wire(attr, widget)
            widget.set_project(self.project)
            if attr == "tasks":
                widget.follow_view(self.state)
        return self.panels[attr]

    def show_panel(self, attr: str) -> QWidget | None:
        """Bring tab ``attr`` forward and return its panel (None without a project: the welcome screen)."""
        if self.project is None:
            return None
        widget = self.panel(attr)
        self.modes.setCurrentWidget(self._pages[attr])
        return widget

    def _wire(self, attr: str, panel: QWidget) -> None:
        panel.status.connect(self._notify)
        if attr in OPENS_MEDIA:
            panel.open_media_at.connect(self._open_media_at)
        if attr in UNDOABLE:
            self.undo_group.addStack(panel.undo_stack)
        if attr in ("tasks", "comparison"):
            panel.run_on_tasks.connect(self.run_on_tasks)
        if attr == "comparison":
            panel.ground_truth_changed.connect(lambda _tid: "tasks" in self.panels and self.panels["tasks"].reload())
        elif attr == "runs":
            panel.open_task.connect(self.show_task)
            panel.runs_changed.connect(lambda: "comparison" in self.panels and self.panels["comparison"].reload(
                self.panels["comparison"].current_scorer()))
        elif attr == "agreement":
            panel.open_item.connect(self._review_item)
        elif attr == "rater":
            panel.rating_saved.connect(lambda _i: "agreement" in self.panels and self.panels["agreement"].isVisible()
                                       and self.panels["agreement"].refresh())

    def set_project(self, project: Project | None) -> None:
        """Show ``project`` in every built panel (None closes them and stops their threads)."""
        runs = self.panels.get("runs")
        if project is None and runs is not None and runs.is_running():
            runs.cancel()
        self.project = project
        for panel in self.panels.values():
            panel.set_project(project)

    def reload_ratings(self) -> None:
        """Rating sets changed outside the panels (a package was merged): the rating tabs read them again."""
        for attr in ("rater", "agreement"):
            if attr in self.panels:
                self.panels[attr].set_project(self.project)

    def reload_tasks(self) -> None:
        """Tasks or answers changed outside the panels (an import): the Tasks and Compare tabs read them again."""
        if "tasks" in self.panels:
            self.panels["tasks"].reload()
        if "comparison" in self.panels:
            self.panels["comparison"].reload(self.panels["comparison"].current_scorer())

    def run_on_tasks(self, task_ids: list[str]) -> None:
        """Bring the Runs tab forward with ``task_ids`` chosen ("Run model on these tasks…" of a task list)."""
        panel = self.show_panel("runs")
        if panel is not None and task_ids:
            panel.set_task_selection(task_ids)
            self._notify(f"{len(task_ids)} task(s) chosen in the Runs tab: tick the model profiles, then Start")

    def show_task(self, task_id: str) -> None:
        """Select a task in the task editor and bring it forward."""
        panel = self.show_panel("tasks")
        if panel is not None:
            panel.select_task(task_id)

    def _open_media_at(self, media_id: str, frame_index: int) -> None:
        """The Media tab comes forward and the viewer is asked for frame ``frame_index`` of ``media_id``."""
        self.modes.setCurrentIndex(0)
        self.state.request_frame(media_id, frame_index)

    def annotations_changed(self) -> None:
        """Ground truths linked to annotations follow the edit."""
        if "tasks" in self.panels:
            self.panels["tasks"].refresh_ground_truths()

    def _review_item(self, item_id: str) -> None:
        panel = self.show_panel("rater")
        if panel is not None:
            panel.show_item(item_id, review=True)

    def _tab_changed(self, index: int) -> None:
        if self.project is None and index != 0:  # the welcome screen has no evaluation tabs
            self.modes.setCurrentIndex(0)
            return
        tasks = self.panels.get("tasks")
        if tasks is not None and self.modes.widget(self._last_index) is self._pages["tasks"] and tasks.dirty \
                and not tasks.save():
            self._notify("the task being edited was not saved: fix the marked problems or press Revert")
        self._last_index = index
        attr = next((a for a, page in self._pages.items() if self.modes.widget(index) is page), None)
        built = attr in self.panels
        if attr in UNDOABLE:
            self.panel(attr)
        self.undo_group.setActiveStack(self.panels[attr].undo_stack if attr in UNDOABLE else self._media_stack)
        # the viewer's single keys (Space, arrows, B, R, 1-9 ...) must not compete with the rater's A/R/U
        self._set_viewer_mode(index == 0)
        if attr is not None:
            widget = self.panel(attr)
            if attr == "agreement" and built:
                widget.refresh()
