"""Eight processes annotate, rate and edit tasks on one PostgreSQL project at once (issue 22, item 3).

Each makes random edits from reads taken a moment before (``tests.support.team_workers``, fixed seeds). Checked from the
workers' own logs against the database afterwards: no lost update (the committed moves of each box form one
unbroken chain of versions and the box holds the last one), every refused edit was a real conflict (another
worker's committed edit had moved the row on from the version it was made from, and the refusal named that
worker), every committed add and rating is there. ``FIELDSTUDIO_TEAM_SECONDS`` sets how long they work (8 s
by default for CI; ``benchmarks/bench_shared_project.py`` runs the 60 s version).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.project import Project
from fieldstudio.tasks import task_records as tasks
from tests.support.annotation_fixtures import PHOTO_ID, add_test_media

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 8


def run_team(url: str, folder: Path, seconds: float, workers: int = WORKERS) -> list[dict]:
    """Seed the project, run the workers together, return every attempt they logged."""
    with Project.create(url) as p:
        add_test_media(p)
        for i in range(12):
            ann.add_box(p, PHOTO_ID, (10 * i, 10, 20, 20), author="seed")
        rs = ratings.create_rating_set(p, "team", "sharp?")
        ratings.add_items(p, rs.name, [PHOTO_ID] + [("a" * 32, f) for f in range(0, 30, 5)])
        for i in range(4):
            tasks.create_task(p, query=f"How many cones in bay {i}?", answer_type="count", ground_truth="1")
    go = folder / "go"
    procs = [subprocess.Popen([sys.executable, "-m", "tests.support.team_workers", url, str(go), f"w{k}", str(1000 + k),
                               str(seconds)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for k in range(workers)]
    go.touch()
    log = []
    for proc in procs:
        out, err = proc.communicate(timeout=seconds + 300)
        assert proc.returncode == 0, err
        log += [json.loads(line) for line in out.splitlines()]
    return log


def check_team(url: str, log: list[dict]) -> dict[str, int]:
    """Assert the properties in the module doc; returns the counts."""
    with Project.open(url) as p:
        moves = defaultdict(list)
        refused = [r for r in log if r["result"] == "refused"]
        for r in log:
            if r["op"] in ("move", "task") and r["result"] == "ok":
                moves[(r["op"], r["id"])].append(r)
        for (op, row_id), done in moves.items():
            chain = sorted(r["from"] for r in done)
            assert chain == list(range(1, len(chain) + 1)), (op, row_id, chain)      # no two from one version
            last = max(done, key=lambda r: r["from"])
            if op == "move":
                now = ann.get_annotation(p, row_id)
                assert now.geometry == last["geometry"] and now.version == len(chain) + 1
                assert now.updated_by == last["worker"]
            else:
                now = tasks.get_task(p, row_id)
                assert now.ground_truth == last["ground_truth"] and now.version == len(chain) + 1
        for r in refused:
            winners = [m for m in moves[(r["op"], r["id"])] if m["from"] == r["from"]]
            assert len(winners) == 1, r                        # someone else committed from that very version
            assert winners[0]["worker"] != r["worker"]
            assert r["now_version"] > r["from"] and r["by"] is not None
        added = [r["id"] for r in log if r["op"] == "add" and r["result"] == "ok"]
        present = {a.id for a in ann.list_annotations(p, kinds=["box"])}
        assert set(added) <= present
        last_verdict = {}
        for r in sorted((r for r in log if r["op"] == "rate"), key=lambda r: r["n"]):
            last_verdict[(r["id"], r["worker"])] = r["verdict"]
        for (item, worker), verdict in last_verdict.items():
            assert ratings.get_rating(p, item, worker).verdict == verdict
    return {"attempts": len(log), "committed": sum(r["result"] == "ok" for r in log), "refused": len(refused),
            "moves committed": sum(len(v) for (op, _), v in moves.items() if op == "move"),
            "task edits committed": sum(len(v) for (op, _), v in moves.items() if op == "task"),
            "boxes added": len(added), "ratings": sum(r["op"] == "rate" for r in log)}


def test_eight_processes_lose_no_update(pg_url, tmp_path):
    seconds = float(os.environ.get("FIELDSTUDIO_TEAM_SECONDS", "8"))
    log = run_team(pg_url, tmp_path, seconds)
    counts = check_team(pg_url, log)
    print(counts)
    assert counts["refused"] > 0                         # the random stale reads did collide
    assert counts["moves committed"] > 0 and counts["boxes added"] > 0 and counts["ratings"] > 0
