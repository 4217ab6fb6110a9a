"""score hashes: what each score judged (answer, ground truth, scorer), so a score whose inputs changed is stale

Revision ID: 0007_score_hashes
Revises: 0006_shared_projects
Create Date: 2026-12-03 19:50:00

Issue 31 item 2. ``answer_sha256`` (the answer's text, parsed answer and error), ``truth_sha256`` (the task's
query, reference, answer type, eval_func, tolerances, the extra ground-truth fields and the annotation link it
is derived from) and ``scorer_sha256`` (scorer name, version, parameters and the official source's
fingerprint) are the SHA-256 of what the score judged (``scoring.staleness``); ``judged_truth`` keeps the
reference text it judged, for the stale reason ("the ground truth changed: 1 → 2").

Scores written before this revision keep NULL hashes: what they judged is not knowable afterwards (a ground
truth may have changed since without anything recorded), so they read as stale, "judged before hashes were
kept", until scored again.
"""
from alembic import op
import sqlalchemy as sa


revision = '0007_score_hashes'
down_revision = '0006_shared_projects'
branch_labels = None
depends_on = None

_COLUMNS = ('answer_sha256', 'truth_sha256', 'scorer_sha256')


def upgrade() -> None:
    with op.batch_alter_table('score', schema=None) as batch_op:
        for name in _COLUMNS:
            batch_op.add_column(sa.Column(name, sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column('judged_truth', sa.Text(), nullable=True))


def downgrade() -> None:
    # SQLite's own DROP COLUMN (3.35+), not a batch copy: copying the table would drop the old one, which
    # with foreign keys on deletes the judge audit marks that point at it
    for name in ('judged_truth', *reversed(_COLUMNS)):
        op.drop_column('score', name)
