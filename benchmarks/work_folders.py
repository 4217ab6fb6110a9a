"""Where the benchmarks keep their files (``benchmarks/_work/``, git-ignored), so that a second run measures
what the first did.

- ``_work/inputs/``: inputs made from fixed parameters (clips encoded by ffmpeg, generated images), made
  once and reused: the same parameters always give the same file, and fieldstudio never writes into them.
  Each is made under a temporary name and renamed when complete, so an interrupted run leaves no half file.
- ``_work/runs/<benchmark>/``: everything fieldstudio writes (projects, their indexes and thumbnails,
  user settings, the data and log folders), emptied at the start of every run: no project, setting or
  cache left by an earlier run changes a figure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

WORK = Path(__file__).resolve().parent / "_work"
INPUTS = WORK / "inputs"
RUNS = WORK / "runs"


def fresh_run_folder(name: str | None = None) -> Path:
    """Empty ``_work/runs/<name>`` (default: the running benchmark's name) and point fieldstudio's config,
    data and log folders into it (``FIELDSTUDIO_CONFIG_DIR``, ``..._DATA_DIR``, ``..._LOG_DIR`` in
    ``os.environ``, inherited by child processes). Returns the folder."""
    name = name or Path(sys.argv[0]).stem.removeprefix("bench_")
    folder = RUNS / name
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for key, sub in (("FIELDSTUDIO_CONFIG_DIR", "config"), ("FIELDSTUDIO_DATA_DIR", "data"),
                     ("FIELDSTUDIO_LOG_DIR", "logs")):
        (folder / sub).mkdir()
        os.environ[key] = str(folder / sub)
    return folder


def made_once(name: str, make: Callable[[Path], object]) -> Path:
    """``_work/inputs/<name>``, made by ``make(path)`` the first time (a file or a folder).

    ``make`` writes to a temporary path with the same suffix, renamed to the final name once it returns;
    an exception leaves nothing behind."""
    final = INPUTS / name
    if final.exists():
        return final
    INPUTS.mkdir(parents=True, exist_ok=True)
    partial = final.with_name(f"partial-{os.getpid()}-{final.name}")
    try:
        make(partial)
        partial.rename(final)
    finally:
        if partial.is_dir():
            shutil.rmtree(partial, ignore_errors=True)
        else:
            partial.unlink(missing_ok=True)
    return final


def ffmpeg(*args: str) -> None:
    """Run ``ffmpeg -v error -y ARGS`` (raises CalledProcessError if it fails)."""
    subprocess.run(["ffmpeg", "-v", "error", "-y", *args], check=True)


def clip_60s_1080p() -> Path:
    """60 s of 1080p30 H.264 with a keyframe every 2 s (60 frames) and B-frames, made by ffmpeg."""
    return made_once("clip_60s_1080p.mp4", lambda out: ffmpeg(
        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=30", "-t", "60", "-c:v", "libx264", "-preset",
        "ultrafast", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0", "-bf", "2", "-pix_fmt", "yuv420p",
        str(out)))


def random_jpegs(name: str, count: int, height: int, width: int, seed: int, stem: str) -> Path:
    """A folder of ``count`` JPEGs of uniform noise (``stem_00000.jpg``...), the same for the same arguments."""
    def make(folder: Path) -> None:
        import cv2
        import numpy as np

        folder.mkdir()
        rng = np.random.default_rng(seed)
        for i in range(count):
            cv2.imwrite(str(folder / f"{stem}_{i:05d}.jpg"), rng.integers(0, 255, (height, width, 3), dtype=np.uint8))

    return made_once(name, make)
