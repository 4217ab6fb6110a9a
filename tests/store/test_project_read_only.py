"""A project on a read-only medium opens read-only (issue 36 item 5): the CLI's read commands work, a write says so
in one line with exit 2. The medium is a real tmpfs remounted read-only (root, as here and in CI); elsewhere the
test is skipped, saying why."""

from __future__ import annotations

import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from fieldstudio.core.errors import ProjectReadOnly
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import add_test_media


@pytest.fixture
def read_only_medium(tmp_path):
    """A folder on a small tmpfs; ``remount()`` makes it read-only."""
    folder = tmp_path / f"medium-{uuid.uuid4().hex[:6]}"
    folder.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(folder)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip() or 'mount failed'}): needs root")

    def remount() -> None:
        subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)

    try:
        yield folder, remount
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def fieldstudio(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "fieldstudio", *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_a_project_on_a_read_only_medium_reads_and_refuses_writes(read_only_medium, tmp_path):
    folder, remount = read_only_medium
    path = folder / "site.fieldstudio"
    with Project.create(path, name="site") as p:
        add_test_media(p)
    remount()
    with Project.open(path) as p:
        assert p.read_only and p.setting("name") == "site"
        with pytest.raises(ProjectReadOnly, match="is read-only; nothing was changed"):
            p.set_setting("name", "other")
    info = fieldstudio("info", path)
    assert info.returncode == 0 and "media:" in info.stdout.lower() + info.stdout
    tasks = tmp_path / "t.csv"
    tasks.write_text("id,query,answer_type,ground_truth\nq1,How many?,count,2\n")
    refused = fieldstudio("tasks", "import", path, tasks)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.strip() == f"error: {path}: is read-only; nothing was changed"
