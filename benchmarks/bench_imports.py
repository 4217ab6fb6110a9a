"""Imports: 100,000 tasks and 100,000 answers from CSV against plain csv + sqlite3, and re-importing the tasks.

Run with ``python benchmarks/bench_imports.py [N] [--quick]`` (N tasks and answers, default 100,000;
``--quick``: 10,000). The files are fieldstudio's task CSV (two inputs a task, the second with a time
range, ``clip.mp4#t=1,5``) and an answer CSV answering every task, written with the ``csv`` module as a
spreadsheet writes them (``generated_tasks.py``). Each import is the command a user runs
(``fieldstudio tasks import P F``, ``fieldstudio answers import P F --name N``) through the CLI's entry
point in this process, after a first call on ten rows (the CLI's own imports left out). The reference,
measured in the same run, reads the same file with the ``csv`` module and writes the same rows with
``sqlite3`` ``executemany`` in one transaction into the same tables of a new project (the project's own
schema, indexes and pragmas: WAL, ``synchronous=NORMAL``, foreign keys):

- importing N tasks vs the reference (target <= 10x, issue 37);
- importing the same file again: every task unchanged, nothing written, vs the first import (target <= 1x);
- importing N answers vs the reference (target <= 10x, issue 37);
- the same two imports into a PostgreSQL project vs ``COPY ... FROM STDIN`` of the same rows (psycopg, one
  transaction) into another database of the same server: a throwaway cluster with PostgreSQL's default fsync
  (``tests/support/pg_cluster.py``, or ``FIELDSTUDIO_TEST_PG_URL``) (targets <= 10x, issue 37); skipped, saying
  why, where there is no PostgreSQL.
"""

from __future__ import annotations

import csv
import re
import sqlite3
import sys
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks import generated_tasks, targets, work_folders  # noqa: E402
from benchmarks.commands import in_process  # noqa: E402
from sqlalchemy import text  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402

_RANGE = re.compile(r"^(?P<name>.*?)#t=(?P<start>[0-9.]*)(?:,(?P<end>[0-9.]*))?$")


def _connect(project: Path) -> sqlite3.Connection:
    con = sqlite3.connect(project, isolation_level=None)
    for pragma in ("foreign_keys=ON", "journal_mode=WAL", "synchronous=NORMAL"):
        con.execute(f"PRAGMA {pragma}")
    return con


def _task_rows(tasks_csv: Path, now: str) -> tuple[list[tuple], list[tuple]]:
    """(task rows, input rows) of the task CSV read with ``csv``, time ranges parsed: what both references write."""
    tasks, inputs = [], []
    with tasks_csv.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            task_id = uuid.uuid4().hex
            tasks.append((task_id, row["task_id"], "csv", row["query"], "free_text", row["ground_truth"],
                          row["category"], False, now, 1))
            for position, part in enumerate(p.strip() for p in row["inputs"].split(";")):
                m = _RANGE.match(part)
                name, start, end = (m["name"], float(m["start"] or 0), float(m["end"]) if m["end"] else None) \
                    if m else (part, None, None)
                inputs.append((task_id, position, name, start, end))
    return tasks, inputs


TASK_COLUMNS = "id, external_id, source, query, answer_type, ground_truth, category, missing_media, created_at, version"
INPUT_COLUMNS = "task_id, position, name, start_s, end_s"
ANSWER_COLUMNS = "id, run_id, task_id, raw_text, retries, from_cache, created_at"


def plain_task_import(tasks_csv: Path, project: Path) -> int:
    """The reference: the task CSV read with ``csv``, its tasks and their inputs (time ranges parsed) written
    with ``executemany`` in one transaction; returns the number of tasks."""
    tasks, inputs = _task_rows(tasks_csv, datetime.now(timezone.utc).isoformat(" "))
    con = _connect(project)
    try:
        con.execute("BEGIN IMMEDIATE")
        con.executemany(f"INSERT INTO task ({TASK_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", tasks)
        con.executemany(f"INSERT INTO task_input ({INPUT_COLUMNS}) VALUES (?, ?, ?, ?, ?)", inputs)
        con.execute("COMMIT")
    finally:
        con.close()
    return len(tasks)


def plain_answer_import(answers_csv: Path, project: Path) -> int:
    """The reference: the answer CSV read with ``csv``, each answer linked to its task by external id, one run
    and its answers written with ``executemany`` in one transaction; returns the number of answers."""
    now = datetime.now(timezone.utc).isoformat(" ")
    con = _connect(project)
    try:
        by_external = dict(con.execute("SELECT external_id, id FROM task"))
        run_id = uuid.uuid4().hex
        with answers_csv.open(newline="", encoding="utf-8") as fh:
            answers = [(uuid.uuid4().hex, run_id, by_external[row["task_id"]], row["answer"], 0, False, now)
                       for row in csv.DictReader(fh)]
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO run (id, name, kind, status, started_at) VALUES (?, ?, ?, ?, ?)",
                    (run_id, "reference", "import", "done", now))
        con.executemany(f"INSERT INTO answer ({ANSWER_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?)", answers)
        con.execute("COMMIT")
    finally:
        con.close()
    return len(answers)


def _pg_connect(url: str):  # noqa: ANN202 - a psycopg connection
    import psycopg
    from sqlalchemy.engine import make_url

    return psycopg.connect(make_url(url).set(drivername="postgresql").render_as_string(hide_password=False))


def copy_task_import(tasks_csv: Path, url: str) -> int:
    """The PostgreSQL reference: the task CSV read with ``csv`` as for SQLite, tasks and inputs written with
    ``COPY ... FROM STDIN`` in one transaction; returns the number of tasks."""
    tasks, inputs = _task_rows(tasks_csv, datetime.now(timezone.utc).isoformat(" "))
    with _pg_connect(url) as con, con.cursor() as cur:
        with cur.copy(f"COPY task ({TASK_COLUMNS}) FROM STDIN") as copy:
            for row in tasks:
                copy.write_row(row)
        with cur.copy(f"COPY task_input ({INPUT_COLUMNS}) FROM STDIN") as copy:
            for row in inputs:
                copy.write_row(row)
    return len(tasks)


def copy_answer_import(answers_csv: Path, url: str) -> int:
    """The PostgreSQL reference for answers: as ``plain_answer_import``, the answers written with ``COPY``."""
    now = datetime.now(timezone.utc).isoformat(" ")
    with _pg_connect(url) as con, con.cursor() as cur:
        by_external = dict(cur.execute("SELECT external_id, id FROM task").fetchall())
        run_id = uuid.uuid4().hex
        with answers_csv.open(newline="", encoding="utf-8") as fh:
            answers = [(uuid.uuid4().hex, run_id, by_external[row["task_id"]], row["answer"], 0, False, now)
                       for row in csv.DictReader(fh)]
        cur.execute("INSERT INTO run (id, name, kind, status, started_at) VALUES (%s, %s, %s, %s, %s)",
                    (run_id, "reference", "import", "done", now))
        with cur.copy(f"COPY answer ({ANSWER_COLUMNS}) FROM STDIN") as copy:
            for row in answers:
                copy.write_row(row)
    return len(answers)


def on_postgresql(n: int, tasks_csv: Path, answers_csv: Path) -> None:
    """The same imports into a PostgreSQL project against ``COPY`` into another (a throwaway cluster with the
    server's default fsync, ``bench_shared_project.server``); skipped, saying why, without a server."""
    from benchmarks.bench_shared_project import server
    from tests.support import pg_cluster

    names = (f"`fieldstudio tasks import`, {n:,} tasks from CSV, PostgreSQL",
             f"`fieldstudio answers import`, {n:,} answers from CSV, PostgreSQL")
    base = server()
    if base is None:
        for name in names:
            targets.skip(name, 10, better=targets.LOWER, reference="COPY of the same rows",
                         why=f"no PostgreSQL server ({pg_cluster.ENV_URL} not set, no initdb found)")
        return
    ours, reference = pg_cluster.new_database_url(base), pg_cluster.new_database_url(base)
    try:
        for url in (ours, reference):
            Project.create(url).close()
        t_ref_tasks = timed(copy_task_import, tasks_csv, reference)
        t_tasks = in_process("tasks", "import", ours, str(tasks_csv))
        t_ref_answers = timed(copy_answer_import, answers_csv, reference)
        t_answers = in_process("answers", "import", ours, str(answers_csv), "--name", "bench")
        with Project.open(ours) as p, p.read() as s:
            stored = (s.scalar(text("SELECT count(*) FROM task")), s.scalar(text("SELECT count(*) FROM answer")))
        if stored != (n, n):
            raise SystemExit(f"expected {n} tasks and {n} answers on PostgreSQL; fieldstudio has {stored}")
    finally:
        for url in (ours, reference):
            pg_cluster.drop_database(url)
    print(f"PostgreSQL: {n:,} tasks {t_tasks:.2f} s against COPY {t_ref_tasks:.2f} s, ratio "
          f"{t_tasks / t_ref_tasks:.1f} (target <= 10); {n:,} answers {t_answers:.2f} s against COPY "
          f"{t_ref_answers:.2f} s, ratio {t_answers / t_ref_answers:.1f} (target <= 10)")
    for name, ratio in zip(names, (t_tasks / t_ref_tasks, t_answers / t_ref_answers)):
        targets.declare(name, ratio, 10, better=targets.LOWER, reference="COPY of the same rows")


def timed(fn, *args) -> float:
    t = time.perf_counter()
    fn(*args)
    return time.perf_counter() - t


def counts(project: Path) -> tuple[int, int, int]:
    """(tasks, the sum of their row versions, answers) in a project: an update raises a task's version."""
    con = sqlite3.connect(project)
    try:
        return (*con.execute("SELECT count(*), coalesce(sum(version), 0) FROM task").fetchone(),
                con.execute("SELECT count(*) FROM answer").fetchone()[0])
    finally:
        con.close()


def main(n: int) -> None:
    run = work_folders.fresh_run_folder()
    tasks_csv = generated_tasks.task_csv(run / "tasks.csv", n)
    answers_csv = generated_tasks.answer_csv(run / "answers.csv", n)
    ours, reference = run / "imports.fieldstudio", run / "reference.fieldstudio"
    for path in (ours, reference, run / "warm_up.fieldstudio"):
        Project.create(path).close()
    # the commands' first call imports the CLI and the formats: done once here, outside the timings
    in_process("tasks", "import", str(run / "warm_up.fieldstudio"), str(generated_tasks.task_csv(run / "t.csv", 10)))
    in_process("answers", "import", str(run / "warm_up.fieldstudio"), str(generated_tasks.answer_csv(run / "a.csv", 10)),
               "--name", "warm-up")

    t_ref_tasks = timed(plain_task_import, tasks_csv, reference)
    t_tasks = in_process("tasks", "import", str(ours), str(tasks_csv))
    first = counts(ours)
    t_again = in_process("tasks", "import", str(ours), str(tasks_csv))
    if counts(ours) != first:
        raise SystemExit(f"importing the same file again changed the tasks: {first} became {counts(ours)} "
                         "(tasks, sum of versions, answers)")
    t_ref_answers = timed(plain_answer_import, answers_csv, reference)
    t_answers = in_process("answers", "import", str(ours), str(answers_csv), "--name", "bench")
    if counts(ours)[::2] != (n, n) or counts(reference)[::2] != (n, n):
        raise SystemExit(f"expected {n} tasks and {n} answers; fieldstudio has {counts(ours)[::2]}, the "
                         f"reference {counts(reference)[::2]}")

    size = "quick, " if targets.quick() else ""
    print(f"{n:,} tasks ({size}2 inputs each): `fieldstudio tasks import` {t_tasks:.2f} s "
          f"({t_tasks / n * 1000:.2f} ms a task); csv + sqlite3 executemany {t_ref_tasks:.2f} s; "
          f"ratio {t_tasks / t_ref_tasks:.1f} (target <= 10)")
    print(f"the same file again (every task unchanged): {t_again:.2f} s; ratio to the first import "
          f"{t_again / t_tasks:.2f} (target <= 1)")
    print(f"{n:,} answers: `fieldstudio answers import` {t_answers:.2f} s; csv + sqlite3 executemany "
          f"{t_ref_answers:.2f} s; ratio {t_answers / t_ref_answers:.1f} (target <= 10)")
    targets.declare(f"`fieldstudio tasks import`, {n:,} tasks from CSV", t_tasks / t_ref_tasks, 10,
                    better=targets.LOWER, reference="csv + sqlite3 executemany of the same rows")
    targets.declare(f"`fieldstudio tasks import` of the same {n:,} tasks again, all unchanged", t_again / t_tasks, 1,
                    better=targets.LOWER, reference="the first import")
    targets.declare(f"`fieldstudio answers import`, {n:,} answers from CSV", t_answers / t_ref_answers, 10,
                    better=targets.LOWER, reference="csv + sqlite3 executemany of the same rows")
    on_postgresql(n, tasks_csv, answers_csv)
    targets.print_own_table()


if __name__ == "__main__":
    sizes = [a for a in sys.argv[1:] if a != "--quick"]
    main(int(sizes[0]) if sizes else 10_000 if targets.quick() else 100_000)
