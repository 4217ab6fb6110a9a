"""Migration 0007_score_hashes: scores written before it keep NULL hashes (what they judged is not knowable
afterwards) and read as stale, "judged before hashes were kept", until scored again; the downgrade drops the
columns and keeps the scores."""

from __future__ import annotations

from sqlalchemy import inspect, text

from fieldstudio.scoring import staleness
from fieldstudio.scoring.service import current_scores, score_answers
from fieldstudio.store.project import Project
from tests.support.older_schema import downgrade
from tests.support.scoring_fixtures import add_run, add_task

BEFORE = "0006_shared_projects"


def test_scores_from_before_the_hashes_open_stale_and_score_again(tmp_path):
    path = tmp_path / "old.fieldstudio"
    with Project.create(path) as p:
        tasks = [add_task(p, f"1.1.000{i}", str(i), answer_type="count") for i in (1, 2)]
        add_run(p, "m", {t: str(i) for i, t in zip((1, 2), tasks)})
        assert score_answers(p, "fs-match").written == 2
        downgrade(p, BEFORE)                           # as an older fieldstudio left the file
        with p.engine.connect() as conn:
            assert "answer_sha256" not in {c["name"] for c in inspect(conn).get_columns("score")}
            assert conn.execute(text("SELECT count(*) FROM score")).scalar() == 2
    with Project.open(path) as p:
        assert p.migrated_from == BEFORE
        scores = current_scores(p, "fs-match")
        assert len(scores) == 2 and set(scores["stale_reason"]) == {staleness.BEFORE_HASHES}
        again = score_answers(p, "fs-match")
        assert (again.stale, again.current, again.written) == (2, 0, 2)
        assert current_scores(p, "fs-match")["stale_reason"].isna().all()
