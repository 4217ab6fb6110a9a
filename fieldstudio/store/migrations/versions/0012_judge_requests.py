"""judge requests: each judge request (scoring) that left this machine, for "What left this machine"

Revision ID: 0012_judge_requests
Revises: 0011_score_currency
Create Date: 2026-12-04 08:50:00

Issue 34 item 1. Judge calls send answer and reference texts (never a frame) to the judge profile's endpoint; the
score rows keep only the last scoring's judge record, so an append-only ``judge_request`` table keeps one row per
request that reached the endpoint (``inference.sent_log``). Nothing to fill: earlier requests were not recorded.
"""
from alembic import op
import sqlalchemy as sa


revision = '0012_judge_requests'
down_revision = '0011_score_currency'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'judge_request',
        sa.Column('seq', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('sent_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('endpoint', sa.Text(), nullable=False),
        sa.Column('profile', sa.String(length=200), nullable=False),
        sa.Column('model', sa.String(length=200), nullable=False),
        sa.Column('scorer', sa.String(length=60), nullable=False),
        sa.Column('characters', sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint('seq'),
    )


def downgrade() -> None:
    op.drop_table('judge_request')
