"""What tells a kept finding that the answers, tasks or scores changed (``store.write_generation``, migration
``0011_score_currency``): the triggers exist at the head schema on both back ends, the row counts are the tables'
counts, and an update or a delete advances the generation on PostgreSQL (on SQLite it deletes the kept rows)."""

from __future__ import annotations

import sqlite3

from sqlalchemy import text

from fieldstudio.store.models import ScoreCurrency, utcnow
from fieldstudio.store.portable import raw_rows
from fieldstudio.store.write_generation import WATCHED, table_state
from tests.support.scoring_fixtures import add_run, add_task


def _triggers(project) -> set[str]:
    with project.read() as s:
        if s.get_bind().dialect.name == "postgresql":
            return {r[0] for r in raw_rows(s, "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")}
        return {r[0] for r in raw_rows(s, "SELECT name FROM sqlite_master WHERE type = 'trigger'")}


def _keep_a_finding(project) -> None:
    with project.write() as s:
        s.merge(ScoreCurrency(selection="x" * 64, **table_state(s)._asdict(), counts={}, recorded_at=utcnow()))


def _kept(project) -> int:
    with project.read() as s:
        return s.query(ScoreCurrency).count()


def test_the_head_schema_has_a_trigger_on_each_watched_table(project, backend):
    names = _triggers(project)
    if backend == "postgresql":
        assert {f"score_currency_{t}" for t in WATCHED} <= names
    else:
        assert {f"score_currency_{t}_{e}" for t in WATCHED for e in ("update", "delete")} <= names


def test_the_state_counts_rows_and_a_change_ends_a_kept_finding(project, backend):
    task = add_task(project, "1.1.0001", "3", answer_type="count")
    add_run(project, "m", {task: "3"})
    with project.read() as s:
        before = table_state(s)
    assert before[1:] == (1, 1, 0)
    _keep_a_finding(project)
    add_task(project, "1.1.0002", "4")                           # an insert: only the row count says it
    with project.read() as s:
        inserted = table_state(s)
    assert inserted.task_rows == 2 and inserted.generation == before.generation and _kept(project) == 1
    with project.engine.begin() as conn:
        conn.execute(text("UPDATE task SET ground_truth = '5' WHERE id = :i"), {"i": task})
    with project.read() as s:
        updated = table_state(s)
    if backend == "postgresql":
        assert updated.generation > inserted.generation and _kept(project) == 1
    else:
        assert updated.generation == 0 and _kept(project) == 0   # the trigger deleted the kept row
    _keep_a_finding(project)
    with project.engine.begin() as conn:
        conn.execute(text("DELETE FROM answer"))
    with project.read() as s:
        deleted = table_state(s)
    assert deleted.answer_rows == 0
    assert deleted.generation > updated.generation if backend == "postgresql" else _kept(project) == 0


def test_an_older_project_is_migrated_with_the_triggers_and_matches_the_models(tmp_path):
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from fieldstudio.store import project as project_module
    from fieldstudio.store.models import Base
    from fieldstudio.store.project import Project

    path = tmp_path / "old.fieldstudio"
    sqlite3.connect(path).close()
    engine = project_module.make_engine(path.resolve(), read_only=False)
    cfg = project_module._alembic_config()
    with engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0010_ocr_words")
        conn.commit()
    engine.dispose()
    with Project.open(path) as p:
        assert p.migrated_from == "0010_ocr_words"
        assert {f"score_currency_{t}_update" for t in WATCHED} <= _triggers(p)
        with p.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
