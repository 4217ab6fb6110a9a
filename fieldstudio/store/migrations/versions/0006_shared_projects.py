"""shared projects: row versions, who changed a row, the change log, media roots, 64-bit PTS and sizes

Revision ID: 0006_shared_projects
Revises: 0005_label_kinds_attributes
Create Date: 2026-12-02 00:45:00

Issue 22. ``version`` (starting at 1, raised by every update) lets an edit made from a stale read be refused;
``updated_by``/``updated_at`` name who changed the row and when; ``change_log`` is the counter other windows
poll; ``media.media_root`` names the media root a relative path is under. On PostgreSQL the PTS and byte
sizes become BIGINT (SQLite's INTEGER is 64-bit already, so its tables are not rebuilt).
"""
from alembic import op
import sqlalchemy as sa


revision = '0006_shared_projects'
down_revision = '0005_label_kinds_attributes'
branch_labels = None
depends_on = None

_VERSIONED = ('annotation', 'task', 'rating')
_BIG = (('media', 'size_bytes'), ('frame_index', 'pts'), ('annotation', 'pts'), ('annotation', 'end_pts'))


def upgrade() -> None:
    for table in _VERSIONED:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column('version', sa.Integer(), nullable=False, server_default='1'))
            batch_op.add_column(sa.Column('updated_by', sa.String(length=200), nullable=True))
            if table != 'annotation':
                batch_op.add_column(sa.Column('updated_at', sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table('media', schema=None) as batch_op:
        batch_op.add_column(sa.Column('media_root', sa.String(length=100), nullable=True))
    op.create_table('change_log',
    sa.Column('seq', sa.Integer(), autoincrement=True, nullable=False),
    sa.Column('table_name', sa.String(length=40), nullable=False),
    sa.Column('row_id', sa.String(length=32), nullable=False),
    sa.Column('media_id', sa.String(length=32), nullable=True),
    sa.Column('rating_set_id', sa.String(length=32), nullable=True),
    sa.Column('action', sa.String(length=8), nullable=False),
    sa.Column('changed_by', sa.String(length=200), nullable=True),
    sa.Column('changed_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('seq')
    )
    if op.get_bind().dialect.name == 'postgresql':
        for table, column in _BIG:
            op.alter_column(table, column, type_=sa.BigInteger(), existing_type=sa.Integer())


def downgrade() -> None:
    if op.get_bind().dialect.name == 'postgresql':
        for table, column in _BIG:
            op.alter_column(table, column, type_=sa.Integer(), existing_type=sa.BigInteger())
    op.drop_table('change_log')
    drops = [('media', 'media_root')]
    for table in reversed(_VERSIONED):
        drops += [(table, c) for c in (('updated_at',) if table != 'annotation' else ()) + ('updated_by', 'version')]
    for table, column in drops:
        # SQLite's own DROP COLUMN (3.35+), not a batch copy: copying a parent table drops the old one,
        # which with foreign keys on deletes every answer, score and rating that points at it
        op.execute(f'ALTER TABLE {table} DROP COLUMN {column}')
