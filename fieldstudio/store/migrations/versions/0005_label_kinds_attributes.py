"""labels per kind of mark, and typed box attributes declared on a label

Revision ID: 0005_label_kinds_attributes
Revises: 0004_provider_batch
Create Date: 2026-12-02 00:40:00

``label.kinds`` (JSON list of "box", "ruler", "segment", "event", "tag", or NULL for every kind) says
in which tool's label list a label is offered; ``label.attributes`` (JSON list of
``{"name", "type", "choices"}``) declares the typed attributes of the boxes that carry it. An existing
label is given the kinds of the live annotations that use it, so a project keeps its lists as used;
a label nothing uses yet stays NULL (offered everywhere).
"""
from alembic import op
import sqlalchemy as sa


revision = '0005_label_kinds_attributes'
down_revision = '0004_provider_batch'
branch_labels = None
depends_on = None


# Plain ALTER TABLE, never a batch "move and copy": with foreign keys on, dropping the old label table
# would set every annotation's label_id to NULL (ON DELETE SET NULL).
def upgrade() -> None:
    op.add_column('label', sa.Column('kinds', sa.JSON(), nullable=True))
    op.add_column('label', sa.Column('attributes', sa.JSON(), nullable=True))
    conn = op.get_bind()
    used: dict[str, list[str]] = {}
    for label_id, kind in conn.execute(sa.text(
            "SELECT DISTINCT label_id, kind FROM annotation WHERE label_id IS NOT NULL AND deleted = 0 "
            "ORDER BY kind")):
        used.setdefault(label_id, []).append(kind)
    import json

    for label_id, kinds in used.items():
        conn.execute(sa.text("UPDATE label SET kinds = :k WHERE id = :i"), {"k": json.dumps(kinds), "i": label_id})


def downgrade() -> None:
    # ALTER TABLE ... DROP COLUMN (SQLite 3.35 and later) keeps the rows and the references to them
    op.drop_column('label', 'attributes')
    op.drop_column('label', 'kinds')
