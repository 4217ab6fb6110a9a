"""calibration check: the independent check a person made of a calibration (a known length measured through it)

Revision ID: 0008_calibration_check
Revises: 0007_score_hashes
Create Date: 2026-12-04 00:10:00

Issue 33 item 4. ``check_length`` (JSON, NULL when no check was made): ``{"p": [x, y], "q": [x, y], "known_m": m}``,
two image points (upright full-resolution pixels) and the real distance between them. Stored raw like the
calibration's own points and measured through the calibration when read (``annotations.calibrations``), so the
check error follows any later change of the calibration. fs-distance takes its tolerance from it.
"""
from alembic import op
import sqlalchemy as sa


revision = '0008_calibration_check'
down_revision = '0007_score_hashes'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('calibration', schema=None) as batch_op:
        batch_op.add_column(sa.Column('check_length', sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column('calibration', 'check_length')
