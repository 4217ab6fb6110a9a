"""The evaluation side of the main window: the Tasks, Runs, Compare, Rate and Agreement tabs.

The viewer stays the first tab ("Media"). The task editor's "Use current frame" takes the last exact frame
the viewer showed, so a supervisor scrubs to the moment (Alt+1), then writes the question (Alt+2). Each
panel is told the project and wired to the viewer here, so the main window only builds a ``Workspace``
and forwards the project.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QTabWidget

from fieldstudio.gui.panels.agreement import AgreementPanel
from fieldstudio.gui.panels.comparison import ComparisonPanel
from fieldstudio.gui.panels.rating import RaterPanel
from fieldstudio.gui.panels.runs import RunPanel
from fieldstudio.gui.panels.tasks import TaskEditorPanel
from fieldstudio.store.project import Project

if TYPE_CHECKING:
    from fieldstudio.gui.main_window import MainWindow

#: (attribute, tab title, key, tooltip) of the central tabs after "Media"
TABS = (
    ("tasks", "Tasks", "Alt+2", "Write and edit tasks: question, inputs, answer type, ground truth"),
    ("runs", "Runs", "Alt+3", "Run model profiles over tasks, with cost estimate, progress and cancel"),
    ("comparison", "Compare", "Alt+4", "Tasks x answer sources with scores, intervals and cost"),
    ("rater", "Rate", "Alt+5", "Judge proof-of-work items one at a time (A accept, R reject, U unsure)"),
    ("agreement", "Agreement", "Alt+6", "Rater agreement (Krippendorff's alpha) and scorer vs raters"),
)


class Workspace:
    """Builds the evaluation panels into ``window`` (a MainWindow whose central widget is ``modes``)."""

    def __init__(self, window: MainWindow, modes: QTabWidget):
        self.window, self.modes = window, modes
        self.tasks = TaskEditorPanel()
        self.runs = RunPanel()
        self.comparison = ComparisonPanel()
        self.rater = RaterPanel()
        self.agreement = AgreementPanel()
        self.tab_actions: list[QAction] = []
        media_action = QAction("&Media", window)
        media_action.setShortcut(QKeySequence("Alt+1"))
        media_action.setToolTip("The viewer: library, photos, video frames and documents (Alt+1)")
        media_action.triggered.connect(lambda: modes.setCurrentIndex(0))
        window.addAction(media_action)
        self.tab_actions.append(media_action)
        for attr, title, key, tip in TABS:
            panel = getattr(self, attr)
            index = modes.addTab(panel, title)
            modes.setTabToolTip(index, f"{tip} ({key})")
            action = QAction(f"&{title}", window)
            action.setShortcut(QKeySequence(key))
            action.setToolTip(f"{tip} ({key})")
            action.triggered.connect(lambda _=False, p=panel: modes.setCurrentWidget(p))
            window.addAction(action)
            self.tab_actions.append(action)
        self._wire()

    @property
    def docks(self) -> list[QDockWidget]:
        """Docks the workspace adds to the window (none: its panels are tabs)."""
        return []

    def _wire(self) -> None:
        w = self.window
        for panel in (self.tasks, self.runs, self.comparison, self.rater, self.agreement):
            panel.status.connect(w.notify)
        self.tasks.open_media_at.connect(w.show_media_frame)
        self.comparison.open_media_at.connect(w.show_media_frame)
        self.rater.open_media_at.connect(w.show_media_frame)
        self.comparison.ground_truth_changed.connect(lambda _tid: self.tasks.reload())
        self.runs.open_task.connect(self.show_task)
        self.runs.runs_changed.connect(lambda: self.comparison.reload(self.comparison.current_scorer()))
        self.agreement.open_item.connect(self._review_item)
        self.rater.rating_saved.connect(lambda _i: self.agreement.isVisible() and self.agreement.refresh())
        self.modes.currentChanged.connect(self._tab_changed)

    def set_project(self, project: Project | None) -> None:
        """Show ``project`` in every panel (None closes them and stops their threads)."""
        if project is None and self.runs.is_running():
            self.runs.cancel()
        for panel in (self.tasks, self.runs, self.comparison, self.rater, self.agreement):
            panel.set_project(project)

    def show_task(self, task_id: str) -> None:
        """Select a task in the task editor and bring it forward."""
        self.modes.setCurrentWidget(self.tasks)
        self.tasks.select_task(task_id)

    def position_changed(self, media_id: str | None, frame: int | None) -> None:
        """The viewer shows ``frame`` of ``media_id``: the task editor's "Use current frame" takes it."""
        if media_id is not None:
            self.tasks.set_current_position(media_id, frame or 0)

    def annotations_changed(self) -> None:
        """Ground truths linked to annotations follow the edit."""
        self.tasks.refresh_ground_truths()

    def _review_item(self, item_id: str) -> None:
        self.modes.setCurrentWidget(self.rater)
        self.rater.show_item(item_id, review=True)

    def _tab_changed(self, index: int) -> None:
        # the viewer's single keys (Space, arrows, B, R, 1-9 ...) must not compete with the rater's A/R/U
        self.window.set_viewer_mode(index == 0)
        if self.modes.widget(index) is self.agreement:
            self.agreement.refresh()
