"""The demo project: real sample media, a safety manual, and the annotations, tasks and ratings of sample_data/.

``build_demo`` is what ``fieldstudio demo`` and the welcome screen's "Open the demo project" call.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from fieldstudio.core.errors import ProjectError
from fieldstudio.core.paths import data_dir, sample_data_dir
from fieldstudio.demo.annotations import add_demo_annotations
from fieldstudio.demo.answers import add_demo_answers, score_demo_sources
from fieldstudio.demo.ratings import add_demo_ratings
from fieldstudio.demo.tasks import add_demo_tasks
from fieldstudio.media.ingest import add_index_thumbnail
from fieldstudio.media.library import AddReport
from fieldstudio.store.project import Project


def default_demo_path() -> Path:
    """Where the demo project is written when no path is given: the user data folder."""
    return data_dir() / "demo.fieldstudio"


def build_demo(
    path: Path,
    *,
    progress: Callable[[int, int], None] = lambda done, total: None,
    cancelled: Callable[[], bool] = lambda: False,
) -> AddReport:
    """(Re)build the demo project at ``path`` from ``sample_data/``; an existing file there is replaced.

    Raises ProjectError when ``sample_data/`` is missing (a broken install) or ``path`` cannot be written.
    """
    media_root = sample_data_dir() / "media"
    if not media_root.is_dir():
        raise ProjectError(f"{media_root}: the sample data is missing; reinstall fieldstudio")
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    for suffix in ("", "-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    with Project.create(path, name="fieldstudio demo") as project:
        report = add_index_thumbnail(project, [media_root], progress=progress, cancelled=cancelled)
        if not cancelled():
            add_demo_annotations(project)
            add_demo_ratings(project)
            add_demo_tasks(project)
            score_demo_sources(project, add_demo_answers(project))
    return report
