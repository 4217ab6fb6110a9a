"""`runs verify`: a record re-checked against the project and this machine names every difference, one line each."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess

from fieldstudio.media.decoders import decoder_versions
from fieldstudio.reproducibility import record, verify
from fieldstudio.tasks.task_records import update_task
from tests.support.video_fixtures import _ffmpeg


def _rewrite(path, lines) -> None:
    """Write ``lines`` as a record with a matching end line (a record edited on purpose, still readable)."""
    body = b"".join(json.dumps(line, sort_keys=True, separators=(",", ":")).encode() + b"\n" for line in lines)
    end = {"type": "end", "lines": body.count(b"\n"), "sha256": hashlib.sha256(body).hexdigest()}
    path.write_bytes(body + json.dumps(end).encode() + b"\n")


def _verify(recorded_run, tmp_path, **kw) -> verify.Verification:
    path = tmp_path / "run.jsonl"
    record.write_record(recorded_run.project, recorded_run.run_id, path)
    return verify.verify_record(record.read_record(path), recorded_run.project, **kw)


def test_the_record_of_a_run_verifies_on_the_machine_that_made_it(recorded_run, tmp_path):
    result = _verify(recorded_run, tmp_path)
    assert result.differences == []
    # 2 media files, 5 distinct frames made again (0, 30 and 59 of the MKV, 0 and 30 of the MOV), 2 tasks, 2 answers
    assert result.checked["media files"] == 2 and result.checked["frames"] == 5
    assert result.checked["tasks"] == 2 and result.checked["answers"] == 2


def test_a_changed_media_file_is_named(recorded_run, tmp_path):
    path = tmp_path / "run.jsonl"
    record.write_record(recorded_run.project, recorded_run.run_id, path)
    clip = recorded_run.files["h264.mov"]
    # the same clip re-encoded at another quality: same name, same frame count, other bytes
    redone = tmp_path / "redone.mov"
    subprocess.run([_ffmpeg(), "-v", "error", "-y", "-i", str(clip), "-c:v", "libx264", "-crf", "40", str(redone)],
                   check=True)
    shutil.copy(redone, clip)
    result = verify.verify_record(record.read_record(path), recorded_run.project)
    assert any(d.startswith("media h264.mov: the file changed") for d in result.differences), result.differences
    assert not any("h264.mkv" in d for d in result.differences)
    assert "2 frame(s) sent of h264.mov not made again: the file is missing or changed here" in result.differences


def test_a_frame_whose_bytes_differ_says_which_decoder_versions_differ(recorded_run, tmp_path):
    path = tmp_path / "run.jsonl"
    lines = [json.loads(line) for line in record.record_bytes(recorded_run.project, recorded_run.run_id).splitlines()]
    for line in lines:
        if line["type"] == "frame" and line["file_name"] == "h264.mkv" and line["frame_index"] == 0:
            line["sha256"] = "0" * 64
        if line["type"] == "session":
            line["versions"]["pyav"] = "1.0.0"
    _rewrite(path, lines[:-1])
    result = verify.verify_record(record.read_record(path), recorded_run.project)
    here = decoder_versions()["pyav"]
    assert f"decoder version differs: pyav 1.0.0 in the record, {here} here" in result.differences
    (frame,) = [d for d in result.differences if d.startswith("frame 0 of h264.mkv")]
    assert "the record 000000000000…" in frame and f"pyav 1.0.0 in the record, {here} here" in frame


def test_a_changed_ground_truth_names_the_task_and_the_task_set(recorded_run, tmp_path):
    path = tmp_path / "run.jsonl"
    record.write_record(recorded_run.project, recorded_run.run_id, path)
    update_task(recorded_run.project, recorded_run.tasks["t2"], ground_truth="6")
    result = verify.verify_record(record.read_record(path), recorded_run.project, frames=False)
    assert len(result.differences) == 2, result.differences
    assert result.differences[0].startswith("task t2: changed since the record (ground_truth: SHA-256")
    assert result.differences[1].startswith("the task set's SHA-256 differs")


def test_a_changed_judge_template_is_named(recorded_run, tmp_path, monkeypatch):
    path = tmp_path / "run.jsonl"
    lines = [json.loads(line) for line in record.record_bytes(recorded_run.project, recorded_run.run_id).splitlines()]
    scoring = next(line for line in lines if line["type"] == "scoring")
    prompts = tmp_path / "resources" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "judge.txt").write_text("Is {answer} right?", encoding="utf-8")
    scoring["judge_files"] = {"benchmark": None, "files": [{"file": "judge.txt", "sha256": "a" * 64}]}
    _rewrite(path, lines[:-1])
    monkeypatch.setattr(verify, "resources_dir", lambda: tmp_path / "resources")
    result = verify.verify_record(record.read_record(path), recorded_run.project, frames=False)
    here = hashlib.sha256(b"Is {answer} right?").hexdigest()
    assert result.differences == [f"judge file judge.txt: SHA-256 {here[:12]}… here, {'a' * 12}… in the record"]
