"""`project copy` writes a temporary file and moves it into place (issue 36 item 2): a copy killed, or failing for a
full disk, leaves nothing under the destination's name; the same command again completes it; an empty
destination is accepted, one with records refused; `info --json` is identical on both sides."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from fieldstudio.core.errors import ProjectError
from fieldstudio.store import copying
from fieldstudio.store.project import Project
from tests.support.annotation_fixtures import VIDEO_ID, add_test_media
from fieldstudio.annotations import mark_batches

ROOT = Path(__file__).resolve().parents[2]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "fieldstudio", *map(str, args)], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert not check or done.returncode == 0, done.stderr
    return done


def _make(path: Path, boxes: int) -> Path:
    with Project.create(path, name="busy") as p:
        add_test_media(p)
        mark_batches.add_many(p, [mark_batches.NewMark(VIDEO_ID, "box", frame_index=i % 30, geometry=[1.0, 2.0, 10.0 + i % 7, 20.0])
                         for i in range(boxes)])
    return path


@pytest.fixture
def small_source(tmp_path) -> Path:
    """A project with three media and 20 boxes."""
    return _make(tmp_path / "src.fieldstudio", 20)


@pytest.fixture
def busy_source(tmp_path) -> Path:
    """A project with 3,000 boxes: a copy takes long enough to be killed in the middle."""
    return _make(tmp_path / "src.fieldstudio", 3_000)


def _info(ref) -> dict:
    info = json.loads(cli("info", ref, "--json").stdout)
    info.pop("path")
    return info


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".copy-" in p.name)


def test_a_killed_copy_leaves_nothing_and_running_it_again_completes_it(busy_source, tmp_path):
    source = busy_source
    dst = tmp_path / "out" / "dst.fieldstudio"
    dst.parent.mkdir()
    child = subprocess.Popen([sys.executable, "-m", "fieldstudio", "project", "copy", str(source), str(dst)], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not _leftovers(dst.parent) and child.poll() is None:
        time.sleep(0.002)
    assert child.poll() is None, "the copy ended before it could be killed: the test would prove nothing"
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert not dst.exists()                      # no half project under the destination's name
    assert _leftovers(dst.parent)                # the killed process's temporary file ...
    again = cli("project", "copy", source, dst)
    assert "copied" in again.stdout
    assert _leftovers(dst.parent) == []          # ... removed by the next copy
    assert _info(dst) == _info(source)


@pytest.mark.parametrize("kind", ["zero bytes", "new project"])
def test_an_empty_destination_is_accepted(small_source, tmp_path, kind):
    dst = tmp_path / "dst.fieldstudio"
    if kind == "zero bytes":
        dst.write_bytes(b"")                     # what a full disk used to leave
    else:
        cli("new", dst)
    cli("project", "copy", small_source, dst)
    assert _info(dst) == _info(small_source)


def test_a_destination_with_records_is_refused_and_kept(small_source, tmp_path):
    dst = tmp_path / "dst.fieldstudio"
    cli("project", "copy", small_source, dst)
    before = dst.read_bytes()
    done = cli("project", "copy", small_source, dst, check=False)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith("exists and is not an empty project; copy into a new or "
                                                         "empty one")
    assert dst.read_bytes() == before


def test_a_full_disk_during_the_copy_leaves_nothing_and_says_so_in_one_line(small_source, tmp_path, monkeypatch):
    def full(src, dst, progress=None):           # SQLite's own message when the disk fills (SQLITE_FULL)
        raise OperationalError("INSERT", {}, Exception("database or disk is full"))

    monkeypatch.setattr(copying, "copy_project_data", full)
    dst = tmp_path / "dst.fieldstudio"
    with Project.open(small_source) as src, pytest.raises(ProjectError) as caught:
        copying.copy_project(src, dst)
    assert str(caught.value) == f"{dst}: cannot be written (database or disk is full)"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src.fieldstudio"]
