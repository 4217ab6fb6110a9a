"""scorer names: scores made before issue 18 move off the official names

Before this revision "fwa-official" held fieldstudio's judge-free matchers and judged scores made with
fieldstudio's own prompts, and "llm-match", "eqa-direct", "eqa-reasoning" held marks from fieldstudio's own
prompt. The official names now mean the benchmarks' own judge prompts, so the stored rows are renamed:
fwa-official without a judge -> fs-match, with one -> fwa-logic+fs-prompt; llm-match, eqa-direct,
eqa-reasoning -> the same name with "+fs-prompt". A person's override takes the name of the row it
overrides (chains followed to their start); one with nothing to follow takes the judge-free or fs-prompt
name. The same renaming is applied to a judge_audit table when one exists. Values are not touched.

Revision ID: 0003_scorer_names
Revises: 0002_judge_audit
Create Date: 2026-12-02 01:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0003_scorer_names'
down_revision = '0002_judge_audit'
branch_labels = None
depends_on = None

_EQA = ("llm-match", "eqa-direct", "eqa-reasoning")
_OLD = ("fwa-official",) + _EQA


def _no_judge(dialect: str) -> str:
    # older rows may hold the JSON text 'null' instead of SQL NULL; PostgreSQL's json has no "=" operator
    return "(judge IS NULL OR CAST(judge AS TEXT) = 'null')" if dialect == "postgresql" else \
        "(judge IS NULL OR judge = 'null')"


def _follow_overrides(bind, table: str, names: tuple[str, ...]) -> None:
    """Give each person's override the scorer name of the row it overrides, down whole chains."""
    placeholders = ", ".join(f"'{n}'" for n in names)
    for _ in range(1000):                       # a chain is followed one link per pass
        result = bind.execute(sa.text(
            f"UPDATE {table} SET scorer = (SELECT p.scorer FROM {table} p WHERE p.id = {table}.overrides_id) "
            f"WHERE scorer IN ({placeholders}) AND overrides_id IS NOT NULL AND EXISTS (SELECT 1 FROM {table} p "
            f"WHERE p.id = {table}.overrides_id AND p.scorer NOT IN ({placeholders}))"))
        if not result.rowcount:
            break


def upgrade() -> None:
    bind = op.get_bind()
    dialect = bind.dialect.name
    bind.execute(sa.text("UPDATE score SET scorer = 'fwa-logic+fs-prompt' WHERE scorer = 'fwa-official' "
                         f"AND author IS NULL AND NOT {_no_judge(dialect)}"))
    bind.execute(sa.text("UPDATE score SET scorer = 'fs-match' WHERE scorer = 'fwa-official' "
                         f"AND author IS NULL AND {_no_judge(dialect)}"))
    for name in _EQA:
        bind.execute(sa.text(f"UPDATE score SET scorer = '{name}+fs-prompt' WHERE scorer = '{name}' "
                             "AND author IS NULL"))
    _follow_overrides(bind, "score", _OLD)
    bind.execute(sa.text("UPDATE score SET scorer = 'fs-match' WHERE scorer = 'fwa-official'"))
    for name in _EQA:
        bind.execute(sa.text(f"UPDATE score SET scorer = '{name}+fs-prompt' WHERE scorer = '{name}'"))
    if "judge_audit" in sa.inspect(bind).get_table_names():
        bind.execute(sa.text("UPDATE judge_audit SET scorer = (SELECT s.scorer FROM score s WHERE "
                             "s.id = judge_audit.score_id) WHERE scorer IN ("
                             + ", ".join(f"'{n}'" for n in _OLD) + ")"))


def downgrade() -> None:
    bind = op.get_bind()
    for new, old in (("fs-match", "fwa-official"), ("fwa-logic+fs-prompt", "fwa-official"),
                     ("llm-match+fs-prompt", "llm-match"), ("eqa-direct+fs-prompt", "eqa-direct"),
                     ("eqa-reasoning+fs-prompt", "eqa-reasoning")):
        bind.execute(sa.text(f"UPDATE score SET scorer = '{old}' WHERE scorer = '{new}'"))
