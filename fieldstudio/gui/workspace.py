"""The evaluation side of the main window: the Tasks, Runs, Compare, Rate and Agreement tabs.

The viewer stays the first tab ("Media"). The task editor's "Use current frame" takes the frame the viewer
shows (it follows the window's state), so a supervisor scrubs to the moment (Alt+1), then writes the
question (Alt+2). Each panel is built the first time its tab is shown: they bring pandas and matplotlib,
which would add seconds to the window's cold start. The main window only builds a ``Workspace`` and tells
it what changed outside the tabs.

Panels are wired by what they declare (gui/panels/roles.py), never by their names: a signal ``X`` of a
panel is heard by the ``on_X`` of the workspace and of the other built panels, and a capability (an undo
stack, a form to save, a task list to run ...) is recognised by its protocol. Adding a tab is one entry in
:data:`TABS`.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence, QUndoGroup, QUndoStack
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from fieldstudio.gui import workers
from fieldstudio.gui.panels.roles import (ChoosesTasksToRun, EditsAForm, FollowsView, ReviewsItems, RunsInBackground,
                                          SelectsTasks, ShowsScores, TakesTextSuggestion, Undoable)

if TYPE_CHECKING:
    from collections.abc import Callable

    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.project import Project

#: (name, module in gui/panels/, class, tab title, key, tooltip) of the central tabs after "Media"
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


#: How long after a project is shown the tabs' modules start importing in the background: the first frame and the
#: library's thumbnails come first.
TAB_IMPORT_DELAY_MS = 1000
_exiting = threading.Event()
atexit.register(_exiting.set)


def import_tab_modules(project: Project | None = None, *, progress, cancelled) -> bool:  # noqa: ANN001
    """Worker: import the modules of the evaluation tabs (:data:`TABS`; pandas and matplotlib with them, 1-3 s on
    two loaded cores, ~130 MB resident), so that a tab's first opening builds its panel without importing them on
    the GUI thread; then every object alive is set aside from the garbage collector's full walks (``gc.freeze``,
    see ``app.start_collector``). With a ``project`` that holds no task yet (media only: its tabs have nothing to
    show) nothing is imported. Safe to run more than once; cheap after the first. True when every module is
    imported; False when there was no task, or it stopped between modules because ``cancelled()`` or because the
    interpreter is exiting (an import cut short by the exit is dropped quietly; any other failure is raised)."""
    if project is not None:
        from fieldstudio.tasks.task_records import count_tasks

        if not count_tasks(project):
            return False
    for k, (_name, module, *_rest) in enumerate(TABS):
        if cancelled() or _exiting.is_set():
            return False
        try:
            importlib.import_module(f"fieldstudio.gui.panels.{module}")
        except Exception:
            if _exiting.is_set():  # e.g. "can't register atexit after shutdown" from a module imported meanwhile
                return False
            raise
        progress(k + 1, len(TABS))
    # the modules just imported (pandas, matplotlib: ~100,000 objects) live on: no full collection walks them
    gc.freeze()
    return True


class Workspace:
    """Builds the evaluation tabs into ``modes`` (the window's central tabs; the Media tab is index 0).

    ``window`` gets the tab keys (Alt+1..6); ``notify(message)`` shows a panel's status; a panel's request
    to show a frame is made to ``state``; ``set_viewer_mode(on)`` is called with True when the Media tab
    comes forward and False for another tab. Undoable panels' stacks join ``undo_group``, whose active stack
    follows the tab in front (``media_stack`` on the Media tab). Once a project with tasks is shown (or tasks are
    imported), the tabs' modules are imported on a worker (:func:`import_tab_modules`); ``tabs_imported`` is set
    when that is done.
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
        self._last_index = 0
        self.tabs_imported = False
        self._importing = None  # the worker of import_tab_modules while it runs
        for name, _module, _cls, title, key, tip in TABS:
            page = QWidget()
            page.setObjectName(f"{name}_page")
            QVBoxLayout(page).setContentsMargins(0, 0, 0, 0)
            self._pages[name] = page
            index = modes.addTab(page, title)
            modes.setTabToolTip(index, f"{tip} ({key})")
            self._add_action(f"&{title}", key, tip, lambda _=False, n=name: self.show_panel(n))
        modes.currentChanged.connect(self._tab_changed)
        state.events.project.connect(self.set_project)

    def _add_action(self, text: str, key: str, tip: str, slot) -> None:  # noqa: ANN001 - callable
        action = QAction(text, self.window)
        action.setShortcut(QKeySequence(key))
        action.setToolTip(f"{tip} ({key})")
        action.triggered.connect(slot)
        self.window.addAction(action)
        self.tab_actions.append(action)

    # --- panels ----------------------------------------------------------------------------------
    def panel(self, name: str) -> QWidget:
        """The panel of tab ``name`` ("tasks", "runs", "comparison", "rater", "agreement"), built on first use."""
        if name not in self.panels:
            widget = self._panel_class(name)()
            self._pages[name].layout().addWidget(widget)
            self.panels[name] = widget
            self._wire(widget)
            widget.set_project(self.project)
        return self.panels[name]

    def show_panel(self, name: str) -> QWidget | None:
        """Bring tab ``name`` forward and return its panel (None without a project: the welcome screen)."""
        if self.project is None:
            return None
        widget = self.panel(name)
        self.modes.setCurrentWidget(self._pages[name])
        return widget

    def _panel_class(self, name: str) -> type:
        _name, module, cls, *_ = self._specs[name]
        return getattr(importlib.import_module(f"fieldstudio.gui.panels.{module}"), cls)

    def _show_panel_that_is(self, role: type) -> QWidget | None:
        """Bring forward the tab whose panel has the capability ``role`` (a protocol of gui/panels/roles.py)."""
        name = next((n for n in self._specs if issubclass(self._panel_class(n), role)), None)
        return self.show_panel(name) if name is not None else None

    def _wire(self, panel: QWidget) -> None:
        """Connect what ``panel`` declares (gui/panels/roles.py): its signals to the ``on_<signal>`` hearers,
        its undo stack to the undo group, the window's state to a panel that follows it."""
        for klass in type(panel).__mro__:
            if klass is QWidget:
                break
            for name, value in vars(klass).items():
                if isinstance(value, Signal):
                    getattr(panel, name).connect(lambda *args, n=name, p=panel: self._heard(p, f"on_{n}", args))
        if isinstance(panel, Undoable):
            self.undo_group.addStack(panel.undo_stack)
        if isinstance(panel, FollowsView):
            panel.follow_view(self.state)

    def _heard(self, sender: QWidget, hook: str, args: tuple) -> None:
        """A panel's signal: this workspace's and the other built panels' ``hook`` (``on_<signal>``) hear it."""
        for hearer in (self, *(p for p in self.panels.values() if p is not sender)):
            method = getattr(hearer, hook, None)
            if method is not None:
                method(*args)

    def _tell(self, hook: str) -> None:
        for panel in list(self.panels.values()):
            method = getattr(panel, hook, None)
            if method is not None:
                method()

    # --- what the panels ask of the window (their signals' hearers) ------------------------------
    def on_status(self, text: str) -> None:
        self._notify(text)

    def on_open_media_at(self, media_id: str, frame_index: int) -> None:
        """The Media tab comes forward and the state is asked for frame ``frame_index`` of ``media_id``."""
        self.modes.setCurrentIndex(0)
        self.state.request_frame(media_id, frame_index)

    def on_run_on_tasks(self, task_ids: list[str]) -> None:
        """"Run model on these tasks…": the tab that runs tasks comes forward with ``task_ids`` chosen."""
        panel = self._show_panel_that_is(ChoosesTasksToRun)
        if panel is not None and task_ids:
            panel.set_task_selection(task_ids)
            self._notify(f"{len(task_ids)} task(s) chosen in the Runs tab: tick the model profiles, then Start")

    def on_open_task(self, task_id: str) -> None:
        """A task named in another tab: the task editor comes forward on it."""
        panel = self._show_panel_that_is(SelectsTasks)
        if panel is not None:
            panel.select_task(task_id)

    def on_open_item(self, item_id: str) -> None:
        """A rating item named in another tab: the rater comes forward reviewing it."""
        panel = self._show_panel_that_is(ReviewsItems)
        if panel is not None:
            panel.show_item(item_id, review=True)

    # --- what the window tells the panels --------------------------------------------------------
    def set_project(self, project: Project | None) -> None:
        """Show ``project`` in every built panel (None closes them and stops their threads)."""
        for panel in self.panels.values():
            if project is None and isinstance(panel, RunsInBackground) and panel.is_running():
                panel.cancel()
        if project is None and self._importing is not None and not self.tabs_imported:
            self._importing.cancel()  # the window closes (or the project does): no tab will be opened
            self._importing = None
        self.project = project
        for panel in self.panels.values():
            panel.set_project(project)
        self._import_tabs_soon(TAB_IMPORT_DELAY_MS)

    def _import_tabs_soon(self, delay_ms: int) -> None:
        # the first opening of Compare imported pandas and matplotlib on the GUI thread: a 1-3 s stall
        if self.project is None or self.tabs_imported or self._importing is not None:
            return
        worker = self._importing = workers.Worker(import_tab_modules, self.project)
        worker.signals.result.connect(lambda done, w=worker: self._tabs_import_ended(w, done))
        worker.signals.error.connect(lambda _message, w=worker: self._tabs_import_ended(w, False))
        QTimer.singleShot(delay_ms, lambda: workers.start(worker))

    def _tabs_import_ended(self, worker: workers.Worker, done: bool) -> None:
        self.tabs_imported = self.tabs_imported or done
        if self._importing is worker:
            self._importing = None  # not done (no task yet): tried again when tasks are imported

    def tasks_imported(self) -> None:
        """Tasks or answers changed outside the panels (an import): the panels that show them read them again."""
        self._tell("on_tasks_imported")
        self._import_tabs_soon(0)

    def ratings_imported(self) -> None:
        """Rating sets changed outside the panels (a package was merged): the rating tabs read them again."""
        self._tell("on_ratings_imported")

    def annotations_changed(self) -> None:
        """The viewer's marks changed: ground truths linked to annotations follow the edit."""
        self._tell("on_annotations_changed")

    def text_targets(self) -> list[tuple[str, Callable[[str], None]]]:
        """The forms of the built panels that can take a text read now: (what it fills, the call that fills it)."""
        out = []
        for panel in self.panels.values():
            if isinstance(panel, TakesTextSuggestion) and (target := panel.text_target()) is not None:
                out.append((target, panel.suggest_text))
        return out

    def current_scorer(self) -> str | None:
        """The scorer a built panel shows scores of (Compare), for the report of what it shows; else None."""
        return next((p.current_scorer() for p in self.panels.values() if isinstance(p, ShowsScores)), None)

    def save_forms(self) -> bool:
        """Before the project is left: save the forms being edited; False (its tab in front, with a message)
        when one has problems."""
        for name, panel in self.panels.items():
            if isinstance(panel, EditsAForm) and panel.dirty and not panel.save():
                self.modes.setCurrentWidget(self._pages[name])
                self._notify("the task being edited has problems: fix them or press Revert first")
                return False
        return True

    def _tab_changed(self, index: int) -> None:
        if self.project is None and index != 0:  # the welcome screen has no evaluation tabs
            self.modes.setCurrentIndex(0)
            return
        # leaving a tab saves the form being edited there (edits are never left unsaved)
        left = self._name_at(self._last_index)
        form = self.panels.get(left) if left is not None else None
        if isinstance(form, EditsAForm) and form.dirty and not form.save():
            self._notify("the task being edited was not saved: fix the marked problems or press Revert")
        self._last_index = index
        name = self._name_at(index)
        built = name in self.panels
        panel = self.panel(name) if name is not None else None
        self.undo_group.setActiveStack(panel.undo_stack if isinstance(panel, Undoable) else self._media_stack)
        # the viewer's single keys (Space, arrows, B, R, 1-9 ...) must not compete with the rater's A/R/U
        self._set_viewer_mode(index == 0)
        if built and hasattr(panel, "on_tab_shown"):
            panel.on_tab_shown()

    def _name_at(self, index: int) -> str | None:
        return next((n for n, page in self._pages.items() if self.modes.widget(index) is page), None)
