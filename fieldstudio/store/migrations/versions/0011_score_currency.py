"""score currency: a scoring's finding that every score stands, kept until the answers, tasks or scores change

Revision ID: 0011_score_currency
Revises: 0010_ocr_words
Create Date: 2026-12-04 08:30:00

Issue 37 item 4. ``score_currency`` holds one row per scoring selection whose answers all had a current score
(``models.ScoreCurrency``); a scoring that finds its row still valid returns its counts without visiting an
answer. What makes a row invalid is caught in the database itself, so every writer is covered (the CLI, the
window, imports, the score writer's own connection, another process): an insert raises a table's row count,
which the row keeps; an update or a delete of ``answer``, ``task`` or ``score`` (foreign-key cascades included)
fires a trigger made here (``store.write_generation``):

* SQLite: ``AFTER UPDATE`` and ``AFTER DELETE`` row triggers delete every ``score_currency`` row (guarded by
  ``EXISTS``: with no row kept, a trigger costs one lookup). No insert trigger: a per-row trigger costs about
  1 µs a row, a third of a bulk insert's own time.
* PostgreSQL: statement triggers (``UPDATE``, ``DELETE``, ``TRUNCATE``) advance the sequence
  ``score_currency_generation``, which the rows keep; ``nextval`` takes no lock and is seen at once by every
  session (deleting rows from a trigger would lock them until commit, and two writers could deadlock on them).

A later migration that rebuilds one of the three tables (a batch copy) drops its triggers and must make them
again (``tests/store/test_write_generation.py`` checks that the head schema has them).
"""
from alembic import op
import sqlalchemy as sa


revision = '0011_score_currency'
down_revision = '0010_ocr_words'
branch_labels = None
depends_on = None

TABLES = ('answer', 'task', 'score')


def upgrade() -> None:
    op.create_table(
        'score_currency',
        sa.Column('selection', sa.String(length=64), nullable=False),
        sa.Column('generation', sa.BigInteger(), nullable=False),
        sa.Column('answer_rows', sa.BigInteger(), nullable=False),
        sa.Column('task_rows', sa.BigInteger(), nullable=False),
        sa.Column('score_rows', sa.BigInteger(), nullable=False),
        sa.Column('counts', sa.JSON(), nullable=False),
        sa.Column('recorded_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('selection'),
    )
    if op.get_bind().dialect.name == 'postgresql':
        op.execute('CREATE SEQUENCE score_currency_generation')
        op.execute('CREATE FUNCTION score_currency_advance() RETURNS trigger LANGUAGE plpgsql AS '
                   "$$ BEGIN PERFORM nextval('score_currency_generation'); RETURN NULL; END $$")
        for table in TABLES:
            op.execute(f'CREATE TRIGGER score_currency_{table} AFTER UPDATE OR DELETE OR TRUNCATE ON {table} '
                       'FOR EACH STATEMENT EXECUTE FUNCTION score_currency_advance()')
        return
    for table in TABLES:
        for event in ('UPDATE', 'DELETE'):
            op.execute(f'CREATE TRIGGER score_currency_{table}_{event.lower()} AFTER {event} ON {table} '
                       'WHEN EXISTS (SELECT 1 FROM score_currency) BEGIN DELETE FROM score_currency; END')


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for table in TABLES:
            op.execute(f'DROP TRIGGER score_currency_{table} ON {table}')
        op.execute('DROP FUNCTION score_currency_advance()')
        op.execute('DROP SEQUENCE score_currency_generation')
    else:
        for table in TABLES:
            for event in ('update', 'delete'):
                op.execute(f'DROP TRIGGER score_currency_{table}_{event}')
    op.drop_table('score_currency')
