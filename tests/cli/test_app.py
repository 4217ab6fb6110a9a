"""The command line, run as a user runs it: a subprocess of ``python -m fieldstudio``."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from fieldstudio.media.images import read_image
from tests.conftest import SAMPLE
from tests.support.video_fixtures import ffmpeg_frame


def run(*args, check=True):
    return subprocess.run([sys.executable, "-m", "fieldstudio", *map(str, args)], capture_output=True, text=True,
                          check=check)


def test_demo_info_and_frame(tmp_path):
    demo = tmp_path / "demo.fieldstudio"
    run("demo", "--no-gui", "--out", demo)
    info = json.loads(run("info", demo, "--json").stdout)
    assert info["media"] == {"image": 4, "video": 3, "document": 1}
    assert set(info) >= {"media", "unreadable", "tasks", "annotations", "ratings", "runs", "answers", "scores"}
    assert set(info["annotations"]) >= {"box", "ruler", "segment", "event", "tag", "angle", "stopwatch"}
    out = tmp_path / "f.png"
    res = run("frame", demo, "worker_zone_hardhat_vest_from_gif.mp4", "--index", 40, "--out", out)
    assert "2.666667 s" in res.stdout
    clip = SAMPLE / "videos" / "worker_zone_hardhat_vest_from_gif.mp4"
    assert np.abs(read_image(out).astype(int) - ffmpeg_frame(clip, 40).astype(int)).mean() < 1.0


def test_add_reports_unreadable_and_exit_codes(tmp_path):
    p = tmp_path / "p.fieldstudio"
    run("new", p)
    bad = tmp_path / "fake.jpg"
    bad.write_text("not a jpeg")
    res = run("add", p, SAMPLE / "images", bad, check=False)
    assert res.returncode == 0
    assert "imported 4 media (4 images, 0 videos, 0 documents)" in res.stdout
    assert "fake.jpg: is not an image file" in res.stdout
    again = run("add", p, SAMPLE / "images", check=False)
    assert again.returncode == 0 and "skipped 4 duplicate" in again.stdout
    assert "nothing new: every file is in the project already" in again.stdout
    nothing = tmp_path / "empty"
    nothing.mkdir()
    assert run("add", p, nothing, check=False).returncode == 1        # no media at all: still 1
    missing = run("info", tmp_path / "none.fieldstudio", check=False)
    assert missing.returncode == 2 and "no such project file" in missing.stderr


def test_import_tasks_counts_per_category(tmp_path):
    """The 886 FieldWorkArena ground-truth tasks: category counts from the raw ids, not the file names."""
    from collections import Counter

    from tests.support.shared_data import SHARED_DATA

    files = sorted((SHARED_DATA / "fieldworkarena" / "ground_truth").glob("Tasks_*.json"))
    expected = Counter(t["id"][:-5] for f in files for t in json.loads(f.read_text(encoding="utf-8")))
    p = tmp_path / "t.fieldstudio"
    run("new", p)
    res = run("import-tasks", p, *files)
    assert "tasks: 886 created, 0 updated" in res.stdout
    for category, n in expected.items():
        assert f"  {category}: {n}\n" in res.stdout
    assert "no sub-category for: 4.1.0051" in res.stdout
    assert json.loads(run("info", p, "--json").stdout)["tasks"] == 886


def test_demo_again_keeps_the_work_done_in_it_and_rebuild_keeps_the_old_file(tmp_path):
    import sqlite3

    demo = tmp_path / "demo.fieldstudio"
    run("demo", "--no-gui", "--out", demo)
    con = sqlite3.connect(demo)
    before = con.execute("SELECT count(*) FROM annotation WHERE NOT deleted").fetchone()[0]
    con.execute("UPDATE annotation SET deleted = 1 WHERE kind = 'box'")  # a day's edits, as the window makes them
    con.commit()
    after_edits = con.execute("SELECT count(*) FROM annotation WHERE NOT deleted").fetchone()[0]
    con.close()
    assert after_edits < before
    res = run("demo", "--no-gui", "--out", demo)
    assert "it exists: opening it as it is" in res.stdout
    con = sqlite3.connect(demo)
    assert con.execute("SELECT count(*) FROM annotation WHERE NOT deleted").fetchone()[0] == after_edits
    con.close()
    refused = subprocess.run([sys.executable, "-m", "fieldstudio", "demo", "--no-gui", "--reset", "--out", str(demo)],
                             input="n\n", capture_output=True, text=True)
    assert refused.returncode == 1 and not (tmp_path / "demo-previous.fieldstudio").exists()
    assert "not rebuilt" in refused.stdout
    closed = subprocess.run([sys.executable, "-m", "fieldstudio", "demo", "--no-gui", "--reset", "--out", str(demo)],
                            stdin=subprocess.DEVNULL, capture_output=True, text=True)   # no terminal to answer
    assert closed.returncode == 1 and "not rebuilt" in closed.stdout, closed.stdout + closed.stderr
    res = run("demo", "--no-gui", "--reset", "--yes", "--out", demo)
    kept = tmp_path / "demo-previous.fieldstudio"
    assert str(kept) in res.stdout and kept.is_file()
    for path, expected in ((demo, before), (kept, after_edits)):
        con = sqlite3.connect(path)
        assert con.execute("SELECT count(*) FROM annotation WHERE NOT deleted").fetchone()[0] == expected
        con.close()
    # a second reset keeps the first one's copy: the earlier work is never written over
    res = run("demo", "--no-gui", "--reset", "--yes", "--out", demo)
    second = tmp_path / "demo-previous-2.fieldstudio"
    assert str(second) in res.stdout and second.is_file()
    con = sqlite3.connect(kept)
    assert con.execute("SELECT count(*) FROM annotation WHERE NOT deleted").fetchone()[0] == after_edits
    con.close()


def test_window_without_a_display_says_so_instead_of_aborting(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    demo = tmp_path / "demo.fieldstudio"
    res = subprocess.run([sys.executable, "-m", "fieldstudio", "demo", "--out", str(demo)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert res.returncode == 2, res.stderr[-1000:]
    assert "no display" in res.stderr and "xvfb-run" in res.stderr and "Aborted" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    # checked first: nothing is built, and stdout does not say "demo project: ..." for a window never shown
    assert not demo.exists() and res.stdout == ""


def _unfinished(path) -> tuple[int, int, int]:
    """(media, videos whose index is not ready, media without a thumbnail), read with sqlite3 as a bystander."""
    import sqlite3

    with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10) as db:
        return db.execute("SELECT (SELECT count(*) FROM media), (SELECT count(*) FROM media WHERE kind = 'video' AND "
                          "index_status != 'ready'), (SELECT count(*) FROM media WHERE id NOT IN "
                          "(SELECT media_id FROM thumbnail))").fetchone()


def test_add_run_again_after_a_kill_finishes_the_indexes_and_thumbnails(tmp_path):
    """`add` killed (SIGKILL) once its media are stored, before their indexes and thumbnails are all made; the same
    `add` again finishes them, says so and exits 0 (issue 36 item 2)."""
    import os
    import signal
    import time

    p = tmp_path / "k.fieldstudio"
    run("new", p)
    child = subprocess.Popen([sys.executable, "-m", "fieldstudio", "add", str(p), str(SAMPLE / "videos"),
                              str(SAMPLE / "images")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and child.poll() is None:
        try:
            if _unfinished(p)[0] == 7:                  # every media row committed: kill during the rest
                break
        except Exception:                               # the file is being written: look again
            pass
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    left = _unfinished(p)
    again = run("add", p, SAMPLE / "videos", SAMPLE / "images", check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert _unfinished(p) == (7, 0, 0)
    if left[1] or left[2]:                              # the kill left work undone (almost always)
        assert "media added before (frame index, thumbnails): an earlier add was interrupted" in again.stdout
    else:                                               # the kill came after the end
        assert "nothing new" in again.stdout
