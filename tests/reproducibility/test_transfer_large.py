"""A record larger than one SQL statement's parameters: 70,000 tasks and media files are looked up in chunks, so a
PostgreSQL project (at most 65,535 parameters a statement) answers `runs import` and `runs verify` with the verdict
(the tasks and files it lacks), not 'the database failed'."""

from __future__ import annotations

import hashlib
import json

import pytest

from fieldstudio.reproducibility import record, transfer, verify
from fieldstudio.store.project import Project

N = 70_000


def _big_record() -> record.RunRecord:
    lines = [{"type": "header", "schema": record.SCHEMA, "schema_version": record.SCHEMA_VERSION,
              "run": {"id": "a" * 32, "name": "big"}, "project": "elsewhere", "project_path": None}]
    lines += [{"type": "task", "id": f"{i:032x}", "external_id": f"q-{i}", "source": "bench", "sha256": f"{i:064x}"}
              for i in range(N)]
    lines += [{"type": "media", "id": f"{i:032x}", "file_name": f"{i}.mp4", "sha256": f"{i:064x}"} for i in range(N)]
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    end = {"type": "end", "lines": len(lines), "sha256": hashlib.sha256(body).hexdigest()}
    return record.parse_record(body + json.dumps(end).encode())


def test_import_and_verify_of_70000_tasks_and_files_on_postgresql_give_the_verdict(pg_url):
    rec = _big_record()
    with Project.create(pg_url, name="empty") as project:
        with pytest.raises(transfer.ImportRefused, match=f"lacks {N:,} tasks|lacks {N} tasks"):
            transfer.import_run(project, rec)
        result = verify.verify_record(rec, project, frames=False)
    assert not result.identical
    assert sum(d.startswith("media ") and "not in this project" in d for d in result.differences) == N
    assert any(d.startswith("task q-0") for d in result.differences)
