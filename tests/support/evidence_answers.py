"""Two answer sources over segment-linked tasks of the hand-written fixture video (tests/support/annotation_fixtures.py),
scored by hand, for the tests of accuracy split by evidence coverage (compare, report, CLI, Summary tab).

Tasks: seg-1 linked to frames 10-19, seg-2 to frames 0-4, seg-3 to frames 20-25, free (no evidence).
"sees": seg-1 sent frame 12 (saw, 1.0), seg-2 frame 2 (saw, 0.0), seg-3 frame 27 (never saw, 0.0), free (1.0).
"misses": seg-1 frame 5 (never saw, 0.0), seg-2 frame 8 (never saw, 0.0), seg-3 no frames recorded (unknown, 1.0),
free answered but never scored.
"""

from __future__ import annotations

from fieldstudio.annotations import annotation_records as ann
from fieldstudio.store.models import Answer, Score, Task
from tests.support.annotation_fixtures import VIDEO_ID, hand_pts
from tests.support.scoring_fixtures import add_run, scored_now

SCORER = "fs-match"
SPLIT = {  # (source, status): (answers, scored, mean, accuracy), by hand from the module docstring
    ("misses", "never saw"): (2, 2, 0.0, 0.0), ("misses", "unknown"): (1, 1, 1.0, 1.0),
    ("misses", "no evidence"): (1, 0, None, None),
    ("sees", "saw"): (2, 2, 0.5, 0.5), ("sees", "never saw"): (1, 1, 0.0, 0.0), ("sees", "no evidence"): (1, 1, 1.0, 1.0),
}


def _frames(*indices: int) -> list[dict]:
    return [{"media_id": VIDEO_ID, "frame_index": i, "pts_s": hand_pts(i) / 90000, "sha256": "0" * 64} for i in indices]


def add_evidence_runs(project) -> dict[str, str]:  # noqa: ANN001 - Project holding add_test_media's media
    """Add the tasks, runs and scores of the module docstring; returns {external id: task id}."""
    ids = {}
    spans = {"seg-1": (10, 19), "seg-2": (0, 4), "seg-3": (20, 25)}
    segments = {ext: ann.add_segment(project, VIDEO_ID, None, a, end_frame=b) for ext, (a, b) in spans.items()}
    with project.write() as s:
        for ext in ("seg-1", "seg-2", "seg-3", "free"):
            link = ({"annotation_link": {"kind": "segment_range", "annotation_id": segments[ext]}}
                    if ext in segments else None)
            t = Task(external_id=ext, query=f"question {ext}", answer_type="time_range" if link else "text",
                     ground_truth=f"truth {ext}", ground_truth_extra=link, category="cat")
            s.add(t)
            s.flush()
            ids[ext] = t.id
    plan = {"sees": {"seg-1": (_frames(12), 1.0), "seg-2": (_frames(2), 0.0), "seg-3": (_frames(27), 0.0),
                     "free": (_frames(1), 1.0)},
            "misses": {"seg-1": (_frames(5), 0.0), "seg-2": (_frames(8), 0.0), "seg-3": (None, 1.0),
                       "free": ([], None)}}
    for source, answers in plan.items():
        run = add_run(project, source, {ids[ext]: {"raw_text": f"{source} {ext}", "frames": frames}
                                        for ext, (frames, _) in answers.items()})
        with project.write() as s:
            by_task = {a.task_id: a.id for a in s.query(Answer).filter(Answer.run_id == run)}
            for ext, (_, value) in answers.items():
                if value is not None:
                    answer_id = by_task[ids[ext]]
                    s.add(Score(answer_id=answer_id, scorer=SCORER, **scored_now(s, answer_id, SCORER),
                                value=value, correct=value > 0.5, explanation="by hand"))
    return ids
