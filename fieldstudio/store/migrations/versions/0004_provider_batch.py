"""provider batches: a run's requests sent through a Batch API or written for vllm run-batch

Revision ID: 0004_provider_batch
Revises: 0003_scorer_names
Create Date: 2026-12-02 00:40:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0004_provider_batch'
down_revision = '0003_scorer_names'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('provider_batch',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('run_id', sa.String(length=32), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('provider_batch_id', sa.String(length=200), nullable=True),
    sa.Column('input_file_id', sa.String(length=200), nullable=True),
    sa.Column('output_file_id', sa.String(length=200), nullable=True),
    sa.Column('error_file_id', sa.String(length=200), nullable=True),
    sa.Column('path', sa.Text(), nullable=True),
    sa.Column('status', sa.String(length=32), nullable=False),
    sa.Column('answer_ids', sa.JSON(), nullable=False),
    sa.Column('requests', sa.JSON(), nullable=True),
    sa.Column('request_counts', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('imported_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('provider_batch', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_provider_batch_run_id'), ['run_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('provider_batch', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_provider_batch_run_id'))
    op.drop_table('provider_batch')
