"""Migration 0009_content_hashes: the answers and tasks of an older project get their hashes filled from their
stored columns, so the scores written before it are current by one SQL join at once; the downgrade drops the
columns and keeps the rows."""

from __future__ import annotations

from sqlalchemy import inspect, text

from fieldstudio.scoring.service import score_answers
from fieldstudio.scoring.staleness import answer_sha
from fieldstudio.store.portable import raw_rows
from fieldstudio.store.project import Project
from tests.support.older_schema import downgrade
from tests.support.scoring_fixtures import add_run, add_task

BEFORE = "0008_calibration_check"


def test_an_older_project_gets_its_hashes_and_its_scores_stay_current(tmp_path):
    path = tmp_path / "old.fieldstudio"
    with Project.create(path) as p:
        tasks = [add_task(p, f"1.1.000{i}", str(i), answer_type="count", tolerances={"r_th": i}) for i in (1, 2, 3)]
        add_run(p, "m", {tasks[0]: "1", tasks[1]: {"raw_text": "2", "parsed": {"direct_answer": "2"}},
                         tasks[2]: {"raw_text": None, "error": "timeout: no reply"}})
        assert score_answers(p, "fs-match").written == 3
        with p.read() as s:
            kept = dict(raw_rows(s, "SELECT id, content_sha256 FROM answer"))
            kept_truths = dict(raw_rows(s, "SELECT id, truth_sha256 FROM task"))
        downgrade(p, BEFORE)                           # as an older fieldstudio left the file
        with p.engine.connect() as conn:
            assert "content_sha256" not in {c["name"] for c in inspect(conn).get_columns("answer")}
            assert "truth_sha256" not in {c["name"] for c in inspect(conn).get_columns("task")}
            assert conn.execute(text("SELECT count(*) FROM answer")).scalar() == 3
            assert conn.execute(text("SELECT count(*) FROM score")).scalar() == 3
    with Project.open(path) as p:
        assert p.migrated_from == BEFORE
        with p.read() as s:
            filled = raw_rows(s, "SELECT id, raw_text, parsed, error, content_sha256 FROM answer")
            assert dict(raw_rows(s, "SELECT id, truth_sha256 FROM task")) == kept_truths
        assert {r[0]: r[4] for r in filled} == kept
        assert all(sha == answer_sha(raw, parsed, error) for _, raw, parsed, error, sha in filled)
        again = score_answers(p, "fs-match")
        assert (again.current, again.stale, again.written) == (3, 0, 0)
