"""The command line, run as a user runs it: a subprocess of ``python -m fieldstudio``."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from fieldstudio.media.images import read_image
from tests.conftest import SAMPLE
from tests.video_fixtures import ffmpeg_frame


def run(*args, check=True):
    return subprocess.run([sys.executable, "-m", "fieldstudio", *map(str, args)], capture_output=True, text=True,
                          check=check)


def test_demo_info_and_frame(tmp_path):
    demo = tmp_path / "demo.fieldstudio"
    run("demo", "--no-gui", "--out", demo)
    info = json.loads(run("info", demo, "--json").stdout)
    assert info["media"] == {"image": 4, "video": 3, "document": 1}
    assert set(info) >= {"media", "unreadable", "tasks", "annotations", "ratings", "runs", "answers", "scores"}
    assert set(info["annotations"]) == {"box", "ruler", "segment", "event", "tag"}
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
    assert again.returncode == 1 and "skipped 4 duplicate" in again.stdout
    missing = run("info", tmp_path / "none.fieldstudio", check=False)
    assert missing.returncode == 2 and "no such project file" in missing.stderr
