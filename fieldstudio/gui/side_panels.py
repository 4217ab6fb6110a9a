"""The viewer's side panels: the annotation list, the tags of the frame shown, the calibrations.

:class:`SidePanels` builds them on first use (their docks are tabbed behind Properties, and building them
would otherwise be part of a cold start), sends their edits through the annotation controller's undo
stack, and keeps them on the media and frame that :class:`~fieldstudio.gui.state.ViewState` says are shown.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QDockWidget

from fieldstudio.gui import opened_reads

if TYPE_CHECKING:
    from fieldstudio.gui.annotate import AnnotationController
    from fieldstudio.gui.panels.annotation_list import AnnotationListPanel
    from fieldstudio.gui.panels.calibration import CalibrationListPanel
    from fieldstudio.gui.panels.tags import TagsPanel
    from fieldstudio.gui.state import ViewState
    from fieldstudio.store.models import Media
    from fieldstudio.store.project import Project


class SidePanels(QObject):
    """The three panels in ``docks`` (annotations, tags, calibrations), built when first asked for.

    A mark chosen in the annotation list is asked of the state (``state.request_frame``); ``notify(message)``
    shows a panel's status line. A QObject child of ``parent`` (the window), so that Qt drops its
    connections with the window.
    """

    def __init__(self, state: ViewState, annotator: AnnotationController,
                 docks: tuple[QDockWidget, QDockWidget, QDockWidget], *,
                 notify: Callable[[str], None], parent: QObject | None = None):
        super().__init__(parent)
        self.state, self.annotator, self.docks = state, annotator, docks
        self._notify = notify
        self._panels: tuple[AnnotationListPanel, TagsPanel, CalibrationListPanel] | None = None
        state.events.media.connect(self._media_shown)
        state.events.project.connect(self.set_project)
        annotator.changed.connect(self.refresh)  # after every edit, undo and redo of the viewer's marks

    def built(self) -> tuple[AnnotationListPanel, TagsPanel, CalibrationListPanel]:
        if self._panels is None:
            from fieldstudio.gui.panels.annotation_list import AnnotationListPanel
            from fieldstudio.gui.panels.calibration import CalibrationListPanel
            from fieldstudio.gui.panels.tags import TagsPanel

            self._panels = (AnnotationListPanel(), TagsPanel(), CalibrationListPanel())
            self._panels[1].follow_view(self.state)
            for dock, panel in zip(self.docks, self._panels):
                dock.setWidget(panel)
                panel.set_apply_edit(self.annotator.apply_or_raise)
                panel.status.connect(self._notify)
            self._panels[0].jump.connect(self._jump_to_annotation)
            self._panels[2].calibration_changed.connect(lambda _m: self.annotator.refresh())
        return self._panels

    @property
    def annotations(self) -> AnnotationListPanel:
        """The annotation list panel (filters, jump to a mark, delete)."""
        return self.built()[0]

    @property
    def tags(self) -> TagsPanel:
        """The tags panel of the media and frame shown."""
        return self.built()[1]

    @property
    def calibrations(self) -> CalibrationListPanel:
        """The calibrations panel."""
        return self.built()[2]

    def set_project(self, project: Project | None) -> None:
        """Show ``project`` (None: nothing); building the panels on the first project."""
        if project is None and self._panels is None:
            return
        annotations, tags, calibrations = self.built()
        # what the open's worker read of the project, so that its hand-over reads nothing here
        annotations.set_project(project, opened_reads.take(self.state, project, opened_reads.LABELS, lambda: None))
        tags.set_project(project)
        calibrations.set_project(project, opened_reads.take(self.state, project, opened_reads.CALIBRATION_ROWS,
                                                            lambda: None))

    def refresh(self) -> None:
        """Re-read what the panels show (after an edit, an undo or a redo)."""
        for panel in self._panels or ():
            panel.refresh()

    def _media_shown(self, media: Media | None) -> None:
        if media is not None:
            self.annotations.set_media(media.id)

    def _jump_to_annotation(self, media_id: str, frame: int, annotation_id: str) -> None:
        self.annotator.select_on_refresh(annotation_id)
        self.state.request_frame(media_id, frame)
        self.annotator.refresh()
