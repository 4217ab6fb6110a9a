"""judge audit: a person's correct/incorrect mark on a judged score (issue 18 §5)

Revision ID: 0002_judge_audit
Revises: 0001_initial
Create Date: 2026-12-02 00:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0002_judge_audit'
down_revision = '0001_initial'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('judge_audit',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('score_id', sa.String(length=32), nullable=False),
    sa.Column('answer_id', sa.String(length=32), nullable=False),
    sa.Column('scorer', sa.String(length=60), nullable=False),
    sa.Column('judge_model', sa.String(length=200), nullable=True),
    sa.Column('judge_correct', sa.Boolean(), nullable=False),
    sa.Column('person_correct', sa.Boolean(), nullable=False),
    sa.Column('auditor', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['answer_id'], ['answer.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['score_id'], ['score.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('score_id', 'auditor', name='uq_judge_audit_score_auditor')
    )
    with op.batch_alter_table('judge_audit', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_judge_audit_answer_id'), ['answer_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_judge_audit_score_id'), ['score_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('judge_audit', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_judge_audit_score_id'))
        batch_op.drop_index(batch_op.f('ix_judge_audit_answer_id'))
    op.drop_table('judge_audit')
