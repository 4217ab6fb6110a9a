"""Evidence coverage of 886 tasks x 10 sources (30 frames an answer) against a plain pandas pass over the same rows.

Run with ``python benchmarks/bench_evidence.py``. The project holds one 10-minute 30 fps video (its frame table
stored directly: coverage reads the table, not the pixels), 886 time-range tasks (600 linked to a segment of it,
286 with a typed reference range and the video as input) and 10 runs whose answers were each sent 30 frames
(uniform, each run with its own offset). Figure (issue 33, speed):

- ``compare.evidence.answer_coverage`` over the 8,860 answers (what Compare, the Summary and the report read)
  against a plain pandas pass that reads the same answer rows and the segments from SQLite, explodes the frames
  and flags each answer whose frames fall in its task's span (the linked tasks only: it does not parse references,
  compute distances or say why an answer is unknown), the median of 3 passes (target <= 10x).

Both results are checked to agree on the linked tasks before the ratio is printed.
"""

from __future__ import annotations

import json
import random
import sqlite3
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from benchmarks import targets, work_folders  # noqa: E402
from fieldstudio.compare import evidence  # noqa: E402
from fieldstudio.media import frame_table, video_index  # noqa: E402
from fieldstudio.store.models import Annotation, Answer, Media, Run, Task, TaskInput, new_id  # noqa: E402
from fieldstudio.store.project import Project  # noqa: E402

N_TASKS, N_LINKED, N_SOURCES, FRAMES_SENT, PASSES = 886, 600, 10, 30, 3
FPS, N_FRAMES = 30, 18_000


def build(path: Path) -> Project:
    """The project of the module docstring, made with plain inserts in a few transactions."""
    rng = random.Random(33)
    p = Project.create(path)
    media_id = new_id()
    with p.write() as s:
        s.add(Media(id=media_id, kind="video", path="clip.mp4", file_name="clip.mp4", width=1280, height=720,
                    time_base_num=1, time_base_den=FPS * 1000, frame_count=N_FRAMES, index_status="ready",
                    avg_fps=FPS))
    pts = np.arange(N_FRAMES, dtype=np.int64) * 1000
    video_index.store_frame_table(p, media_id, frame_table.FrameTable(pts, pts % 60_000 == 0, Fraction(1, FPS * 1000)))
    task_ids = []
    with p.write() as s:
        for i in range(N_TASKS):
            start = rng.randrange(0, N_FRAMES - 900)
            end = start + rng.randrange(30, 900)
            task_id = new_id()
            if i < N_LINKED:
                ann_id = new_id()
                s.add(Annotation(id=ann_id, media_id=media_id, kind="segment", frame_index=start, pts=start * 1000,
                                 end_frame_index=end, end_pts=end * 1000, geometry=None))
                extra = {"annotation_link": {"kind": "segment_range", "annotation_id": ann_id}}
                truth = f"segment {i}"
            else:
                extra = None
                truth = f"from {start / FPS:.3f} s to {end / FPS:.3f} s"
            s.add(Task(id=task_id, external_id=f"t{i:04d}", query="When?", answer_type="time_range",
                       ground_truth=truth, ground_truth_extra=extra, source="manual"))
            if i >= N_LINKED:
                s.add(TaskInput(task_id=task_id, position=0, name="clip.mp4", media_id=media_id))
            task_ids.append(task_id)
    for k in range(N_SOURCES):
        offset = rng.randrange(0, N_FRAMES // FRAMES_SENT)
        with p.write() as s:
            run = Run(name=f"model-{k}", kind="model", status="done")
            s.add(run)
            s.flush()
            step = N_FRAMES // FRAMES_SENT
            frames = [{"media_id": media_id, "frame_index": (offset + j * step) % N_FRAMES,
                       "pts_s": ((offset + j * step) % N_FRAMES) / FPS, "sha256": "0" * 64} for j in range(FRAMES_SENT)]
            s.add_all([Answer(run_id=run.id, task_id=t, raw_text="x", frames=frames) for t in task_ids])
    return p


def pandas_pass(path: Path) -> pd.Series:
    """answer id -> saw (bool) for the answers of segment-linked tasks, by plain pandas over SQLite rows."""
    con = sqlite3.connect(path)
    try:
        answers = pd.read_sql("SELECT id AS answer_id, task_id, frames FROM answer", con)
        tasks = pd.read_sql("SELECT id AS task_id, ground_truth_extra FROM task", con)
        segments = pd.read_sql("SELECT id AS annotation_id, media_id AS span_media, frame_index AS first, "
                               "end_frame_index AS last FROM annotation", con)
    finally:
        con.close()
    tasks["annotation_id"] = [(json.loads(x) or {}).get("annotation_link", {}).get("annotation_id") if x else None
                              for x in tasks["ground_truth_extra"]]
    spans = tasks.merge(segments, on="annotation_id")[["task_id", "span_media", "first", "last"]]
    answers["frames"] = [json.loads(x) for x in answers["frames"]]
    sent = answers.explode("frames").dropna(subset=["frames"])
    sent = pd.concat([sent[["answer_id", "task_id"]].reset_index(drop=True),
                      pd.DataFrame(sent["frames"].tolist())[["media_id", "frame_index"]]], axis=1)
    sent = sent.merge(spans, on="task_id")
    sent["inside"] = (sent["media_id"] == sent["span_media"]) & sent["frame_index"].between(sent["first"], sent["last"])
    return sent.groupby("answer_id")["inside"].any()


def main() -> None:
    folder = work_folders.fresh_run_folder()
    path = folder / "evidence.fieldstudio"
    t = time.perf_counter()
    p = build(path)
    print(f"built {N_TASKS} tasks x {N_SOURCES} sources, {FRAMES_SENT} frames an answer, "
          f"in {time.perf_counter() - t:.1f} s")
    runs = []
    for _ in range(PASSES):
        t = time.perf_counter()
        ours = evidence.answer_coverage(p)
        mid = time.perf_counter()
        theirs = pandas_pass(path)
        runs.append((mid - t, time.perf_counter() - mid))
    linked = ours[ours["answer_id"].isin(theirs.index)].set_index("answer_id")["evidence"]
    agree = bool(((linked == evidence.SAW) == theirs.reindex(linked.index)).all())
    ratio = statistics.median(a / b for a, b in runs)
    counts = ours["evidence"].value_counts().to_dict()
    print(f"{len(ours):,} answers: answer_coverage {statistics.median(a for a, _ in runs):.3f} s, pandas pass "
          f"{statistics.median(b for _, b in runs):.3f} s ({len(theirs):,} linked answers); statuses {counts}; "
          f"agree on the linked tasks: {agree}")
    if not agree:
        raise SystemExit("answer_coverage and the pandas pass disagree on the linked tasks")
    targets.declare(f"evidence coverage, {N_TASKS} tasks x {N_SOURCES} sources (median of {PASSES})", ratio, 10,
                    better=targets.LOWER, reference="plain pandas pass over the same rows", sizes_reduced=False)
    p.close()
    targets.print_own_table()


if __name__ == "__main__":
    main()
