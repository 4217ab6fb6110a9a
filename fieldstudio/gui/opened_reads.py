"""What the window's parts read of a project as it is shown, read before, on the worker that opened it.

Issue 37: ``ProjectSession.set_project`` took 56-120 ms on the GUI thread, about half of it ten short reads (the
labels three times, the calibrations table, the project's name, the media library's first rows), each on a connection
of its own, and the library's other rows were read in the turn after. The worker of a
background open (``project_session._open_project``) now reads them right after ``Project.open`` (:func:`read_opened`),
and the session puts them in ``ViewState.opened_reads`` for the one synchronous hand-over of ``state.project``; the
parts that follow the project take them there (:func:`take`) instead of asking the database, and read themselves
when the project was shown another way (``MainWindow(project)``, a test) or a value is missing.

The values are good for that hand-over only: the session sets the field back to None once every part has the
project, so a later refresh reads the database again. Nothing here imports Qt (it runs on a worker).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from fieldstudio.store.project import Project

log = logging.getLogger(__name__)

T = TypeVar("T")

LABELS = "labels"
"""``annotations.labels.list_labels(project)``: every label (the label read-out, the annotation list's filter)."""
BOX_LABEL_KEYS = "box_label_keys"
"""``annotations.labels.labels_by_key(project, "box")``: Annotate ▸ Use label's names for the box tool, the kind a
project opens on."""
CALIBRATION_ROWS = "calibration_rows"
"""``gui.panels.calibration.read_rows(project)``: the Calibrations dock's rows."""
NAME = "name"
"""``Project.name``: the window's title."""
LATEST_CHANGE = "latest_change"
"""``store.change_feed.latest_change``: where a shared project's change watcher starts (shared projects only)."""
MEDIA_ROOTS_IN_USE = "media_roots_in_use"
"""``media.inventory.media_roots_in_use``: the media roots the window asks this computer's folder of."""
LIBRARY_ROWS = "library_rows"
"""``store.library_rows.media_rows`` of the project: every row of the media library (5,000 media took 100-400 ms
on the GUI thread, on two loaded cores)."""


@dataclass
class OpenedReads:
    """``values`` read of ``project`` on the worker that opened it, by the keys above."""

    project: Project
    values: dict[str, Any] = field(default_factory=dict)


def read_opened(project: Project, *, cancelled: Callable[[], bool] = lambda: False) -> OpenedReads:
    """On the open's worker: every value above, read in one session where the service allows it. A read that
    fails is left out (the part then reads for itself, and says what is wrong as it always did)."""
    from fieldstudio.annotations import labels
    from fieldstudio.gui.panels.calibration import read_rows
    from fieldstudio.media import inventory
    from fieldstudio.store.change_feed import latest_change
    from fieldstudio.store.library_rows import media_rows

    reads = OpenedReads(project)
    readers: dict[str, Callable[[], Any]] = {
        LABELS: lambda: labels.list_labels(project),
        BOX_LABEL_KEYS: lambda: labels.labels_by_key(project, "box"),
        CALIBRATION_ROWS: lambda: read_rows(project),
        NAME: lambda: project.name,
        LIBRARY_ROWS: lambda: media_rows(str(project.path) if project.is_shared else project.path),
        MEDIA_ROOTS_IN_USE: lambda: inventory.media_roots_in_use(project),
    }
    if project.is_shared:
        readers[LATEST_CHANGE] = lambda: latest_change(project)
    for key, read in readers.items():
        if cancelled():
            break
        try:
            reads.values[key] = read()
        except Exception:  # noqa: BLE001 - the part reads it again on the GUI thread and reports what is wrong
            log.warning("reading %s of %s before it is shown failed", key, project.location, exc_info=True)
    return reads


def take(state, project: Project | None, key: str, read: Callable[[], T]) -> T:  # noqa: ANN001 - gui.state.ViewState
    """The value ``key`` the open's worker read of ``project``, if ``state`` (the window's ``ViewState``, not
    imported: it names this module's type) holds one for it; else ``read()``."""
    reads = state.opened_reads
    if project is not None and reads is not None and reads.project is project and key in reads.values:
        return reads.values[key]
    return read()
