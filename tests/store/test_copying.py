"""`fieldstudio project copy` SQLite -> PostgreSQL -> SQLite (issue 22, item 4): every row comes back identical,
and `info --json` of the three projects agrees (but for where each one is)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import JSON, DateTime, select

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.models import Answer, Base, Score
from fieldstudio.store.project import Project
from fieldstudio.tasks import task_records as tasks
from tests.support.annotation_fixtures import PHOTO_ID, VIDEO_ID, add_test_media
from tests.support.scoring_fixtures import add_run, add_task

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "fieldstudio", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def _fill(project: Project) -> None:
    add_test_media(project)
    box = ann.add_box(project, VIDEO_ID, (10, 20, 30, 40), frame_index=3, author="ann")
    ann.add_segment(project, VIDEO_ID, None, 2, 9)
    ann.add_tag(project, PHOTO_ID, "wet floor")
    ann.update(project, box, attributes={"occluded": True, "note": "ünïcode"})
    tid = tasks.create_task(project, query="How many people?", answer_type="count", ground_truth="2",
                            inputs=[{"name": "walk.mp4", "media_id": VIDEO_ID, "start_s": 0.5, "end_s": 1.25}])
    t2 = add_task(project, "1.1.0001", "3 m", eval_func="fuzzy_match")
    rs = ratings.create_rating_set(project, "site photos", "sharp and complete", reasons=["blurry", "cut off"])
    ratings.add_items(project, rs.name, [PHOTO_ID, (VIDEO_ID, 4)])
    item = ratings.item_at(project, rs.name, 0)
    ratings.record_rating(project, item.id, "ana", "reject", reasons=["blurry"])
    ratings.record_rating(project, item.id, "bo", "accept")
    run = add_run(project, "model-a", {tid: "2", t2: {"raw_text": "about 3 m", "prompt_tokens": 120,
                                                      "cost_usd": 0.0012, "parsed": {"value": 3}}})
    with project.write() as s:
        answers = {a.task_id: a.id for a in s.scalars(select(Answer).where(Answer.run_id == run))}
        first = Score(answer_id=answers[tid], scorer="exact", scorer_version="1", value=1.0, correct=True,
                      judge=None)
        s.add(first)
        s.flush()
        s.add(Score(answer_id=answers[tid], scorer="exact", scorer_version="1", value=0.0, correct=False,
                    author="cy", reason="counted twice", overrides_id=first.id))
        s.add(Score(answer_id=answers[t2], scorer="judge", scorer_version="2", value=0.5,
                    judge={"raw": "partly", "cost_usd": 0.0003}))


def _dump(project: Project) -> dict[str, list[tuple]]:
    """Every row of every table, times as aware UTC, JSON SQL NULL told apart from a JSON null; media paths left out
    (they move with the file, see store.copying)."""
    out = {}
    with project.read() as s:
        for table in Base.metadata.sorted_tables:
            cols = [c for c in table.columns if not (table.name == "media" and c.name == "path")]
            flags = [c.is_(None) for c in table.columns if isinstance(c.type, JSON)]
            rows = []
            for row in s.execute(select(*cols, *flags).order_by(*table.primary_key.columns)):
                vals = []
                for c, v in zip(cols, row):
                    if isinstance(c.type, DateTime) and isinstance(v, datetime):
                        v = (v.replace(tzinfo=timezone.utc) if v.tzinfo is None else v.astimezone(timezone.utc))
                    vals.append(json.dumps(v, sort_keys=True) if isinstance(c.type, JSON) else v)
                rows.append(tuple(vals) + tuple(row[len(cols):]))
            out[table.name] = rows
    return out


def _info(ref: str) -> dict:
    summary = json.loads(cli("info", ref, "--json").stdout)
    summary.pop("path")
    return summary


def test_copy_round_trip_sqlite_postgresql_sqlite(tmp_path, pg_url):
    src = tmp_path / "site.fieldstudio"
    with Project.create(src, name="Site survey") as p:
        _fill(p)
        before = _dump(p)
    assert all(before[t] for t in ("media", "annotation", "task", "task_input", "rating", "rating_item", "answer",
                                    "score", "frame_index", "change_log", "rating_set", "run"))
    out = cli("project", "copy", str(src), pg_url).stdout
    assert "copied" in out and "password" not in out
    with Project.open(pg_url) as pg:
        assert pg.is_shared
        assert _dump(pg) == before
        # paths relative to the source file's folder are absolute in the shared project
        with pg.read() as s:
            paths = sorted(s.scalars(select(Base.metadata.tables["media"].c.path)))
        assert paths == sorted(str(tmp_path / p) for p in ("clips/new.mp4", "clips/walk.mp4", "photos/site.jpg"))
        # the change counter continues above the copied rows
        box = ann.add_box(pg, PHOTO_ID, (1, 1, 5, 5))
        from fieldstudio.store.changes import changes_since

        with pg.read() as s:
            top = max(r[0] for r in before["change_log"])
            assert [c.row_id for c in changes_since(s, top)] == [box]
        ann.delete(pg, box)
        after_pg = _dump(pg)
    back = tmp_path / "back" / "site.fieldstudio"
    back.parent.mkdir()
    cli("project", "copy", pg_url, str(back))
    with Project.open(back) as p:
        assert _dump(p) == after_pg
    info_src, info_pg, info_back = _info(str(src)), _info(pg_url), _info(str(back))
    assert info_pg == info_src                 # the box added on PostgreSQL is deleted: the counts agree
    assert info_back == info_pg
    assert info_src["name"] == "Site survey" and info_src["scores"] == 3 and info_src["ratings"] == 2


def test_copy_refuses_a_destination_that_holds_work(tmp_path, pg_url):
    src = tmp_path / "a.fieldstudio"
    with Project.create(src) as p:
        add_test_media(p)
    cli("project", "copy", str(src), pg_url)
    done = subprocess.run([sys.executable, "-m", "fieldstudio", "project", "copy", str(src), pg_url], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert "already holds a fieldstudio project" in done.stderr
