"""Bring media into a project in one step: add the files, index the new videos' frames, make thumbnails.

What the window's drag-and-drop and the demo project do; ``fieldstudio add`` runs the same three services
with a progress bar each, so that it can print index failures between them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from fieldstudio.media import library, thumbnails, video_index
from fieldstudio.media.library import AddReport
from fieldstudio.store.project import Project


def add_index_thumbnail(
    project: Project,
    paths: Sequence[Path],
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
    packets_only: bool = False,
) -> AddReport:
    """Add ``paths`` (files or folders), then index the new videos and make the new media's thumbnails.

    ``progress`` spans the three stages as thirds of one bar. ``packets_only`` stores the packet index
    (``video_index.index_videos``): the window adds hours of footage at once and verifies it in the background.
    Returns the ``library.add_paths`` report; a video whose index fails is marked ``failed`` by
    ``video_index.index_videos`` and stays in the library.
    Raises ProjectReadOnly when the project cannot be written.
    """
    def stage(k: int) -> Callable[[int, int], None]:
        return lambda done, total: progress(k * max(total, 1) + done, 3 * max(total, 1))

    report = library.add_paths(project, paths, progress=stage(0), cancelled=cancelled)
    if report.media_ids and not cancelled():
        video_index.index_videos(project, report.media_ids, packets_only=packets_only, progress=stage(1),
                                 cancelled=cancelled)
    if report.media_ids and not cancelled():
        thumbnails.make_thumbnails(project, report.media_ids, progress=stage(2), cancelled=cancelled)
    return report
