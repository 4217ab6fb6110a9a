"""Hand-made or re-sealed records (the `end` line matches, the lines do not hold together): refused with the line and
the reason, by `parse_record`, `runs verify` and `runs import`, never a traceback, and nothing written."""

from __future__ import annotations

import hashlib
import json

import pytest
from sqlalchemy import func, select
from typer.testing import CliRunner

from fieldstudio.cli.app import app
from fieldstudio.reproducibility import record
from fieldstudio.store.models import Answer, Run


def _lines(recorded_run) -> list[dict]:
    data = record.record_bytes(recorded_run.project, recorded_run.run_id)
    return [json.loads(line) for line in data.decode("utf-8").splitlines()[:-1]]


def _sealed(lines: list) -> bytes:
    """The lines (dicts, or raw bytes) with a matching `end` line, as someone re-sealing an edited record would."""
    body = b"".join((line if isinstance(line, bytes) else json.dumps(line).encode()) + b"\n" for line in lines)
    end = {"type": "end", "lines": body.count(b"\n"), "sha256": hashlib.sha256(body).hexdigest()}
    return body + json.dumps(end).encode() + b"\n"


def _first(lines, kind):
    return next(line for line in lines if line["type"] == kind)


def _edit(kind, change):
    def apply(lines):
        change(_first(lines, kind))
        return lines
    return apply


EDITS = {
    "run is a text": (_edit("header", lambda h: h.update(run="x")), r"line 1 \(header\): its 'run' is not an object"),
    "task without id": (_edit("task", lambda t: t.pop("id")), r"\(task\): its 'id' is missing"),
    "task id a number": (_edit("task", lambda t: t.update(id=123)), r"\(task\): its 'id' is missing or not a text"),
    "answer of no task": (_edit("answer", lambda a: a.update(task_id="nope")),
                          r"\(answer\): its 'task_id' 'nope' names no task line"),
    "score of no answer": (_edit("score", lambda s: s.update(answer_id="nope")),
                           r"\(score\): its 'answer_id' 'nope' names no answer line"),
    "frame of no media": (_edit("frame", lambda f: f.update(media_id="nope")),
                          r"\(frame\): its 'media_id' 'nope' names no media line"),
    "frame index a text": (_edit("frame", lambda f: f.update(frame_index="abc")),
                           r"\(frame\): its 'frame_index' is not a whole number ≥ 0: 'abc'"),
    "longest side a list": (_edit("frame", lambda f: f.update(max_side=[96])), r"its 'max_side' is not a whole number"),
    "quality 500": (_edit("frame", lambda f: f.update(quality=500)), r"its 'quality' is not a JPEG quality from 0 to 100"),
    "bad time": (_edit("header", lambda h: h["run"].update(started_at="yesterday")),
                 r"started_at' is not an ISO 8601 time: 'yesterday'"),
    "answer twice": (lambda lines: lines + [_first(lines, "answer")], r"\(answer\): answer \w+ appears twice"),
    "end in the middle": (lambda lines: lines + [{"type": "end", "lines": 1}], r"unknown line type 'end'"),
    "nested too deep": (lambda lines: lines + [b"[" * 50_000 + b"]" * 50_000], r"nested deeper than"),
}


@pytest.mark.parametrize("name", list(EDITS))
def test_a_resealed_record_that_does_not_hold_together_is_refused_naming_the_line(recorded_run, name):
    edit, message = EDITS[name]
    data = _sealed(edit(_lines(recorded_run)))
    with pytest.raises(record.RecordError, match=message):
        record.parse_record(data)


def test_the_unedited_record_resealed_the_same_way_still_reads(recorded_run):
    rec = record.parse_record(_sealed(_lines(recorded_run)))
    assert len(rec.of("frame")) == len(_lines(recorded_run)) - len(
        [line for line in _lines(recorded_run) if line["type"] != "frame"])


def test_verify_and_import_of_a_hand_made_record_exit_2_with_one_line_and_write_nothing(recorded_run, tmp_path):
    lines = _lines(recorded_run)
    _first(lines, "answer")["task_id"] = "nope"
    path = tmp_path / "edited.jsonl"
    path.write_bytes(_sealed(lines))
    project = recorded_run.project
    with project.read() as s:
        before = (s.scalar(select(func.count()).select_from(Run)), s.scalar(select(func.count()).select_from(Answer)))
    runner = CliRunner()
    for args in (["runs", "verify", str(path), "--no-frames"], ["runs", "import", str(project.path), str(path)]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, result.output
        assert result.exception is None or isinstance(result.exception, SystemExit)
        text = result.output.strip()
        assert "edited.jsonl" in text and "names no task line" in text and len(text.splitlines()) == 1
    with project.read() as s:
        after = (s.scalar(select(func.count()).select_from(Run)), s.scalar(select(func.count()).select_from(Answer)))
    assert after == before


def test_a_record_larger_than_the_json_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    path = tmp_path / "big.jsonl"
    path.write_bytes(b"x" * 2048)
    monkeypatch.setattr(record, "MAX_JSON_BYTES", 1024)
    with pytest.raises(record.RecordError, match=r"big.jsonl: 2,048 bytes, larger than the 1,024"):
        record.read_record(path)
