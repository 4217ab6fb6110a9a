"""One member of a team working on one shared project, run as a separate process by
``tests/store/test_changes_team_conflicts.py``:

    python -m tests.support.team_workers PROJECT_URL GO_FILE WORKER SEED SECONDS

It waits for GO_FILE, then for SECONDS makes random edits with ``random.Random(SEED)``: moves a box from a read
made a moment before (a window's stale read), adds a box, rates an item as its own rater, edits a task from an
earlier read. Every attempt is printed as one JSON line: the op, the row, the version it was made from, what
it wrote and whether it was committed or refused (with who and when the refusal named).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time
from pathlib import Path

from fieldstudio.annotations import edits
from fieldstudio.annotations import annotation_records as ann
from fieldstudio.ratings import rating_records as ratings
from fieldstudio.store.changes import EditConflict
from fieldstudio.store.project import Project
from fieldstudio.tasks import task_records as tasks


def main(url: str, go: Path, worker: str, seed: int, seconds: float) -> None:
    os.environ["FIELDSTUDIO_USER"] = worker
    rng = random.Random(seed)
    with Project.open(url) as p:
        boxes = [r.id for r in ann.list_annotations(p, kinds=["box"])]
        media_id = ann.get_annotation(p, boxes[0]).media_id
        rating_set = ratings.list_rating_sets(p)[0].name
        items = [i.id for i in ratings.list_items(p, rating_set)]
        task_ids = [t.id for t in tasks.list_tasks(p)]
        while not go.exists():
            time.sleep(0.005)
        end = time.monotonic() + seconds
        n = 0
        while time.monotonic() < end:
            n += 1
            op = rng.choices(["move", "add", "rate", "task"], weights=[6, 1, 2, 1])[0]
            rec: dict = {"op": op, "worker": worker, "n": n}
            try:
                if op == "move":
                    box = rng.choice(boxes)
                    read = ann.get_annotation(p, box)
                    time.sleep(rng.uniform(0, 0.03))            # the user drags for a moment
                    x, y = rng.randrange(0, 370), rng.randrange(0, 270)
                    while [float(x), float(y)] == list(read.geometry[:2]):  # an edit that changes nothing makes no
                        x, y = rng.randrange(0, 370), rng.randrange(0, 270)  # version (nothing to flush)
                    rec |= {"id": box, "from": read.version, "geometry": [float(x), float(y), float(x + 20), float(y + 20)]}
                    edits.MoveBox(p, box, (x, y, 20, 20), expected_version=read.version).do()
                elif op == "add":
                    rec["id"] = ann.add_box(p, media_id, (rng.randrange(0, 380), rng.randrange(0, 280), 10, 10),
                                            author=worker)
                elif op == "rate":
                    item = rng.choice(items)
                    verdict = rng.choice(["accept", "reject", "unsure"])
                    rec |= {"id": item, "verdict": verdict}
                    ratings.record_rating(p, item, worker, verdict)
                else:
                    task = rng.choice(task_ids)
                    read = tasks.get_task(p, task)
                    time.sleep(rng.uniform(0, 0.03))
                    truth = str(rng.randrange(0, 1000))
                    while truth == read.ground_truth:  # the same value is no change: no UPDATE, no new version
                        truth = str(rng.randrange(0, 1000))
                    rec |= {"id": task, "from": read.version, "ground_truth": truth}
                    tasks.UpdateTask(p, task, ground_truth=truth, expected_version=read.version).do()
                rec["result"] = "ok"
            except EditConflict as exc:
                rec |= {"result": "refused", "by": exc.who, "at": exc.when.isoformat() if exc.when else None,
                        "now_version": exc.version}
            print(json.dumps(rec), flush=True)


if __name__ == "__main__":
    url, go, worker, seed, seconds = sys.argv[1:]
    main(url, Path(go), worker, int(seed), float(seconds))
