"""The dialogs the window's menus open: labels, annotation export, relinking moved media, About.

Each is a function of what it needs (a parent widget, the project, callables to report back), so the
main window only decides when to open one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from fieldstudio.gui import workers

if TYPE_CHECKING:
    from fieldstudio.store.edits import Edit
    from fieldstudio.store.project import Project


def edit_labels(parent: QWidget, project: Project, apply_edit: Callable[[Edit], None],
                notify: Callable[[str], None], kind: str | None = None) -> None:
    """Annotate ▸ Labels…: the label set (``kind``'s list first); every change is an undoable edit through
    ``apply_edit``."""
    from fieldstudio.gui.panels.label_set import LabelSetDialog

    dialog = LabelSetDialog(project, apply_edit, parent, kind=kind)
    dialog.status.connect(notify)
    dialog.exec()


def export_annotations(parent: QWidget, project: Project, media_id: str | None) -> None:
    """File ▸ Export annotations…: COCO, YOLO, MOT or CSV, for the media shown or the whole project."""
    from fieldstudio.gui.panels.export_dialog import ExportDialog

    ExportDialog(project, media_id, parent).exec()


def relink_media(parent: QWidget, project: Project, notify: Callable[[str], None],
                 done: Callable[[dict], None]) -> None:
    """File ▸ Relink media…: find moved files in a folder by their SHA-256, in the background.

    ``done(found)`` gets ``{media_id: new path}`` after the result was reported with ``notify``.
    """
    from PySide6.QtWidgets import QFileDialog

    from fieldstudio.media import library

    folder = QFileDialog.getExistingDirectory(parent, "Relink media: the folder the files were moved to")
    if not folder:
        return
    worker = workers.Worker(library.relink, project, Path(folder))

    def finished(found: dict) -> None:
        notify(f"relinked {len(found)} media file(s) from {folder}" if found
               else f"no missing media file was found in {folder}")
        done(found)

    worker.signals.result.connect(finished)
    worker.signals.error.connect(notify)
    workers.start(worker)


def about(parent: QWidget) -> None:
    """Help ▸ About: the version and what fieldstudio is for."""
    from PySide6.QtWidgets import QMessageBox

    from fieldstudio import __version__

    QMessageBox.about(parent, "About fieldstudio",
                      f"fieldstudio {__version__}\nAnnotate field-work footage and compare vision-language "
                      "models on it.\nEverything is saved as you work, in one project file.")
