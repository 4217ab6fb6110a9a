"""A run's reproducibility record: every value checked against what the fake server received, hashlib on the files,
and the libraries' own version attributes."""

from __future__ import annotations

import hashlib
import json

import av
import cv2
import numpy
import PIL
import pytest

from fieldstudio.inference.runs import run_context
from fieldstudio.reproducibility import record
from fieldstudio.tasks.task_records import update_task
from tests.support.run_fixtures import jpeg_of


def _lines(data: bytes) -> list[dict]:
    return [json.loads(line) for line in data.decode("utf-8").splitlines()]


def test_record_holds_each_frame_sent_with_the_hash_of_the_bytes_the_server_received(recorded_run, fake_openai):
    lines = _lines(record.record_bytes(recorded_run.project, recorded_run.run_id))
    frames = [line for line in lines if line["type"] == "frame"]
    received = [hashlib.sha256(jpeg_of(url)).hexdigest() for r in fake_openai.chat_requests() for url in r.image_urls()]
    assert len(frames) == 5 and sorted(f["sha256"] for f in frames) == sorted(received)
    file_sha = {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in recorded_run.files.items()}
    for f in frames:
        assert f["media_sha256"] == file_sha[f["file_name"]]
        assert f["bytes"] > 0 and f["quality"] and f["session"] == 0
        # 320x192 with its longest side at most 96 px: 96 x round(192 * 96 / 320) = 96 x 58
        assert (f["width"], f["height"], f["max_side"]) == (96, 58, 96)
    # 1 frame/s of the 60-frame 30 fps clips: the frames shown at 0 s and 1 s, and for a stream whose span the
    # container makes longer than 2 s (the MKV here) the frame shown at 2 s, its last one
    assert sorted(f["frame_index"] for f in frames if f["file_name"] == "h264.mkv") == [0, 30, 59]
    assert sorted(f["frame_index"] for f in frames if f["file_name"] == "h264.mov") == [0, 30]
    media = {m["file_name"]: m for m in lines if m["type"] == "media"}
    assert {name: m["sha256"] for name, m in media.items()} == file_sha


def test_record_names_versions_model_strategy_seed_and_scoring(recorded_run):
    lines = _lines(record.record_bytes(recorded_run.project, recorded_run.run_id))
    assert [line["type"] for line in lines][0] == "header" and lines[-1]["type"] == "end"
    order = [record.LINE_TYPES.index(line["type"]) for line in lines]
    assert order == sorted(order)                      # the documented order of line types
    header = lines[0]
    assert header["schema"] == "fieldstudio.run-record" and header["schema_version"] == 1
    assert header["run"]["strategy"] == "fieldworkarena"
    assert header["run"]["params"]["strategy_params"] == {"max_side": 96}
    assert header["profile"]["model"] == "fake-vlm" and header["profile"]["params"]["seed"] == 7
    (session,) = [line for line in lines if line["type"] == "session"]
    assert session["versions"]["pyav"] == av.__version__ and session["versions"]["opencv"] == cv2.__version__
    assert session["versions"]["pillow"] == PIL.__version__ and session["versions"]["numpy"] == numpy.__version__
    assert session["versions"]["libav"]["libavcodec"] == ".".join(map(str, av.library_versions["libavcodec"]))
    assert session["model"] == "fake-vlm" and session["seed"] == 7
    assert session["served"]["listed"] == ["fake-vlm"]          # what the fake server's GET /v1/models says
    assert "/props" in session["served"]["not_offered"]          # it has no /props: said so, not guessed
    (scoring,) = [line for line in lines if line["type"] == "scoring"]
    assert scoring["scorer"] == "fs-match" and scoring["judge"] is None and scoring["answers_scored"] == 2
    scores = [line for line in lines if line["type"] == "score"]
    assert len(scores) == 2 and {s["scorer_sha256"] for s in scores} == {scoring["scorer_sha256"]}


def test_end_line_counts_and_hashes_the_lines_before_it(recorded_run):
    data = record.record_bytes(recorded_run.project, recorded_run.run_id)
    body, end = data.rstrip(b"\n").rsplit(b"\n", 1)
    end = json.loads(end)
    assert end["lines"] == body.count(b"\n") + 1
    assert end["sha256"] == hashlib.sha256(body + b"\n").hexdigest()
    with pytest.raises(record.RecordError, match="cut or edited"):
        record.parse_record(data.replace(b'"fake-vlm"', b'"other-vlm"', 1))
    with pytest.raises(record.RecordError, match="no 'end' line|not JSON"):
        record.parse_record(data[: len(data) // 2])


def test_task_hash_is_the_documented_sha256_and_follows_the_ground_truth(recorded_run):
    project, t1 = recorded_run.project, recorded_run.tasks["t1"]
    (line,) = record.task_lines(project, [t1])
    mkv_sha = hashlib.sha256(recorded_run.files["h264.mkv"].read_bytes()).hexdigest()
    documented = json.dumps(["manual", "t1", "how many?", "free_text", "4", None, None, None, [["h264.mkv", mkv_sha]]],
                            sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    assert line["sha256"] == hashlib.sha256(documented.encode("utf-8")).hexdigest()
    update_task(project, t1, ground_truth="3")
    assert record.task_lines(project, [t1])[0]["sha256"] != line["sha256"]


def test_a_run_from_before_records_has_no_session_and_says_so(recorded_run):
    with recorded_run.project.write() as s:
        from fieldstudio.store.models import Run

        run = s.get(Run, recorded_run.run_id)
        run.params = {k: v for k, v in run.params.items() if k != run_context.RECORD_KEY}
    lines = _lines(record.record_bytes(recorded_run.project, recorded_run.run_id))
    assert not [line for line in lines if line["type"] in ("session", "scoring")]
    assert {line["session"] for line in lines if line["type"] == "answer"} == {None}


def test_task_hash_leaves_out_the_ids_a_linked_ground_truth_has_in_one_project():
    """The same segment-linked task in two projects: its annotation, media and label ids differ, its hash does not;
    the kind of link and the value it gives still count."""
    def task(annotation_id: str, mode: str = "objects", truth: str = "12.5") -> dict:
        return {"source": "manual", "external_id": "time-04", "query": "How long?", "answer_type": "duration",
                "ground_truth": truth, "ground_truth_extra": {"annotation_link": {
                    "annotation_id": annotation_id, "media_id": annotation_id[::-1], "kind": "segment_duration",
                    "mode": mode}}, "inputs": [{"name": "a.mp4", "media_sha256": "ab" * 32}]}

    assert record.task_sha(task("e86887dc")) == record.task_sha(task("552207a4"))
    assert record.task_sha(task("e86887dc")) != record.task_sha(task("e86887dc", mode="frames"))
    assert record.task_sha(task("e86887dc")) != record.task_sha(task("e86887dc", truth="13.0"))
