"""content hashes: the answer's and the ground truth's SHA-256 on their own rows, so a current score is one join

Revision ID: 0009_content_hashes
Revises: 0008_calibration_check
Create Date: 2026-12-04 00:00:00

Issue 37 item 4. ``answer.content_sha256`` and ``task.truth_sha256`` hold the hashes a score keeps of what it
judged (``Score.answer_sha256``, ``Score.truth_sha256``), made by ``store.content_hashes`` and kept in step by
every write from now on, so that the scoring finds the answers whose score still stands with one SQL join
(``scoring.currency``), which reads the answer's side from the index ``ix_answer_content`` (id, hash, run,
task) and the task's from ``ix_task_truth`` (id, hash). The existing rows are filled here, 2,000 at a time, from their stored columns.
"""
import json

from alembic import op
import sqlalchemy as sa

from fieldstudio.store.content_hashes import answer_content_sha, task_truth_sha


revision = '0009_content_hashes'
down_revision = '0008_calibration_check'
branch_labels = None
depends_on = None

_BATCH = 2000


def _decoded(text):
    return None if text is None else json.loads(text) if isinstance(text, str) else text


def upgrade() -> None:
    op.add_column('answer', sa.Column('content_sha256', sa.String(length=64), nullable=True))
    op.add_column('task', sa.Column('truth_sha256', sa.String(length=64), nullable=True))
    conn = op.get_bind()
    # JSON read as stored text on both databases (PostgreSQL's json type would come back decoded)
    answers = conn.execute(sa.text('SELECT id, raw_text, CAST(parsed AS TEXT), error FROM answer')).all()
    _fill(conn, 'answer', 'content_sha256',
          [(answer_content_sha(raw, parsed, error), i) for i, raw, parsed, error in answers])
    tasks = conn.execute(sa.text('SELECT id, query, answer_type, ground_truth, CAST(ground_truth_extra AS TEXT), '
                                 'eval_func, CAST(tolerances AS TEXT), CAST(extra AS TEXT) FROM task')).all()
    _fill(conn, 'task', 'truth_sha256',
          [(task_truth_sha(q, kind, gt, _decoded(gx), ef, _decoded(tol), _decoded(extra)), i)
           for i, q, kind, gt, gx, ef, tol, extra in tasks])
    op.create_index('ix_answer_content', 'answer', ['id', 'content_sha256', 'run_id', 'task_id'])
    op.create_index('ix_task_truth', 'task', ['id', 'truth_sha256'])


def _fill(conn, table: str, column: str, pairs: list) -> None:
    statement = sa.text(f'UPDATE {table} SET {column} = :sha WHERE id = :id')
    for start in range(0, len(pairs), _BATCH):
        conn.execute(statement, [{'sha': sha, 'id': i} for sha, i in pairs[start:start + _BATCH]])


def downgrade() -> None:
    op.drop_index('ix_task_truth', table_name='task')
    op.drop_index('ix_answer_content', table_name='answer')
    # SQLite's own DROP COLUMN (3.35+), not a batch copy: copying a parent table drops the old one, which with
    # foreign keys on deletes every score and answer that points at it
    op.execute('ALTER TABLE task DROP COLUMN truth_sha256')
    op.execute('ALTER TABLE answer DROP COLUMN content_sha256')
