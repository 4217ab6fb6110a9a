"""ocr words: the text OCR read on scanned pages, with each word's box, so search can find and mark it

Revision ID: 0010_ocr_words
Revises: 0009_content_hashes
Create Date: 2026-12-04 04:30:00

Issue 34 item 2. ``document_page.ocr_engine`` (NULL: the page's text is its text layer's) names what read the
page's ``text`` from its pixels; ``ocr_word`` holds the words read, one row each in reading order, with their
boxes in PDF points of the displayed page (``media.document_ocr``). Nothing to fill: pages are read after this.
"""
from alembic import op
import sqlalchemy as sa


revision = '0010_ocr_words'
down_revision = '0009_content_hashes'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('document_page', schema=None) as batch_op:
        batch_op.add_column(sa.Column('ocr_engine', sa.String(length=120), nullable=True))
    op.create_table(
        'ocr_word',
        sa.Column('media_id', sa.String(length=32), nullable=False),
        sa.Column('page_number', sa.Integer(), nullable=False),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('score', sa.Float(), nullable=False),
        sa.Column('x0', sa.Float(), nullable=False),
        sa.Column('y0', sa.Float(), nullable=False),
        sa.Column('x1', sa.Float(), nullable=False),
        sa.Column('y1', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['media_id'], ['media.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('media_id', 'page_number', 'position'),
    )


def downgrade() -> None:
    op.drop_table('ocr_word')
    # SQLite's own DROP COLUMN (3.35+), as 0009 does: a batch copy of a parent table would cascade its deletes
    op.drop_column('document_page', 'ocr_engine')
