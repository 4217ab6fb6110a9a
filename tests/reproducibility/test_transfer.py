"""`runs export` / `runs import`: a run moves with its answers, frames, scores and record; refused when the target
lacks tasks or media; a second import adds nothing."""

from __future__ import annotations

import hashlib
import json

import pytest
from sqlalchemy import select

from fieldstudio.reproducibility import record, transfer, verify
from fieldstudio.scoring.service import current_scores
from fieldstudio.store.models import Answer, Run
from fieldstudio.store.project import Project
from tests.support.run_fixtures import add_media, add_task


@pytest.fixture
def exported(recorded_run, tmp_path):
    path = tmp_path / "export.jsonl"
    record.write_record(recorded_run.project, recorded_run.run_id, path)
    return path


def _target(tmp_path, recorded_run, *, media=("h264.mkv", "h264.mov"), tasks=("t1", "t2"), **fields) -> Project:
    """A second project holding the same files (other media ids) and the tasks made again (other task ids)."""
    target = Project.create(tmp_path / "target.fieldstudio")
    ids = add_media(target, *(recorded_run.files[name] for name in media))
    truth = {"t1": ("how many?", "h264.mkv", "4"), "t2": ("how many now?", "h264.mov", "5")}
    for ext in tasks:
        query, name, answer = truth[ext]
        add_task(target, query, [(name, ids.get(name))], external_id=ext, source="manual",
                 **{"ground_truth": answer, **fields.get(ext, {})})
    return target


def test_import_moves_answers_frames_and_scores_and_the_record_verifies_there(recorded_run, exported, tmp_path):
    target = _target(tmp_path, recorded_run)
    outcome = transfer.import_run(target, record.read_record(exported))
    assert outcome.added == {"run": 1, "answer": 2, "score": 2}
    with target.read() as s:
        answers = list(s.scalars(select(Answer).where(Answer.run_id == recorded_run.run_id)))
    with recorded_run.project.read() as s:
        source = {a.id: a for a in s.scalars(select(Answer).where(Answer.run_id == recorded_run.run_id))}
    target_media = {m for a in answers for m in (f["media_id"] for f in a.frames)}
    assert target_media.isdisjoint(recorded_run.media.values())       # renamed to the target's media ids
    for a in answers:
        assert a.raw_text == source[a.id].raw_text
        assert [f["sha256"] for f in a.frames] == [f["sha256"] for f in source[a.id].frames]
    scores = current_scores(target, "fs-match")
    # the target's tasks say the same: the scores moved stand there (same answer, ground truth and scorer hashes)
    assert len(scores) == 2 and scores["stale_reason"].isna().all() and sorted(scores["value"]) == [0.0, 1.0]
    # the record written in the target verifies there: same files, same frames, same tasks
    again = tmp_path / "again.jsonl"
    record.write_record(target, recorded_run.run_id, again)
    assert verify.verify_record(record.read_record(again), target).differences == []
    target.close()


def test_a_second_import_adds_nothing_and_says_so(recorded_run, exported, tmp_path):
    target = _target(tmp_path, recorded_run)
    transfer.import_run(target, record.read_record(exported))
    again = transfer.import_run(target, record.read_record(exported))
    assert again.nothing_added and "is already in the project: nothing added" in again.describe()
    with target.read() as s:
        assert len(list(s.scalars(select(Answer.id)))) == 2
    target.close()


def test_import_is_refused_naming_the_missing_task_and_media(recorded_run, exported, tmp_path):
    target = _target(tmp_path, recorded_run, media=("h264.mkv",), tasks=("t1",))
    with pytest.raises(transfer.ImportRefused) as refused:
        transfer.import_run(target, record.read_record(exported))
    message = str(refused.value)
    assert "1 task of the run (t2): import the task set first" in message
    assert "1 media file (h264.mov (SHA-256" in message and "Nothing was imported." in message
    with target.read() as s:
        assert list(s.scalars(select(Answer.id))) == []
    target.close()


def test_import_into_its_own_project_adds_nothing(recorded_run, exported):
    outcome = transfer.import_run(recorded_run.project, record.read_record(exported))
    assert outcome.nothing_added


def test_a_record_whose_answers_belong_to_another_run_here_is_refused_and_writes_nothing(recorded_run, exported):
    # the run's id edited (the answers' ids kept): the project holds those answers under its own run
    data = exported.read_bytes().decode("utf-8").splitlines()[:-1]
    lines = [json.loads(line) for line in data]
    lines[0]["run"]["id"] = "f" * 32
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    edited = record.parse_record(body + json.dumps({"type": "end", "lines": len(lines),
                                                    "sha256": hashlib.sha256(body).hexdigest()}).encode())
    with pytest.raises(transfer.ImportRefused, match=r"already holds 2 answers of the record \(\w{8}, \w{8}\) under "
                                                     r"another run"):
        transfer.import_run(recorded_run.project, edited)
    with recorded_run.project.read() as s:
        assert s.get(Run, "f" * 32) is None
        assert set(s.scalars(select(Answer.run_id))) == {recorded_run.run_id}


def test_scores_of_a_linked_ground_truth_stay_current_in_a_project_whose_marks_have_other_ids(recorded_run, tmp_path):
    """t1's ground truth is linked to a mark (an annotation id of this project); the target's same task is linked to
    its own mark: the same task, so the scores moved stand there, while a task that really differs is named."""
    from fieldstudio.scoring.service import score_answers
    from fieldstudio.tasks.task_records import update_task

    link = {"kind": "count", "mode": "max_per_frame", "start_frame": 0, "end_frame": 10}
    update_task(recorded_run.project, recorded_run.tasks["t1"],
                ground_truth_extra={"annotation_link": {**link, "label_id": "a" * 32, "media_id": "b" * 32}})
    score_answers(recorded_run.project, "fs-match", [recorded_run.run_id])        # t1's score again, current
    path = tmp_path / "export.jsonl"
    record.write_record(recorded_run.project, recorded_run.run_id, path)
    target = _target(tmp_path, recorded_run, t1={"ground_truth_extra": {"annotation_link": {
        **link, "label_id": "c" * 32, "media_id": "d" * 32}}}, t2={"ground_truth": "6"})
    outcome = transfer.import_run(target, record.read_record(path))
    assert outcome.notes == ["task t2 differs from the record's (its scores will read as stale)"]
    scores = current_scores(target, "fs-match").set_index("task_id")
    with target.read() as s:
        from fieldstudio.store.models import Task

        ids = {t.external_id: t.id for t in s.scalars(select(Task))}
    assert scores.loc[ids["t1"], "stale_reason"] is None
    assert "ground truth changed" in scores.loc[ids["t2"], "stale_reason"]
    target.close()
