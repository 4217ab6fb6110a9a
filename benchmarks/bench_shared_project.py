"""Shared (PostgreSQL) projects: one edit and opening 5,000 media against SQLite; eight editors at once.

Run with ``python benchmarks/bench_shared_project.py [--team-seconds 60]`` (issue 22).

Starts a throwaway PostgreSQL cluster on 127.0.0.1 (tests/support/pg_cluster.py, with PostgreSQL's default fsync
settings) unless ``FIELDSTUDIO_TEST_PG_URL`` names a server, and measures against SQLite in the same run:

- one edit (move a box: one write transaction with its change-log row), median of 300: target <= 3x SQLite.
  PostgreSQL is measured twice: with its default ``synchronous_commit=on`` (every commit waits for the WAL
  fsync; SQLite in WAL mode with ``synchronous=NORMAL`` does not) and with ``synchronous_commit=off`` (the
  same durability as that SQLite setting: a crash may lose the last commits, never corrupts).
- opening a 5,000-media project as the window does (``Project.open``, the project name and the library's
  media rows), median of 7: target <= 2x SQLite, with the process's connection pool already connected (a
  project opened again, or after the window's first read); the figure over new connections is printed too.
- with ``--team-seconds S``: eight processes edit one PostgreSQL project for S seconds
  (tests/store/test_changes_team_conflicts.py) and the conflict counts are printed.

The figures are declared with their targets (``run.py`` reports a miss); without a PostgreSQL server
(no ``FIELDSTUDIO_TEST_PG_URL``, no ``initdb``) they are reported as skipped, saying why.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import targets, work_folders  # noqa: E402
from sqlalchemy import create_engine, insert  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

from fieldstudio.annotations import annotation_records as ann  # noqa: E402
from fieldstudio.store import library_rows  # noqa: E402
from fieldstudio.store.models import Media  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402
from tests.support import pg_cluster  # noqa: E402

EDITS = 300
MEDIA = 5000


EDIT = (f"one edit (move a box), median of {EDITS}, PostgreSQL synchronous_commit=off over loopback",
        "the same edit on SQLite (WAL, synchronous=NORMAL)", 3.0)
OPEN = (f"opening a {MEDIA:,}-media shared project as the window does, pool connected (median of 7)",
        "the same on SQLite", 2.0)


def server() -> str | None:
    """A PostgreSQL server's URL: ``FIELDSTUDIO_TEST_PG_URL``, else a throwaway cluster with PostgreSQL's
    default fsync settings (stopped at exit); None when there is neither."""
    import os

    if os.environ.get(pg_cluster.ENV_URL):
        return os.environ[pg_cluster.ENV_URL]
    bindir = pg_cluster.pg_bin()
    if bindir is None:
        return None
    cluster = pg_cluster.Cluster(bindir, durable=True)
    os.environ["PGPASSWORD"] = cluster.password
    return cluster.url


def edit_times(ref, *, create: bool = True) -> list[float]:  # noqa: ANN001
    """Seconds of each of EDITS moves of one box, in a new project (``create``) or an existing empty one."""
    with Project.create(ref) if create else Project.open(ref) as p:
        with p.write() as s:
            m = Media(kind="image", path="/a.jpg", file_name="a.jpg", width=1000, height=1000)
            s.add(m)
            s.flush()
            mid = m.id
        box = ann.add_box(p, mid, (10, 10, 100, 100))
        times = []
        for i in range(EDITS):
            g = [float(i % 500), 10.0, float(i % 500) + 50.0, 60.0]
            t = time.perf_counter()
            ann.update(p, box, geometry=g)
            times.append(time.perf_counter() - t)
    return times


def fill(ref) -> None:  # noqa: ANN001
    with Project.create(ref) as p, p.write() as s:
        s.execute(insert(Media), [{"kind": "image", "path": f"/site/img_{i:05d}.jpg", "file_name": f"img_{i:05d}.jpg",
                                   "sha256": f"{i:064x}", "size_bytes": 1000 + i, "width": 4000, "height": 3000,
                                   "status": "ok"} for i in range(MEDIA)])


def open_times(ref, *, cold: bool = False) -> list[float]:  # noqa: ANN001
    """Seconds to open the project as the window does, 7 times; ``cold``: each time over new connections."""
    from fieldstudio.store.engine import release_pg_engines

    out = []
    for _ in range(7):
        if cold:
            release_pg_engines()
        t = time.perf_counter()
        with Project.open(ref) as p:
            name = p.name
            rows = library_rows.media_rows(str(p.path) if p.is_shared else p.path)
        out.append(time.perf_counter() - t)
        assert len(rows) == MEDIA and name
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--team-seconds", type=float, default=0)
    ap.add_argument("--quick", action="store_true", help="no smaller size: runs in full")
    args = ap.parse_args()
    folder = work_folders.fresh_run_folder()
    base = server()
    if base is None:
        why = f"no PostgreSQL server ({pg_cluster.ENV_URL} not set, no initdb found)"
        print(f"skipped: {why}")
        for name, reference, target in (EDIT, OPEN):
            targets.skip(name, target, better=targets.LOWER, reference=reference, why=why)
        targets.print_own_table()
        return
    dbs = [pg_cluster.new_database_url(base) for _ in range(3)]
    try:
        sqlite_edit = statistics.median(edit_times(folder / "edit.fieldstudio"))
        pg_edit = statistics.median(edit_times(dbs[0]))
        Project.create(dbs[1]).close()
        admin = create_engine(make_url(base), isolation_level="AUTOCOMMIT")
        with admin.connect() as conn:
            conn.exec_driver_sql(f'ALTER DATABASE "{make_url(dbs[1]).database}" SET synchronous_commit = off')
        admin.dispose()
        # opened again: the new sessions of this database do not wait for their commits
        pg_edit_async = statistics.median(edit_times(dbs[1], create=False))
        print(f"one edit (median of {EDITS}): SQLite {sqlite_edit * 1000:.2f} ms; PostgreSQL over loopback "
              f"{pg_edit * 1000:.2f} ms ({pg_edit / sqlite_edit:.2f}x, synchronous_commit=on), "
              f"{pg_edit_async * 1000:.2f} ms ({pg_edit_async / sqlite_edit:.2f}x, synchronous_commit=off); "
              "target <= 3x")
        targets.declare(EDIT[0], pg_edit_async / sqlite_edit, EDIT[2], better=targets.LOWER, reference=EDIT[1],
                        sizes_reduced=False)
        fill(folder / "open.fieldstudio")
        fill(dbs[2])
        sqlite_open = statistics.median(open_times(folder / "open.fieldstudio"))
        pg_open = statistics.median(open_times(dbs[2]))
        pg_cold = statistics.median(open_times(dbs[2], cold=True))
        print(f"open a {MEDIA:,}-media project (median of 7): SQLite {sqlite_open * 1000:.1f} ms; PostgreSQL "
              f"{pg_open * 1000:.1f} ms ({pg_open / sqlite_open:.2f}x, the process's pool connected); "
              f"{pg_cold * 1000:.1f} ms ({pg_cold / sqlite_open:.2f}x) over new connections (TCP and the "
              "SCRAM password exchange each time); target <= 2x")
        targets.declare(OPEN[0], pg_open / sqlite_open, OPEN[2], better=targets.LOWER, reference=OPEN[1],
                        sizes_reduced=False)
    finally:
        for db in dbs:
            pg_cluster.drop_database(db)
    if args.team_seconds:
        from tests.store.test_changes_team_conflicts import check_team, run_team

        url = pg_cluster.new_database_url(base)
        try:
            t = time.perf_counter()
            log = run_team(url, folder, args.team_seconds)
            counts = check_team(url, log)
            print(f"8 processes for {args.team_seconds:.0f} s ({time.perf_counter() - t:.0f} s with start-up): "
                  + ", ".join(f"{k} {v}" for k, v in counts.items()))
        finally:
            pg_cluster.drop_database(url)
    targets.print_own_table()


if __name__ == "__main__":
    main()
