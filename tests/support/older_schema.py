"""A project's database left at an older schema revision, as an older fieldstudio left the file (the migration
tests then open it with this one)."""

from __future__ import annotations

from alembic import command

from fieldstudio.store.project import Project, _alembic_config


def downgrade(project: Project, revision: str) -> None:
    """Run Alembic's downgrade of ``project``'s database to ``revision`` and commit it."""
    cfg = _alembic_config()
    with project.engine.connect() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)
        conn.commit()
