"""Writers run as separate processes by ``tests/store/test_engine_two_writers.py``:
``python -m tests.support.race_workers KIND PROJECT ...``.

Each waits for the file GO to exist, so both start writing at the same moment.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from fieldstudio.store.location import project_ref
from fieldstudio.store.project import Project


def _wait(go: Path) -> None:
    while not go.exists():
        time.sleep(0.001)


def tracks(project: Path, go: Path, media_id: str, frame: int, count: int, author: str) -> None:
    """Start ``count`` new tracks, each with one box on ``frame``, as the box tool does."""
    from fieldstudio.annotations import box_tracks
    from fieldstudio.annotations import annotation_records as ann

    with Project.open(project) as p:
        _wait(go)
        for i in range(count):
            track = box_tracks.next_track_id(p, media_id)
            ann.add_box(p, media_id, (10 + i, 10, 20, 20), None, frame_index=frame, track_id=track, author=author)


def media(project: Path, go: Path, folder: Path) -> None:
    """Add every file of ``folder``; prints the number imported."""
    from fieldstudio.media import library

    with Project.open(project) as p:
        _wait(go)
        report = library.add_paths(p, [folder])
    print(report.imported_total, len(report.duplicates))


if __name__ == "__main__":
    kind, project, go, *rest = sys.argv[1:]
    if kind == "tracks":
        tracks(project_ref(project), Path(go), rest[0], int(rest[1]), int(rest[2]), rest[3])
    else:
        media(project_ref(project), Path(go), Path(rest[0]))
