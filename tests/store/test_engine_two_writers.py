"""Two processes writing one project at once (issue 23, item 6): reads that decide a write happen inside it."""

from __future__ import annotations

import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from PIL import Image
from sqlalchemy import func, select

from fieldstudio.store.models import Annotation, Media
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media

ROOT = Path(__file__).resolve().parents[2]


def _race(tmp_path: Path, *argvs: list[str]) -> list[str]:
    """Start one ``tests.support.race_workers`` process per argv, release them together, return their stdout."""
    go = tmp_path / "go"
    worker = [sys.executable, "-m", "tests.support.race_workers"]
    procs = [subprocess.Popen([*worker, argv[0], argv[1], str(go), *argv[2:]], cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for argv in argvs]
    go.touch()
    outs = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        assert proc.returncode == 0, stderr
        outs.append(stdout)
    return outs


def test_two_processes_starting_tracks_never_share_a_track_id(tmp_path, backend_ref):
    """Two box tools start 40 tracks each on one video: 80 tracks, none holding both writers' boxes."""
    path = backend_ref
    with Project.create(path) as p:
        add_test_media(p)
    _race(tmp_path, ["tracks", str(path), VIDEO_ID, "0", "40", "A"], ["tracks", str(path), VIDEO_ID, "1", "40", "B"])
    with Project.open(path) as p, p.read() as s:
        rows = s.execute(select(Annotation.track_id, Annotation.author).where(Annotation.kind == "box")).all()
    authors = defaultdict(set)
    for track, author in rows:
        authors[track].add(author)
    assert len(rows) == 80
    assert [t for t, a in authors.items() if len(a) > 1] == []  # merged tracks
    assert len(authors) == 80


def test_two_processes_adding_the_same_files_store_each_once(tmp_path, backend_ref):
    """Two imports of the same 200 images at once: 200 rows, and the two reports add up to 200 imported."""
    folder = tmp_path / "in"
    folder.mkdir()
    for i in range(200):
        Image.new("RGB", (8, 8), (i % 256, i // 256, 3)).save(folder / f"img_{i:03d}.png")
    path = backend_ref
    Project.create(path).close()
    outs = _race(tmp_path, ["media", str(path), str(folder)], ["media", str(path), str(folder)])
    imported = [tuple(map(int, o.split())) for o in outs]
    with Project.open(path) as p, p.read() as s:
        rows = s.scalar(select(func.count()).select_from(Media))
        distinct = s.scalar(select(func.count(func.distinct(Media.sha256))))
    assert (rows, distinct) == (200, 200)
    assert sum(n for n, _ in imported) == 200 and sum(d for _, d in imported) == 200
