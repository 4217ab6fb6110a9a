"""Migration 0003_scorer_names: scores stored under the official names before issue 18 get the names of what
made them (fs-match, fwa-logic+fs-prompt, <name>+fs-prompt); a person's override follows its chain."""

from __future__ import annotations

from alembic import command
from sqlalchemy import select

from fieldstudio.store.models import Answer, Score
from fieldstudio.store.project import Project, _alembic_config
from tests.support.scoring_fixtures import add_run, add_task


def test_old_rows_are_renamed_and_overrides_follow(tmp_path):
    path = tmp_path / "old.fieldstudio"
    p = Project.create(path)
    t1 = add_task(p, "2.1.0001", "Yes", eval_func="fuzzy_match")
    t2 = add_task(p, "2.1.0002", "A box", eval_func="fuzzy_match")
    t3 = add_task(p, "q1", "AC", source="openeqa")
    run = add_run(p, "m", {t1: "yes", t2: "a box", t3: "AC."})
    with p.read() as s:
        answers = {a.task_id: a.id for a in s.scalars(select(Answer).where(Answer.run_id == run))}
    with p.write() as s:
        matcher = Score(answer_id=answers[t1], scorer="fwa-official", scorer_version="1.0", value=1.0, judge=None)
        judged = Score(answer_id=answers[t2], scorer="fwa-official", scorer_version="1.0", value=1.0,
                       judge={"model": "m", "raw": "correct"})
        eqa = Score(answer_id=answers[t3], scorer="llm-match", scorer_version="1.0", value=75.0, judge={"raw": "4"})
        s.add_all([matcher, judged, eqa])
        s.flush()
        first = Score(answer_id=answers[t2], scorer="fwa-official", scorer_version="1.0", value=0.0, author="ann",
                      reason="wrong", overrides_id=judged.id)
        s.add(first)
        s.flush()
        second = Score(answer_id=answers[t2], scorer="fwa-official", scorer_version="1.0", value=1.0, author="bob",
                       reason="right after all", overrides_id=first.id)
        lone = Score(answer_id=answers[t1], scorer="fwa-official", scorer_version="manual", value=0.0, author="cy",
                     reason="set by hand")
        s.add_all([second, lone])
        s.flush()
        ids = {"matcher": matcher.id, "judged": judged.id, "eqa": eqa.id, "first": first.id, "second": second.id,
               "lone": lone.id}
    cfg = _alembic_config()
    with p.engine.connect() as conn:                  # back to the revision before the renaming
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0002_judge_audit")
        conn.commit()
    p.close()
    p = Project.open(path)
    assert p.migrated_from == "0002_judge_audit"
    with p.read() as s:
        names = {k: s.get(Score, v).scorer for k, v in ids.items()}
        values = {k: s.get(Score, v).value for k, v in ids.items()}
    p.close()
    assert names == {"matcher": "fs-match", "judged": "fwa-logic+fs-prompt", "eqa": "llm-match+fs-prompt",
                     "first": "fwa-logic+fs-prompt", "second": "fwa-logic+fs-prompt", "lone": "fs-match"}
    assert values == {"matcher": 1.0, "judged": 1.0, "eqa": 75.0, "first": 0.0, "second": 1.0, "lone": 0.0}
